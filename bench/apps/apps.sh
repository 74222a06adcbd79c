#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/apps/apps.sh - run real applications under each lock configuration.
#
# One side of `make bench-apps` (bench/apps/run drives it on the host and,
# through kernel/vm-run, in the guest): POSIX sh plus `local` (dash,
# busybox ash and bash all have it).
# It only runs things and keeps what they printed; bench/apps/report.py
# parses the raw files, applies the correctness checks and computes the
# statistics, the same code for both sides.
#
# Configuration (environment):
#   APPS_OUT      where raw/ and env.txt go (required)
#   APPS_LIST     workloads (default: all, see usage below)
#   APPS_CONFIGS  glibc and/or uspin-<policy>[@<provider>] names (default:
#                 glibc uspin-block uspin-spin uspin-user-adaptive, and
#                 uspin-kernel-adaptive where uspin-info says the kernel
#                 has FUTEX_LOCK_ADAPTIVE); @<provider> runs the policy
#                 with USPIN_RS_PROVIDER=<provider> (uspin-user-adaptive@rseq)
#   APPS_WRAPPER  command prefix for uspin-<policy>, @POLICY@ replaced by
#                 the policy (default: uspin-run --policy @POLICY@ --);
#                 APPS_WRAPPER_<policy, - as _> overrides one policy
#   APPS_REPS     rounds (5); every round runs every point under every
#                 configuration, in an order rotated by the round number
#   APPS_QUICK    1: one thread count per application
#   APPS_SCALE    work per run in percent (100; the TCG guest uses less);
#                 APPS_SCALE_<workload, - as _> for one application
#   APPS_HOGS     background CPU hog counts per point (default "0 NCPUS")
#   APPS_THREADS_<workload, - as _>  override a thread list
#   APPS_UTIL, APPS_INFO  apps-util and uspin-info (default: on PATH)
#   APPS_TMP      scratch directory on tmpfs (default /dev/shm or $TMPDIR)
#   APPS_TIMEOUT  seconds one program may run (120)
#   APPS_PORT     first TCP port for memcached (22122)
#   APPS_INJECT   testing only: pbzip2=flip corrupts the compressed file
#                 (bench/apps/check.sh; report.py must then fail)
set -u

usage() {
	echo "usage: APPS_OUT=DIR bench/apps/apps.sh" >&2
	echo "workloads: memcached rocksdb kyoto-cache kyoto-poly sysbench-mutex sysbench-threads pbzip2" >&2
	exit 2
}
[ -n "${APPS_OUT:-}" ] || usage

t_script=$(date +%s)
util=${APPS_UTIL:-apps-util}
info=${APPS_INFO:-uspin-info}
reps=${APPS_REPS:-5}
quick=${APPS_QUICK:-0}
scale=${APPS_SCALE:-100}
tmo=${APPS_TIMEOUT:-120}
port=${APPS_PORT:-22122}
ncpus=$(nproc 2>/dev/null || echo 1)
list=${APPS_LIST:-memcached rocksdb kyoto-cache kyoto-poly sysbench-mutex sysbench-threads pbzip2}
hogs_list=${APPS_HOGS:-0 $ncpus}
out=$APPS_OUT
raw=$out/raw
mkdir -p "$raw" || exit 1

if [ -z "${APPS_TMP:-}" ]; then
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then APPS_TMP=/dev/shm; else APPS_TMP=${TMPDIR:-/tmp}; fi
fi
tmp=$APPS_TMP/uspin-apps.$$
mkdir -p "$tmp" || exit 1
hogpid=
cleanup() {
	[ -z "$hogpid" ] || { kill -TERM "$hogpid" 2>/dev/null; wait "$hogpid" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "apps.sh: $*" >&2; exit 1; }
# The work of this run: N at APPS_SCALE (or APPS_SCALE_<app>), at least MIN.
scale_of() {
	local var v
	var=APPS_SCALE_$(echo "$1" | tr - _)
	eval "v=\${$var:-}"
	echo "${v:-$scale}"
}
command -v "$util" >/dev/null 2>&1 || die "no $util"
for a in $list; do
	case $a in
	memcached) progs="memcached memcaslap memccapable" ;;
	rocksdb) progs=db_bench ;;
	kyoto-cache) progs=kccachetest ;;
	kyoto-poly) progs=kcpolytest ;;
	sysbench-*) progs=sysbench ;;
	pbzip2) progs="pbzip2 cmp md5sum" ;;
	*) die "unknown workload $a" ;;
	esac
	for p in $progs; do
		command -v "$p" >/dev/null 2>&1 || die "$a needs $p (make deps)"
	done
