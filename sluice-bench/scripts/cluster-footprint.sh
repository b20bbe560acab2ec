#!/usr/bin/env bash
# Heap per ephemeral instance on each node of a 3-node cluster on loopback, and how long until
# every node holds them all.
#   sluice-bench/scripts/cluster-footprint.sh [instances, default 100000] [services, default instances/10]
# Starts the cluster (see cluster-lib.sh; PORT, default 28848, and CPUS_NODES, default 0), measures
# each node's live heap (jcmd GC.class_histogram: a full GC, then the live objects' bytes), registers
# the instances through one follower with NamingFootprint (100 B of metadata each, 200 connections)
# and holds them, waits until every node lists all of them (at most WAIT_SECONDS, default 900;
# progress every 10 s in progress.txt), measures again and prints bytes per instance per node: the
# follower that owns the connections, and the two nodes that hold a replicated copy. Also prints
# the seconds from the first registration until each node listed all of them, each node's GC
# count and time over the run (jstat), and the 1-minute load average's range meanwhile. Memory
# besides the live heap: each node's committed heap (jstat: survivor, eden and old capacities) and
# RSS, their largest during the run (sampled every 10 s), when every node lists all instances, and
# after IDLE_SECONDS (default 120) with the instances held and nothing else happening, before
# the histograms' full collections (which shrink the heap by themselves). SLUICE_JAVA_OPTS reaches
# the nodes (e.g. -Xlog:gc:file=... for the pauses, or heap options to compare). Needs
# sluice-bench/target/benchmarks.jar, jcmd and jstat on the PATH.
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

# Young and full collections and their seconds since start, then G1's concurrent cycles and the
# seconds of their pauses (remark, cleanup; "-" with the serial collector, read as 0):
# YGC YGCT FGC FGCT CGC CGCT.
gc_counts() {
  jstat -gc "$(pid_of "127.0.0.$1")" | awk 'NR == 2 {
    print $(NF-6), $(NF-5), $(NF-4), $(NF-3), ($(NF-2) == "-" ? 0 : $(NF-2)), ($(NF-1) == "-" ? 0 : $(NF-1)) }'
}

# Committed heap (S0C + S1C + EC + OC) and RSS of node N, in MiB: "heap rss".
memory_mib() {
  local pid heap rss
  pid="$(pid_of "127.0.0.$1")"
  heap=$(jstat -gc "$pid" | awk 'NR == 2 { printf "%.0f", ($1 + $2 + $5 + $7) / 1024 }')
  rss=$(awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
  echo "$heap $rss"
}
declare -A peak_heap peak_rss
note_memory() {
  local n heap rss
  for n in 1 2 3; do
    read -r heap rss <<<"$(memory_mib "$n")"
    if [ "$heap" -gt "${peak_heap[$n]:-0}" ]; then peak_heap[$n]=$heap; fi
    if [ "$rss" -gt "${peak_rss[$n]:-0}" ]; then peak_rss[$n]=$rss; fi
  done
}

declare -A gc_before done_at
for n in 1 2 3; do gc_before[$n]="$(gc_counts "$n")"; done
wait_seconds="${WAIT_SECONDS:-900}"
load_min=999
load_max=0
started=$(date +%s.%N)
java -Dhold.seconds=$(( wait_seconds + 300 )) -cp "$jar" io.sluice.bench.load.NamingFootprint "$owner:$port" \
  "$(pid_of "$owner")" "$instances" "$services" 200 0 1 >"$work/footprint.log" 2>&1 &
driver=$!
trap 'kill "$driver" 2>/dev/null || true; stop_cluster' EXIT
last_progress=0
finished=0
while [ "$finished" -lt 3 ]; do
  kill -0 "$driver" 2>/dev/null || { echo "the driver exited:" >&2; cat "$work/footprint.log" >&2; exit 1; }
  load=$(cut -d' ' -f1 /proc/loadavg)
  load_min=$(awk -v a="$load_min" -v b="$load" 'BEGIN { print (b < a ? b : a) }')
  load_max=$(awk -v a="$load_max" -v b="$load" 'BEGIN { print (b > a ? b : a) }')
  elapsed=$(awk -v s="$started" -v now="$(date +%s.%N)" 'BEGIN { printf "%.0f", now - s }')
  counts=""
  for n in 1 2 3; do
    count=$(instance_count "127.0.0.$n" 2>/dev/null || echo 0)
    counts="$counts $count"
    if [ -z "${done_at[$n]:-}" ] && [ "$count" -ge "$instances" ]; then
      done_at[$n]=$(awk -v s="$started" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - s }')
      finished=$(( finished + 1 ))
    fi
  done
  if [ $(( elapsed - last_progress )) -ge 10 ]; then
    note_memory
    echo "${elapsed}s instances on nodes 1-3:$counts load $load committed heap MiB ${peak_heap[1]} ${peak_heap[2]} ${peak_heap[3]} (largest so far)" >>"$work/progress.txt"
    last_progress=$elapsed
  fi
  if [ "$elapsed" -ge "$wait_seconds" ]; then
    echo "not every node lists $instances instances after ${wait_seconds} s:$counts (load $load_min-$load_max); see $work" >&2
    tail -n 5 "$work/progress.txt" >&2
    exit 1
  fi
  sleep 1
done
for n in 1 2 3; do
  read -r ygc ygct fgc fgct cgc cgct <<<"$(gc_counts "$n")"
  read -r ygc0 ygct0 fgc0 fgct0 cgc0 cgct0 <<<"${gc_before[$n]}"
  awk -v n="$n" -v t="${done_at[$n]}" -v y=$(( ygc - ygc0 )) -v yt="$ygct" -v yt0="$ygct0" \
    -v f=$(( fgc - fgc0 )) -v ft="$fgct" -v ft0="$fgct0" -v c=$(( cgc - cgc0 )) -v ct="$cgct" \
    -v ct0="$cgct0" -v i="$instances" \
    'BEGIN { printf "node %s listed all %d instances %.1f s after the first registration; GC meanwhile: %d young (%.1f s), %d full (%.1f s), %d concurrent cycles (%.1f s of pauses)\n", n, i, t, y, yt - yt0, f, ft - ft0, c, ct - ct0 }'
done
grep -h "registered in" "$work/footprint.log" || true
echo "1-min load $load_min-$load_max while registering and replicating"
note_memory
declare -A at_done
for n in 1 2 3; do at_done[$n]="$(memory_mib "$n")"; done
idle_seconds="${IDLE_SECONDS:-120}"
idle_load_max=0
idle_from=$SECONDS
while [ $(( SECONDS - idle_from )) -lt "$idle_seconds" ]; do
  sleep 10
  note_memory
  idle_load_max=$(awk -v a="$idle_load_max" -v b="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { print (b > a ? b : a) }')
done
idle_seconds=$(( SECONDS - idle_from ))
for n in 1 2 3; do
  read -r heap rss <<<"${at_done[$n]}"
  read -r idle_heap idle_rss <<<"$(memory_mib "$n")"
  echo "node $n memory (MiB): committed heap largest ${peak_heap[$n]}, when all listed $heap, after ${idle_seconds} s idle $idle_heap; RSS largest ${peak_rss[$n]}, when all listed $rss, after idle $idle_rss"
done
echo "1-min load at most $idle_load_max while idle"
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
