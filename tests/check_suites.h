/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check_suites.h - the main() of a test program made of several Check
 * suites: `PROG [SUITE...]` runs the named suites, or all of them.  For
 * test-uspin and test-dropin alike (system headers and Check only).
 */
#ifndef USPIN_CHECK_SUITES_H
#define USPIN_CHECK_SUITES_H

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct check_suite {
	const char *name;
	Suite *(*make)(void);
};

/* Exit status: 0 all passed, 1 a test failed, 2 no such suite. */
static inline int check_run_suites(const char *prog, const struct check_suite *suites,
				   size_t n, int argc, char **argv)
{
	SRunner *sr = NULL;
	size_t i;
	int failed, a;

	for (a = 1; a < argc; a++) {
		for (i = 0; i < n && strcmp(argv[a], suites[i].name) != 0; i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: no such suite: %s\n", prog, argv[a]);
			return 2;
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
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif /* USPIN_CHECK_SUITES_H */