done

# --- what ran where, for meta.json ------------------------------------------
has_info=0
command -v "$info" >/dev/null 2>&1 && has_info=1
ka=0
if [ $has_info = 1 ] && "$info" 2>/dev/null | grep -q '^FUTEX_LOCK_ADAPTIVE: *present'; then
	ka=1
fi
configs=${APPS_CONFIGS:-glibc uspin-block uspin-spin uspin-user-adaptive}
[ -n "${APPS_CONFIGS:-}" ] || [ $ka = 0 ] || configs="$configs uspin-kernel-adaptive"
for c in $configs; do
	case $c in
	uspin-?*@*[!a-z]*|uspin-?*@) die "bad provider in configuration $c (uspin-<policy>@<provider>)" ;;
	glibc|uspin-?*) ;;
	*) die "unknown configuration $c (glibc or uspin-<policy>[@<provider>])" ;;
	esac
done

{
	echo "kernel=$(uname -r)"
	echo "machine=$(uname -m)"
	echo "ncpus=$ncpus"
	echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "reps=$reps"
	echo "quick=$quick"
	echo "scale=$scale"
	for a in $list; do echo "scale_$a=$(scale_of "$a")"; done
	echo "hogs=$hogs_list"
	echo "configs=$configs"
	echo "list=$list"
	echo "futex_lock_adaptive=$ka"
} > "$out/env.txt"
[ $has_info = 0 ] || "$info" > "$out/uspin-info.txt" 2>&1

# The wrapper of a configuration, as words (no spaces in paths).
wrapper() {
	local pol var w
	case $1 in
	glibc) echo "" ;;
	uspin-*@*)
		# The policy's wrapper, with the running-state provider named.
		echo "env USPIN_RS_PROVIDER=${1##*@} $(wrapper "${1%@*}")"
		;;
	uspin-*)
		pol=${1#uspin-}
		var=APPS_WRAPPER_$(echo "$pol" | tr - _)
		eval "w=\${$var:-}"
		[ -n "$w" ] || w=${APPS_WRAPPER:-uspin-run --policy @POLICY@ --}
		echo "$w" | sed "s/@POLICY@/$pol/g"
		;;
	esac
}

# Per configuration: the wrapper, whether it preloads libuspin into a
# dynamic program (apps-util maps), and what libuspin reports under it.
mkdir -p "$out/configs"
for c in $configs; do
	w=$(wrapper "$c")
	{
		echo "wrapper=$w"
		if m=$($w "$util" maps libuspin 2>&1); then
			echo "preload=yes"
			echo "preload_path=$m"
		else
			echo "preload=no"
		fi
	} > "$out/configs/$c.txt"
	[ $has_info = 0 ] || $w "$info" > "$out/configs/$c.info" 2>&1
done

# --- the workloads ------------------------------------------------------------
threads_of() {
	local var v
	var=APPS_THREADS_$(echo "$1" | tr - _)
	eval "v=\${$var:-}"
	[ -z "$v" ] || { echo "$v"; return; }
	case $1 in
	memcached) [ "$quick" = 1 ] && echo 4 || echo "4 16" ;;
	pbzip2) [ "$quick" = 1 ] && echo 4 || echo "2 8" ;;
	*) [ "$quick" = 1 ] && echo 8 || echo "8 32" ;;
	esac
}
sc() { local v=$(($1 * cur_scale / 100)); [ "$v" -ge "${2:-1}" ] || v=${2:-1}; echo "$v"; }
cur_scale=$scale
inject() { case " ${APPS_INJECT:-} " in *" $1=$2 "*) return 0 ;; esac; return 1; }
# run DIR NAME [WRAPPER...] CMD...: one program, its output and rusage.
run() {
	local d="$1" n="$2"
	shift 2
	"$util" run -t "$tmo" -o "$d/$n.ru" -O "$d/$n.out" "$@"
}

