#!/usr/bin/env bash
# Ephemeral cross-node visibility on a 3-node loopback cluster, through the official nacos-client.
#   sluice-bench/scripts/cluster-visibility.sh [rounds, default 1000] [gap between rounds in ms, default 20]
# Starts the cluster (see cluster-lib.sh; PORT, default 28848, and CPUS_NODES, default 0-1: all
# three nodes share the machine's cores), then runs io.sluice.bench.load.ClusterVisibility on
# CPUS_DRIVER (default 0-1): one client per node, each round registers one instance through one node
# and times it until a subscriber on another node sees it (100 warm-up rounds first, not counted).
# Prints p50/p99/max overall and by the owner's and watcher's roles, with the 1-minute load average;
# every round is in $work/rounds.csv. Needs sluice-bench/target/benchmarks.jar.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds="${1:-1000}"
gap="${2:-20}"
cpus_nodes="${CPUS_NODES:-0-1}"
cpus_driver="${CPUS_DRIVER:-0-1}"
port="${PORT:-28848}"
source "$root/sluice-bench/scripts/cluster-lib.sh"
start_cluster
echo "cluster up: leader $leader; nodes on CPUs $cpus_nodes, driver on $cpus_driver; logs in $work"
echo "start $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
(cd "$work" && taskset -c "$cpus_driver" java -cp "$jar" io.sluice.bench.load.ClusterVisibility \
  "127.0.0.1:$port,127.0.0.2:$port,127.0.0.3:$port" --rounds "$rounds" --warmup 100 \
  --gap-ms "$gap" --leader "$leader:$port" --out "$work/rounds.csv")
echo "end $(date -u +%H:%M:%S) UTC, 1-min load $(cut -d' ' -f1 /proc/loadavg)"
