#!/bin/bash
# bench/calibrate.sh — count the instructions one round of the work unit
# retires, with callgrind (exact, and works where the PMU is not exposed,
# as on this host's PVM guest), and compare with BENCH_WORK_INSN_PER_ROUND.
#
# usage: bench/calibrate.sh [USPIN_BENCH]
# Two runs of different lengths; the difference of their instruction
# totals over the difference of their rounds cancels start-up and exit.
set -euo pipefail

bin=${1:-build/uspin-bench}
command -v valgrind >/dev/null || { echo "SKIP: calibrate: no valgrind (apt-get install valgrind)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out.$1" \
		"$bin" work -n "$1" >/dev/null 2>&1
	sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out.$1"
}

n1=1000000 n2=3000000
a=$(ir $n1) b=$(ir $n2)
[ -n "$a" ] && [ -n "$b" ] || { echo "calibrate: callgrind could not run $bin (clang's DWARF 5 is too new for this valgrind: use the gcc build)" >&2; exit 1; }
measured=$(echo "scale=3; ($b - $a) / ($n2 - $n1)" | bc)
assumed=$(sed -n 's/^#define BENCH_WORK_INSN_PER_ROUND[[:space:]]*\([0-9.]*\).*/\1/p' bench/work.h)
echo "calibrate: $measured instructions per round (callgrind), harness assumes $assumed"
if [ "$(echo "$measured - $assumed > 0.05 || $assumed - $measured > 0.05" | bc)" = 1 ]; then
	echo "calibrate: MISMATCH: update BENCH_WORK_INSN_PER_ROUND in bench/work.h" >&2
	exit 1
fi
