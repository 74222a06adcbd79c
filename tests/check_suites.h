/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check_suites.h - the main() of a test program made of several Check
 * suites: `PROG [SUITE...]` runs the named suites, or all of them; and
 * the Check scaffolding every suite repeats (a suite of one test case,
 * threads started and joined, a child's exit status).  For test-uspin
 * and test-dropin alike (system headers and Check only).
 */
#ifndef USPIN_CHECK_SUITES_H
#define USPIN_CHECK_SUITES_H

#include <check.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

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

/*
 * The shape of most suites: one test case, named as the suite, with a
 * timeout of @timeout seconds (0: Check's default).  Tests added to *@tc
 * afterwards run in it.
 */
static inline Suite *check_suite_one(const char *name, double timeout,
				     TCase **tc)
{
	Suite *s = suite_create(name);

	*tc = tcase_create(name);
	if (timeout > 0)
		tcase_set_timeout(*tc, timeout);
	suite_add_tcase(s, *tc);
	return s;
}

/* @n threads running @fn(@arg), into @t[0 .. n-1]. */
static inline void check_threads_start(pthread_t *t, int n,
				       void *(*fn)(void *), void *arg)
{
	int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn, arg), 0);
}

static inline void check_threads_join(pthread_t *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

/* How child @pid ended: its exit status, or 128 + the signal. */
static inline int check_child_status(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* USPIN_CHECK_SUITES_H */
