#!/usr/bin/env bash
# Heap per client connection, per subscription and per ephemeral instance in a 3-node cluster on
# loopback.
#   sluice-bench/scripts/cluster-connections.sh [connections, default 10000] [registrations each, default 1] [subscriptions each, default 5] [services, default 1000]
# Starts the cluster (see cluster-lib.sh; PORT, default 28848, and CPUS_NODES, default 0), then runs
# io.sluice.bench.load.ConnectionFootprint on CPUS_DRIVER (default 1) against one follower: the
# connections bare, then each subscribing, then each registering (pushed to the subscribers);
# every node's live heap (after a full GC) is measured at each step: the follower holds the
# connections, subscriptions and owned instances, the other two a replicated copy of the
# instances. Needs sluice-bench/target/benchmarks.jar, jcmd on the PATH and `ulimit -n` above the
# connection count. The nodes' logs are in the run's directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
connections="${1:-10000}"
registrations="${2:-1}"
subscriptions="${3:-5}"
services="${4:-1000}"
cpus_nodes="${CPUS_NODES:-0}"
cpus_driver="${CPUS_DRIVER:-1}"
port="${PORT:-28848}"
source "$root/sluice-bench/scripts/cluster-lib.sh"
start_cluster
target="127.0.0.1"
[ "$leader" = "$target" ] && target="127.0.0.2"
echo "cluster up: leader $leader; $connections connections to $target; logs in $work"
echo "start $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
sleep 5
others=()
for n in 1 2 3; do
  [ "127.0.0.$n" = "$target" ] || others+=("127.0.0.$n:$port=$(pid_of "127.0.0.$n")")
done
taskset -c "$cpus_driver" java -cp "$jar" io.sluice.bench.load.ConnectionFootprint "$target:$port" \
  "$(pid_of "$target")" "$connections" "$registrations" "$subscriptions" "$services" "${others[@]}"
echo "end $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
