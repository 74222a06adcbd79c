// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_timed.c - trylock, timedlock and clocklock: argument checks, the
 * deadline honoured (never early) on both clocks under every policy, a
 * release before the deadline taking the lock, and signals never turning
 * into EINTR.
 */
#include <errno.h>
#include <signal.h>
#include <linux/futex.h>
#include <string.h>

#include "test_util.h"

static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC };

START_TEST(clocklock_rejects_bad_arguments)
{
	uspin_mutex_t m;
	struct timespec ts = { 0, 0 };
	struct holder h;

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &ts),
			 EINVAL);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, (clockid_t)12345, &ts), EINVAL);
	ck_assert_int_eq(uspin_mutex_clocklock(NULL, CLOCK_MONOTONIC, &ts), EINVAL);
	ck_assert_uint_eq(m.word, 0);	/* nothing taken on the way */
	/* Held by another thread: the call would block, so EINVAL. */
	holder_start(&h, &m);
	ts.tv_nsec = NSEC_PER_SEC;
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &ts), EINVAL);
	ts.tv_nsec = -1;
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts), EINVAL);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, NULL), EINVAL);
	holder_stop(&h);
	ck_assert_uint_eq(m.word, 0);
}
END_TEST

/* POSIX: a bad abstime is an error only if the call would have blocked. */
START_TEST(bad_abstime_on_a_free_lock_takes_it)
{
	uspin_mutex_t m;
	struct timespec bad = { 0, NSEC_PER_SEC }, negative_ns = { 5, -1 };

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &bad), 0);
	ck_assert_uint_eq(m.word, sys_gettid());
	/* Our own lock again: EDEADLK, whatever abstime says (as glibc). */
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &bad), EDEADLK);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_MONOTONIC, &negative_ns), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, NULL), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

START_TEST(past_deadline_on_free_lock_succeeds)
{
	uspin_mutex_t m;
	struct timespec past = { 0, 0 }, negative = { -5, 0 };

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &past), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_MONOTONIC, &negative), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/*
 * A held lock and negative seconds: ETIMEDOUT at once, before the
 * nanoseconds are looked at (glibc's order; the one check the drop-in
 * shares, libuspin/internal.h uspin_lock_timed()).
 */
START_TEST(negative_deadline_on_held_lock_times_out)
{
	uspin_mutex_t m;
	struct timespec negative = { -5, 0 }, negative_bad = { -1, NSEC_PER_SEC };
	struct holder h;

	ck_assert_int_eq(uspin_mutex_init(&m, 0), 0);
	holder_start(&h, &m);
	ck_assert_int_eq(uspin_mutex_timedlock(&m, &negative), ETIMEDOUT);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, CLOCK_MONOTONIC, &negative_bad),
			 ETIMEDOUT);
	holder_stop(&h);
	ck_assert_uint_eq(m.word, 0);
}
END_TEST

/* Loop index: policy x clock x (stock-kernel path or not). */
START_TEST(deadline_is_honoured_not_early)
{
	unsigned int p = _i % NR_POLICIES;
	clockid_t clock = clocks[(_i / NR_POLICIES) % 2];
	const int64_t wait_ns = 30000000;
	struct timespec ts, past = { 1, 0 };
	uspin_mutex_t m;
	struct holder h;
	int64_t t0;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(p)), 0);
	holder_start(&h, &m);
	/*
	 * t0 before the deadline: on a jiffies clocksource the clock steps
	 * by 4 ms, and a step between the two reads would make a correct
	 * wait look short.
	 */
	t0 = now_on(clock);
	ts = deadline_in(clock, wait_ns);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, clock, &ts), ETIMEDOUT);
	ck_assert_int_ge(now_on(clock), ts_ns(&ts));
	ck_assert_int_ge(now_on(clock) - t0, wait_ns);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, clock, &past), ETIMEDOUT);
	ck_assert_int_eq(uspin_mutex_trylock(&m), EBUSY);
	holder_stop(&h);
	/* Timed-out waiters left nothing behind that blocks the next one. */
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/* Tells a holder to release after a delay, while the test thread waits. */
static void *release_later(void *arg)
{
	struct holder *h = arg;
	struct timespec d = { 0, 20000000 };

	nanosleep(&d, NULL);
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	return NULL;
}

START_TEST(release_before_deadline_hands_over)
{
	unsigned int p = _i % NR_POLICIES;
	clockid_t clock = clocks[(_i / NR_POLICIES) % 2];
	uspin_mutex_t m;
	struct timespec ts;
	struct holder h;
	pthread_t t;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(p)), 0);
	holder_start(&h, &m);
	ts = deadline_in(clock, 10LL * NSEC_PER_SEC);
	ck_assert_int_eq(pthread_create(&t, NULL, release_later, &h), 0);
	ck_assert_int_eq(uspin_mutex_clocklock(&m, clock, &ts), 0);
	ck_assert_int_lt(now_on(clock), ts_ns(&ts));
	ck_assert_uint_eq(m.word & FUTEX_TID_MASK, sys_gettid());
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	pthread_join(t, NULL);
	pthread_join(h.thread, NULL);
}
END_TEST

static volatile sig_atomic_t signals_seen;

static void count_signal(int sig)
{
	(void)sig;
	signals_seen++;
}

struct blocked_locker {
	uspin_mutex_t *m;
	int ret;
	volatile int started;
};

static void *lock_while_signalled(void *arg)
{
	struct blocked_locker *b = arg;

	__atomic_store_n(&b->started, 1, __ATOMIC_RELEASE);
	b->ret = uspin_mutex_lock(b->m);
	if (b->ret == 0)
		uspin_mutex_unlock(b->m);
	return NULL;
}

/* Loop index: policy.  A handler without SA_RESTART still never surfaces. */
START_TEST(signals_never_surface_as_eintr)
{
	struct sigaction sa;
	struct blocked_locker b;
	uspin_mutex_t m;
	pthread_t t;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i)), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	b.m = &m;
	b.ret = -1;
	b.started = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, lock_while_signalled, &b), 0);
	while (!__atomic_load_n(&b.started, __ATOMIC_ACQUIRE))
		usleep(100);
	for (i = 0; i < 20; i++) {
		usleep(2000);
		pthread_kill(t, SIGUSR1);
	}
	usleep(2000);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(b.ret, 0);
	ck_assert_int_gt(signals_seen, 0);
}
END_TEST

Suite *suite_timed(void)
{
	TCase *tc;
	Suite *s = check_suite_one("timed", 60, &tc);

	tcase_add_test(tc, clocklock_rejects_bad_arguments);
	tcase_add_test(tc, bad_abstime_on_a_free_lock_takes_it);
	tcase_add_test(tc, past_deadline_on_free_lock_succeeds);
	tcase_add_test(tc, negative_deadline_on_held_lock_times_out);
	tcase_add_loop_test(tc, deadline_is_honoured_not_early, 0,
			    NR_POLICIES * 2);
	tcase_add_loop_test(tc, release_before_deadline_hands_over, 0,
			    NR_POLICIES * 2);
	tcase_add_loop_test(tc, signals_never_surface_as_eintr, 0, NR_POLICIES);
	return s;
}
