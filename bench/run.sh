#!/usr/bin/env bash
# Prints bglua's performance figures, each the median of [runs] runs (default 3):
#  - engine: events per second, push+pop+dispatch with 1,024 queued
#    (go test -bench Events ./runtime)
#  - ranks: memory per idle rank (Go heap and goroutine stacks of ranks
#    parked in a barrier, bench/idle.lua) and start-up per rank at 4,096 and
#    41,616 ranks, of a program that does nothing (bench/empty.lua) and of one
#    whose ranks all park (bench/idle.lua): host time and the process's CPU
#    time per rank (go test -bench 'IdleRank|Startup' .); and the command
#    starting 32,768 ranks of each (wall, CPU, peak RSS)
#  - token ring: messages simulated per host second (4,096 ranks, 100 laps)
#  - 65,536 ranks: barrier + allreduce (wall time, peak RSS, bytes per rank)
#  - [EMU] octree broadcast on bgc, 41,616 ranks, end to end (wall, CPU,
#    peak RSS)
#  - threads: the 32,768-rank halo on one and two threads (median wall
#    times, their ratio; the outputs must be the same); over a minute a run
#  - with --full-bgl, the full BG/L: 131,072 ranks (--torus 64x32x32 --mode vn)
#    on the halo3d (100 steps, 8 KiB faces) and allreduce (100 of a double,
#    recursive doubling) workloads of bench/workloads: wall and CPU time,
#    events, messages, peak RSS. One run each; they take tens of minutes and
#    about 5 GiB each.
# Host time on a machine shared with other work varies by 2x and more; CPU
# time (user + system) varies less.
#
# Usage: bench/run.sh [--quick | --full-bgl] [runs]
#   runs        runs per figure, a positive integer (default 3, 1 with --quick)
#   --quick     all but the threads and the full BG/L: under a minute with
#               one run (40 s on a 2-core machine; it needs about 1.5 GiB)
#   --full-bgl  also the full BG/L
#   -h, --help  this text
# The options and runs may come in any order. Bad arguments: exit status 2.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "run.sh: $*; see --help" >&2; exit 2; }
full=0 quick=0 runs=
while [ $# -gt 0 ]; do
  case "$1" in
    --full-bgl) full=1 ;;
    --quick) quick=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *)
      [ -z "$runs" ] || die "runs given twice ('$runs' and '$1')"
      case "$1" in ''|*[!0-9]*) die "bad runs '$1' (want a positive integer)" ;; esac
      if [ "${#1}" -gt 6 ] || [ "$((10#$1))" -lt 1 ]; then die "bad runs '$1' (want 1 to 999999)"; fi
      runs=$((10#$1)) ;;
  esac
  shift
done
[ "$quick" = 0 ] || [ "$full" = 0 ] || die "--quick leaves out what --full-bgl adds: give one of them"
[ -n "$runs" ] || runs=$([ "$quick" = 1 ] && echo 1 || echo 3)

cd "$(dirname "$0")/.."
mkdir -p bench/out
go build -o bench/out/bglua ./cmd/bglua

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# metric NAME UNIT: the median over the benchmark lines on stdin of the value
# before UNIT in the lines whose benchmark name starts with NAME
metric() {
  awk -v n="$1" -v u="$2" 'index($1, n) == 1 { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }' | median
}

echo "== engine: push+pop+dispatch, 1,024 queued (go test -bench Events ./runtime)"
for _ in $(seq "$runs"); do
  go test -run XXX -bench 'BenchmarkEvents$' -benchtime 3000000x ./runtime | awk '/events\/s/ {for (i=1;i<=NF;i++) if ($(i+1)=="events/s") print $i}'
done | median | awk '{printf "median %.2f million events/s\n", $1/1e6}'

echo "== ranks: memory per idle rank, start-up per rank (go test -bench 'IdleRank|Startup' .)"
out=$(go test -run XXX -bench 'BenchmarkIdleRank$' -benchtime 32768x -count "$runs" . | grep '^Benchmark')
printf 'idle rank (32,768 parked): median %s B per rank\n' "$(metric BenchmarkIdleRank B/rank <<<"$out")"
out=$(go test -run XXX -bench 'BenchmarkStartup' -benchtime 1x -count "$runs" . | grep '^Benchmark')
for b in empty/4096 empty/41616 parked/4096 parked/41616; do
  printf 'start-up, %-13s median %6.1f us host, %6.1f us CPU per rank\n' "$b:" \
    "$(metric "BenchmarkStartup/$b-" ns/rank <<<"$out" | awk '{print $1/1e3}')" \
    "$(metric "BenchmarkStartup/$b-" cpu-ns/rank <<<"$out" | awk '{print $1/1e3}')"
done

echo "== start-up from the command: 32,768 ranks (wall, CPU = user + system, peak RSS)"
for prog in empty idle; do
  for _ in $(seq "$runs"); do
    /usr/bin/env time -f "%e %U %S %M" bench/out/bglua --quiet -ranks 32768 "bench/$prog.lua" 2>&1 >/dev/null | tail -1
  done | awk '{print $1, $2 + $3, $4}' | sort -g | awk -v p="$prog" '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "%s.lua: median wall %.2fs, CPU %.2fs, peak RSS %.0f MiB\n", p, f[1], f[2], f[3]/1024}'
done

echo "== token ring: 4,096 ranks, 100 laps = 409,600 messages"
for _ in $(seq "$runs"); do
  /usr/bin/env time -f "%e %M" bench/out/bglua --quiet -ranks 4096 bench/ring.lua 100 2>&1 >/dev/null | tail -1
done | awk '{print 409600/$1, $1, $2}' | sort -g | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "median %.2f million messages/s (wall %.2fs, peak RSS %.0f MiB)\n", f[1]/1e6, f[2], f[3]/1024}'

echo "== 65,536 ranks: barrier + allreduce"
for _ in $(seq "$runs"); do
  /usr/bin/env time -f "%e %M" bench/out/bglua --quiet -ranks 65536 bench/barrier_allreduce.lua 2>&1 >/dev/null | tail -1
done | sort -g | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "median wall %.2fs, peak RSS %.0f MiB, %.1f KiB per rank\n", f[1], f[2]/1024, f[2]/65536}'

