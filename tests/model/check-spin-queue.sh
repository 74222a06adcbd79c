#!/bin/sh
# check-spin-queue.sh OUTDIR - verify spin_queue.pml (the queue of a
# private mutex's spinners, libuspin/spinners.c) in every configuration,
# negative controls included.  Seconds: make test runs it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/model}/spin-queue
MODEL=$here/spin_queue.pml LABEL=model-spin-queue PAN_CFLAGS="-O1 -DSAFETY -DCOLLAPSE"
. "$here/pan.sh"
start=$(date +%s)

# Three spinners, any of which may leave from the middle at any moment.
check queue            ok ""
# A node reused by its thread's next phase, behind a successor that may
# still read it.
check queue-k2         ok "-DK=2"
check queue-n4         ok "-DN=4"
# Nobody leaves before its turn: every waiter gets it.
check queue-noleave    ok "-DNOLEAVE -DK=2"

check neg-no-wait-next "invalid end state"  "-DNOLEAVE -DNEG_NO_WAIT_NEXT"
check neg-no-step-a    "assertion violated" "-DNEG_NO_STEP_A"

echo "model (spin queue): $pass passed, $fail failed ($(( $(date +%s) - start )) s)"
[ $fail -eq 0 ]
