// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * main.c - test-dropin: the drop-in's Check suites.  A plain pthread
 * program: `make check-dropin` runs it on glibc (DROPIN_EXPECT=glibc) and
 * under uspin-run with every policy (DROPIN_EXPECT=uspin).
 * Usage: test-dropin [SUITE...]   (default: all)
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>

#include "util.h"

void early_record(void);

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
	{ "kinds", suite_kinds },
	{ "cond", suite_cond },
	{ "process", suite_process },
	{ "edges", suite_edges },
	{ "kill", suite_kill },
};

int main(int argc, char **argv)
{
	size_t n = sizeof(suites) / sizeof(suites[0]), i;
	char exe[PATH_MAX], dir[PATH_MAX + 16];
	SRunner *sr = NULL;
	ssize_t len;
	int failed, a;

	/* First: what the early locks look like to the thread that took them. */
	early_record();
	if (!getenv("DROPIN_HELPER_DIR")) {
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (len > 0) {
			exe[len] = 0;
			snprintf(dir, sizeof(dir), "%s/dropin", dirname(exe));
			setenv("DROPIN_HELPER_DIR", dir, 1);
		}
	}
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
		fprintf(stderr, "test-dropin: no such suite\n");
		return 2;
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
