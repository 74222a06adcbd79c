#!/bin/bash
# bench/check.sh — `make bench-check`: does the benchmark machinery work?
# Behaviour only, never timing: the statistics' self-test, the harness's
# refusals, a tiny run of every kind of workload with a lock in the
# harness and one in a process of its own, the report on it,
# bench-uncontended's phases and the host provider's set-up.  About 30 s.
# Prints PASS or FAIL lines.
set -uo pipefail
build=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS: bench: $1"; }
fail() { echo "FAIL: bench: $1"; fails=$((fails + 1)); }

# The statistics and the verdict rule's error rates simulated under the
# null (bench/benchlib/selftest.py, ~12 s; its tables are in the log).
if (cd "$here" && python3 -B -m benchlib.selftest) >"$tmp/selftest.log" 2>&1; then
	pass "benchlib self-test: statistics, verdict rule's simulated error rates"
else
	fail "benchlib self-test"; tail -5 "$tmp/selftest.log"
fi

"$build/uspin-bench" list >/dev/null 2>&1 && pass "list" || fail "list"
"$build/uspin-bench" no_such_workload >/dev/null 2>&1; [ $? = 2 ] && pass "unknown mode refused" || fail "unknown mode not refused"
"$build/uspin-bench" sweep -r 0 >/dev/null 2>&1; [ $? = 2 ] && pass "bad -r refused" || fail "bad -r not refused"
"$build/uspin-bench" sweep -l no_such_lock >/dev/null 2>&1; [ $? = 2 ] && pass "unknown lock refused" || fail "unknown lock not refused"
# bench/run's guest half without make's list of the guest's programs:
# refused before anything boots or is written.
out=$(cd "$here/.." && env -u USPIN_GUEST_BINS bench/run --guest-only --out "$tmp/noguest" 2>&1)
[ $? = 2 ] && echo "$out" | grep -q "USPIN_GUEST_BINS is not set" && [ ! -e "$tmp/noguest" ] &&
	pass "bench/run: guest half refused without USPIN_GUEST_BINS" ||
	fail "bench/run: guest half not refused without USPIN_GUEST_BINS"

# One lock in the harness; a uspin lock (USPIN_SLICE_EXT=0) and a glibc
# tunable lock, each in a process of its own (their environments).
locks=pthread_mutex,uspin_user_adaptive,pthread_mutex_adaptive_spin0
wls=micro,sweep,preempt,sleep_fault,open_loop,oversub,kv,holdtime
if "$build/uspin-bench" $wls -Q -r 2 -s 0.02 --reruns 0 -q -l $locks -o "$tmp/host" \
	>"$tmp/log" 2>&1; then
	pass "tiny run of every workload"
else
	fail "tiny run of every workload (see below)"; tail -20 "$tmp/log"
fi
python3 - "$tmp/host" <<'PY' && pass "repeats.csv and meta.json are complete" || fail "repeats.csv / meta.json"
import csv, json, sys
d = sys.argv[1]
meta = json.load(open(d + "/meta.json"))
rows = list(csv.DictReader(open(d + "/repeats.csv")))
assert meta["finished"] and meta["broken"] == 0, "run not finished or a lock broke"
npoints = sum(len(w["points"]) for w in meta["workloads"])
nlocks = len(meta["locks"])
assert len(rows) == npoints * nlocks * 2, (len(rows), npoints, nlocks)
for r in rows:
    assert r["kept"] == "1" and float(r["ops"]) > 0, r
    assert (r["child"] == "1") == (r["lock"] != "pthread_mutex"), r
    assert r["lock"] == "uspin_user_adaptive" or r["spin_wasted_us_per_op"] == "", r
for rep in (0, 1):   # each round: every lock once, rotated
    for (w, p) in {(r["workload"], r["point"]) for r in rows}:
        got = [r["lock"] for r in rows if (r["workload"], r["point"], r["rep"]) == (w, p, str(rep))]
        assert sorted(got) == sorted(l["name"] for l in meta["locks"]), got
ol = [r for r in rows if r["workload"] == "open_loop"]
assert ol and all(float(r["offered_per_s"]) > 0 for r in ol)
assert all(float(r["lat_p99_ns"]) < 2**31 for r in ol), "open loop latency wrapped"
PY
# Open loop: the runner measured each capacity once per thread count (the
# loads share it) and offered every lock of a round the same arrivals, in
# the harness and in a process of its own, at load_pct of that capacity.
python3 - "$tmp/host" "$tmp/log" <<'PY' && pass "open loop: load_pct of the measured capacity, the same for every lock" || fail "open loop: offered load"
import collections, csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/repeats.csv"))
        if r["workload"] == "open_loop"]
cap = {}
for line in open(sys.argv[2]):
    m = re.match(r"open_loop: (\S+) capacity ([0-9.]+) kop/s \(\w+, ", line)
    if m:
        cap[m.group(1)] = float(m.group(2)) * 1e3
by_threads = {r["threads"]: r["point"] for r in rows if r["point"] in cap}
assert cap and len(cap) == len({r["threads"] for r in rows}) == len(by_threads), cap
offered = collections.defaultdict(set)
for r in rows:
    offered[r["point"], r["rep"]].add(r["offered_per_s"])
    want = float(r["load_pct"]) / 100 * cap[by_threads[r["threads"]]]
    assert 0.6 * want <= float(r["offered_per_s"]) <= 1.4 * want, (r["point"], r["offered_per_s"], want)
