#!/usr/bin/env bash
# Runs the same MPI workloads in bglua and, when smpirun is installed, in
# SimGrid SMPI on the same BG/L torus, and prints one table: simulated time
# from each, host wall seconds, peak RSS and the SMPI/bglua wall ratio.
#
# Usage: bench/compare.sh [--sizes "64 512 4096"] [--only NAME,...] [--timeout SEC]
#                         [--grain N] [--no-smpi] [--marginal] [--markdown] [--smoke]
#   --sizes     rank counts, each at least 1 (default "64 512 4096 32768 131072");
#               each runs on the torus bglua picks for it by default (asked
#               of the bglua built), on both simulators
#   --only      these workloads only, by name or prefix of the table's first
#               column (e.g. "pingpong,alltoall-1KiB")
#   --timeout   host seconds allowed per run, each simulator, a positive
#               integer (default 300); a run that takes longer shows "timeout",
#               and the same workload is not tried at larger sizes on that
#               simulator ("skipped")
#   --grain     run bglua with --grain N, 0 to 4096 (default 0, bglua's own:
#               exact, with exact coarsening; 1: batch by batch always; see
#               docs/scale.md, "Exact coarsening" and "Fidelity and speed")
#   --no-smpi   bglua only
#   --marginal  also run each workload with its repetitions set to 0 (its
#               start-up and end alone), on both simulators, and add each
#               one's marginal wall time (the full run's less that one's)
#               and their ratio to the table: what the repetitions cost,
#               start-up excluded on both sides
#   --markdown  print the table as Markdown (as in bench/README.md)
#   --smoke     64 ranks, bglua only, 60 s per run: the CI check that every
#               workload still runs (exit status 1 if one fails); it sets
#               the sizes and the timeout, so it takes neither --sizes nor
#               --timeout
#   -h, --help  this text
# The workloads are bench/workloads/*.lua (bglua) and bench/smpi/*.c (SMPI),
# the same communication on both sides; the torus platform comes from
# bench/smpi/platform.sh. A workload that cannot run at a size shows "n/a":
# ping-pong on one rank, halo3d when the ranks do not fill the torus (bglua
# leaves nodes idle for rank counts such as primes), SMPI's pairwise alltoall
# when the rank count is not a power of two. Each invocation works in
# a directory of its own, bench/out/compare/run-DATE-PID
# (bench/out/compare/latest points to the newest): the bglua and SMPI
# binaries it runs, a log of every run, results.tsv, and the table as
# table.txt and table.md. Wall times are host seconds to the millisecond,
# including a few milliseconds of starting the run through /usr/bin/time
# and timeout; peak RSS is /usr/bin/time's. Runs that fail or time out show
# no wall time or RSS.
# The exit status is 1 if a bglua run failed or timed out; SMPI failures are
# reported in the table only. Bad arguments: exit status 2.
set -euo pipefail

sizes="64 512 4096 32768 131072"
only=""
timeout_s=300
use_smpi=1
markdown=0
smoke=0
grain=0
marginal=0
# bglua.go's MaxGrain: bglua refuses a larger --grain.
max_grain=4096
# alltoall sends n^2 messages: past this many ranks it is not run at all
# (at 32,768 ranks that is a billion messages, and in bglua n tables of n
# entries: more memory than the machine has).
alltoall_max=${BENCH_ALLTOALL_MAX:-4096}

# The workloads, in table order: name, program, arguments (@X @Y @Z and
# @FAR are filled in per size), bglua --coll, SMPI collective options, and
# which argument counts the repetitions (1 for the first; --marginal sets it
# to 0; none: the workload has no marginal figure).
workloads=(
  "pingpong-1B-near|pingpong|1 100 1|||2"
  "pingpong-1B-far|pingpong|1 100 @FAR|||2"
  "pingpong-1MiB-near|pingpong|1048576 10 1|||2"
  "pingpong-1MiB-far|pingpong|1048576 10 @FAR|||2"
  "allreduce-100x8B|allreduce|100|allreduce=recursive_doubling|--cfg=smpi/allreduce:rdb|1"
  "bcast-10x1MiB|bcast|1048576 10|bcast=binomial|--cfg=smpi/bcast:binomial_tree|2"
  "alltoall-1KiB|alltoall|1024|alltoall=pairwise|--cfg=smpi/alltoall:pair|"
  "halo3d-100x8KiB|halo3d|100 8192 @X @Y @Z|||1"
)

