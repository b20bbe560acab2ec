#!/usr/bin/env bash
# Heap per ephemeral instance on each node of a 3-node cluster on loopback.
#   sluice-bench/scripts/cluster-footprint.sh [instances, default 100000] [services, default instances/10]
# Starts the cluster (see cluster-lib.sh; PORT, default 28848, and CPUS_NODES, default 0), measures
# each node's live heap (jcmd GC.class_histogram: a full GC, then the live objects' bytes), registers
# the instances through one follower with NamingFootprint (100 B of metadata each, 200 connections)
# and holds them, waits until every node lists all of them, measures again and prints bytes per
# instance per node: the follower that owns the connections, and the two nodes that hold a
# replicated copy. Needs sluice-bench/target/benchmarks.jar and jcmd on the PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
instances="${1:-100000}"
services="${2:-$(( instances / 10 ))}"
cpus_nodes="${CPUS_NODES:-0}"
port="${PORT:-28848}"
source "$root/sluice-bench/scripts/cluster-lib.sh"
start_cluster
owner="127.0.0.1"
[ "$leader" = "$owner" ] && owner="127.0.0.2"
echo "cluster up: leader $leader; instances registered through $owner; logs in $work"

# A full GC, then the live objects' bytes; the histogram itself is kept in the run's directory
# (histogram-node-N-STEP.txt) to see where the bytes are.
live_heap() {
  jcmd "$(pid_of "127.0.0.$1")" GC.class_histogram >"$work/histogram-node-$1-$2.txt"
  awk '$1 == "Total" { print $3 }' "$work/histogram-node-$1-$2.txt"
}

instance_count() {
  curl -sf "http://$1:$port/nacos/v1/ns/operator/metrics" | python3 -c 'import json, sys; print(json.load(sys.stdin)["instanceCount"])'
}

declare -A idle
sleep 5
for n in 1 2 3; do idle[$n]=$(live_heap "$n" idle); done

java -Dhold.seconds=600 -cp "$jar" io.sluice.bench.load.NamingFootprint "$owner:$port" \
  "$(pid_of "$owner")" "$instances" "$services" 200 0 1 >"$work/footprint.log" 2>&1 &
driver=$!
for n in 1 2 3; do
  until [ "$(instance_count "127.0.0.$n" 2>/dev/null || echo 0)" -ge "$instances" ]; do
    kill -0 "$driver" 2>/dev/null || { echo "the driver exited:" >&2; cat "$work/footprint.log" >&2; exit 1; }
    sleep 1
  done
done
sleep 5
for n in 1 2 3; do
  full=$(live_heap "$n" full)
  role="replica"
  [ "127.0.0.$n" = "$owner" ] && role="owner"
  [ "127.0.0.$n" = "$leader" ] && role="$role, leader"
  awk -v n="$n" -v role="$role" -v a="${idle[$n]}" -v b="$full" -v i="$instances" \
    'BEGIN { printf "node %s (%s): live heap %.1f MiB idle, %.1f MiB with %d instances: %.0f bytes per instance\n", n, role, a / 1048576, b / 1048576, i, (b - a) / i }'
done
echo "1-min load $(cut -d' ' -f1 /proc/loadavg); class histograms in $work"
kill "$driver" 2>/dev/null || true
wait "$driver" 2>/dev/null || true
