#!/usr/bin/env bash
# Alternating A/B of two sluice-server builds under one load-driver workload, per server-CPU-second.
#   sluice-bench/scripts/server-ab.sh BUILD_A BUILD_B -- LOADDRIVER_SCENARIO_ARGS...
# BUILD_A and BUILD_B are two checkouts, each built with
#   mvn -B -q -DskipTests -pl sluice-server,sluice-bench -am package
# (e.g. `git worktree add --detach /tmp/ab-main main` beside your branch; never `mvn install`).
# Each round starts each build's server fresh (new data directory, port from a free pair) pinned to
# CPUS_SERVER (default 0) and drives it with BUILD_B's LoadDriver pinned to CPUS_DRIVER (default 1),
# closed loop of 64 over 4 connections, WARMUP (15) s then DURATION (12) s measured; the order of
# the two builds alternates between rounds. Before each window it waits (up to 3 min) for the 1-minute
# load average to fall to MAX_LOAD (4). One JSON line per window is appended to OUT
# (/tmp/server-ab.jsonl): the driver's line plus round, build, client, start time and the load
# before and after; then the medians and ranges are printed.
#   CLIENT=official ROUNDS=3 sluice-bench/scripts/server-ab.sh /tmp/ab-main . -- \
#     --scenarios naming-register --services 1000 --metadata-bytes 100
# ARGS_A / ARGS_B add `sluice server` options to one side, so one build can be compared with itself
# under two settings (the build's label then carries them):
#   ARGS_A="--grpc-transport grpc-java" ARGS_B="--grpc-transport netty-h2" \
#     sluice-bench/scripts/server-ab.sh . . -- --scenarios naming-register --services 1000
set -uo pipefail
[ $# -ge 3 ] && [ "$3" = "--" ] || { sed -n '2,20p' "$0" >&2; exit 2; }
a="$(cd "$1" && pwd)"; b="$(cd "$2" && pwd)"; shift 3
out="${OUT:-/tmp/server-ab.jsonl}"
jar="$b/sluice-bench/target/benchmarks.jar"
[ -f "$jar" ] || { echo "build $b first (see the comment at the top)" >&2; exit 1; }
free_pair() { python3 -c '
import socket,random
while True:
    p=random.randint(20000,28000); ok=True
    for q in (p,p+1000):
        s=socket.socket()
        try: s.bind(("127.0.0.1",q))
        except OSError: ok=False
        s.close()
    if ok: print(p); break'; }
for r in $(seq 1 "${ROUNDS:-3}"); do
  if [ $((r % 2)) -eq 1 ]; then order="a b"; else order="b a"; fi
  for side in $order; do
    if [ "$side" = a ]; then build="$a"; extra="${ARGS_A:-}"; else build="$b"; extra="${ARGS_B:-}"; fi
    label="$build${extra:+ $extra}"
    for _ in $(seq 1 36); do
      l=$(cut -d' ' -f1 /proc/loadavg)
      python3 -c "import sys; sys.exit(0 if $l <= ${MAX_LOAD:-4} else 1)" && break
      echo "$(date -u +%T) load $l above ${MAX_LOAD:-4}, waiting" >&2; sleep 5
    done
    data="$(mktemp -d -t sluice-ab.XXXXXX)"
    port=$(free_pair)
    SLUICE_SKIP_BUILD=1 SLUICE_CDS=off taskset -c "${CPUS_SERVER:-0}" "$build/bin/sluice" server \
      --port "$port" --bind 127.0.0.1 --data-dir "$data" $extra > "$data.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 120); do
      curl -sf "http://127.0.0.1:$port/nacos/v1/console/health/readiness" >/dev/null && break; sleep 0.5
    done
    before=$(cut -d' ' -f1 /proc/loadavg); start=$(date -u +%T)
    line=$(taskset -c "${CPUS_DRIVER:-1}" java -cp "$jar" io.sluice.bench.load.LoadDriver run \
      --server "127.0.0.1:$port" --server-pid "$pid" --client "${CLIENT:-lean}" --loop closed \
      --concurrency 64 --connections 4 --duration "${DURATION:-12}" --warmup "${WARMUP:-15}" "$@" \
      2>>"$data.log" | grep '^{')
    after=$(cut -d' ' -f1 /proc/loadavg)
    echo "$line" | sed "s|^{|{\"round\":$r,\"build\":\"$label\",\"driver\":\"${CLIENT:-lean}\",\"start\":\"$start\",\"loadBefore\":$before,\"loadAfter\":$after,|" >> "$out"
    kill "$pid"; wait "$pid" 2>/dev/null
    rm -rf "$data" "$data.log"
  done
done
python3 - "$out" <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
def jit(rs, who):
    # The JIT's share says whether the window measured steady work or a JVM still compiling.
    shares = [r[who + 'JitCpuSec'] / r[who + 'CpuSec'] for r in rs
              if r.get(who + 'JitCpuSec') is not None and r.get(who + 'CpuSec')]
    return f"{min(shares):.0%}-{max(shares):.0%}" if shares else "n/a"
for key in sorted({(r['scenario'], r['driver'], r['build']) for r in rows}):
    rs = [r for r in rows if (r['scenario'], r['driver'], r['build']) == key]
    per = [r['opsPerServerCpuSec'] for r in rs]
    us = [1e6 / x for x in per]
    loads = [r['loadBefore'] for r in rs] + [r['loadAfter'] for r in rs]
    print(f"{key[0]} {key[1]} {key[2]}: {len(rs)} windows, per server-CPU-s {st.median(per):,.0f} "
          f"({min(per):,.0f}-{max(per):,.0f}), {st.median(us):.1f} us/op ({min(us):.1f}-{max(us):.1f}), "
          f"ops/s {min(r['opsPerSec'] for r in rs):,.0f}-{max(r['opsPerSec'] for r in rs):,.0f}, "
          f"p50 {min(r['p50Ms'] for r in rs):.2f}-{max(r['p50Ms'] for r in rs):.2f} ms, "
          f"load {min(loads)}-{max(loads)}, errors {sum(r['errors'] for r in rs)}, "
          f"compiler threads {jit(rs, 'server')} of the server's CPU, {jit(rs, 'driver')} of the driver's")
PY
