"""A Nacos 2.x naming client on gRPC's C core (python3-grpcio), for GrpcCoreClientIT.

Every non-Java Nacos SDK speaks the same two gRPC methods through another HTTP/2 stack; this one
is the stack the Python SDK uses. It goes through the connection's whole life the way the SDKs
do, checking each answer, and prints one line per step on stdout:

  1. ServerCheckRequest on the unary /Request/request       -> "checked <connectionId>"
  2. /BiRequestStream/requestBiStream, ConnectionSetupRequest; the server's SetupAckRequest
  3. SubscribeServiceRequest for the service                 -> "subscribed"
  4. InstanceRequest registerInstance (owned by this connection)
  5. the server pushes NotifySubscriberRequest on the stream holding the instance; it is
     answered with NotifySubscriberResponse and the same requestId    -> "pushed"
  6. ServiceQueryRequest sees the instance                   -> "registered"
Then it waits for its standard input to close, closes the channel (the server must drop the
instance) and exits 0. Any check that fails exits 1 with the reason on stderr.

Usage: nacos_grpc_core_client.py HOST GRPC_PORT SERVICE IP PORT
The protobuf messages are encoded by hand (Payload{metadata=2, body=3}, Metadata{type=3,
headers=7}, Any{type_url=1, value=2}), so only python3-grpcio is needed.
"""

import json
import queue
import sys
import threading

import grpc

TIMEOUT_S = 10


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def payload(kind, body):
    metadata = field(3, kind.encode())
    any_body = field(2, json.dumps(body).encode())
    return field(2, metadata) + field(3, any_body)


def fields(data):
    """Length-delimited fields of one message, as (number, bytes); other wire types skipped."""
    i, out = 0, []
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 2:
            size, i = read_varint(data, i)
            out.append((number, data[i : i + size]))
            i += size
        elif wire == 0:
            _, i = read_varint(data, i)
        else:
            raise ValueError("unexpected wire type %d" % wire)
    return out


def read_varint(data, i):
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def decode(raw):
    kind, body = None, None
    for number, data in fields(raw):
        if number == 2:
            kind = next(d.decode() for n, d in fields(data) if n == 3)
        elif number == 3:
            body = json.loads(next(d for n, d in fields(data) if n == 2))
    return kind, body


def fail(reason):
    print(reason, file=sys.stderr, flush=True)
    sys.exit(1)


def main():
    host, grpc_port, service, ip, port = sys.argv[1:6]
    channel = grpc.insecure_channel("%s:%s" % (host, grpc_port))
    identity = lambda b: b
    unary = channel.unary_unary(
        "/Request/request", request_serializer=identity, response_deserializer=identity
    )
    bidi = channel.stream_stream(
        "/BiRequestStream/requestBiStream",
        request_serializer=identity,
        response_deserializer=identity,
    )

    def call(kind, body, expect):
        answer_kind, answer = decode(unary(payload(kind, body), timeout=TIMEOUT_S))
        if answer_kind != expect or answer.get("resultCode") != 200:
            fail("%s answered %s %s" % (kind, answer_kind, answer))
        return answer

    check = call("ServerCheckRequest", {"headers": {}}, "ServerCheckResponse")
    print("checked", check["connectionId"], flush=True)

    outbound = queue.Queue()
    outbound.put(
        payload(
            "ConnectionSetupRequest",
            {
                "headers": {},
                "clientVersion": "Nacos-Python-Grpc-Core:interop",
                "tenant": "",
                "labels": {"module": "naming", "source": "sdk", "AppName": "interop"},
                "abilityTable": {},
                "module": "internal",
            },
        )
    )
    inbound = queue.Queue()

    def requests():
        while True:
            message = outbound.get()
            if message is None:
                return
            yield message

    stream = bidi(requests())

    def read():
        try:
            for message in stream:
                inbound.put(decode(message))
        except grpc.RpcError as e:
            inbound.put(("closed", {"code": str(e.code())}))

    threading.Thread(target=read, daemon=True).start()

    def next_push(kind):
        try:
            got_kind, body = inbound.get(timeout=TIMEOUT_S)
        except queue.Empty:
            fail("no %s on the stream within %d s" % (kind, TIMEOUT_S))
        if got_kind != kind:
            fail("expected %s on the stream, got %s %s" % (kind, got_kind, body))
        return body

    if check.get("supportAbilityNegotiation"):
        next_push("SetupAckRequest")

    named = {"namespace": "public", "serviceName": service, "groupName": "DEFAULT_GROUP"}
    # The stream's setup is asynchronous: requests before the server registered the connection
    # are refused with errorCode 301, as the SDKs know; retry those for a short while.
    for attempt in range(50):
        kind, answer = decode(
            unary(
                payload(
                    "SubscribeServiceRequest",
                    dict(named, headers={}, subscribe=True, clusters="", module="naming"),
                ),
                timeout=TIMEOUT_S,
            )
        )
        if answer.get("resultCode") == 200:
            break
        if answer.get("errorCode") != 301:
            fail("SubscribeServiceRequest answered %s %s" % (kind, answer))
        threading.Event().wait(0.1)
    else:
        fail("the connection was never registered")
    print("subscribed", flush=True)

    instance = {
        "ip": ip,
        "port": int(port),
        "weight": 1.0,
        "healthy": True,
        "enabled": True,
        "ephemeral": True,
        "clusterName": "DEFAULT",
        "metadata": {"sdk": "grpc-core"},
    }
    call(
        "InstanceRequest",
        dict(named, headers={}, type="registerInstance", instance=instance, module="naming"),
        "InstanceResponse",
    )

    while True:
        push = next_push("NotifySubscriberRequest")
        outbound.put(
            payload(
                "NotifySubscriberResponse",
                {"resultCode": 200, "errorCode": 0, "requestId": push["requestId"]},
            )
        )
        hosts = push["serviceInfo"].get("hosts") or []
        if any(h["ip"] == ip and h["port"] == int(port) for h in hosts):
            break
    print("pushed", flush=True)

    answer = call(
        "ServiceQueryRequest",
        dict(named, headers={}, cluster="", healthyOnly=False, udpPort=0, module="naming"),
        "QueryServiceResponse",
    )
    hosts = answer["serviceInfo"].get("hosts") or []
    if not any(h["ip"] == ip and h["metadata"].get("sdk") == "grpc-core" for h in hosts):
        fail("ServiceQueryRequest does not list the instance: %s" % answer)
    print("registered", flush=True)

    sys.stdin.read()
    outbound.put(None)
    channel.close()


if __name__ == "__main__":
    main()
