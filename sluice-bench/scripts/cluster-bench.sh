#!/usr/bin/env bash
# Throughput of a 3-node sluice-server cluster on loopback, driven by the load driver through one
# node, and of one standalone node driven the same way.
#   sluice-bench/scripts/cluster-bench.sh [follower|leader|standalone, default follower] [seconds, default 20]
# Starts node N on 127.0.0.N:$PORT (default 28848; gRPC +1000, Raft -1000) with --peers naming all
# three (standalone: node 1 alone), each on a fresh data directory, waits until every node is ready,
# then runs the config and naming throughput scenarios (lean driver, closed loop, 64 in flight over
# 4 connections) through a follower, the leader or the standalone node. The driver is given every
# node's PID, so the JSON line's serverCpuSec is the CPU all nodes spent in the measured window and
# opsPerServerCpuSec is per second of the whole cluster's CPU. A summary line per scenario follows,
# with the 1-minute load average at its end.
# Warm-up: WARMUP seconds per scenario before the measured window (default 30). Three JVMs
# sharing one core compile the same code three times over: with 5 s, C2 was still 36-49 % of every
# node's CPU in the measured window (async-profiler), so the figures measured the JIT.
# SCENARIOS (default all four) picks the scenarios, space-separated.
# DRIVER_ARGS are added to the driver's arguments, e.g. DRIVER_ARGS="--concurrency 1 --connections 1"
# for commit latency with one write in flight (no queueing behind other writes).
# Pinning: every node on CPUS_NODES (default 0), the driver on CPUS_DRIVER (default 1), as the
# standalone runs in sluice-bench/README.md; on a machine with more cores give each node its own.
# Needs sluice-bench/target/benchmarks.jar (see sluice-bench/README.md, "Build").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
through="${1:-follower}"
seconds="${2:-20}"
warmup="${WARMUP:-30}"
scenarios="${SCENARIOS:-config-query config-publish naming-register naming-query}"
read -r -a driver_args <<< "${DRIVER_ARGS:-}"
cpus_nodes="${CPUS_NODES:-0}"
cpus_driver="${CPUS_DRIVER:-1}"
port="${PORT:-28848}"
case "$through" in follower | leader | standalone) ;; *) echo "follower, leader or standalone, not $through" >&2; exit 2 ;; esac
source "$root/sluice-bench/scripts/cluster-lib.sh"
if [ "$through" = standalone ]; then start_standalone; else start_cluster; fi
target="$leader"
if [ "$through" = follower ]; then
  for n in 1 2 3; do
    [ "127.0.0.$n" != "$leader" ] && { target="127.0.0.$n"; break; }
  done
fi
all_pids="$(IFS=,; echo "${pids[*]}")"
echo "up: leader $leader, driving $target ($through); nodes on CPUs $cpus_nodes, driver on $cpus_driver; logs in $work"
echo "start $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
for scenario in $scenarios; do
  taskset -c "$cpus_driver" java -cp "$jar" io.sluice.bench.load.LoadDriver run \
    --server "$target:$port" --server-pid "$all_pids" --client lean --scenarios "$scenario" \
    --loop closed --duration "$seconds" --warmup "$warmup" ${driver_args[@]+"${driver_args[@]}"} \
    --out "$work/results.jsonl" | grep '^{' || true
done
echo "end $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
python3 - "$work/results.jsonl" "$through" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(f"{sys.argv[2]}: {r['scenario']}: {r['opsPerSec']:.0f} ops/s, p50 {r['p50Ms']} ms, p99 {r['p99Ms']} ms,"
          f" {r['errors']} errors; all nodes {r['serverCpuSec']} CPU s -> {r['opsPerServerCpuSec']} ops per CPU-second")
PY
