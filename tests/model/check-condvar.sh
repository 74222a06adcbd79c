#!/bin/sh
# check-condvar.sh OUTDIR - verify every configuration of condvar.pml.
#
# As check.sh does for uspin.pml: each configuration is generated,
# compiled and run in OUTDIR/<name>/ (pan.c, pan, pan.log, and a .trail on
# error).  Positive configurations must report "errors: 0" from a complete
# search; negative controls must make Spin report the expected error.
# Exit status: 0 if every configuration passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/model-condvar}
# The deepest run reaches ~12000 (timeouts loop); the whole set takes
# ~2-3 min.
# -DCOLLAPSE: the largest search needs ~550 MB with it, several GB without.
# -O0 compiles pan.c in 1 s instead of 6 and runs it 2x slower: the right
# trade below a few million states; BIG searches take -O1.
SMALL="-O0 -DSAFETY -DCOLLAPSE"
BIG="-O1 -DSAFETY -DCOLLAPSE"
MODEL=$here/condvar.pml LABEL=model-condvar PAN_CFLAGS=$SMALL
. "$here/pan.sh"
start=$(date +%s)

# Positive: 2 waiters and a signaller (signal or broadcast, inside or
# outside the mutex) unless said otherwise.  The invariant monitor is on.
# Without timeouts a lost wake-up is also an invalid end state; with them
# (a waiter that times out waits again) the monitor must catch it.  Runs
# without a cancellation are part of every -DCANCEL search.
check base             ok ""
check cancel           ok "-DCANCEL"
check timeouts-cancel  ok "-DTIMEOUTS -DCANCEL" "$BIG"
check extra-signal     ok "-DEXTRA_SIGNAL" "$BIG"
check shared           ok "-DSHARED"
check shared-tc        ok "-DSHARED -DTIMEOUTS -DCANCEL" "$BIG"
check kernel           ok "-DKERNEL_LOCK"
check kernel-tc        ok "-DKERNEL_LOCK -DTIMEOUTS -DCANCEL"
# One waiter twice, two signallers.
check one-waiter       ok "-DNW=1 -DKW=2 -DKS=1 -DTIMEOUTS -DCANCEL"
# A waiter that comes back: a broadcast's retired sleepers and new
# waiters on one futex word (the pass-on rule).
check rejoin           ok "-DKW=2 -DKS=3" "$BIG"
# Liveness: no cycle without progress (retry and pass-on loops end).
check progress         ok "" "-O1 -DNP -DCOLLAPSE" "-l"
check progress-shared  ok "-DSHARED -DKERNEL_LOCK" "-O0 -DNP -DCOLLAPSE" "-l"

# Negative controls: each safeguard of docs/condvar.md, left out.
# A requeue onto a mutex word without FUTEX_WAITERS: its unlock wakes nobody.
check no-waiters-bit   "invalid end state"  "-DBAD_NO_WAITERS -DNO_INV"
check no-waiters-bit-inv "assertion violated 0" "-DBAD_NO_WAITERS"
# A requeued waiter that re-acquires without FUTEX_WAITERS strands the next.
check relock-plain     "invalid end state"  "-DBAD_RELOCK -DNO_INV"
check relock-plain-inv "assertion violated 0" "-DBAD_RELOCK"
# A waiter woken on the mutex word without a signal swallows its wake-up.
check no-pass-on       "invalid end state"  "-DBAD_NO_PASS_ON -DNO_INV"
# One group on one futex word: a later waiter takes an earlier signal.
check steal            "assertion violated (nsigs>sigs0)" \
	"-DBAD_STEAL -DEXTRA_SIGNAL -DNO_INV" "$SMALL" "-E"
# A signal that does not move the futex word sleeps through.
check no-seq           "invalid end state"  "-DBAD_NO_SEQ -DNO_INV"
# A broadcast that wakes one and leaves no duty strands the rest.
check no-duty          "invalid end state"  "-DBAD_NO_DUTY -DNO_INV"
check no-duty-inv      "assertion violated 0" "-DBAD_NO_DUTY"
# A cancelled waiter keeps the signal it took: the other sleeps on.
check no-resignal      "invalid end state"  "-DBAD_NO_RESIGNAL -DCANCEL -DNO_INV"
# A timed-out waiter takes a signal and says ETIMEDOUT (musl does).
check timeout-takes    "assertion violated (given==consumed)" \
	"-DBAD_TIMEOUT_TAKES -DTIMEOUTS"

end=$(date +%s)
echo "model-condvar: $pass passed, $fail failed ($((end - start)) s)"
[ $fail -eq 0 ]