# memcached -t T under the configuration, memcaslap (glibc, a thread per
# CPU, 16 connections) over loopback for a fixed time; the server's rusage
# is the metric.
wl_memcached() {
	local d="$1" t="$2" w="$3" secs p u sp spid
	secs=$(sc 1 1)
	p=$port
	port=$((port + 1))
	[ $port -lt $((${APPS_PORT:-22122} + 200)) ] || port=${APPS_PORT:-22122}
	u=
	[ "$(id -u)" != 0 ] || u="-u root"
	"$util" run -t "$tmo" -p "$d/server.pid" -o "$d/server.ru" -O "$d/server.out" \
		$w memcached -t "$t" -U 0 -l 127.0.0.1 -p "$p" -m 256 -c 4096 $u &
	sp=$!
	if "$util" wait-port "$p" 20 2>"$d/client.out"; then
		spid=$(cat "$d/server.pid" 2>/dev/null)
		grep -o '/[^ ]*libuspin[^ ]*' "/proc/$spid/maps" 2>/dev/null | sort -u > "$d/server.maps"
		run "$d" client memcaslap -s "127.0.0.1:$p" -T "$ncpus" -c 16 -w 1k -v 0.1 \
			-t "${secs}s" -S "${secs}s"
	fi
	kill -TERM "$sp" 2>/dev/null
	wait "$sp"
}

# memccapable (protocol conformance) against a server under the
# configuration, once per configuration and side.
wl_memcached_capable() {
	local d="$1" w="$2" p u sp
	p=$((${APPS_PORT:-22122} + 300))
	u=
	[ "$(id -u)" != 0 ] || u="-u root"
	"$util" run -t "$tmo" -o "$d/server.ru" -O "$d/server.out" \
		$w memcached -t 4 -U 0 -l 127.0.0.1 -p "$p" -m 64 $u &
	sp=$!
	if "$util" wait-port "$p" 20 2>"$d/capable.out"; then
		run "$d" capable memccapable -h 127.0.0.1 -p "$p" -t 10
	fi
	kill -TERM "$sp" 2>/dev/null
	wait "$sp"
}

# RocksDB db_bench on tmpfs: fillrandom into a fresh DB, then readrandom
# and readwhilewriting on it, then verifychecksum (each its own process);
# the same seed everywhere, so the keys written and found are the same
# under every configuration.  Small memtables: flushes and compactions run.
wl_rocksdb() {
	local d="$1" t="$2" w="$3" db total per c
	db=$tmp/rocksdb
	rm -rf "$db"
	total=$(sc 60000 1000)
	per=$((total / t))
	c="--db=$db --num=$((total / 4)) --threads=$t --seed=20101 --value_size=100
	   --compression_type=none --write_buffer_size=262144 --target_file_size_base=262144
	   --max_bytes_for_level_base=1048576 --progress_reports=false --histogram=1"
	run "$d" fill $w db_bench --benchmarks=fillrandom --use_existing_db=0 --writes=$per $c || return
	run "$d" read $w db_bench --benchmarks=readrandom --use_existing_db=1 --reads=$per $c
	run "$d" rww $w db_bench --benchmarks=readwhilewriting --use_existing_db=1 --reads=$per $c
	run "$d" verify $w db_bench --benchmarks=verifychecksum --use_existing_db=1 $c
	rm -rf "$db"
}

# Kyoto Cabinet's own tests, in order mode (set, get, remove every record
# of every thread; counts and "ok" checked): the cache hash DB in memory,
# and the polymorphic API on a B+ tree file on tmpfs.
wl_kyoto_cache() {
	local d="$1" t="$2" w="$3" n
	n=$(($(sc 200000 1000) / t))
	run "$d" kc $w kccachetest order -th "$t" "$n"
}
wl_kyoto_poly() {
	local d="$1" t="$2" w="$3" n
	n=$(($(sc 200000 1000) / t))
	rm -f "$tmp/kc.kct"
	run "$d" kc $w kcpolytest order -th "$t" "$tmp/kc.kct" "$n"
	rm -f "$tmp/kc.kct"
}

