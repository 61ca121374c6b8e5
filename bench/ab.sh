#!/usr/bin/env bash
# Compares the host time of two revisions of bglua on one command, in one
# sitting: builds both, runs them alternately (A, B, A, B, ...) so that a
# machine that speeds up or slows down weighs on both alike, and prints each
# one's median CPU time (user + system) and wall time, and B over A.
# The two runs' outputs must be the same (stdout, and stderr without the
# summary line), else it says so and exits 1.
#
# Usage: bench/ab.sh [-r RUNS] REV_A REV_B -- BGLUA_ARGS...
#   -r RUNS   runs of each revision (default 7)
#   REV_A/B   git revisions (a commit, a branch, HEAD); "." is the work tree
#   -h        this text
# Example: bench/ab.sh 4907e6f HEAD -- -n 1024 bench/workloads/allreduce.lua 100 8
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "ab.sh: $*; see -h" >&2; exit 2; }
runs=7
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -r) [ $# -ge 2 ] || die "-r needs a number"; runs=$2; shift 2 ;;
    *) break ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "runs must be a positive integer (got $runs)"
[ $# -ge 3 ] && [ "$3" = "--" ] || die "want REV_A REV_B -- BGLUA_ARGS..."
revA=$1 revB=$2
shift 3
top=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # rev -> binary path
  local rev=$1 out=$tmp/bglua-$2
  if [ "$rev" = "." ]; then
    (cd "$top" && go build -o "$out" ./cmd/bglua)
  else
    git -C "$top" rev-parse --verify -q "$rev^{commit}" >/dev/null || die "no revision $rev"
    mkdir -p "$tmp/src-$2"
    git -C "$top" archive "$rev" | tar -x -C "$tmp/src-$2"
    (cd "$tmp/src-$2" && go build -o "$out" ./cmd/bglua)
  fi
  echo "$out"
}
binA=$(build "$revA" a)
binB=$(build "$revB" b)

# one BIN TAG: runs once, appends "cpu wall" to $tmp/TAG.times
one() {
  /usr/bin/time -f "%U %S %e" -o "$tmp/t" "$1" "${@:3}" >"$tmp/$2.out" 2>"$tmp/$2.err" || true
  read -r u s e <"$tmp/t"
  echo "$(echo "$u + $s" | bc) $e" >>"$tmp/$2.times"
  grep -v '^bglua: .* ranks on .*peak' "$tmp/$2.err" >"$tmp/$2.errs" || true
}
for _ in $(seq "$runs"); do
  one "$binA" a "$@"
  one "$binB" b "$@"
done
if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.errs" "$tmp/b.errs"; then
  echo "ab.sh: the outputs of $revA and $revB differ:" >&2
  diff "$tmp/a.out" "$tmp/b.out" | head -5 >&2 || true
  diff "$tmp/a.errs" "$tmp/b.errs" | head -5 >&2 || true
  exit 1
fi
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
cpuA=$(cut -d' ' -f1 "$tmp/a.times" | median); wallA=$(cut -d' ' -f2 "$tmp/a.times" | median)
cpuB=$(cut -d' ' -f1 "$tmp/b.times" | median); wallB=$(cut -d' ' -f2 "$tmp/b.times" | median)
printf "%-12s cpu %8.3fs  wall %8.3fs  (median of %d)\n" "$revA" "$cpuA" "$wallA" "$runs"
printf "%-12s cpu %8.3fs  wall %8.3fs\n" "$revB" "$cpuB" "$wallB"
printf "B/A          cpu %8.3f   wall %8.3f\n" "$(echo "$cpuB / $cpuA" | bc -l)" "$(echo "$wallB / $wallA" | bc -l)"
