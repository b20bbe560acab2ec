# Sourced by the cluster-*.sh scripts: a 3-node sluice-server cluster on loopback.
# Node N listens on 127.0.0.N:$port (gRPC port + 1000, Raft port - 1000), with --peers naming all
# three, on a fresh data directory under $work; every node is pinned to $cpus_nodes. After
# start_cluster: pids (one per node), leader (its address, 127.0.0.N), and every node is ready.
# stop_cluster (SIGTERM, then wait) runs on exit. start_standalone starts node 1 alone instead.
# Sourcing it also checks for the benchmarks jar ($jar) and makes the run's directory ($work,
# named after the script), where the nodes' data and logs go.
jar="$root/sluice-bench/target/benchmarks.jar"
[ -f "$jar" ] || { echo "build first: mvn -B -q -pl sluice-server,sluice-bench -am package -DskipTests" >&2; exit 1; }
work="$(mktemp -d -t "sluice-$(basename "$0" .sh).XXXXXX")"
pids=()

# Starts node N (1-3) of the cluster on its data directory, its output appended to node-N.log.
start_node() {
  local n="$1"
  taskset -c "$cpus_nodes" "$root/bin/sluice" server --bind "127.0.0.$n" --port "$port" \
    --peers "127.0.0.1:$port,127.0.0.2:$port,127.0.0.3:$port" --data-dir "$work/node-$n" \
    >>"$work/node-$n.log" 2>&1 &
  pids[$((n - 1))]=$!
}

start_cluster() {
  for n in 1 2 3; do
    start_node "$n"
    # bin/sluice builds the server on first use; let the first node do it alone.
    [ "$n" = 1 ] && sleep 5
  done
  trap stop_cluster EXIT
  for n in 1 2 3; do
    until grep -q "sluice server ready" "$work/node-$n.log" 2>/dev/null; do
      if ! kill -0 "${pids[$((n - 1))]}" 2>/dev/null; then
        echo "node $n exited:" >&2
        tail -n 30 "$work/node-$n.log" >&2
        exit 1
      fi
      sleep 0.2
    done
  done
  leader="$(curl -sf "http://127.0.0.1:$port/nacos/v1/core/cluster/nodes" | python3 -c '
import json, sys
for member in json.load(sys.stdin)["data"]:
    print(member["extendInfo"]["raftMetaData"]["metaDataMap"]["sluice"]["leader"].split(":")[0])
    break')"
}

# One node on 127.0.0.1:$port without peers (a one-peer group), for figures beside the cluster's.
start_standalone() {
  taskset -c "$cpus_nodes" "$root/bin/sluice" server --bind 127.0.0.1 --port "$port" \
    --data-dir "$work/node-1" >"$work/node-1.log" 2>&1 &
  pids+=($!)
  trap stop_cluster EXIT
  until grep -q "sluice server ready" "$work/node-1.log" 2>/dev/null; do
    kill -0 "${pids[0]}" 2>/dev/null || { echo "the node exited:" >&2; tail -n 30 "$work/node-1.log" >&2; exit 1; }
    sleep 0.2
  done
  leader=127.0.0.1
}

stop_cluster() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# The pid of node 127.0.0.N.
pid_of() {
  echo "${pids[$(( ${1##*.} - 1 ))]}"
}
