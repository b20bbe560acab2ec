#!/usr/bin/env python3
"""Splits each failover of a cluster-failover.sh run into phases, from timestamps, not guesses.

  sluice-bench/scripts/failover-phases.py WORK_DIR

WORK_DIR is a run's directory (cluster-failover.sh prints it): kills.csv (the script's kill, process
gone and new-leader-seen times), events.csv (the driver's write attempts) and node-N.log, written
with PHASES=1 (the default), which sets the log levels this reads: Ratis's server at INFO (election
milestones) and its client at DEBUG (each forwarded batch's answer, each retry). Times are
milliseconds after the kill:

  gone       the killed JVM is a zombie or gone (its sockets closed: the others' streams break)
  heartbeat  the last time a surviving follower heard from the killed leader (the earlier of the
             two; FollowerState's "lastRpcElapsedTime" at its change to candidate); negative: before
             the kill
  candidate  the first survivor gave up on the leader and became a candidate
  elected    the winner changed role to LEADER (after a pre-vote and a vote round; "rounds" counts
             the rounds of all survivors' elections, 2 when the first one succeeded)
  learnt     the other survivor learnt of the new leader ("change Leader from ... to ...")
  ready      the new leader applied the first entry of its term ("Leader ... is ready"): it takes
             writes from now on
  fwd_ack    the first forwarded batch answered SUCCESS to a survivor after the new leader was
             elected (Ratis client, DEBUG "receive*")
  client_ack the first config write begun after the kill acknowledged to the official client
  retries    the forwarding clients' scheduled retries between the kill and client_ack, and how
             many of those slept (sleep > 0)

The last lines give the median and range of each column over the kills.
"""
import csv
import datetime
import os
import re
import statistics
import sys

LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) \[([^\]]*)\] (\w+) (\S+) - (.*)$")


def epoch_ms(stamp):
    # The launcher logs in the JVM's default zone, the same as this process's local time.
    return int(datetime.datetime.fromisoformat(stamp).timestamp() * 1000)


def read_log(path):
    lines = []
    if not os.path.exists(path):
        return lines
    with open(path, errors="replace") as log:
        for raw in log:
            match = LINE.match(raw.rstrip("\n"))
            if match:
                lines.append((epoch_ms(match.group(1)), match.group(4), match.group(5)))
    return lines


def duration_ms(text):
    match = re.match(r"([\d.]+)\s*(ns|us|μs|ms|s|min)?", text)
    value = float(match.group(1))
    unit = match.group(2) or "ms"
    return value * {"ns": 1e-6, "us": 1e-3, "μs": 1e-3, "ms": 1, "s": 1000, "min": 60000}[unit]


def first(lines, since, until, logger, pattern):
    for t, name, message in lines:
        if since <= t < until and logger in (None, name) and re.search(pattern, message):
            return t, message
    return None, None


def main(work):
    kills = list(csv.DictReader(open(os.path.join(work, "kills.csv"))))
    events = list(csv.DictReader(open(os.path.join(work, "events.csv"))))
    logs = {n: read_log(os.path.join(work, "node-%d.log" % n)) for n in (1, 2, 3)}
    columns = ["gone", "heartbeat", "candidate", "elected", "learnt", "ready", "fwd_ack", "client_ack",
               "rounds", "retries", "slept"]
    rows = []
    for i, kill in enumerate(kills):
        t0 = int(kill["killed_ms"])
        until = int(kills[i + 1]["killed_ms"]) if i + 1 < len(kills) else float("inf")
        victim = int(kill["killed"].split(".")[-1])
        survivors = [n for n in (1, 2, 3) if n != victim]
        row = {c: None for c in columns}
        if kill.get("gone_ms"):
            row["gone"] = int(kill["gone_ms"])
        heartbeats, candidates = [], []
        for n in survivors:
            t, message = first(logs[n], t0, until, "FollowerState", r"change to CANDIDATE")
            if t is not None:
                candidates.append(t)
                elapsed = re.search(r"lastRpcElapsedTime:\s*([\d.]+\s*\w+)", message)
                if elapsed:
                    heartbeats.append(t - duration_ms(elapsed.group(1)))
        if heartbeats:
            row["heartbeat"] = min(heartbeats) - t0
        if candidates:
            row["candidate"] = min(candidates) - t0
        elected, winner = None, None
        for n in survivors:
            t, _ = first(logs[n], t0, until, None, r"changes role from CANDIDATE to LEADER")
            if t is not None and (elected is None or t < elected):
                elected, winner = t, n
        if elected is not None:
            row["elected"] = elected - t0
            ready, _ = first(logs[winner], elected, until, None, r"is ready since appliedIndex")
            if ready is not None:
                row["ready"] = ready - t0
            for n in survivors:
                if n != winner:
                    learnt, _ = first(logs[n], elected, until, None, r"change Leader from \S+ to (?!null)")
                    if learnt is not None:
                        row["learnt"] = learnt - t0
            rounds = 0
            for n in survivors:
                rounds += sum(1 for t, name, message in logs[n]
                              if t0 <= t <= elected and name == "LeaderElection"
                              and re.search(r"round \d+: result", message))
            row["rounds"] = rounds
            acks = []
            for n in survivors:
                t, _ = first(logs[n], elected, until, "OrderedAsync", r"receive\* .*SUCCESS")
                if t is not None:
                    acks.append(t)
            if acks:
                row["fwd_ack"] = min(acks) - t0
        oks = [int(e["ended_ms"]) for e in events
               if e["kind"] == "config" and e["outcome"] == "ok" and t0 <= int(e["started_ms"]) < until]
        if oks:
            row["client_ack"] = min(oks) - t0
            end = min(oks)
            retries = [message for n in survivors for t, name, message in logs[n]
                       if t0 <= t <= end and name == "OrderedAsync" and "schedule* retry" in message]
            row["retries"] = len(retries)
            row["slept"] = sum(1 for m in retries if not re.search(r"sleep 0\s*(ms|ns|s)?\b", m))
        row["kill"] = kill["round"]
        row["victim"] = kill["killed"]
        row["winner"] = "127.0.0.%d" % winner if winner else ""
        rows.append(row)
    print("phases (ms after the kill): " + ", ".join(columns))
    for row in rows:
        print("kill %s (%s, new leader %s): %s" % (
            row["kill"], row["victim"], row["winner"],
            ", ".join("%s %s" % (c, "-" if row[c] is None else "%d" % row[c]) for c in columns)))
    for c in columns:
        values = [row[c] for row in rows if row[c] is not None]
        if values:
            print("%s: median %d, range %d-%d over %d kills" % (
                c, statistics.median(values), min(values), max(values), len(values)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: failover-phases.py WORK_DIR")
    main(sys.argv[1])
