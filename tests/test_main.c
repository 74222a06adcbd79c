// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_main.c - runs libuspin's Check suites (host and guest alike).
 * Usage: test-uspin [SUITE...]   (default: all)
 * Helper modes the suites run in a child: test-uspin --info (test_setup.c),
 * test-uspin --hold-robust FD (test_process.c), test-uspin --slice-info
 * (test_slice_ext.c).
 */
#include <stdio.h>
#include <string.h>

#include "check_suites.h"
#include "test_util.h"

static const struct check_suite suites[] = {
	{ "errors", suite_errors },
	{ "timed", suite_timed },
	{ "stress", suite_stress },
	{ "shared", suite_shared },
	{ "policy", suite_policy },
	{ "setup", suite_setup },
	{ "process", suite_process },
	{ "fairness", suite_fairness },
	{ "cond", suite_cond },
	{ "kill", suite_kill },
	{ "vdso-sym", suite_vdso_sym },
	{ "running-state", suite_running_state },
	{ "spin", suite_spin },
	{ "slice", suite_slice },
	{ "shapes", suite_shapes },
};

int main(int argc, char **argv)
{
	size_t n = sizeof(suites) / sizeof(suites[0]);

	if (argc == 2 && strcmp(argv[1], "--info") == 0)
		return test_setup_info_main();
	if (argc == 2 && strcmp(argv[1], "--slice-info") == 0)
		return test_slice_info_main();
	if (argc == 3 && strcmp(argv[1], "--hold-robust") == 0)
		return test_process_hold_robust_main(argv[2]);

	return check_run_suites("test-uspin", suites, n, argc, argv);
}