# sysbench's mutex test (every thread: lock one of 16 mutexes at random,
# increment, unlock, a few hundred empty loop iterations outside) and its
# threads test (lock, sched_yield() holding it, unlock: holders off CPU)
# for a second.
wl_sysbench_mutex() {
	local d="$1" t="$2" w="$3" locks
	locks=$(($(sc 2000000 1000) / t))
	run "$d" sb $w sysbench mutex --threads="$t" --mutex-num=16 --mutex-locks="$locks" \
		--mutex-loops=200 run
}
wl_sysbench_threads() {
	local d="$1" t="$2" w="$3"
	# A fixed time, not a fixed number of events: with hogs, every yield
	# holding a lock hands the CPU to a hog, and events take 30x longer.
	run "$d" sb $w sysbench threads --threads="$t" --thread-yields=100 --thread-locks=4 \
		--time=1 --events=0 --histogram=on --percentile=99 run
}

# pbzip2: compress a fixed text with 100 kB blocks, decompress it, compare.
pbzip2_input=
wl_pbzip2() {
	local d="$1" t="$2" w="$3" size
	size=$(($(sc 6144 64) * 1024))
	if [ "$pbzip2_input" != "$size" ]; then
		"$util" gen "$size" 11 > "$tmp/pbzip2.in" || die "apps-util gen failed"
		pbzip2_input=$size
	fi
	rm -f "$tmp/x" "$tmp/x.bz2"
	cp "$tmp/pbzip2.in" "$tmp/x"
	run "$d" compress $w pbzip2 -p"$t" -b1 -f "$tmp/x" || return
	! inject pbzip2 flip || printf 'Z' | dd of="$tmp/x.bz2" bs=1 seek=100 conv=notrunc 2>/dev/null
	md5sum < "$tmp/x.bz2" | cut -d' ' -f1 > "$d/compressed.md5"
	wc -c < "$tmp/x.bz2" > "$d/compressed.bytes"
	echo "$size" > "$d/input.bytes"
	run "$d" decompress $w pbzip2 -d -p"$t" -f "$tmp/x.bz2"
	if cmp -s "$tmp/x" "$tmp/pbzip2.in"; then echo same; else echo DIFFERENT; fi > "$d/roundtrip.txt"
	rm -f "$tmp/x" "$tmp/x.bz2"
}

# --- the rounds -----------------------------------------------------------------
points=
for a in $list; do
	for t in $(threads_of "$a"); do
		for h in $hogs_list; do
			points="$points $a:t$t-h$h"
		done
	done
done
nconf=$(echo $configs | wc -w)
npoints=$(echo $points | wc -w)
echo "apps.sh: $npoints points x $nconf configurations x $reps rounds (scale $scale %): $configs" \
	"(set up in $(($(date +%s) - t_script)) s)"

start=$(date +%s)
for c in $configs; do
	case " $list " in *" memcached "*) ;; *) continue ;; esac
	d=$raw/memcached-capable/all/$c/r1
	mkdir -p "$d"
	wl_memcached_capable "$d" "$(wrapper "$c")"
	echo "apps.sh: memccapable under $c: $(tail -1 "$d/capable.out" 2>/dev/null)"
done

r=1
while [ $r -le "$reps" ]; do
	for pt in $points; do
		a=${pt%%:*}
		id=${pt#*:}
		t=${id%-h*}
		t=${t#t}
		h=${id##*-h}
		# This round's order: the configurations rotated by the round.
		set -- $configs
		i=1
		while [ $i -lt $(( (r - 1) % nconf + 1 )) ]; do
			x=$1
			shift
			set -- "$@" "$x"
			i=$((i + 1))
		done
		for c in "$@"; do
			d=$raw/$a/$id/$c/r$r
			mkdir -p "$d"
			hogpid=
			if [ "$h" -gt 0 ]; then
				"$util" hogs "$h" -o "$d/hogs.txt" &
				hogpid=$!
			fi
			t0=$(date +%s)
			cur_scale=$(scale_of "$a")
			"wl_$(echo "$a" | tr - _)" "$d" "$t" "$(wrapper "$c")"
			if [ -n "$hogpid" ]; then
				kill -TERM "$hogpid"
				wait "$hogpid"
				hogpid=
			fi
			echo "[$r/$reps] $a $id $c: $(($(date +%s) - t0)) s (at $(($(date +%s) - start)) s)"
		done
	done
	r=$((r + 1))
done
echo "apps.sh: done in $(($(date +%s) - start)) s"
