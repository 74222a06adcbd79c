// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin-info - what the running kernel offers libuspin, what each policy
 * does with it, and how to get more.  See uspin-info(1).
 */
#include <stdio.h>
#include <string.h>

#include "uspin.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uspin-info [-h] [--policies]\n"
		"Reports what libuspin found when this process started: the\n"
		"kernel's FUTEX_LOCK ops, the running-state provider and how many\n"
		"TIDs it covers, the rseq time-slice extension, the CPUs this process may use, the spin time base,\n"
		"and the policy USPIN_POLICY_AUTO resolves to.\n"
		"--policies prints the names USPIN_POLICY accepts, one a line.\n");
}

static const char *yes_no(int v, const char *yes, const char *no)
{
	return v ? yes : no;
}

int main(int argc, char **argv)
{
	struct uspin_info info;
	struct uspin_spin_parameters sp;
	struct uspin_slice_info si;

	if (argc == 2 && strcmp(argv[1], "--policies") == 0) {
		/* The library's own table, so scripts never keep a copy. */
		enum uspin_policy p;

		for (p = 0; uspin_policy_name(p); p++)
			printf("%s\n", uspin_policy_name(p));
		return 0;
	}
	if (argc > 1) {
		int help = strcmp(argv[1], "-h") == 0 ||
			   strcmp(argv[1], "--help") == 0;

		usage(help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if (uspin_query(&info) != 0 ||
	    uspin_spin_parameters(&sp, sizeof(sp)) != 0 ||
	    uspin_slice_extension(&si, sizeof(si)) != 0) {
		fprintf(stderr, "uspin-info: query failed\n");
		return 1;
	}
	printf("FUTEX_LOCK:           %s\n", yes_no(info.futex_lock, "present", "absent"));
	printf("FUTEX_LOCK_ADAPTIVE:  %s\n",
	       yes_no(info.futex_lock_adaptive, "present", "absent"));
	printf("FUTEX_UNLOCK:         %s\n",
	       yes_no(info.futex_unlock, "present", "absent"));
	printf("running-state:        %s\n", info.running_state);
	if (*info.running_state_detail)
		printf("  %s\n", info.running_state_detail);
	if (strcmp(info.running_state, "none") != 0) {
		printf("  covers TIDs below %u; kernel.pid_max is %u\n",
		       info.rs_entries, info.pid_max);
		if (info.pid_max && info.rs_entries < info.pid_max)
			printf("  warning: TIDs from %u up read UNKNOWN (spinning on their owners is blind)\n",
			       info.rs_entries);
	}
	/* What this (locking) thread does, as every thread of the process. */
	printf("slice-extension:      %s%s, %s\n",
	       si.available ? "available" : "absent: ",
	       si.available ? "" : si.reason,
	       si.in_use ? "in use" :
	       si.forced ? "forced (USPIN_SLICE_EXT=force: asked for, never granted)" :
	       !si.enabled_by_policy ? "off (USPIN_SLICE_EXT=0)" : "off");
	printf("robust list:          %s\n",
	       yes_no(info.robust_list, "joined (glibc's)", "unavailable"));
	printf("CPUs usable:          %u\n", info.ncpus);
	printf("spin time base:       %llu cycles/us (%s)\n",
	       (unsigned long long)info.cycles_per_us,
	       yes_no(info.cycles_calibrated, "measured", "reported or nominal"));
	printf("slow path:            %s\n",
	       info.blocks_in_futex_lock ? "FUTEX_LOCK" :
	       info.futex_lock ? "FUTEX_WAIT/FUTEX_WAKE (USPIN_WAIT=futex-wait)" :
				 "FUTEX_WAIT/FUTEX_WAKE fallback");
	printf("auto policy:          %s%s\n", uspin_policy_name(info.auto_policy),
	       info.policy_overridden ? " (set by USPIN_POLICY)" : "");
	if (sp.cap_ns)
		printf("spin cap:             %.3f ms%s\n", sp.cap_ns / 1e6,
		       sp.cap_from_env ? " (set by USPIN_SPIN_CAP_US)" : "");
	else
		printf("spin cap:             none (USPIN_SPIN_CAP_US=0)\n");
	printf("spinners per mutex:   at most %u\n", sp.max_spinners);
	printf("self-preemption gap:  %.0f us\n", sp.preempt_gap_ns / 1e3);
	printf("blind budget:         %.0f-%.0f us (spin; owners of unknown state)\n",
	       sp.blind_min_ns / 1e3, sp.blind_max_ns / 1e3);
	printf("learned budget:       up to %.0f us (user-adaptive-bounded)\n",
	       sp.learned_max_ns / 1e3);
	printf("handoff after:        %.3f ms\n", sp.handoff_after_ns / 1e6);
	printf("CPU wanted:           spin at most 4 x recent waits, up to %.0f us\n",
	       sp.shared_max_ns / 1e3);
	if (sp.shadow)
		printf("shadow mode:          on (USPIN_SHADOW=1: blind spins count what the running state would save)\n");
	if (!info.setup_done)
		printf("setup:                not done (mutexes behave as block)\n");
	return 0;
}