assert all(len(v) == 1 for v in offered.values()), offered
assert {r["child"] for r in rows} == {"0", "1"}
PY
if python3 -B "$here/report.py" "$tmp" >"$tmp/report.log" 2>&1 &&
   grep -q "against pthread_mutex_adaptive\|against pthread_mutex" "$tmp/summary.md" &&
   [ -s "$tmp/host/points.csv" ]; then
	pass "report: summary.md, points.csv"
else
	fail "report"; tail -20 "$tmp/report.log"
fi
if command -v gnuplot >/dev/null; then
	ls "$tmp"/host/plots/*.png "$tmp"/host/plots/*.svg >/dev/null 2>&1 && pass "report: plots" || fail "report: no plots"
else
	echo "SKIP: bench: plots: no gnuplot"
fi

# The parking_lot-style rival under contention that parks (8 threads on
# the CPUs, short and long holds): the harness's protected counter says
# whether it kept mutual exclusion ("broken"), and every point finished.
if "$build/uspin-bench" holdtime -r 1 -s 0.1 --reruns 0 -q -l parking_lot \
	--holds 1,200 --hold-tpc 40 --hold-hogs 0 -o "$tmp/pl" >"$tmp/pl.log" 2>&1 &&
   python3 - "$tmp/pl" <<'PY'
import csv, json, sys
meta = json.load(open(sys.argv[1] + "/meta.json"))
rows = list(csv.DictReader(open(sys.argv[1] + "/repeats.csv")))
assert meta["finished"] and meta["broken"] == 0, "parking_lot broke mutual exclusion"
assert len(rows) == 2 and all(float(r["ops"]) > 0 for r in rows), rows
PY
then
	pass "parking_lot: mutual exclusion kept, every point finished"
else
	fail "parking_lot (see below)"; tail -5 "$tmp/pl.log"
fi

# Controlled owner descheduling: holders kick their CPU's preemptor in
# 20 % of sections for 300 us.  Behaviour only: kicks happen, each one
# served computes for its length, the points without preemptions report
# none, and the preemptors run SCHED_FIFO where we may (root).
if "$build/uspin-bench" holdtime -r 1 -s 0.1 --reruns 0 -q -l uspin_block \
	--holds 100 --hold-tpc 10 --hold-hogs 0 --hold-preempt-ppm 0,200000 \
	--hold-preempt-us 300 -o "$tmp/pre" >"$tmp/pre.log" 2>&1 &&
   python3 - "$tmp/pre" "$(id -u)" <<'PY'
import csv, sys
rows = {r["point"]: r for r in csv.DictReader(open(sys.argv[1] + "/repeats.csv"))}
assert set(rows) == {"h100-d50-t2-g0", "h100-d50-t2-g0-p200000-D300"}, sorted(rows)
off, on = rows["h100-d50-t2-g0"], rows["h100-d50-t2-g0-p200000-D300"]
assert off["preempt_ppm"] == "0" and off["preempt_kicks_per_kop"] == "", off
assert on["preempt_ppm"] == "200000" and on["preempt_us"] == "300", on
kicks, served = float(on["preempt_kicks_per_kop"]), float(on["preempt_served_per_kop"])
busy = float(on["preempt_us_per_op"])
assert 0 < served <= kicks <= 1000, (kicks, served)
assert abs(busy - served * 300 / 1000) <= 0.2 * served * 300 / 1000, (busy, served)
assert on["preempt_rt"] == ("1" if sys.argv[2] == "0" else on["preempt_rt"]), on["preempt_rt"]
PY
then
	pass "holdtime: preemptors kicked, served for their length, SCHED_FIFO as root"
else
	fail "holdtime: preemptors (see below)"; tail -5 "$tmp/pre.log"
fi
if out=$("$build/bench-uncontended" -r 2 -n 10000 2>&1) &&
   echo "$out" | grep -q "1 in every single round: yes; 0 in every threaded round: yes"; then
	pass "bench-uncontended: both phases, __libc_single_threaded as expected"
else
	fail "bench-uncontended"; echo "$out" | tail -5
fi
# The host run's provider set-up on a patched kernel: the sysctl is set
# for the run and its old value restored (a file stands in for it).
echo 0 > "$tmp/sysctl"
if out=$(USPIN_RS_SYSCTL=$tmp/sysctl build=$build out=$tmp who=check bash -c '
	. "$0/host_provider.sh"
	host_provider_start; echo "during: $(cat "$rs_sysctl")"
	host_provider_stop; echo "after: $(cat "$rs_sysctl")"' "$here" 2>&1) &&
   echo "$out" | grep -qx "during: 1" && echo "$out" | grep -qx "after: 0"; then
	pass "host provider: kernel.sched_running_state set for the run, restored after"
else
	fail "host provider: sysctl not set and restored"; echo "$out" | tail -5
fi
# A sysctl that cannot be written (a directory stands in for it): the
# run goes on, says so, and the stop writes nothing back.
mkdir "$tmp/sysctl-ro"
if out=$(USPIN_RS_SYSCTL=$tmp/sysctl-ro build=$build out=$tmp who=check bash -c '
	. "$0/host_provider.sh"
	host_provider_start; host_provider_stop; echo "saved: [$rs_saved]"' "$here" 2>&1) &&
   echo "$out" | grep -q "kernel.sched_running_state cannot be set" && echo "$out" | grep -qx "saved: \[\]"; then
	pass "host provider: an unwritable sysctl is reported, nothing restored"
else
	fail "host provider: unwritable sysctl not reported"; echo "$out" | tail -5
fi
[ $fails = 0 ]
