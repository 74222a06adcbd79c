// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kill.c - a robust process-shared pthread mutex under SIGKILL (issue 25),
 * with tests/kill_harness.c: workers killed anywhere, also inside the
 * critical section; every death there is reported by EOWNERDEAD exactly
 * once, the record is never seen torn without it, and the parent takes
 * the mutex at the end within a deadline.  The same on glibc (the
 * control) and under uspin-run with every policy.
 */
#include <stdio.h>

#include "../kill_harness.h"
#include "util.h"

static int k_init(void *m)
{
	pthread_mutexattr_t ma;
	int r;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(m, &ma);
	pthread_mutexattr_destroy(&ma);
	return r;
}

static int k_lock(void *m)
{
	return pthread_mutex_lock(m);
}

static int k_timedlock(void *m, const struct timespec *abstime)
{
	return pthread_mutex_timedlock(m, abstime);
}

static int k_unlock(void *m)
{
	return pthread_mutex_unlock(m);
}

static int k_consistent(void *m)
{
	return pthread_mutex_consistent(m);
}

START_TEST(robust_killed_anywhere)
{
	struct kill_config cfg = {
		.name = "robust",
		.robust = 1,
		.workers = 6,
		.run_ms = scaled(800),
		.init = k_init, .lock = k_lock, .timedlock = k_timedlock,
		.unlock = k_unlock, .consistent = k_consistent,
	};
	struct kill_report r;

	if (expect_uspin() >= 0)
		ck_assert_int_eq(on_uspin(), expect_uspin());
	ck_assert_int_eq(kill_run(&cfg, &r), 0);
	printf("dropin kill robust (seed %#lx): %ld kills, %ld in the critical "
	       "section, %ld reported, %ld EOWNERDEAD; torn %ld, errors %ld, "
	       "unreported %ld, misreported %ld, stuck %ld, final lock %d "
	       "(word %#x)\n", r.seed, r.kills, r.kills_in_cs, r.reported,
	       r.eownerdead, r.torn_seen, r.worker_errors, r.unreported,
	       r.misreported, r.stuck, r.final_lock, r.word);
	fflush(stdout);
	ck_assert_int_eq(r.final_lock == 0 || r.final_lock == EOWNERDEAD, 1);
	ck_assert_int_eq(r.stuck, 0);
	ck_assert_int_eq(r.torn_seen, 0);
	ck_assert_int_eq(r.worker_errors, 0);
	ck_assert_int_eq(r.unreported, 0);
	ck_assert_int_eq(r.misreported, 0);
	ck_assert_int_ge(r.kills, 20);
	ck_assert_int_gt(r.kills_in_cs, 0);
}
END_TEST

Suite *suite_kill(void)
{
	Suite *s = suite_create("kill");
	TCase *tc = tcase_create("kill");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, robust_killed_anywhere);
	suite_add_tcase(s, tc);
	return s;
}
