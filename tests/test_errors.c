// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_errors.c - every error path of the API, and owner-died handling on a
 * word marked the way the kernel's robust-list exit handling marks it.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>

#include "internal.h"	/* USPIN_WORD_SHARED */
#include "test_util.h"

START_TEST(init_rejects_unknown_flags)
{
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, 0x400), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(&m, 0x10000), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(&m, 0x80000000u), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_COUNT), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(&m, 0xf), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(NULL, 0), EINVAL);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_USER_ADAPTIVE |
					     USPIN_PROCESS_SHARED), 0);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_ROBUST), 0);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_PROCESS_SHARED |
					     USPIN_ROBUST), 0);
	ck_assert_ptr_null(uspin_policy_name((enum uspin_policy)7));
	ck_assert_str_eq(uspin_policy_name(USPIN_POLICY_KERNEL_ADAPTIVE),
			 "kernel-adaptive");
}
END_TEST

START_TEST(initializer_is_a_working_mutex)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;

	ck_assert_uint_eq(sizeof(m), 40);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_uint_eq(m.word, sys_gettid());
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_uint_eq(m.word, 0);
	ck_assert_int_eq(uspin_mutex_destroy(&m), 0);
}
END_TEST

START_TEST(relock_by_owner_is_edeadlk)
{
	uspin_mutex_t m;
	struct timespec ts;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i)), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), EDEADLK);
	ts = deadline_in(CLOCK_REALTIME, 1000000);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), EDEADLK);
	ts.tv_sec = -1;
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), EDEADLK);
	ck_assert_int_eq(uspin_mutex_trylock(&m), EBUSY);
	ck_assert_uint_eq(m.word, sys_gettid());
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(unlock_by_non_owner_is_eperm)
{
	uspin_mutex_t m;
	struct holder h;

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);	/* unlocked */
	holder_start(&h, &m);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);	/* other owner */
	ck_assert_int_eq(uspin_mutex_trylock(&m), EBUSY);
	ck_assert_int_eq(uspin_mutex_destroy(&m), EBUSY);
	holder_stop(&h);
	ck_assert_uint_eq(m.word, 0);
	ck_assert_int_eq(uspin_mutex_destroy(&m), 0);
}
END_TEST

START_TEST(shared_unlock_by_non_owner_is_eperm)
{
	uspin_mutex_t m;
	struct holder h;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_PROCESS_SHARED), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);
	holder_start(&h, &m);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);
	holder_stop(&h);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(destroy_held_is_ebusy)
{
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_destroy(&m), EBUSY);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(uspin_mutex_destroy(&m), 0);
}
END_TEST

START_TEST(consistent_needs_owner_died)
{
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_consistent(&m), EINVAL);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_consistent(&m), EINVAL);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/*
 * The kernel's handle_futex_death() leaves FUTEX_OWNER_DIED and keeps
 * FUTEX_WAITERS, with the TID cleared.  Every way in must take over.
 */
static const uint32_t dead_words[] = {
	FUTEX_OWNER_DIED, FUTEX_OWNER_DIED | FUTEX_WAITERS,
};

START_TEST(lock_takes_over_dead_owner)
{
	unsigned int p = _i % NR_POLICIES, w = _i / NR_POLICIES;
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(p)), 0);
	m.word = dead_words[w];
	ck_assert_int_eq(uspin_mutex_lock(&m), EOWNERDEAD);
	ck_assert_uint_eq(m.word & FUTEX_TID_MASK, sys_gettid());
	ck_assert(m.word & FUTEX_OWNER_DIED);
	ck_assert_int_eq(uspin_mutex_consistent(&m), 0);
	ck_assert(!(m.word & FUTEX_OWNER_DIED));
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_uint_eq(m.word, 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(trylock_and_timedlock_take_over_dead_owner)
{
	uspin_mutex_t m;
	struct timespec ts = deadline_in(CLOCK_MONOTONIC, 100000000);

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	m.word = FUTEX_OWNER_DIED;
	ck_assert_int_eq(uspin_mutex_trylock(&m), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_consistent(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	m.word = FUTEX_OWNER_DIED | FUTEX_WAITERS;
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts),
			 EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_consistent(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/*
 * A process-shared, non-robust word never gets FUTEX_OWNER_DIED from the
 * kernel since its owners mark it (USPIN_WORD_SHARED, libuspin/owner.c);
 * one that has it all the same (written by an older libuspin: a task
 * killed inside lock or unlock) is taken over without EOWNERDEAD, as
 * nobody died inside a critical section, and gets the mark.
 */
START_TEST(shared_takes_over_word_of_task_dead_in_a_call)
{
	unsigned int p = _i % NR_POLICIES, w = _i / NR_POLICIES;
	struct timespec ts = deadline_in(CLOCK_REALTIME, 100000000);
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(p) |
					  USPIN_PROCESS_SHARED), 0);
	m.word = dead_words[w];
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_uint_eq(m.word & ~FUTEX_WAITERS, sys_gettid() | USPIN_WORD_SHARED);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	m.word = dead_words[w];
	ck_assert_int_eq(uspin_mutex_trylock(&m), 0);
	ck_assert_uint_eq(m.word & ~FUTEX_WAITERS, sys_gettid() | USPIN_WORD_SHARED);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	m.word = dead_words[w];
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_uint_eq(m.word, 0);
	ck_assert_int_eq(uspin_mutex_consistent(&m), EINVAL);
}
END_TEST

START_TEST(unlock_without_consistent_is_not_recoverable)
{
	uspin_mutex_t m;
	struct timespec ts = deadline_in(CLOCK_REALTIME, 100000000);

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i)), 0);
	m.word = FUTEX_OWNER_DIED;
	ck_assert_int_eq(uspin_mutex_lock(&m), EOWNERDEAD);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), ENOTRECOVERABLE);
	ck_assert_int_eq(uspin_mutex_trylock(&m), ENOTRECOVERABLE);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), ENOTRECOVERABLE);
	ck_assert_int_eq(uspin_mutex_unlock(&m), EPERM);
	/* Only init brings it back. */
	ck_assert_int_eq(uspin_mutex_destroy(&m), 0);
	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

Suite *suite_errors(void)
{
	TCase *tc;
	Suite *s = check_suite_one("errors", 0, &tc);

	tcase_add_test(tc, init_rejects_unknown_flags);
	tcase_add_test(tc, initializer_is_a_working_mutex);
	tcase_add_loop_test(tc, relock_by_owner_is_edeadlk, 0, NR_POLICIES);
	tcase_add_test(tc, unlock_by_non_owner_is_eperm);
	tcase_add_test(tc, shared_unlock_by_non_owner_is_eperm);
	tcase_add_test(tc, destroy_held_is_ebusy);
	tcase_add_test(tc, consistent_needs_owner_died);
	tcase_add_loop_test(tc, lock_takes_over_dead_owner, 0, NR_POLICIES * 2);
	tcase_add_test(tc, trylock_and_timedlock_take_over_dead_owner);
	tcase_add_loop_test(tc, shared_takes_over_word_of_task_dead_in_a_call, 0,
			    NR_POLICIES * 2);
	tcase_add_loop_test(tc, unlock_without_consistent_is_not_recoverable,
			    0, NR_POLICIES);
	return s;
}
