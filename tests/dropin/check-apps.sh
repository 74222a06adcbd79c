#!/bin/sh
# check-apps.sh BUILD - unmodified applications under uspin-run give the
# output they give without it.
#  - sysbench threads (16 threads, pthread mutexes and condvars): a fixed
#    number of events, so the exit status, the thread and event counts and
#    the per-thread event average it prints are deterministic; those lines
#    must be identical (times and latencies are not compared);
#  - pbzip2 -p8 (a mutex/condvar work queue): compression is byte-identical
#    to the run without uspin-run, and the round trip restores the input.
# Both run with the default policy and with block and user-adaptive.
# Needs sysbench and pbzip2 (DEB_PACKAGES; `make deps`).
set -u
b=${1:-build}
run=$(cd "$b" && pwd)/uspin-run
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
EVENTS=${SYSBENCH_EVENTS:-400}

ok()  { echo "apps $1: OK${2:+ ($2)}"; }
bad() { fail=$((fail + 1)); echo "apps $1: FAILED ($2)"; }

for tool in sysbench pbzip2; do
	command -v $tool >/dev/null 2>&1 ||
		{ echo "apps: $tool not found (make deps installs it)" >&2; exit 1; }
done

# The deterministic lines of a sysbench report, and its exit status.
sysbench_facts() {
	grep -E '^Number of threads:|total number of events:|events \(avg/stddev\):' "$1" |
		sed -e 's/\(events (avg\/stddev): *[0-9.]*\)\/.*/\1/' -e 's/  */ /g'
	echo "exit $2"
}

sysbench threads --threads=16 --events=$EVENTS --time=0 run >"$work/sb.ref" 2>&1
sysbench_facts "$work/sb.ref" $? >"$work/sb.ref.facts"
grep -q "total number of events: *$EVENTS" "$work/sb.ref" ||
	{ bad sysbench-reference "no '$EVENTS events' in the plain run"; cat "$work/sb.ref"; }

seq 1 1500000 >"$work/in"
head -c 3000000 /dev/urandom >>"$work/in"
pbzip2 -p8 -k -c "$work/in" >"$work/ref.bz2" || bad pbzip2-reference "pbzip2 failed"

for p in auto block user-adaptive; do
	"$run" --policy $p sysbench threads --threads=16 --events=$EVENTS --time=0 run \
		>"$work/sb.$p" 2>&1
	sysbench_facts "$work/sb.$p" $? >"$work/sb.$p.facts"
	if cmp -s "$work/sb.ref.facts" "$work/sb.$p.facts"; then
		ok "sysbench $p" "$(grep 'total number of events' "$work/sb.$p" | sed 's/  */ /g;s/^ //')"
	else
		bad "sysbench $p" "$(diff "$work/sb.ref.facts" "$work/sb.$p.facts" | tr '\n' ' ')"
	fi

	if "$run" --policy $p pbzip2 -p8 -k -c "$work/in" >"$work/out.bz2" &&
	   cmp -s "$work/ref.bz2" "$work/out.bz2" &&
	   "$run" --policy $p pbzip2 -p8 -d -c "$work/out.bz2" >"$work/out" &&
	   cmp -s "$work/in" "$work/out"; then
		ok "pbzip2 $p" "$(wc -c <"$work/in") bytes, compressed byte-identical, round trip exact"
	else
		bad "pbzip2 $p" "output differs from the plain run or the round trip"
	fi
done
[ $fail -eq 0 ]
