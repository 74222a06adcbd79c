#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/apps/check.sh - `make bench-apps-check`: do the applications harness
# and its correctness checks work?  Behaviour only, never timing.
#
# 1. A tiny run of every application (2 rounds, 5 % of the work, no hogs)
#    under glibc and under a stand-in configuration whose wrapper is
#    `env` (it only execs: the harness's plumbing, not uspin), and the
#    report on it: every check must pass.
# 2. The same report must fail once the stand-in is held to the real
#    rule (a uspin configuration must preload libuspin).
# 3. Copies of those raw results, each broken the way a broken lock or a
#    crash would break them (a lost record, a corrupted file, a failed
#    verification, a timeout, a missing run, ...): the report must fail
#    each one, naming the check.
# 4. A run with a fault injected into the live pipeline (APPS_INJECT:
#    pbzip2's compressed file corrupted before decompression) must fail.
# 5. bench/apps/compare.py on a repeats.csv with a known answer.
# Prints PASS/FAIL per item, exits 1 on any FAIL.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
build=${BUILD:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/apps-check.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fails=0
pass() { echo "PASS: bench-apps: $*"; }
fail() { echo "FAIL: bench-apps: $*"; fails=$((fails + 1)); }

for p in memcached memcaslap memccapable db_bench kccachetest kcpolytest sysbench pbzip2 gnuplot; do
	command -v $p >/dev/null || { echo "SKIP: bench-apps: $p is not installed (make deps)"; exit 0; }
done
[ -x "$build/apps-util" ] || { echo "FAIL: bench-apps: no $build/apps-util (make)"; exit 1; }

good=$work/good/apps
mkdir -p "$good"
printf 'git_revision=check\ngit_dirty=0\ncommand=bench/apps/check.sh\n' > "$good/run.txt"
if APPS_OUT=$good/host APPS_UTIL=$build/apps-util APPS_INFO=$build/uspin-info \
	APPS_CONFIGS="glibc uspin-block" APPS_WRAPPER=env APPS_REPS=2 APPS_QUICK=1 \
	APPS_SCALE=5 APPS_HOGS=0 APPS_PORT=23122 sh bench/apps/apps.sh > "$work/run.log" 2>&1; then
	pass "a tiny run of every application"
else
	fail "a tiny run of every application (log: $(tail -3 "$work/run.log"))"
fi
if python3 bench/apps/report.py "$good" --allow-no-preload > "$work/report.log" 2>&1; then
	pass "report: every check passes on a good run ($(tail -1 "$work/report.log" | grep -o '[0-9]* checks passed'))"
else
	fail "report on a good run: $(grep FAILED "$work/report.log" | head -3)"
fi
for f in summary.md host/repeats.csv host/points.csv host/meta.json plots/pbzip2-compress-throughput.png \
	plots/memcached-cpu.svg; do
	[ -s "$good/$f" ] || fail "report wrote no $f"
done
rows=$(grep -c ',pass,' "$good/host/repeats.csv")
# 10 workloads x 2 configurations x 2 rounds
[ "$rows" = 40 ] && pass "repeats.csv: 40 rows" || fail "repeats.csv has $rows passing rows, expected 40"
grep -q '^| 8 threads | glibc[ †]* | ' "$good/summary.md" && grep -q '^| 8 threads | uspin-block[ †]* | ' "$good/summary.md" &&
	pass "summary.md: a row per configuration" || fail "summary.md lacks the per-configuration rows"

python3 bench/apps/report.py "$good" --no-plots > "$work/report2.log" 2>&1 &&
	fail "a uspin configuration that did not preload libuspin passed" ||
	{ grep -q 'preloads libuspin' "$work/report2.log" && grep -q 'libuspin mapped into memcached' "$work/report2.log" &&
		pass "a uspin configuration without libuspin fails the run" ||
		fail "no preload failure named: $(grep FAILED "$work/report2.log" | head -2)"; }

# A side keeps the invocation that measured it: a later run's top-level
# run.txt (a --guest-only run into the same folder) must not rename it.
d=$work/sides
rm -rf "$d"
cp -a "$work/good" "$d"
printf 'git_revision=check\ngit_dirty=0\ncommand=host-invocation\n' > "$d/apps/host/run.txt"
printf 'git_revision=check\ngit_dirty=0\ncommand=later-invocation\n' > "$d/apps/run.txt"
if python3 bench/apps/report.py "$d/apps" --allow-no-preload --no-plots > "$d/report.log" 2>&1 &&
	grep -q '"command": "host-invocation"' "$d/apps/host/meta.json" &&
	grep -q 'Command: `host-invocation`' "$d/apps/summary.md" &&
	! grep -q 'later-invocation' "$d/apps/summary.md"; then
	pass "a side's own run.txt names its command"
else
	fail "a side's command: meta.json says $(grep -o '"command": "[^"]*"' "$d/apps/host/meta.json")"
fi
rm -rf "$d"

# broken CASE CHECK-PATTERN SHELL-EDIT: the report must fail, naming the check.
broken() {
	local name=$1 want=$2 edit=$3 d=$work/$1
	rm -rf "$d"
	cp -a "$work/good" "$d"
	(cd "$d/apps/host/raw" && eval "$edit") || { fail "$name: could not apply the edit"; return; }
	if python3 bench/apps/report.py "$d/apps" --allow-no-preload --no-plots > "$d/report.log" 2>&1; then
		fail "$name: the report passed"
	elif grep 'FAILED' "$d/report.log" | grep -q -- "$want"; then
		pass "$name: fails ($want)"
	else
		fail "$name: failed, but not on '$want': $(grep FAILED "$d/report.log" | head -2)"
	fi
	rm -rf "$d"
}
# One record fewer after kcpolytest's setting phase.
lose_a_record() {
	python3 - "$1" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"(setting records:[\s\S]*?count: )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) - 1), s, 1)
open(sys.argv[1], "w").write(s)
EOF
}
r=t8-h0/uspin-block/r2
broken memcached-verify 'verify_failed = 0' \
	"sed -i 's/^verify_failed: 0/verify_failed: 7/' memcached/t4-h0/uspin-block/r1/client.out"
broken memcached-capable 'memccapable: all tests passed' \
	"echo 'binary incr                             [FAIL]' >> memcached-capable/all/uspin-block/r1/capable.out"
broken memcached-crash 'memcached finished' \
	"sed -i 's/^exit=0/exit=-1/; s/^signal=0/signal=11/' memcached/t4-h0/uspin-block/r2/server.ru"
broken rocksdb-lost-key 'readrandom: every key found' \
	"sed -i -E 's/\\( *([0-9]+) of ([0-9]+) found\\)/(1 of \\2 found)/' rocksdb/$r/read.out"
broken rocksdb-short 'fillrandom: every operation done' \
	"sed -i -E 's/ ([0-9]+) operations;/ 1\\1 operations;/' rocksdb/$r/fill.out"
broken rocksdb-corrupt 'verifychecksum finished' \
	"sed -i 's/^exit=0/exit=1/' rocksdb/$r/verify.ru"
broken kyoto-cache-verdict "the test's own verdict is ok" \
	"sed -i 's/^ok\$/error/' kyoto-cache/$r/kc.out"
broken kyoto-poly-lost 'every record set' "lose_a_record kyoto-poly/$r/kc.out"
broken sysbench-mutex-thread 'every thread finished' \
	"sed -i -E 's/(total number of events: +)[0-9]+/\\13/' sysbench-mutex/$r/sb.out"
broken sysbench-threads-count 'accounted per thread' \
	"sed -i -E 's/(total number of events: +)([0-9]+)/\\1\\21/' sysbench-threads/$r/sb.out"
broken pbzip2-roundtrip 'decompressed = input' \
	"echo DIFFERENT > pbzip2/t4-h0/uspin-block/r1/roundtrip.txt"
broken pbzip2-output 'the same compressed file' \
	"echo 0123 > pbzip2/t4-h0/uspin-block/r2/compressed.md5"
broken timeout 'kyoto-cache finished' \
	"sed -i 's/^timeout=0/timeout=1/' kyoto-cache/$r/kc.ru"
broken missing-run 'output complete' \
	"rm -rf sysbench-threads/$r"

# A fault in the live pipeline: apps.sh corrupts pbzip2's compressed file
# before decompressing it (what a lock that lets two threads write one
# block would do); decompression and the comparisons must catch it.
inj=$work/inject/apps
mkdir -p "$inj"
APPS_OUT=$inj/host APPS_UTIL=$build/apps-util APPS_CONFIGS=glibc APPS_REPS=1 APPS_SCALE=5 \
	APPS_HOGS=0 APPS_LIST=pbzip2 APPS_INJECT=pbzip2=flip sh bench/apps/apps.sh > "$inj/log" 2>&1
if python3 bench/apps/report.py "$inj" --no-plots > "$inj/report.log" 2>&1; then
	fail "injected pbzip2 corruption: the report passed"
elif grep FAILED "$inj/report.log" | grep -q 'decompressed = input'; then
	pass "injected pbzip2 corruption fails the run"
else
	fail "injected pbzip2 corruption: $(grep FAILED "$inj/report.log" | head -2)"
fi

# 5. compare.py, on a repeats.csv whose answer is known: A is twice as
#    fast as B in every round at the same CPU, and A equals C.
cmp=$work/compare/apps
mkdir -p "$cmp/guest"
{
	echo "workload,point,lock,rep,kept,check,ops_per_s,cpu_us_per_op"
	for r in 1 2 3 4 5; do
		echo "w,t8-h0,A,$r,1,pass,$((2000 + r)),1.0"
		echo "w,t8-h0,B,$r,1,pass,$((1000 + r)),1.0"
		echo "w,t8-h0,C,$r,1,pass,$((2000 + r)),1.0"
	done
} > "$cmp/guest/repeats.csv"
out=$(python3 bench/apps/compare.py "$cmp" A B 2>&1)
if echo "$out" | grep -q '| w | t8-h0 | 2 \[.*| better | 1 \[1, 1\] (n=5) | equivalent |'; then
	pass "compare.py: twice as fast in every round is 'better', equal CPU 'equivalent'"
else
	fail "compare.py A B: $out"
fi
out=$(python3 bench/apps/compare.py "$cmp" A C 2>&1)
echo "$out" | grep -q '| w | t8-h0 | 1 \[1, 1\] (n=5) | equivalent |' &&
	pass "compare.py: equal configurations are equivalent" || fail "compare.py A C: $out"
if python3 bench/apps/compare.py "$cmp" A nosuch > /dev/null 2>&1; then
	fail "compare.py with a configuration that never ran exited 0"
else
	pass "compare.py refuses a configuration that never ran"
fi

[ $fails = 0 ] && echo "bench-apps-check: all passed" || echo "bench-apps-check: $fails FAILED"
exit $((fails > 0))
