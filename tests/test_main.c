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

#include "test_util.h"

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
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
};

int main(int argc, char **argv)
{
	size_t n = sizeof(suites) / sizeof(suites[0]), i;
	SRunner *sr = NULL;
	int failed, a;

	if (argc == 2 && strcmp(argv[1], "--info") == 0)
		return test_setup_info_main();
	if (argc == 2 && strcmp(argv[1], "--slice-info") == 0)
		return test_slice_info_main();
	if (argc == 3 && strcmp(argv[1], "--hold-robust") == 0)
		return test_process_hold_robust_main(argv[2]);

	for (i = 0; i < n; i++) {
		int wanted = argc < 2;

		for (a = 1; a < argc; a++)
			wanted |= strcmp(argv[a], suites[i].name) == 0;
		if (!wanted)
			continue;
		if (!sr)
			sr = srunner_create(suites[i].make());
		else
			srunner_add_suite(sr, suites[i].make());
	}
	if (!sr) {
		fprintf(stderr, "test-uspin: no such suite\n");
		return 2;
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
