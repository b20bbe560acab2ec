#!/usr/bin/env bash
# Which threads of a sluice-server wake up, how often, and the CPU they use: at rest, then under an
# optional load-driver workload.
#   sluice-bench/scripts/server-wakeups.sh BUILD [-- LOADDRIVER_RUN_ARGS...]
# BUILD is a checkout built with `mvn -B -q -DskipTests -pl sluice-server,sluice-bench -am package`.
# Starts BUILD's server (fresh data directory, HTTP port PORT, default 18848) pinned to CPUS_SERVER
# (0), waits SETTLE (15) s, then counts each thread's voluntary context switches (its wake-ups from
# a wait) and CPU ticks over IDLE (20) s from /proc, with the process's CPU split into user and
# kernel time. With a workload after `--`, it then drives the server with BUILD's LoadDriver
# pinned to CPUS_DRIVER (1) for its warm-up plus 30 s, and counts again over 15 s from 12 s into
# the measured part. Threads are grouped by their 15-character kernel name (so a Ratis group's
# threads share one line). Example, 3,000 registrations a second:
#   sluice-bench/scripts/server-wakeups.sh . -- --client lean --scenarios naming-register \
#     --loop open --rate 3000 --warmup 10 --duration 30
# Run two builds one after the other, alternating, for an A/B; the machine should be otherwise idle.
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
build="$(cd "$1" && pwd)"; shift
[ "${1:-}" = "--" ] && shift
port="${PORT:-18848}"
data="$(mktemp -d -t sluice-wakeups.XXXXXX)" # the server's data directory; its output beside it
log="$data.log"
pid=""
cleanup() { # on any exit: stop the server, drop its data; keep its output if it never started
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$log"
  fi
  rm -rf "$data" "$data.driver"
}
trap cleanup EXIT

snapshot() { # tid name wakeups cpu-ticks, one line per thread
  for task in /proc/"$1"/task/*; do
    printf '%s %s %s %s\n' "${task##*/}" "$(tr ' ' '_' <"$task"/comm 2>/dev/null)" \
      "$(awk '/^voluntary_ctxt_switches/{print $2}' "$task"/status 2>/dev/null)" \
      "$(awk '{print $14 + $15}' "$task"/stat 2>/dev/null)"
  done | sort
}
report() { # label pid seconds: counts over that many seconds from now
  local before after user0 sys0 user1 sys1
  before="$(snapshot "$2")"; read -r user0 sys0 < <(awk '{print $14, $15}' /proc/"$2"/stat)
  sleep "$3"
  after="$(snapshot "$2")"; read -r user1 sys1 < <(awk '{print $14, $15}' /proc/"$2"/stat)
  printf '== %s, %s s: process CPU %d ms/s (user %d, kernel %d), load %s\n' "$1" "$3" \
    $(((user1 + sys1 - user0 - sys0) * 10 / $3)) $(((user1 - user0) * 10 / $3)) \
    $(((sys1 - sys0) * 10 / $3)) "$(cut -d' ' -f1 /proc/loadavg)"
  join <(echo "$before") <(echo "$after") | awk -v s="$3" '
    { wakeups[$2] += $6 - $3; ticks[$2] += $7 - $4 }
    END { for (n in wakeups) { total += wakeups[n]
            if (wakeups[n] >= s) printf "  %-16s %8.1f wake-ups/s %6.1f ms CPU/s\n", n, wakeups[n] / s, ticks[n] * 10 / s }
          printf "  %-16s %8.1f wake-ups/s\n", "(all threads)", total / s }' | sort -k2 -rn
}

SLUICE_SKIP_BUILD=1 taskset -c "${CPUS_SERVER:-0}" "$build/bin/sluice" server --port "$port" \
  --data-dir "$data" >"$log" 2>&1 &
for _ in $(seq 1 600); do grep -q "ready in" "$log" 2>/dev/null && break; sleep 0.05; done
pid="$(pgrep -f -- "--data-dir $data" | while read -r p; do
  [ "$(cat /proc/"$p"/comm)" = java ] && echo "$p"; done | head -n 1)"
[ -n "$pid" ] || { echo "the server did not start; its output: $log" >&2; exit 1; }
grep -o "ready in [0-9.]* s" "$log"
sleep "${SETTLE:-15}"
report "at rest" "$pid" "${IDLE:-20}"
if [ $# -gt 0 ]; then
  taskset -c "${CPUS_DRIVER:-1}" java -XX:+UseSerialGC -cp "$build/sluice-bench/target/benchmarks.jar" \
    io.sluice.bench.load.LoadDriver run --server "127.0.0.1:$port" "$@" >"$data.driver" 2>&1 &
  driver=$!
  warmup="$(echo "$@" | grep -o -- '--warmup [0-9]*' | cut -d' ' -f2)"
  sleep $((${warmup:-5} + 12))
  report "under: $*" "$pid" 15
  wait "$driver"
  grep -A1 '^scenario ' "$data.driver"
fi
