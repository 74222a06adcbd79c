#!/bin/sh
# check.sh BUILD - the drop-in's suites: test-dropin and test-dropin-cxx on
# glibc alone (the control: the suites must hold for glibc) and under
# BUILD/uspin-run with every policy, and, where the kernel has FUTEX_LOCK,
# once more on the stock-kernel protocol (--wait futex-wait).
# DROPIN_POLICIES chooses the policies (default: every one, as
# uspin-info --policies lists them).
# Exit status 0 if every run passed.
set -u
b=${1:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0

run() {
	label=$1
	shift
	if "$@" >"$log" 2>&1; then
		pass=$((pass + 1))
		echo "dropin $label: OK ($(grep -o 'Checks: [0-9]*' "$log" | tr '\n' ' ' | sed 's/ $//'))"
	else
		fail=$((fail + 1))
		echo "dropin $label: FAILED"
		grep -E ':[EF]:|Checks' "$log" | head -20
	fi
}

for t in test-dropin test-dropin-cxx; do
	DROPIN_EXPECT=glibc run "glibc $t" "$b/$t"
	for p in ${DROPIN_POLICIES:-$("$b/uspin-info" --policies)}; do
		DROPIN_EXPECT=uspin run "$p $t" "$b/uspin-run" --policy "$p" "$b/$t"
	done
	# The time-slice request on the drop-in's paths (recursive kinds):
	# forced, so that a kernel without the extension checks it too.
	[ $t = test-dropin ] &&
		USPIN_SLICE_EXT=force DROPIN_EXPECT=uspin run "auto slice-force $t kinds" \
			"$b/uspin-run" "$b/$t" kinds
	if "$b/uspin-info" | grep -q '^FUTEX_LOCK: *present'; then
		DROPIN_EXPECT=uspin run "auto futex-wait $t" \
			"$b/uspin-run" --wait futex-wait "$b/$t"
	else
		echo "SKIP: dropin futex-wait $t: the kernel has no FUTEX_LOCK, every run above used FUTEX_WAIT"
	fi
done
echo "dropin: $pass passed, $fail failed"
[ $fail -eq 0 ]
