#!/usr/bin/env bash
# bench/distributed.sh: bglua as an MPI job against one process, on the
# bench workloads (docs/distributed.md).
#
#   bench/distributed.sh [--procs "2 3"] [--sizes "4096 32768"] [--modes "co vn"] [--only halo,allreduce,bcast,pingpong,alltoall] [--trace]
#
# Builds bglua with -tags mpi (needs an MPI: Debian's libopenmpi-dev
# openmpi-bin), then runs every workload on every size and mode in one
# process (--threads 2) and under mpirun with each process count
# (--threads 1 a process: this machine has two cores), and prints a row per
# run: wall seconds, peak memory of process 0 (its summary line), and whether
# stdout and the summary line (its host figures aside) are byte-identical
# to the one-process run. It exits 1 if any is not. With --trace, every run
# also writes a trace and the MMDS files (--trace, --mds mmds), which must be
# byte-identical too, and the rows give the trace's size.
set -euo pipefail
cd "$(dirname "$0")/.."
procs="2 3"
sizes="4096 32768"
modes="co vn"
only="halo,allreduce,bcast,pingpong"
trace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --procs) procs="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --trace) trace=1; shift ;;
    *) echo "bench/distributed.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
out=bench/out/distributed
mkdir -p "$out"
bin="$out/bglua-mpi"
go build -tags mpi -o "$bin" ./cmd/bglua
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpiflags=${BGLUA_MPIRUN_FLAGS:---oversubscribe}

# torus N MODE: a torus of N ranks (two a node in vn), x >= y >= z.
torus() {
  local n=$1
  [ "$2" = vn ] && n=$((n / 2))
  case $n in
    1024) echo 16x8x8 ;; 2048) echo 16x16x8 ;; 4096) echo 16x16x16 ;; 8192) echo 32x16x16 ;;
    16384) echo 32x32x16 ;; 32768) echo 32x32x32 ;; 65536) echo 64x32x32 ;; 131072) echo 64x64x32 ;;
    262144) echo 64x64x64 ;; *) echo "bench/distributed.sh: no torus for $1 ranks" >&2; exit 2 ;;
  esac
}

# args W N MODE: the workload's arguments and flags.
args() {
  local w=$1 n=$2 mode=$3 t
  t=$(torus "$n" "$mode")
  local x=${t%%x*} yz=${t#*x}
  local y=${yz%%x*} z=${yz#*x}
  [ "$mode" = vn ] && z=$((z * 2))
  case $w in
    halo) echo "bench/workloads/halo3d.lua 5 8192 $x $y $z" ;;
    allreduce) echo "--coll allreduce=recursive_doubling bench/workloads/allreduce.lua 20" ;;
    bcast) echo "--coll bcast=binomial bench/workloads/bcast.lua 65536 3" ;;
    pingpong) echo "bench/workloads/pingpong.lua 65536 20 $((n - 1))" ;;
    alltoall) echo "--coll alltoall=pairwise bench/workloads/alltoall.lua 64" ;;
  esac
}

fail=0
# observed P: the flags of a run of P processes that writes a trace and
# monitoring files (with --trace).
observed() {
  [ -n "$trace" ] && echo "--trace $base-$1.json --mds mmds --mds-dir $base-$1.mds"
  return 0
}

# same P: whether the run of P processes wrote what the run of one did.
same() {
  cmp -s "$base-1.out" "$base-$1.out" && cmp -s "$base-1.sum" "$base-$1.sum" || return 1
  [ -z "$trace" ] && return 0
  cmp -s "$base-1.json" "$base-$1.json" && diff -r -q "$base-1.mds" "$base-$1.mds" >/dev/null
}

# summary P: the summary of the run of P processes, less its host figures
# and the name of its monitoring directory.
summary() {
  sed -E 's/host [^,]*, slowdown [^,]*, //; s/, peak .*//; s/monitoring files in [^:]*:/monitoring files:/' "$base-$1.err" >"$base-$1.sum"
}

# bytes P: the size of the trace of the run of P processes, or -.
bytes() {
  if [ -n "$trace" ]; then wc -c <"$base-$1.json"; else echo -; fi
}

printf '%-10s %6s %-3s %5s %8s %9s %11s  %s\n' workload ranks mode procs wall_s peak_MiB trace_bytes same
for mode in $modes; do
  for n in $sizes; do
    for w in ${only//,/ }; do
      a="-n $n --torus $(torus "$n" "$mode") --mode $mode $(args "$w" "$n" "$mode")"
      base="$out/$w-$n-$mode"
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %M' -o "$base-1.time" "$bin" --threads 2 $(observed 1) $a >"$base-1.out" 2>"$base-1.err" || true
      summary 1
      read -r wall kb <"$base-1.time"
      printf '%-10s %6s %-3s %5s %8s %9s %11s  %s\n' "$w" "$n" "$mode" 1 "$wall" $((kb / 1024)) "$(bytes 1)" "-"
      for p in $procs; do
        # shellcheck disable=SC2086
        /usr/bin/time -f '%e %M' -o "$base-$p.time" mpirun $mpiflags -np "$p" "$bin" --threads 1 $(observed "$p") $a >"$base-$p.out" 2>"$base-$p.err" || true
        summary "$p"
        same=yes
        if ! same "$p"; then
          same=NO
          fail=1
        fi
        # (/usr/bin/time's peak is mpirun's own; process 0's is in its summary line.)
        peak=$(grep -o 'peak [0-9.]* MiB' "$base-$p.err" | awk '{print int($2)}' | sort -n | tail -1 || true)
        read -r wall _ <"$base-$p.time"
        printf '%-10s %6s %-3s %5s %8s %9s %11s  %s\n' "$w" "$n" "$mode" "$p" "$wall" "${peak:-?}" "$(bytes "$p")" "$same"
      done
    done
  done
done
exit $fail
