#!/bin/sh
# run-check-bpf.sh BUILD - check-bpf: start a private uspin-stated on a
# temporary socket, run the BPF suites against it, stop it.  Where BPF
# cannot be loaded, say why and report the suites skipped (never a silent
# pass).
set -u
B=$1
skip() { echo "SKIP: check-bpf: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root: loading the BPF program needs CAP_BPF+CAP_PERFMON or CAP_SYS_ADMIN"
dir=$(mktemp -d /tmp/uspin-check-bpf.XXXXXX) || exit 1
chmod 755 "$dir"		# uid 65534 must reach the socket
sock=$dir/stated.sock
pidf=$dir/stated.pid
pid=

stop() {
	if [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; then
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1; i=$((i + 1))
		done
		if [ -e "$sock" ]; then
			echo "check-bpf: FAIL: uspin-stated left $sock behind on SIGTERM"
			rc=1
		fi
	fi
	rm -rf "$dir"
}

if ! "$B/uspin-stated" --socket "$sock" --pidfile "$pidf" 2>"$dir/err"; then
	why=$(tr '\n' ' ' <"$dir/err")
	rm -rf "$dir"
	skip "uspin-stated cannot load the program: $why"
fi
i=0
while [ ! -s "$pidf" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(cat "$pidf" 2>/dev/null)
[ -n "$pid" ] || { echo "check-bpf: FAIL: uspin-stated wrote no pidfile"; rm -rf "$dir"; exit 1; }

export USPIN_STATED_SOCKET="$sock" USPIN_STATED_PIDFILE="$pidf"
export USPIN_INFO_BIN="$(cd "$B" && pwd)/uspin-info"
rc=0
echo "check-bpf: shared running-state suite, provider bpf through $sock"
USPIN_RS_PROVIDER=bpf USPIN_RS_REQUIRE=bpf "$B/test-uspin" running-state || rc=1
echo "check-bpf: test-bpf"
"$B/test-bpf" || rc=1
stop
[ $rc = 0 ] && echo "check-bpf: PASS" || echo "check-bpf: FAIL"
exit $rc
