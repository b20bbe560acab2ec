#!/usr/bin/env bash
# Failover time of a 3-node cluster on loopback, outside the tests: the leader is killed (SIGKILL)
# KILLS times under a steady stream of writes, and restarted each time.
#   sluice-bench/scripts/cluster-failover.sh [kills, default 5]
# Starts the cluster (see cluster-lib.sh; PORT, default 29848, and CPUS_NODES, default 0), then
# ClusterFailover (on CPUS_DRIVER, default 1), which writes through the official nacos-client given
# all three addresses: CONFIG_WRITERS (3) threads publishing new configs and REGISTRARS (2)
# registering new ephemeral instances, each PAUSE_MS (20) apart, a failed write retried until
# acknowledged. After WARMUP seconds (60), each round: find the leader, kill -9 it, poll
# /nacos/v1/core/cluster/nodes on the other two every ~20 ms until one reports a different leader,
# wait SETTLE seconds (10), restart the killed node on its data directory, wait for its ready line
# and for the leader to report all three UP, then GAP seconds (10) before the next round. Then the
# driver stops writing and reads every acknowledged config back from every node and checks that every
# node lists every acknowledged instance; it fails if any is missing.
# Prints per kill, from the kill (ms): a new leader reported by cluster/nodes; the first write begun
# after the kill acknowledged (config and instance); every config writer's first such write
# acknowledged; the failed attempts (retried) begun from the kill to the next round; then the median
# and range of each. Also the 1-minute load's range. Needs sluice-bench/target/benchmarks.jar.
# With PHASES=1 (the default) the nodes log Ratis's election milestones (INFO) and its forwarding
# clients' answers and retries (DEBUG), and failover-phases.py then splits each failover into
# phases: process gone, last heartbeat, candidate, leader elected, leader ready, first forwarded
# write answered, client acknowledged. PHASES=0 leaves the nodes' log levels alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
kills="${1:-5}"
cpus_nodes="${CPUS_NODES:-0}"
cpus_driver="${CPUS_DRIVER:-1}"
port="${PORT:-29848}"
warmup="${WARMUP:-60}"
settle="${SETTLE:-10}"
gap="${GAP:-10}"
if [ "${PHASES:-1}" = 1 ]; then
  # Election milestones (FollowerState, LeaderElection; role changes and "leader ready" are logged
  # by RaftServer$Division) and the forwarding clients' answers and retries (OrderedAsync).
  ratis_logs='-Dsluice.log.level.org.apache.ratis.server.impl=info
    -Dsluice.log.level.org.apache.ratis.server.RaftServer$Division=info
    -Dsluice.log.level.org.apache.ratis.client.impl=debug'
  ratis_logs="${ratis_logs//$'\n'/ }"
  export SLUICE_JAVA_OPTS="${SLUICE_JAVA_OPTS:-} $ratis_logs"
fi
source "$root/sluice-bench/scripts/cluster-lib.sh"
start_cluster
echo "cluster up: leader $leader; logs in $work"

driver=""
stop_all() {
  [ -n "$driver" ] && kill "$driver" 2>/dev/null || true
  stop_cluster
}
trap stop_all EXIT

now_ms() { local t="${EPOCHREALTIME/./}"; echo "${t:0:13}"; }
load_min=999
load_max=0
note_load() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  load_min=$(awk -v a="$load_min" -v b="$load" 'BEGIN { print (b < a ? b : a) }')
  load_max=$(awk -v a="$load_max" -v b="$load" 'BEGIN { print (b > a ? b : a) }')
}

# The leader node N (127.0.0.N) reports, or nothing if it answers none.
leader_seen_by() {
  curl -sf -m 1 "http://127.0.0.$1:$port/nacos/v1/core/cluster/nodes" 2>/dev/null |
    grep -o '"leader":"[0-9.]*' | head -n 1 | cut -d'"' -f4 || true
}

# True once the leader reports all three members UP.
all_up() {
  local l="$1"
  [ "$(curl -sf -m 2 "http://$l:$port/nacos/v1/core/cluster/nodes" 2>/dev/null |
    grep -o '"state":"UP"' | wc -l)" -ge 3 ]
}

servers="127.0.0.1:$port,127.0.0.2:$port,127.0.0.3:$port"
taskset -c "$cpus_driver" java -DJM.LOG.PATH="$work/client-logs" -DJM.SNAPSHOT.PATH="$work/client" \
  -cp "$jar" io.sluice.bench.load.ClusterFailover "$servers" --events "$work/events.csv" \
  --stop-file "$work/stop" --config-writers "${CONFIG_WRITERS:-3}" --registrars "${REGISTRARS:-2}" \
  --pause-ms "${PAUSE_MS:-20}" >"$work/driver.log" 2>&1 &
driver=$!
for (( s = 0; s < warmup; s++ )); do
  sleep 1
  note_load
  kill -0 "$driver" 2>/dev/null || { echo "the driver exited:" >&2; cat "$work/driver.log" >&2; exit 1; }
done

