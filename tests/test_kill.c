// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_kill.c - process-shared mutexes under SIGKILL (issue 25): six
 * processes share a mutex guarding a two-word record while the parent
 * kills random ones many times a second and starts new ones
 * (tests/kill_harness.c).  Robust: killed anywhere, every death inside
 * the critical section is reported by EOWNERDEAD exactly once and the
 * record is never seen torn without it.  Not robust: only waiters die,
 * and the mutex and the other waiters go on.  Either way the parent
 * takes the mutex at the end within a deadline.  The wait protocol
 * is the process's (USPIN_WAIT=futex-wait for FUTEX_WAIT on a patched
 * kernel); the policies are one that blocks at once and one that spins.
 */
#include <errno.h>
#include <stdio.h>

#include "kill_harness.h"
#include "test_util.h"

static const enum uspin_policy kill_policies[] = {
	USPIN_POLICY_BLOCK, USPIN_POLICY_AUTO,
};
static unsigned int kill_flags;

static int k_init(void *m)
{
	return uspin_mutex_init(m, kill_flags);
}

static int k_lock(void *m)
{
	return uspin_mutex_lock(m);
}

static int k_timedlock(void *m, const struct timespec *abstime)
{
	return uspin_mutex_timedlock(m, abstime);
}

static int k_unlock(void *m)
{
	return uspin_mutex_unlock(m);
}

static int k_consistent(void *m)
{
	return uspin_mutex_consistent(m);
}

static void run(int robust, enum uspin_policy policy)
{
	struct kill_config cfg = {
		.name = robust ? "robust" : "shared",
		.robust = robust,
		.workers = 6,
		.run_ms = test_scaled(1500),
		.init = k_init, .lock = k_lock, .timedlock = k_timedlock,
		.unlock = k_unlock, .consistent = k_consistent,
	};
	struct kill_report r;

	kill_flags = USPIN_PROCESS_SHARED | (robust ? USPIN_ROBUST : 0) |
		     (unsigned int)policy;
	ck_assert_int_eq(kill_run(&cfg, &r), 0);
	printf("kill %s %s (seed %#lx): %ld kills, %ld in the critical section, "
	       "%ld reported, %ld EOWNERDEAD, %ld repaired, %ld iterations; "
	       "torn %ld, errors %ld, unreported %ld, misreported %ld, "
	       "stranded %ld, stuck %ld, final lock %d",
	       cfg.name, uspin_policy_name(policy), r.seed, r.kills,
	       r.kills_in_cs, r.reported, r.eownerdead, r.torn_repaired,
	       r.iterations, r.torn_seen, r.worker_errors, r.unreported,
	       r.misreported, r.stranded, r.stuck, r.final_lock);
	if (r.final_lock && r.final_lock != EOWNERDEAD)
		printf(" (word %#x, owner %s)", r.word,
		       r.word_owner_alive ? "alive" : "gone");
	printf("\n");
	fflush(stdout);
	ck_assert_int_eq(r.final_lock == 0 || (robust && r.final_lock == EOWNERDEAD), 1);
	ck_assert_int_eq(r.stranded, 0);
	ck_assert_int_eq(r.stuck, 0);
	ck_assert_int_eq(r.torn_seen, 0);
	ck_assert_int_eq(r.worker_errors, 0);
	ck_assert_int_eq(r.unreported, 0);
	ck_assert_int_eq(r.misreported, 0);
	/* The run did what it is for. */
	ck_assert_int_ge(r.kills, 20);
	ck_assert_int_gt(r.iterations, 0);
	if (robust)
		ck_assert_int_gt(r.kills_in_cs, 0);
}

START_TEST(robust_killed_anywhere)
{
	run(1, kill_policies[_i]);
}
END_TEST

START_TEST(shared_waiters_killed)
{
	run(0, kill_policies[_i]);
}
END_TEST

Suite *suite_kill(void)
{
	Suite *s = suite_create("kill");
	TCase *tc = tcase_create("kill");
	int n = (int)(sizeof(kill_policies) / sizeof(kill_policies[0]));

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, robust_killed_anywhere, 0, n);
	tcase_add_loop_test(tc, shared_waiters_killed, 0, n);
	suite_add_tcase(s, tc);
	return s;
}
