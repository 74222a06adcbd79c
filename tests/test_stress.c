// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_stress.c - mutual exclusion and no lost wake-ups under contention:
 * every policy at 2-64 threads on whatever CPUs there are, with a
 * non-atomic counter and an owner check inside the critical section, on
 * the kernel's slow path and on the stock-kernel fallback explicitly.
 * A lost wake-up shows up as a hang, which Check's timeout fails.
 */
#include <errno.h>
#include <linux/futex.h>

#include "test_util.h"
#include "uspin_testing.h"

enum traffic { TRAFFIC_LOCK, TRAFFIC_MIXED };

struct stress {
	uspin_mutex_t m;
	long per_thread;
	enum traffic traffic;
	volatile long counter;		/* only ever touched under m */
	volatile uint32_t inside;	/* TID of the thread in the section */
	long violations;		/* atomic */
	long errors;			/* atomic: unexpected return values */
	long timeouts;			/* atomic: timedlock ETIMEDOUT seen */
};

static int acquire(struct stress *st, unsigned int *seed)
{
	struct timespec ts;
	int r;

	if (st->traffic == TRAFFIC_LOCK)
		return uspin_mutex_lock(&st->m);
	switch (rand_r(seed) % 3) {
	case 0:
		return uspin_mutex_lock(&st->m);
	case 1:
		while ((r = uspin_mutex_trylock(&st->m)) == EBUSY)
			sched_yield();
		return r;
	default:
		for (;;) {
			ts = deadline_in(CLOCK_MONOTONIC, rand_r(seed) % 200000);
			r = uspin_mutex_clocklock(&st->m, CLOCK_MONOTONIC, &ts);
			if (r != ETIMEDOUT)
				return r;
			__atomic_add_fetch(&st->timeouts, 1, __ATOMIC_RELAXED);
		}
	}
}

static void *stress_thread(void *arg)
{
	struct stress *st = arg;
	uint32_t self = sys_gettid();
	unsigned int seed = self;
	long i;

	for (i = 0; i < st->per_thread; i++) {
		long c;

		if (acquire(st, &seed) != 0) {
			__atomic_add_fetch(&st->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (st->inside != 0 ||
		    (st->m.word & FUTEX_TID_MASK) != self)
			__atomic_add_fetch(&st->violations, 1, __ATOMIC_RELAXED);
		st->inside = self;
		c = st->counter;	/* a racy read-modify-write if unprotected */
		if (i % 7 == 0)
			sched_yield();	/* owner off CPU while others wait */
		st->counter = c + 1;
		st->inside = 0;
		if (uspin_mutex_unlock(&st->m) != 0)
			__atomic_add_fetch(&st->errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run_stress(enum uspin_policy policy, int nthreads,
		       enum traffic traffic, long total)
{
	struct stress st = { 0 };
	pthread_t t[64];
	int i;

	ck_assert_int_le(nthreads, 64);
	ck_assert_int_eq(uspin_mutex_init(&st.m, policy), 0);
	st.per_thread = test_scaled(total) / nthreads + 1;
	st.traffic = traffic;
	for (i = 0; i < nthreads; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, stress_thread, &st), 0);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(st.violations, 0);
	ck_assert_int_eq(st.errors, 0);
	ck_assert_int_eq(st.counter, st.per_thread * nthreads);
	ck_assert_uint_eq(st.m.word, 0);
	ck_assert_int_eq(uspin_mutex_destroy(&st.m), 0);
}

static const int thread_counts[] = { 2, 4, 16, 64 };
#define NR_COUNTS (sizeof(thread_counts) / sizeof(thread_counts[0]))

/* Loop index: policy x thread count. */
START_TEST(mutual_exclusion_every_policy)
{
	run_stress(policy_nr(_i % NR_POLICIES),
		   thread_counts[_i / NR_POLICIES], TRAFFIC_LOCK, 20000);
}
END_TEST

START_TEST(mutual_exclusion_stock_kernel_path)
{
	uspin_force_stock_kernel = 1;
	run_stress(policy_nr(_i % NR_POLICIES),
		   thread_counts[_i / NR_POLICIES], TRAFFIC_LOCK, 20000);
}
END_TEST

START_TEST(mixed_lock_trylock_timedlock)
{
	uspin_force_stock_kernel = _i / NR_POLICIES;
	run_stress(policy_nr(_i % NR_POLICIES), 8, TRAFFIC_MIXED, 8000);
}
END_TEST

Suite *suite_stress(void)
{
	TCase *tc;
	/* Generous: under TCG the guest runs ~8x slower than the host. */
	Suite *s = check_suite_one("stress", 300, &tc);

	tcase_add_loop_test(tc, mutual_exclusion_every_policy, 0,
			    NR_POLICIES * NR_COUNTS);
	tcase_add_loop_test(tc, mutual_exclusion_stock_kernel_path, 0,
			    NR_POLICIES * NR_COUNTS);
	tcase_add_loop_test(tc, mixed_lock_trylock_timedlock, 0,
			    NR_POLICIES * 2);
	return s;
}
