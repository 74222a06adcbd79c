// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin-info - what the running kernel offers libuspin, and what each
 * policy does with it.
 */
#include <stdio.h>
#include <string.h>

#include "uspin.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: uspin-info [-h]\n"
		   "Reports FUTEX_LOCK, FUTEX_LOCK_ADAPTIVE, the running-state provider\n"
		   "and the policy USPIN_POLICY_AUTO resolves to on this kernel.\n");
}

int main(int argc, char **argv)
{
	struct uspin_info info;

	if (argc > 1) {
		int help = strcmp(argv[1], "-h") == 0 ||
			   strcmp(argv[1], "--help") == 0;

		usage(help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if (uspin_query(&info) != 0) {
		fprintf(stderr, "uspin-info: query failed\n");
		return 1;
	}
	printf("FUTEX_LOCK:           %s\n", info.futex_lock ? "present" : "absent");
	printf("FUTEX_LOCK_ADAPTIVE:  %s\n",
	       info.futex_lock_adaptive ? "present" : "absent");
	printf("running-state:        %s\n", info.running_state);
	printf("robust list:          %s\n",
	       info.robust_list ? "joined (glibc's)" : "unavailable");
	printf("CPUs online:          %u\n", info.ncpus);
	printf("slow path:            %s\n",
	       info.futex_lock ? "FUTEX_LOCK" : "FUTEX_WAIT/FUTEX_WAKE fallback");
	printf("auto policy:          %s%s\n", uspin_policy_name(info.auto_policy),
	       info.policy_overridden ? " (set by USPIN_POLICY)" : "");
	return 0;
}
