# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/host_provider.sh - the host run's running-state provider, for
# bench/run and bench/apps/run (sourced; they set $build, $out and $who).
#
# - A host that runs the patched kernel (bare metal, docs/bare-metal.md)
#   has the kernel's array, which publishes once kernel.sched_running_state
#   is 1 (the series defaults it to 0): set it for the run, restore it after.
# - A stock kernel has none: start a uspin-stated (BPF) when run as root
#   with $build/uspin-stated built and no helper running, and stop and
#   remove it after; BENCH_STATED=0 runs without (provider none).
# host_provider_start and host_provider_stop; the caller traps the latter.

# USPIN_RS_SYSCTL: another file, for bench/check.sh.
rs_sysctl=${USPIN_RS_SYSCTL:-/proc/sys/kernel/sched_running_state}
rs_saved=
stated_pid=

has_bpf_provider() { "$build/uspin-info" 2>/dev/null | grep -q '^running-state: *bpf'; }

host_provider_start() {
	if [ -e "$rs_sysctl" ]; then
		rs_saved=$(cat "$rs_sysctl")
		if [ "$rs_saved" = 1 ] || { echo 1 > "$rs_sysctl"; } 2>/dev/null; then
			echo "$who: host: patched kernel: kernel.sched_running_state=1 for the run (was $rs_saved)"
		else
			echo "$who: host: patched kernel, but kernel.sched_running_state cannot be set (not root?): the proposal runs on another provider or none" >&2
			rs_saved=
		fi
		return
	fi
	if has_bpf_provider; then
		echo "$who: host: a uspin-stated is running already; the host run uses it"
		return
	fi
	if [ "${BENCH_STATED:-1}" = 0 ] || [ "$(id -u)" != 0 ] || [ ! -x "$build/uspin-stated" ]; then
		echo "$who: host: no BPF running-state provider (BENCH_STATED=0, not root, or no $build/uspin-stated): the proposal runs without one" >&2
		return
	fi
	"$build/uspin-stated" --foreground >"$out/host/uspin-stated.log" 2>&1 &
	stated_pid=$!
	for _ in $(seq 300); do
		has_bpf_provider && { echo "$who: host: started uspin-stated (pid $stated_pid)"; return; }
		kill -0 "$stated_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$who: host: uspin-stated did not publish (see $out/host/uspin-stated.log)" >&2
	host_provider_stop
}

host_provider_stop() {
	if [ -n "$rs_saved" ]; then
		echo "$rs_saved" > "$rs_sysctl"
		rs_saved=
	fi
	[ -n "$stated_pid" ] || return 0
	kill "$stated_pid" 2>/dev/null
	wait "$stated_pid" 2>/dev/null
	"$build/uspin-stated" --remove >/dev/null 2>&1
	stated_pid=
}
