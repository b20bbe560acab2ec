#!/usr/bin/env bash
# Start-to-ready time of bin/sluice server over a data directory holding a lot of config content.
#   sluice-bench/scripts/start-with-big-configs.sh [MiB of configs, default 1024] [starts, default 3]
# Fills a fresh data directory with N configs of 1 MiB each through the Open API, stops the server
# cleanly (SIGTERM: a final snapshot), then starts it again the given number of times and prints the
# seconds from exec to the first 200 of the readiness probe. The heap and the config cap are raised
# to hold the content (SLUICE_JAVA_OPTS=-Xmx..., --max-config-bytes). Uses ports 28948/29948.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mib="${1:-1024}"
starts="${2:-3}"
port=28948
data="$(mktemp -d -t sluice-big-configs.XXXXXX)"
heap_mib=$(( mib * 3 + 512 ))
export SLUICE_JAVA_OPTS="-Xmx${heap_mib}m"
export SLUICE_CDS=off
cap=$(( (mib + 64) * 1024 * 1024 ))
server=( "$root/bin/sluice" server --port "$port" --data-dir "$data" --max-config-bytes "$cap" )

wait_ready() {
  until curl -sf "http://127.0.0.1:$port/nacos/v1/console/health/readiness" >/dev/null; do
    sleep 0.05
  done
}

"${server[@]}" >"$data.log" 2>&1 &
pid=$!
wait_ready
content="$data.content"
head -c $(( 1024 * 1024 )) /dev/zero | tr '\0' 'x' >"$content"
for i in $(seq 1 "$mib"); do
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/nacos/v1/cs/configs" \
    --data-urlencode "dataId=big-$i" --data-urlencode "group=DEFAULT_GROUP" \
    --data-urlencode "content@$content"
done
kill -TERM "$pid"
wait "$pid" || true
echo "filled: $mib configs of 1 MiB; data directory $(du -sh "$data" | cut -f1)"

for run in $(seq 1 "$starts"); do
  start=$(date +%s.%N)
  "${server[@]}" >>"$data.log" 2>&1 &
  pid=$!
  wait_ready
  end=$(date +%s.%N)
  last=$(curl -sf "http://127.0.0.1:$port/nacos/v1/cs/configs?dataId=big-$mib&group=DEFAULT_GROUP" | wc -c)
  echo "start $run: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s to ready (last config: $last bytes); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  kill -TERM "$pid"
  wait "$pid" || true
done
rm -rf "$data" "$data.content"
echo "log: $data.log"
