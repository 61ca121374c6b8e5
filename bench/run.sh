#!/usr/bin/env bash
# Prints the foundation's performance figures: engine events per second,
# messages simulated per host second (4,096-rank token ring, 100 laps), and a
# 65,536-rank barrier + allreduce (wall time, peak RSS, bytes per rank).
# Usage: bench/run.sh [runs]   (default 3 runs each; the median is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
mkdir -p bench/out
go build -o bench/out/bglua ./cmd/bglua

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== engine: push+pop+dispatch, 1,024 queued (go test -bench Events ./runtime)"
for i in $(seq "$runs"); do
  go test -run XXX -bench 'BenchmarkEvents$' -benchtime 3000000x ./runtime | awk '/events\/s/ {for (i=1;i<=NF;i++) if ($(i+1)=="events/s") print $i}'
done | median | awk '{printf "median %.2f million events/s\n", $1/1e6}'

echo "== token ring: 4,096 ranks, 100 laps = 409,600 messages"
for i in $(seq "$runs"); do
  /usr/bin/env time -f "%e %M" bench/out/bglua --quiet -ranks 4096 bench/ring.lua 100 2>&1 >/dev/null | tail -1
done | awk '{print 409600/$1, $1, $2}' | sort -g | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "median %.2f million messages/s (wall %.2fs, peak RSS %.0f MiB)\n", f[1]/1e6, f[2], f[3]/1024}'

echo "== 65,536 ranks: barrier + allreduce"
for i in $(seq "$runs"); do
  /usr/bin/env time -f "%e %M" bench/out/bglua --quiet -ranks 65536 bench/barrier_allreduce.lua 2>&1 >/dev/null | tail -1
done | sort -g | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "median wall %.2fs, peak RSS %.0f MiB, %.1f KiB per rank\n", f[1], f[2]/1024, f[2]/65536}'