# The arguments are all checked here, before anything is built or written.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "compare.sh: $*; see --help" >&2; exit 2; }
# posint VALUE: whether VALUE is a decimal integer of at most 9 digits, >= 1
posint() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; [ "${#1}" -le 9 ] && [ "$((10#$1))" -ge 1 ]; }
given_sizes=0 given_timeout=0
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes|--only|--timeout|--grain)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --sizes) sizes=$2 given_sizes=1 ;;
        --only) only=$2 ;;
        --timeout) timeout_s=$2 given_timeout=1 ;;
        --grain) grain=$2 ;;
      esac
      shift 2 ;;
    --no-smpi) use_smpi=0; shift ;;
    --marginal) marginal=1; shift ;;
    --markdown) markdown=1; shift ;;
    --smoke) smoke=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
if [ "$smoke" = 1 ]; then
  [ "$given_sizes" = 0 ] || die "--smoke runs 64 ranks: it takes no --sizes"
  [ "$given_timeout" = 0 ] || die "--smoke allows 60 s a run: it takes no --timeout"
  sizes=64 use_smpi=0 timeout_s=60
fi
read -r -a size_list <<<"$sizes"
[ "${#size_list[@]}" -gt 0 ] || die "--sizes: no rank counts given"
for i in "${!size_list[@]}"; do
  posint "${size_list[$i]}" || die "--sizes: bad rank count '${size_list[$i]}' (want integers from 1 to 999999999)"
  size_list[i]=$((10#${size_list[i]}))
done
posint "$timeout_s" || die "bad --timeout '$timeout_s' (want a whole number of seconds, at least 1)"
timeout_s=$((10#$timeout_s))
{ { [ "$grain" = 0 ] || posint "$grain"; } && [ "$((10#$grain))" -le "$max_grain" ]; } || die "bad --grain '$grain' (want 0 to $max_grain)"
grain=$((10#$grain))
posint "$alltoall_max" || die "bad BENCH_ALLTOALL_MAX '$alltoall_max' (want a rank count)"
alltoall_max=$((10#$alltoall_max))
only_list=()
if [ -n "$only" ]; then
  IFS=', ' read -r -a only_list <<<"$only"
  [ "${#only_list[@]}" -gt 0 ] || die "--only: no workload names given"
  for o in "${only_list[@]}"; do
    [ -n "$o" ] || die "--only: empty name in '$only'"
    hit=0
    for w in "${workloads[@]}"; do
      case "${w%%|*}" in "$o"*) hit=1 ;; esac
    done
    [ "$hit" = 1 ] || die "--only: no workload named '$o'"
  done
fi

cd "$(dirname "$0")/.."

# Everything this invocation writes goes to a directory of its own, so that
# runs started at the same time in the same tree (several people, CI) do not
# mix their results or swap the binary under each other.
mkdir -p bench/out/compare
out=bench/out/compare/run-$(date +%Y%m%d-%H%M%S)-$$
mkdir "$out"
ln -sfn "$(basename "$out")" bench/out/compare/latest
go build -o bench/out/bglua ./cmd/bglua
cp bench/out/bglua "$out/bglua"
bglua=$out/bglua

if [ "$use_smpi" = 1 ] && ! { command -v smpirun && command -v smpicc; } >/dev/null 2>&1; then
  echo "compare.sh: smpirun/smpicc not found: bglua only (apt-get install libsimgrid-dev for SMPI)" >&2
  use_smpi=0
fi
{
  echo "bglua: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- '*.go' '*.lua' go.mod go.sum ':!bench' 2>/dev/null || echo ' plus uncommitted changes'), $(go version | cut -d' ' -f3)"
  if [ "$use_smpi" = 1 ]; then echo "SMPI: $(smpirun -version 2>&1 | head -n 1)"; fi
  if [ "$grain" != 0 ]; then echo "bglua runs with --grain $grain"; fi
  echo "host: $(nproc) cores, $(uname -sm); timeout ${timeout_s}s per run"
} | tee "$out/info.txt" >&2
if [ "$use_smpi" = 1 ]; then
  mkdir -p "$out/bin"
  for p in pingpong allreduce bcast alltoall halo3d; do
    smpicc -O2 -Wall -o "$out/bin/$p" "bench/smpi/$p.c" 2>"$out/bin/$p.log" ||
      { cat "$out/bin/$p.log" >&2; echo "compare.sh: smpicc failed on bench/smpi/$p.c" >&2; exit 1; }
  done
fi

# SMPI's model of BG/L, on top of the platform's links (175 MB/s, 90 ns a hop):
#  - bw-factor 240/270: the payload share of a 256-byte packet (16 bytes of
#    header) plus 14 bytes of wire overhead, 155.6 MB/s; lat-factor 1: the
#    platform's 90 ns per hop as it is (SMPI's defaults are Ethernet fits)
#  - os/or/ois: CPU time on each side of a message: 1.575 us up to 1,000 bytes,
#    so that a 1-byte message one hop away takes BG/L's published 3.35 us
#    ([ML] Fig. 4a), and 8.22 us above, which adds the rendezvous protocol's
#    published cost ([ML] Table 1: 12,000 cycles against 2,700 for eager,
#    13.3 us more per message). SMPI charges these only to messages it sends
#    detached, so its default detached limit (64 KiB) stays: up to 64 KiB a
#    send does not wait for its receiver, above it does and costs no overhead
#  - no crosstraffic (each link direction is its own wire), no computation
#    benchmarking (the programs do none; keeps runs deterministic), no time
#    charged to MPI_Wtime
#  - the collective algorithms bglua is told to use (see workloads below)
#  - no privatization (the programs have no global variables), 256 KiB stacks
#    without guard pages (a guard page per rank takes a mapping of its own:
#    past ~32,000 ranks that exceeds Linux's vm.max_map_count of 65,530), and
#    glibc told to mmap the stacks (GLIBC_TUNABLES below: otherwise, once
#    its mmap threshold has grown, calloc takes them from the heap and zeroes
#    them, and every rank's whole stack becomes resident)
overhead="0:1.575e-6:0;1000:8.22e-6:0"
smpi_opts=(
  --cfg=smpi/bw-factor:0:0.888889 --cfg=smpi/lat-factor:0:1
  "--cfg=smpi/os:$overhead" "--cfg=smpi/or:$overhead" "--cfg=smpi/ois:$overhead"
  --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no
  --cfg=smpi/host-speed:2.8Gf --cfg=smpi/wtime:0
  --cfg=contexts/stack-size:256 --cfg=contexts/guard-size:0 --log=root.thres:warning
)
smpi_env=(env GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.mmap_max=16777216)

# The torus of each size: the one bglua picks by default for that many
# ranks (hw.DefaultDims: the near-cube of exactly N nodes, or for rank
# counts that factor only into a long line, such as primes, a near-cube
# with some nodes idle), asked of the bglua just built. The runs pass it
# explicitly to both simulators.
cat >"$out/dims.lua" <<'LUA'
if mpi.rank() == 0 then local x, y, z = ml.dims(); print(x .. "x" .. y .. "x" .. z) end
LUA
declare -A torus=()  # N -> "X Y Z"
for n in "${size_list[@]}"; do
  [ -z "${torus[$n]:-}" ] || continue
  if ! d=$(timeout -k 10 "$timeout_s" "$bglua" --quiet --ranks "$n" "$out/dims.lua" 2>"$out/dims-$n.log") ||
    ! [[ $d =~ ^([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
    echo "compare.sh: bglua could not tell its torus for $n ranks:" >&2
    { printf '%s\n' "$d"; cat "$out/dims-$n.log"; } | tail -n 5 | sed 's/^/    /' >&2
    exit 1
  fi
  torus[$n]="${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
  rm -f "$out/dims-$n.log"
done

have_time=0
[ -x /usr/bin/time ] && have_time=1
# clock: sets now to the host time in microseconds (bash 5's EPOCHREALTIME,
# read without a subshell; else date).
if [ -n "${EPOCHREALTIME:-}" ]; then
  clock() { now=${EPOCHREALTIME/[.,]/}; }
else
  clock() { now=$(($(date +%s%N) / 1000)); }
fi

# measure LOG CMD...: runs CMD with the timeout, stdout and stderr to LOG;
# sets rc, wall (seconds, to the microsecond; /usr/bin/time's %e has only
# hundredths) and rss (MiB, /usr/bin/time's peak RSS; "-" without it).
measure() {
  local log=$1; shift
  local tf=$log.time t0 m
  set +e
  clock; t0=$now
  if [ "$have_time" = 1 ]; then
    /usr/bin/time -f "%M" -o "$tf" timeout -k 10 "$timeout_s" "$@" >"$log" 2>&1
    rc=$?
  else
    timeout -k 10 "$timeout_s" "$@" >"$log" 2>&1
    rc=$?
  fi
  clock
  set -e
  wall=$(awk -v us="$((now - t0))" 'BEGIN { printf "%.6f", us / 1e6 }')
  rss=-
  if [ "$have_time" = 1 ]; then
    # the last line: before it, /usr/bin/time notes a failed command's status
    m=$(tail -n 1 "$tf")
    [[ $m =~ ^[0-9]+$ ]] && rss=$(awk -v k="$m" 'BEGIN { printf "%.0f", k / 1024 }')
    rm -f "$tf"
  fi
}

# simtime LOG: the "time <seconds>" line the workload printed, or nothing
simtime() { awk '$1 == "time" && NF == 2 { t = $2 } END { if (t != "") print t }' "$1"; }

results=$out/results.tsv
: >"$results"
failed=0
declare -A gave_up=()  # "bglua|workload" -> size at which it timed out

# wanted NAME: whether --only selects workload NAME.
wanted() {
  [ "${#only_list[@]}" = 0 ] && return 0
  local o
  for o in "${only_list[@]}"; do
    case "$1" in "$o"*) return 0 ;; esac
  done
  return 1
}

for w in "${workloads[@]}"; do
  IFS='|' read -r name prog args coll smpicoll reps <<<"$w"
  wanted "$name" || continue
  for n in "${size_list[@]}"; do
    read -r X Y Z <<<"${torus[$n]}"
    # the far node: half the torus away in every dimension; when bglua
    # leaves nodes idle (rank counts such as 5 and 13) it may have no rank,
    # and the last rank stands in for it
    far=$((X / 2 + X * (Y / 2 + Y * (Z / 2))))
    [ "$far" -lt "$n" ] || far=$((n - 1))
    a=${args//@FAR/$far}; a=${a//@X/$X}; a=${a//@Y/$Y}; a=${a//@Z/$Z}
    read -r -a argv <<<"$a"
    row="$name	$n"
    margs=""  # the marginal wall times, bglua's then SMPI's (--marginal)
    # what cannot run at this size: ping-pong needs two ranks; halo3d's rank
    # grid is the torus, which idle nodes leave with holes; SMPI's pairwise
    # alltoall takes only powers of two
    na=0
    if { [ "$prog" = pingpong ] && [ "$n" -lt 2 ]; } || { [ "$prog" = halo3d ] && [ $((X * Y * Z)) != "$n" ]; }; then
      na=1
    fi
    for sim in bglua smpi; do
      margs+="	-"
      if [ "$sim" = smpi ] && [ "$use_smpi" = 0 ]; then row+="	-	-	-"; continue; fi
      if [ "$na" = 1 ] || { [ "$sim" = smpi ] && [ "$prog" = alltoall ] && [ $((n & (n - 1))) != 0 ]; }; then
        row+="	n/a	-	-"; continue
      fi
      if [ "$prog" = alltoall ] && [ "$n" -gt "$alltoall_max" ]; then row+="	skipped	-	-"; continue; fi
      if [ -n "${gave_up[$sim|$name]:-}" ]; then row+="	skipped	-	-"; continue; fi
      log=$out/$name-$n.$sim.log
      printf '%-20s %7d  %-5s ' "$name" "$n" "$sim" >&2
      if [ "$sim" = bglua ]; then
        cmd=("$bglua" --quiet --ranks "$n" --torus "${X}x${Y}x${Z}")
        [ "$grain" != 0 ] && cmd+=(--grain "$grain")
        [ -n "$coll" ] && cmd+=(--coll "$coll")
        cmd+=("bench/workloads/$prog.lua" "${argv[@]}")
      else
        plat=$out/torus-${X}x${Y}x${Z}.xml hosts=$out/hosts-${X}x${Y}x${Z}
        [ -f "$plat" ] || bench/smpi/platform.sh "$X" "$Y" "$Z" >"$plat"
        [ -f "$hosts" ] || bench/smpi/platform.sh --hostfile "$X" "$Y" "$Z" >"$hosts"
        read -r -a copts <<<"$smpicoll"
        cmd=("${smpi_env[@]}" smpirun -no-privatize -np "$n" -platform "$plat" -hostfile "$hosts"
          "$out/bin/$prog" "${argv[@]}" "${smpi_opts[@]}" "${copts[@]}")
      fi
      printf '%s\n' "${cmd[*]}" >"$log.cmd"
      measure "$log" "${cmd[@]}"
      # The same run with no repetitions: its start-up and end (--marginal).
      wall0=-
      if [ "$marginal" = 1 ] && [ -n "$reps" ] && [ "$rc" = 0 ]; then
        w1=$wall r1=$rss rc1=$rc
        k=$((${#cmd[@]} - ${#argv[@]} + reps - 1))
        [ "$sim" = smpi ] && k=$((${#cmd[@]} - ${#argv[@]} - ${#smpi_opts[@]} - ${#copts[@]} + reps - 1))
        cmd0=("${cmd[@]}")
        cmd0[k]=0
        printf '%s\n' "${cmd0[*]}" >"$log.0.cmd"
        measure "$log.0" "${cmd0[@]}"
        [ "$rc" = 0 ] && [ -n "$(simtime "$log.0")" ] && wall0=$wall
        wall=$w1 rss=$r1 rc=$rc1
      fi
      t=$(simtime "$log")
      if [ "$rc" = 124 ] || { [ "$rc" = 137 ] && awk -v w="$wall" -v l="$timeout_s" 'BEGIN { exit !(w >= l) }'; }; then
        t=timeout gave_up[$sim|$name]=$n
      elif [ "$rc" != 0 ] || [ -z "$t" ]; then
        t=error
      fi
      if [ "$t" = timeout ] || [ "$t" = error ]; then
        # the wall time and RSS of a failed run are not the workload's
        wall=- rss=-
        if [ "$sim" = bglua ]; then
          failed=1
          echo "$t (exit $rc; $(cat "$log.cmd"))" >&2
          tail -n 5 "$log" | sed 's/^/    /' >&2
        else
          echo "$t (exit $rc; log $log)" >&2
        fi
      else
        awk -v t="$t" -v w="$wall" -v r="$rss" 'BEGIN { printf "%s  wall %.3fs  rss %s MiB\n", t, w, r }' >&2
        if [ "$wall0" != - ]; then
          m=$(awk -v w="$wall" -v z="$wall0" 'BEGIN { printf "%.6f", w - z }')
          margs="${margs%	-}	$m"
          printf '%-20s %7d  %-5s start-up %.3fs  marginal %.3fs\n' "$name" "$n" "$sim" "$wall0" "$m" >&2
        fi
      fi
      row+="	$t	$wall	$rss"
    done
    [ "$marginal" = 1 ] && row+=$margs
    printf '%s\n' "$row" >>"$results"
  done
done

# The table: simulated times with a unit, wall seconds, RSS MiB, ratio.
table() {
awk -F'\t' -v md="$1" '
  function sim(t) {
    if (t !~ /^[0-9]/) return t
    if (t < 1e-3) return sprintf("%.1f us", t * 1e6)
    if (t < 1) return sprintf("%.2f ms", t * 1e3)
    return sprintf("%.3f s", t)
  }
  function num(v) { return v ~ /^[0-9.]+$/ }
  # sig(v, d): v to d significant figures, without an exponent
  function sig(v, d,   e, p, s) {
    if (v <= 0) return "0"
    e = log(v) / log(10); p = int(e); if (p > e) p--
    p = d - 1 - p; if (p < 0) p = 0
    s = sprintf("%.*f", p, v)
    if (p > 0 && s + 0 >= 10 ^ (d - p)) s = sprintf("%.*f", p - 1, v)
    return s
  }
  # wall(v): host seconds to 3 significant figures
  function wall(v) { return num(v) ? sig(v, 3) : v }
  # mwall(v): a marginal time, which noise may make negative
  function mwall(v) { return v ~ /^-[0-9]/ ? "-" sig(-v, 3) : wall(v) }
  {
    ratio = "-"
    if (num($7) && num($4) && $6 ~ /^[0-9]/ && $3 ~ /^[0-9]/ && $4 > 0)
      ratio = ($7 / $4 >= 1) ? sprintf("%.1f", $7 / $4) : sig($7 / $4, 2)
    wb = wall($4); ws = wall($7); rb = $5; rs = $8
    if ($3 == "timeout") wb = ">" timeout_s
    if ($6 == "timeout") ws = ">" timeout_s
    rows[NR] = $1 "\t" $2 "\t" sim($3) "\t" sim($6) "\t" wb "\t" ws "\t" rb "\t" rs "\t" ratio
    if (marg) {
      mratio = "-"
      if (num($9) && num($10) && $9 > 0 && $10 > 0)
        mratio = ($10 / $9 >= 1) ? sprintf("%.1f", $10 / $9) : sig($10 / $9, 2)
      rows[NR] = rows[NR] "\t" mwall($9) "\t" mwall($10) "\t" mratio
    }
  }
  END {
    head = "workload\tranks\tbglua sim\tSMPI sim\tbglua wall s\tSMPI wall s\tbglua RSS MiB\tSMPI RSS MiB\twall SMPI/bglua"
    if (marg) head = head "\tbglua marginal s\tSMPI marginal s\tmarginal SMPI/bglua"
    n = split(head, h, "\t")
    for (i = 1; i <= n; i++) w[i] = length(h[i])
    for (r = 1; r <= NR; r++) {
      split(rows[r], f, "\t")
      for (i = 1; i <= n; i++) if (length(f[i]) > w[i]) w[i] = length(f[i])
    }
    if (md) {
      line = "|"
      for (i = 1; i <= n; i++) line = line " " h[i] " |"
      print line
      line = "|"
      for (i = 1; i <= n; i++) line = line (i <= 1 ? "---|" : "---:|")
      print line
      for (r = 1; r <= NR; r++) {
        split(rows[r], f, "\t"); line = "|"
        for (i = 1; i <= n; i++) line = line " " f[i] " |"
        print line
      }
      exit
    }
    for (i = 1; i <= n; i++) printf (i == 1 ? "%-*s" : "  %*s"), w[i], h[i]
    printf "\n"
    for (r = 1; r <= NR; r++) {
      split(rows[r], f, "\t")
      for (i = 1; i <= n; i++) printf (i == 1 ? "%-*s" : "  %*s"), w[i], f[i]
      printf "\n"
    }
  }' timeout_s="$timeout_s" marg="$marginal" "$results"
}
table 0 >"$out/table.txt"
table 1 >"$out/table.md"
cat "$out/table.$([ "$markdown" = 1 ] && echo md || echo txt)"

if [ "$failed" = 1 ]; then
  echo "compare.sh: a bglua run failed or timed out (logs in $out)" >&2
  exit 1
fi
