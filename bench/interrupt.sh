#!/usr/bin/env bash
# How long a run of ranks spinning in pure Lua takes to end after its first
# SIGINT: starts `bglua -n RANKS bench/spin.lua`, sends SIGINT once the run
# has spun for a second, and prints the median, over RUNS runs, of the time
# from the signal to the process's exit, and each run's exit status (130).
#
# Usage: bench/interrupt.sh [RUNS] [RANKS]   (defaults 5 and 4)
set -euo pipefail
runs=${1:-5}
ranks=${2:-4}
[[ "$runs" =~ ^[1-9][0-9]*$ && "$ranks" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/interrupt.sh [RUNS] [RANKS]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$top" && go build -o "$tmp/bglua" ./cmd/bglua)
codes=()
for _ in $(seq "$runs"); do
  "$tmp/bglua" --quiet -n "$ranks" "$top/bench/spin.lua" 2>"$tmp/err" &
  pid=$!
  sleep 1
  t0=$(date +%s.%N)
  kill -INT "$pid"
  code=0
  wait "$pid" || code=$?
  t1=$(date +%s.%N)
  codes+=("$code")
  echo "$t1 - $t0" | bc >>"$tmp/times"
done
median=$(sort -n "$tmp/times" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
printf "SIGINT to exit, %d ranks spinning: median %.3f s over %d runs (max %.3f s); exit statuses %s\n" \
  "$ranks" "$median" "$runs" "$(sort -n "$tmp/times" | tail -1)" "${codes[*]}"
echo "last report: $(head -1 "$tmp/err")"
