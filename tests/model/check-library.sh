#!/bin/sh
# check-library.sh OUTDIR - verify library.pml (libuspin's own rules on the
# stock-kernel path: trylock, spinner slot, handoff, owner death,
# ENOTRECOVERABLE, timed waits, process-shared waiters killed) in every
# configuration.
#
# make check runs each thread's single attempt (K=1: every attempt still
# meets every other in every order; 0.1-0.9 M states, a few seconds each).
# FULL=1 adds two attempts per thread (K=2: a thread that timed out or
# was handed the lock comes back; 32-80 M states, minutes and GBs each).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/model}/library
MODEL=$here/library.pml
. "$here/pan.sh"
start=$(date +%s)

check lib               ok "-DK=1"
check lib-timeouts      ok "-DK=1 -DTIMEOUTS"
check lib-death         ok "-DK=1 -DDEATH"
check lib-death-timeouts ok "-DK=1 -DTIMEOUTS -DDEATH"
# Process-shared (issue 25): a waiter killed asleep or woken never
# strands the mutex or the others (its word is marked: owner.c).
check lib-shared-wdeath ok "-DK=1 -DSHARED -DWDEATH"
check lib-shared-wdeath-timeouts ok "-DK=1 -DSHARED -DWDEATH -DTIMEOUTS"
# Two spinners beside an owner (libuspin v3: CPUs - 1 of them).
check lib-maxsp2        ok "-DK=1 -DMAXSP=2"
check lib-maxsp2-timeouts ok "-DK=1 -DMAXSP=2 -DTIMEOUTS"
# Thread 1 comes back: the woken waiter that spins again meets a new owner.
check lib-k1x2          ok "-DK=1 -DK1=2"
check lib-k1x2-maxsp2   ok "-DK=1 -DK1=2 -DMAXSP=2"
# Two attempts each: a woken waiter killed while another took the free word.
check lib-k2-shared-wdeath ok "-DK=2 -DSHARED -DWDEATH" "-DSAFETY -DCOLLAPSE"
# Liveness: no cycle without progress (the promised wait, retries).
check lib-progress      ok "-DK=1 -DTIMEOUTS -DDEATH" "-DNP" "-l"
if [ "${FULL:-0}" = 1 ]; then
	check lib-k2            ok "-DK=2" "-DSAFETY -DCOLLAPSE"
	check lib-k2-death      ok "-DK=2 -DDEATH" "-DSAFETY -DCOLLAPSE"
	check lib-k2-timeouts   ok "-DK=2 -DTIMEOUTS" "-DSAFETY -DCOLLAPSE"
fi

# Negative controls: each broken rule must be caught.
check neg-withdraw-store "assertion violated" "-DK=1 -DTIMEOUTS -DNEG_WITHDRAW_STORE"
check neg-handoff-read   "assertion violated" "-DK=1 -DTIMEOUTS -DNEG_HANDOFF_READ"
check neg-handoff-no-w   "invalid end state"  "-DK=1 -DNEG_HANDOFF_NO_W"
check neg-notrec-nowake  "invalid end state"  "-DK=1 -DDEATH -DNEG_NO_NOTREC_WAKE"
check neg-wake-one-handoff "invalid end state" "-DK=1 -DNEG_WAKE_ONE_HANDOFF"
check neg-shared-handoff "invalid end state" "-DK=1 -DSHARED -DWDEATH -DNEG_SHARED_HANDOFF"
check neg-no-pending     "invalid end state"  "-DK=1 -DSHARED -DWDEATH -DNEG_NO_PENDING"
check neg-pass-no-recheck "invalid end state" "-DK=1 -DNEG_PASS_NO_RECHECK"
check neg-respin-no-w    "invalid end state"  "-DK=1 -DK1=2 -DNEG_RESPIN_NO_W"
check neg-shared-free-zero "invalid end state" "-DK=2 -DSHARED -DWDEATH -DNEG_SHARED_FREE_ZERO" "-DSAFETY -DCOLLAPSE"

echo "model (library): $pass passed, $fail failed ($(( $(date +%s) - start )) s)"
[ $fail -eq 0 ]