echo "== [EMU] octree broadcast end to end: 41,616 ranks on bgc (the paper: 1.95 s on 96 processors)"
for _ in $(seq "$runs"); do
  /usr/bin/env time -f "%e %U %S %M" bench/out/bglua --machine bgc -ranks 41616 --torus 34x34x36 \
    scripts/emu/octree_bcast.lua 2>&1 >/dev/null | tail -1
done | awk '{print $1, $2 + $3, $4}' | sort -g | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], f, " "); printf "median wall %.2fs, CPU %.2fs, peak RSS %.0f MiB\n", f[1], f[2], f[3]/1024}'

# --quick stops here: the rest takes minutes
[ "$quick" = 0 ] || exit 0
echo "== threads: 32,768 ranks (64 blocks), 10 halo3d steps of 8 KiB faces, --threads 1 and 2"
# The two thread counts must print the same; the speedup needs two free cores.
t1=() t2=()
for _ in $(seq "$runs"); do
  for t in 1 2; do
    /usr/bin/env time -f "%e" -o bench/out/threads.time bench/out/bglua --threads "$t" -ranks 32768 \
      bench/workloads/halo3d.lua 10 8192 32 32 32 >"bench/out/threads-$t.out" 2>/dev/null
    if [ "$t" = 1 ]; then t1+=("$(cat bench/out/threads.time)"); else t2+=("$(cat bench/out/threads.time)"); fi
  done
  cmp -s bench/out/threads-1.out bench/out/threads-2.out || { echo "threads: outputs differ" >&2; exit 1; }
done
w1=$(printf '%s\n' "${t1[@]}" | median)
w2=$(printf '%s\n' "${t2[@]}" | median)
awk -v a="$w1" -v b="$w2" 'BEGIN { printf "median wall 1 thread %.1fs, 2 threads %.1fs: %.2fx (same output)\n", a, b, a / b }'

[ "$full" = 1 ] || exit 0
echo "== the full BG/L: 131,072 ranks, --torus 64x32x32 --mode vn (one run each)"
for w in "halo3d, 100 steps of 8 KiB faces|bench/workloads/halo3d.lua 100 8192 64 32 64" \
  "allreduce, 100 of a double (recursive doubling)|--coll allreduce=recursive_doubling bench/workloads/allreduce.lua 100"; do
  IFS='|' read -r name args <<<"$w"
  log=bench/out/full-bgl.log
  # shellcheck disable=SC2086 # $args is a list of words
  /usr/bin/env time -f "%e %U %S %M" -o "$log.time" bench/out/bglua -n 131072 --torus 64x32x32 --mode vn $args >"$log" 2>&1
  read -r wall user sys rss <"$log.time"
  summary=$(grep '^bglua: 131072 ranks' "$log")
  events=$(sed 's/.*, \([0-9]*\) events.*/\1/' <<<"$summary")
  messages=$(sed 's/.*, \([0-9]*\) messages.*/\1/' <<<"$summary")
  virtual=$(sed 's/.*virtual \([^,]*\),.*/\1/' <<<"$summary")
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v e="$events" -v m="$messages" -v v="$virtual" 'BEGIN {
    printf "%s: wall %.0fs, CPU %.0fs, virtual %s, %d events, %d messages, peak RSS %.2f GiB (%.1f KiB per rank)\n",
      n, w, u + s, v, e, m, r / 1048576, r / 131072 }'
done
