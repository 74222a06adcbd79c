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

#include "../check_suites.h"
#include "util.h"

void early_record(void);

static const struct check_suite suites[] = {
	{ "kinds", suite_kinds },
	{ "cond", suite_cond },
	{ "process", suite_process },
	{ "edges", suite_edges },
	{ "kill", suite_kill },
};

int main(int argc, char **argv)
{
	size_t n = sizeof(suites) / sizeof(suites[0]);
	char exe[PATH_MAX], dir[PATH_MAX + 16];
	ssize_t len;

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
	return check_run_suites("test-dropin", suites, n, argc, argv);
}
