#!/bin/sh
# run-check-bpf.sh BUILD [measure] - check-bpf: start a private uspin-stated
# (its own socket, status page and bpffs pin), run the BPF suites against
# it, stop it, clean up.  With "measure": print the numbers of
# docs/bpf-provider.md instead (make bench-bpf-stated).  Where BPF cannot
# be loaded, say why and report the suites skipped (never a silent pass).
set -u
B=$(cd "$1" && pwd)
mode=${2:-check}
skip() { echo "SKIP: check-bpf: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root: uspin-stated loads BPF (CAP_BPF+CAP_PERFMON or CAP_SYS_ADMIN) and tests switch uids"
rc=0

# libuspin must not pull in libbpf (or anything but libc): BPF is opt-in.
needed=$(readelf -d "$B/libuspin.so" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [ "$mode" = check ]; then
	case "$needed" in
	"libc.so.6 ") echo "check-bpf: libuspin.so needs only libc: ok" ;;
	*) echo "check-bpf: FAIL: libuspin.so needs: $needed"; rc=1 ;;
	esac
fi

dir=$(mktemp -d /tmp/uspin-check-bpf.XXXXXX) || exit 1
chmod 755 "$dir"		# uid 65534 must reach the sockets
sock=$dir/stated.sock
log=$dir/helper.log
pinbase=/sys/fs/bpf/uspin-check-$$
pid=

cleanup() {
	# helpers the tests started and left behind (a test that failed)
	if [ -f "$dir/pids" ]; then
		for p in $(cat "$dir/pids"); do
			if grep -q uspin-stated "/proc/$p/cmdline" 2>/dev/null; then
				kill -KILL "$p" 2>/dev/null
			fi
		done
	fi
	rm -rf "$pinbase" "$pinbase"-* 2>/dev/null
	rm -rf "$dir"
}

# Start the suite's helper; it mounts bpffs on /sys/fs/bpf if needed.
"$B/uspin-stated" --foreground --socket "$sock" --status "$dir/status" \
	--pin "$pinbase/rs" 2>"$log" &
pid=$!
i=0
while ! grep -q ': live: ' "$log" 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null || [ $i -ge 600 ]; then
		why=$(tr '\n' ' ' <"$log")
		kill -KILL "$pid" 2>/dev/null
		cleanup
		skip "uspin-stated cannot publish: $why"
	fi
	sleep 0.05; i=$((i + 1))
done

export USPIN_STATED_SOCKET="$sock" USPIN_STATED_PID="$pid" USPIN_STATED_LOG="$log"
export USPIN_STATED_BIN="$B/uspin-stated" USPIN_INFO_BIN="$B/uspin-info"
export USPIN_BPF_TEST_DIR="$dir" USPIN_BPF_TEST_PIN="$pinbase"

if [ "$mode" = measure ]; then
	USPIN_RS_PROVIDER=bpf "$B/test-bpf" measure || rc=1
else
	echo "check-bpf: shared running-state suite, provider bpf through $sock"
	USPIN_RS_PROVIDER=bpf USPIN_RS_REQUIRE=bpf "$B/test-uspin" running-state || rc=1
	echo "check-bpf: the spin phase on a running-state provider (test-uspin spin, test-lockpath)"
	USPIN_RS_PROVIDER=bpf USPIN_RS_REQUIRE=bpf "$B/test-uspin" spin || rc=1
	USPIN_RS_PROVIDER=bpf USPIN_RS_REQUIRE=bpf "$B/test-lockpath" || rc=1
	echo "check-bpf: test-bpf"
	USPIN_RS_PROVIDER=bpf "$B/test-bpf" || rc=1
fi

# SIGTERM: the helper marks its status page dead and exits 0.
kill -TERM "$pid"
wait "$pid"
st=$?
word=$(od -A n -t x4 -N 4 "$dir/status" | tr -d ' ')
if [ "$mode" = check ]; then
	if [ "$st" != 0 ] || [ "$word" != 40000000 ]; then
		echo "check-bpf: FAIL: on SIGTERM uspin-stated exited $st, liveness word $word (want 0, 40000000)"
		echo "--- helper log:"; cat "$log"
		rc=1
	fi
	if ! "$B/uspin-stated" --remove --socket "$sock" --status "$dir/status" --pin "$pinbase/rs" ||
	   [ -e "$pinbase/rs" ] || [ -e "$dir/status" ]; then
		echo "check-bpf: FAIL: uspin-stated --remove left the pin or the status page"
		rc=1
	fi
fi
cleanup
if [ "$mode" = check ]; then
	[ $rc = 0 ] && echo "check-bpf: PASS" || echo "check-bpf: FAIL"
fi
exit $rc
