#!/bin/sh
# run.sh BUILD SECONDS - the torture test (torture.c) in every combination
# for SECONDS in all: libuspin's API under each policy (USPIN_POLICY), the
# drop-in under uspin-run with each policy, glibc alone (the control);
# private, shared and robust mutexes; and, as root, shared and robust ones
# used from pid namespaces of their own (glibc is no control there: its
# error-checking and recursive mutexes compare TIDs of different
# namespaces; docs/design.md).  TORTURE_SEED fixes the first seed (each
# run adds its index).  Prints one line a run, a replay command for a
# failure, and ends with "torture: N passed, N failed".
set -u
b=$1
total=$2
seed=${TORTURE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
policies=$("$b/uspin-info" --policies)
kinds="private shared robust"
nskinds=""
if [ "$(id -u)" = 0 ]; then
	nskinds="shared robust"
else
	echo "SKIP: torture in pid namespaces: needs root (unshare(CLONE_NEWPID))"
fi

# Every run as a line: API POLICY KIND [-n]
runs=$(mktemp)
log=$(mktemp)
trap 'rm -f "$runs" "$log"' EXIT
for k in $kinds; do echo "glibc - $k"; done >"$runs"
for api in uspin dropin; do
	for p in $policies; do
		for k in $kinds; do echo "$api $p $k"; done
		for k in $nskinds; do echo "$api $p $k -n"; done
	done
done >>"$runs"
n=$(wc -l <"$runs")
# Each run gets an equal share, at least half a second.
slice=$(awk -v t="$total" -v n="$n" 'BEGIN { s = t / n; printf "%.2f", s < 0.5 ? 0.5 : s }')
echo "torture: $n runs of ${slice} s, first seed $seed ($b, $(nproc) CPUs)"

pass=0 fail=0 i=0
while read -r api p k ns; do
	i=$((i + 1))
	s=$((seed + i))
	case $api in
	glibc)	set -- "$b/uspin-torture-pthread" ;;
	uspin)	set -- env USPIN_POLICY="$p" "$b/uspin-torture" ;;
	dropin)	set -- "$b/uspin-run" --policy "$p" "$b/uspin-torture-pthread" ;;
	esac
	if "$@" -k "$k" $ns -s "$s" -t "$slice" >"$log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "torture: FAILED: $api $p $k $ns"
		tail -n 25 "$log"
		r=$(sed -n 's/.*, round \([0-9]*\); replay:.*/\1/p' "$log")
		echo "  replay: $* -k $k $ns -s $s -r ${r:-0} -R 20"
	fi
done <"$runs"
echo "torture: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
