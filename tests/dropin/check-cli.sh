#!/bin/sh
# check-cli.sh BUILD - uspin-run as a user meets it: --help, errors and
# exit statuses, the environment it sets, the warning for a statically
# linked command, the man page (rendered by man -l without a warning), and
# `make install` into a scratch prefix, whose uspin-run finds its library.
set -u
b=${1:-build}
run=$b/uspin-run
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

ok()  { echo "uspin-run $1: OK"; }
bad() { fail=$((fail + 1)); echo "uspin-run $1: FAILED ($2)"; }

# expect NAME STATUS PATTERN CMD...: exit status and a line of output
expect() {
	name=$1 status=$2 pattern=$3
	shift 3
	"$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" -ne "$status" ]; then
		bad "$name" "exit $rc, wanted $status: $(head -2 "$out")"
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$out"; then
		bad "$name" "no '$pattern' in: $(head -3 "$out")"
	else
		ok "$name"
	fi
}

policies=$("$b/uspin-info" --policies)
[ -n "$policies" ] || bad policies "uspin-info --policies printed nothing"
expect help 0 "Usage: uspin-run" "$run" --help
for p in $policies; do
	grep -q -- "$p" "$out" || bad "help lists $p" "missing"
done
# uspin-run's list (built from libuspin/policy.c) against the library's.
for p in $policies; do
	expect "accepts $p" 0 "^USPIN_POLICY=$p$" "$run" -p "$p" env
done
expect version 0 "uspin-run (uspin)" "$run" --version
expect no-command 125 "no command given" "$run"
expect bad-policy 125 "is not a policy" "$run" --policy=fast true
expect policy-needs-value 125 "needs a policy" "$run" --policy
expect bad-wait 125 "is not futex-lock or futex-wait" "$run" -w spin true
expect bad-option 125 "unknown option" "$run" --frobnicate true
expect bad-library 125 "cannot find" "$run" --library=/nonexistent/lib.so true
expect not-found 127 "No such file" "$run" /nonexistent/command
printf 'not a program\n' >"$out.txt" && chmod 644 "$out.txt"
expect not-executable 126 "Permission denied" "$run" "$out.txt"
rm -f "$out.txt"
expect exit-status 7 "" "$run" sh -c 'exit 7'
expect sets-policy 0 "^USPIN_POLICY=user-adaptive$" "$run" -p user-adaptive env
expect sets-wait 0 "^USPIN_WAIT=futex-wait$" "$run" --wait=futex-wait env
expect no-policy-by-default 0 "" sh -c "env -u USPIN_POLICY $run env | grep -qv '^USPIN_POLICY='"
lib=$(cd "$b" && pwd)/libuspin-pthread.so
expect preload-first 0 "^LD_PRELOAD=$lib:libm.so.6$" env LD_PRELOAD=libm.so.6 "$run" env
expect after-dashes 0 "^hello$" "$run" -- echo hello
expect static-warns 0 "statically linked" "$run" "$b/dropin/static-hello"
grep -q "^word 1$" "$out" || bad static-runs-on-glibc "$(cat "$out")"
expect static-quiet 0 "" sh -c "$run -q $b/dropin/static-hello 2>&1 | grep -qv warning"

# The man page renders and groff has nothing to say about it.
if MANWIDTH=80 man --warnings -l pthread/uspin-run.1 >"$out" 2>"$out.err"; then
	if [ -s "$out.err" ]; then
		bad man "groff warnings: $(head -3 "$out.err")"
	elif ! grep -q "uspin-run *- *run a program" "$out"; then
		bad man "no NAME line"
	else
		ok man
	fi
else
	bad man "man -l failed: $(head -3 "$out.err")"
fi
rm -f "$out.err"

# make install: uspin-run finds ../lib/libuspin-pthread.so; man page there.
prefix=$(mktemp -d)
if make --no-print-directory install PREFIX="$prefix" >/dev/null 2>&1 &&
   [ -x "$prefix/bin/uspin-run" ] && [ -f "$prefix/lib/libuspin-pthread.so" ] &&
   [ -f "$prefix/share/man/man1/uspin-run.1" ]; then
	expect installed 0 "^LD_PRELOAD=$prefix/lib/libuspin-pthread.so$" \
		env -u LD_PRELOAD -u USPIN_PTHREAD_LIB "$prefix/bin/uspin-run" env
else
	bad install "make install PREFIX=$prefix did not install uspin-run, the library and the man page"
fi
rm -rf "$prefix"

[ $fail -eq 0 ] && echo "uspin-run: all checks passed"
[ $fail -eq 0 ]
