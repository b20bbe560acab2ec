#!/usr/bin/env bash
# A 3-node sluice-server cluster on loopback, driven by the load driver through one node.
#   sluice-bench/scripts/cluster-bench.sh [leader|follower, default follower] [seconds, default 20]
# Starts node N on 127.0.0.N:$PORT (default 28848; gRPC +1000, Raft -1000) with --peers naming all three, each on a
# fresh data directory, waits until every node is ready, then runs the config and naming throughput
# scenarios (lean driver, closed loop) through the leader or a follower. For each scenario it prints
# the driver's JSON line (its server CPU is the driven node's only) and then the CPU seconds the
# whole cluster (all three processes) spent during that driver run, seeding and warm-up included,
# with the run's wall time and the 1-minute load average.
# Pinning: every node on CPUS_NODES (default 0), the driver on CPUS_DRIVER (default 1), as the
# standalone runs in sluice-bench/README.md; on a machine with more cores give each node its own.
# Needs sluice-bench/target/benchmarks.jar (see sluice-bench/README.md, "Build").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
through="${1:-follower}"
seconds="${2:-20}"
cpus_nodes="${CPUS_NODES:-0}"
cpus_driver="${CPUS_DRIVER:-1}"
port="${PORT:-28848}"
jar="$root/sluice-bench/target/benchmarks.jar"
[ -f "$jar" ] || { echo "build first: mvn -B -q -pl sluice-server,sluice-bench -am package -DskipTests" >&2; exit 1; }
work="$(mktemp -d -t sluice-cluster-bench.XXXXXX)"
source "$root/sluice-bench/scripts/cluster-lib.sh"
start_cluster
target="$leader"
if [ "$through" = follower ]; then
  for n in 1 2 3; do
    [ "127.0.0.$n" != "$leader" ] && { target="127.0.0.$n"; break; }
  done
fi
target_pid="$(pid_of "$target")"
echo "cluster up: leader $leader, driving $target ($through); nodes on CPUs $cpus_nodes, driver on $cpus_driver; logs in $work"

cluster_cpu_ticks() {
  local total=0
  for pid in "${pids[@]}"; do
    # utime and stime: fields 14 and 15 of /proc/PID/stat (the command name has no spaces here).
    total=$(( total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") ))
  done
  echo "$total"
}

hz=$(getconf CLK_TCK)
for scenario in config-query config-publish naming-register naming-query; do
  before=$(cluster_cpu_ticks)
  start=$(date +%s.%N)
  taskset -c "$cpus_driver" java -cp "$jar" io.sluice.bench.load.LoadDriver run \
    --server "$target:$port" --server-pid "$target_pid" --client lean --scenarios "$scenario" \
    --loop closed --duration "$seconds" --warmup 5 | grep '^{' || true
  end=$(date +%s.%N)
  after=$(cluster_cpu_ticks)
  awk -v s="$scenario" -v t=$(( after - before )) -v hz="$hz" -v a="$start" -v b="$end" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "%s: cluster CPU %.1f s over %.1f s of driver run; 1-min load %s\n", s, t / hz, b - a, load }'
done
