#!/bin/sh
# check.sh OUTDIR - verify every configuration of uspin.pml with Spin.
#
# Each configuration is generated, compiled and run in OUTDIR/<name>/
# (pan.c, pan, pan.log, and a .trail on error); nothing is written to the
# source folder.  Positive configurations must report "errors: 0" from a
# complete search; negative controls must make Spin report the expected
# error.  pan exits 0 even when it finds errors, so its output is parsed.
# Exit status: 0 if every configuration passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/model}
MODEL=$here/uspin.pml	# the whole set takes ~1-2 min
. "$here/pan.sh"
start=$(date +%s)

# Every slow-path entry picks A (FUTEX_LOCK), B (FUTEX_WAIT fallback, or a
# condvar waiter requeued onto the word) or C (FUTEX_LOCK_ADAPTIVE), and
# every contended unlock user space's xchg + FUTEX_WAKE or FUTEX_UNLOCK,
# unless a configuration restricts them; runs using fewer paths are among
# these, so "mixed" subsumes the narrower ones except where noted.
ALL="-DSLOW_KERNEL -DSLOW_WAIT -DSLOW_ADAPTIVE"
FAIR="-DSLOW_KERNEL -DSLOW_ADAPTIVE -DUNLOCK_KERNEL -DEXPIRED -DFAIR"

# Positive configurations: mutual exclusion, invariants, no invalid end state.
check kernel           ok "-DSLOW_KERNEL"
check wait             ok "-DSLOW_WAIT -DUNLOCK_LEGACY"
check adaptive         ok "-DSLOW_ADAPTIVE"
check mixed            ok "$ALL"
check timeouts         ok "$ALL -DTIMEOUTS -DEXPIRED"
# Liveness: no cycle without progress (no livelock / endless retry loop),
# for the kernel paths and, separately (the state space of all of them
# together takes minutes), the FUTEX_WAIT fallback.
check progress         ok "-DSLOW_KERNEL -DSLOW_ADAPTIVE -DTIMEOUTS" "-DNP -DCOLLAPSE" "-l"
check progress-wait    ok "-DSLOW_WAIT -DUNLOCK_LEGACY -DTIMEOUTS" "-DNP" "-l"
# Anti-starvation: with FUTEX_UNLOCK, a FUTEX_LOCK waiter fails at most one
# retry after a wake-up (then it is handed the lock), whatever spinners and
# user-space fast paths do.
check fair             ok "$FAIR"
check fair-k3          ok "$FAIR -DK=3"

# Negative controls: the 2010 seed's rule (acquire with TID only while
# others remain queued) must lose a wake-up.  Without the invariant monitor
# the stuck sleeper must show up as an invalid end state; with timeouts
# (which let a stuck sleeper escape) the invariant must catch it.
check seed-kernel      "invalid end state"  "-DSLOW_KERNEL -DSEED_RULE -DNO_INV"
check seed-wait        "invalid end state"  "-DSLOW_WAIT -DUNLOCK_LEGACY -DSEED_RULE -DNO_INV"
check seed-timeouts    "assertion violated" "$ALL -DTIMEOUTS -DSEED_RULE"
# A waiter woken (by FUTEX_WAKE or FUTEX_UNLOCK) that then sees its timeout
# must retry, not return ETIMEDOUT.
check bad-timeout      "assertion violated" "$ALL -DTIMEOUTS -DBAD_TIMEOUT"
# Without the handoff a sleeper can lose again and again.
check no-handoff       "assertion violated" "$FAIR -DNO_HANDOFF"
# A handed word without WAITERS while others are queued loses a wake-up.
check handoff-no-waiters "invalid end state" "-DSLOW_KERNEL -DUNLOCK_KERNEL -DHANDOFF_NO_W -DNO_INV"
check handoff-no-waiters-timeouts "assertion violated" "$ALL -DTIMEOUTS -DHANDOFF_NO_W"

end=$(date +%s)
echo "model: $pass passed, $fail failed ($((end - start)) s)"
[ $fail -eq 0 ]