echo "round,killed,killed_ms,gone_ms,leader_seen_ms,new_leader,restarted_ms,rejoined_ms" >"$work/kills.csv"
for (( k = 1; k <= kills; k++ )); do
  old="$(leader_seen_by 1)"
  [ -n "$old" ] || old="$(leader_seen_by 2)"
  [ -n "$old" ] || { echo "no node reports a leader" >&2; exit 1; }
  victim="${old##*.}"
  others=""
  for n in 1 2 3; do [ "$n" = "$victim" ] || others="$others 127.0.0.$n"; done
  # One process kills and polls (a fork per poll would add its own delay on a loaded machine):
  # prints the kill's and the sighting's epoch milliseconds and the new leader.
  read -r killed_ms seen_ms new gone_ms < <(python3 - "$(pid_of "$old")" "$old" "$port" $others <<'PY'
import json, os, signal, sys, threading, time, urllib.request
pid, old, port, others = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
gone = []
def watch_exit():
    # Gone once a zombie (the kernel has closed its sockets) or reaped.
    while True:
        try:
            with open("/proc/%d/stat" % pid) as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    break
        except OSError:
            break
        time.sleep(0.002)
    gone.append(time.time())
watcher = threading.Thread(target=watch_exit, daemon=True)
killed = time.time()
os.kill(pid, signal.SIGKILL)
watcher.start()
while time.time() - killed < 60:
    for node in others:
        try:
            with urllib.request.urlopen("http://%s:%s/nacos/v1/core/cluster/nodes" % (node, port), timeout=1) as answer:
                data = json.load(answer)["data"]
            leader = (data[0]["extendInfo"]["raftMetaData"]["metaDataMap"]["sluice"]["leader"] or "").split(":")[0]
        except Exception:
            leader = ""
        if leader and leader != old:
            seen = time.time()
            watcher.join(10)
            print(int(killed * 1000), int(seen * 1000), leader, int((gone[0] - killed) * 1000) if gone else "")
            sys.exit(0)
    time.sleep(0.02)
print(int(killed * 1000), 0, "", "")
PY
)
  wait "$(pid_of "$old")" 2>/dev/null || true
  [ -n "$new" ] || { echo "no new leader 60 s after the kill" >&2; exit 1; }
  note_load
  sleep "$settle"
  readies=$(grep -c "sluice server ready" "$work/node-$victim.log" || true)
  restarted_ms=$(now_ms)
  start_node "$victim"
  until [ "$(grep -c "sluice server ready" "$work/node-$victim.log" || true)" -gt "$readies" ] && all_up "$new"; do
    kill -0 "$(pid_of "$old")" 2>/dev/null || { echo "node $victim exited:" >&2; tail -n 30 "$work/node-$victim.log" >&2; exit 1; }
    if [ $(( $(now_ms) - restarted_ms )) -gt 180000 ]; then echo "node $victim did not rejoin in 180 s" >&2; exit 1; fi
    sleep 0.2
  done
  rejoined_ms=$(now_ms)
  echo "$k,$old,$killed_ms,$gone_ms,$(( seen_ms - killed_ms )),$new,$restarted_ms,$(( rejoined_ms - restarted_ms ))" >>"$work/kills.csv"
  echo "kill $k: leader $old killed, gone after ${gone_ms:-?} ms; $new reported leader after $(( seen_ms - killed_ms )) ms; restarted node rejoined after $(( rejoined_ms - restarted_ms )) ms"
  for (( s = 0; s < gap; s++ )); do sleep 1; note_load; done
done

touch "$work/stop"
verified=0
wait "$driver" || verified=$?
driver=""
grep -E '^(acknowledged:|node [0-9.:]+: )' "$work/driver.log" || true

python3 - "$work/kills.csv" "$work/events.csv" "${CONFIG_WRITERS:-3}" <<'EOF'
import csv, statistics, sys
kills = list(csv.DictReader(open(sys.argv[1])))
events = list(csv.DictReader(open(sys.argv[2])))
writers = int(sys.argv[3])
for e in events:
    e["started_ms"] = int(e["started_ms"]); e["ended_ms"] = int(e["ended_ms"]); e["writer"] = int(e["writer"])
rows = []
for i, k in enumerate(kills):
    t0 = int(k["killed_ms"])
    until = int(kills[i + 1]["killed_ms"]) if i + 1 < len(kills) else float("inf")
    after = [e for e in events if t0 <= e["started_ms"] < until]
    def first_ok(kind, writer=None):
        oks = [e["ended_ms"] for e in after if e["kind"] == kind and e["outcome"] == "ok"
               and (writer is None or e["writer"] == writer)]
        return min(oks) - t0 if oks else None
    per_writer = [first_ok("config", w) for w in range(writers)]
    every = None if None in per_writer or not per_writer else max(per_writer)
    fails = sum(1 for e in after if e["outcome"] == "fail")
    rows.append((int(k["leader_seen_ms"]), first_ok("config"), first_ok("instance"), every, fails,
                 int(k["rejoined_ms"])))
    print("kill %s (%s): new leader reported %d ms; config acknowledged again %s ms, instance %s ms, "
          "every config writer %s ms; %d failed attempts (retried); restarted node rejoined in %d ms"
          % (k["round"], k["killed"], rows[-1][0], rows[-1][1], rows[-1][2], rows[-1][3], fails, rows[-1][5]))
names = ["new leader reported (ms)", "config acknowledged again (ms)", "instance acknowledged again (ms)",
         "every config writer again (ms)", "failed attempts per kill", "restarted node rejoined (ms)"]
for c, name in enumerate(names):
    values = [r[c] for r in rows if r[c] is not None]
    if values:
        print("%s: median %s, range %s-%s over %d kills" % (name, statistics.median(values), min(values), max(values), len(values)))
EOF
[ "${PHASES:-1}" = 1 ] && python3 "$root/sluice-bench/scripts/failover-phases.py" "$work"
note_load
echo "1-min load $load_min-$load_max during the run; events and node logs in $work"
if [ "$verified" = 0 ]; then
  echo "no acknowledged write lost"
else
  echo "ACKNOWLEDGED WRITES MISSING (driver exit $verified); see $work/driver.log" >&2
  exit 1
fi
