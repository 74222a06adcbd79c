// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond.c - pthread_cond_* as programs use them, with every mutex kind:
 * producer/consumer, broadcast phases, timed waits on both clocks and
 * clockwait, the errors, a recursive mutex held twice across a wait
 * (glibc keeps it locked), robust mutexes whose owner dies (the wait
 * returns EOWNERDEAD), cancellation, and C11 mtx_t/cnd_t.
 */
#include <threads.h>

#include "../scenarios/cond.h"
#include "util.h"

/*
 * Producer/consumer on a bounded queue (scenarios/cond.c), every kind;
 * timed waits on the condvar's clock in every other run.
 */
START_TEST(producer_consumer)
{
	enum mkind k = (enum mkind)(_i / 2);
	struct sc_queue_cfg cfg = {
		.producers = 3, .consumers = 3,
		.per_producer = test_scaled(2000),
		.wait = _i & 1 ? SC_TIMEDWAIT : SC_WAIT,
		.timeout_ns = 300000,
	};
	pthread_mutex_t m;

	if (k == MK_PP)
		return;		/* needs a real-time thread to lock */
	ck_assert_int_eq(mkind_init(&m, k), 0);
	sc_queue(&m, &cfg);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

/* Broadcast phases (scenarios/cond.c), every kind: eight threads,
   broadcasts inside the mutex and after unlocking it. */
START_TEST(broadcast_phases)
{
	enum mkind k = (enum mkind)_i;
	struct sc_phases_cfg cfg = {
		.threads = 8, .rounds = (int)test_scaled(200),
		.broadcast_unlocked = 1,
	};
	pthread_mutex_t m;

	if (k == MK_PP)
		return;
	ck_assert_int_eq(mkind_init(&m, k), 0);
	sc_phases(&m, &cfg);
}
END_TEST

/* ---- timed waits ---- */
START_TEST(timed_waits)
{
	pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_cond_t rt = PTHREAD_COND_INITIALIZER, mono;
	pthread_condattr_t a;
	struct timespec d, bad = { 0, -5 }, negative = { -1, 0 };
	clockid_t clk;

	pthread_condattr_init(&a);
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	ck_assert_int_eq(pthread_cond_init(&mono, &a), 0);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_MONOTONIC);
	pthread_condattr_destroy(&a);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);

	d = deadline_in(CLOCK_REALTIME, 20000000);
	ck_assert_int_eq(pthread_cond_timedwait(&rt, &m, &d), ETIMEDOUT);
	ck_assert_int_ge(now_on(CLOCK_REALTIME), ts_ns(&d));
	d = deadline_in(CLOCK_MONOTONIC, 20000000);
	ck_assert_int_eq(pthread_cond_timedwait(&mono, &m, &d), ETIMEDOUT);
	ck_assert_int_ge(now_on(CLOCK_MONOTONIC), ts_ns(&d));
	d = deadline_in(CLOCK_MONOTONIC, 20000000);
	ck_assert_int_eq(pthread_cond_clockwait(&rt, &m, CLOCK_MONOTONIC, &d),
			 ETIMEDOUT);
	d = deadline_in(CLOCK_REALTIME, 20000000);
	ck_assert_int_eq(pthread_cond_clockwait(&mono, &m, CLOCK_REALTIME, &d),
			 ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_clockwait(&mono, &m, CLOCK_PROCESS_CPUTIME_ID,
						&d), EINVAL);
	ck_assert_int_eq(pthread_cond_timedwait(&rt, &m, &bad), EINVAL);
	ck_assert_int_eq(pthread_cond_timedwait(&rt, &m, &negative), ETIMEDOUT);
	/* The mutex is ours after every return. */
	ck_assert_int_eq(pthread_mutex_lock(&m), EDEADLK);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	/* Not ours: EPERM before anything else. */
	d = deadline_in(CLOCK_REALTIME, 1000000);
	ck_assert_int_eq(pthread_cond_timedwait(&rt, &m, &d), EPERM);
	ck_assert_int_eq(pthread_cond_destroy(&rt), 0);
	ck_assert_int_eq(pthread_cond_destroy(&mono), 0);
}
END_TEST

/* ---- a recursive mutex held twice stays locked across the wait ---- */
struct rec {
	pthread_mutex_t m;
	pthread_cond_t c;
	volatile int waiting, woken, release;
	int ret, unlocks;
};

static void *rec_waiter(void *arg)
{
	struct rec *r = arg;

	pthread_mutex_lock(&r->m);
	pthread_mutex_lock(&r->m);
	__atomic_store_n(&r->waiting, 1, __ATOMIC_RELEASE);
	r->ret = pthread_cond_wait(&r->c, &r->m);
	__atomic_store_n(&r->woken, 1, __ATOMIC_RELEASE);
	wait_flag(&r->release);
	while (pthread_mutex_unlock(&r->m) == 0)
		r->unlocks++;
	return NULL;
}

START_TEST(recursive_held_twice)
{
	struct rec r = { .m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
			 .c = PTHREAD_COND_INITIALIZER };
	pthread_t t;
	int i;

	ck_assert_int_eq(pthread_create(&t, NULL, rec_waiter, &r), 0);
	ck_assert(wait_flag(&r.waiting));
	/* glibc: the wait counted it down to 1; it is still taken. */
	for (i = 0; i < 1000 && !__atomic_load_n(&r.woken, __ATOMIC_ACQUIRE); i++) {
		ck_assert_int_eq(pthread_mutex_trylock(&r.m), EBUSY);
		pthread_cond_signal(&r.c);
		usleep(1000);
	}
	ck_assert(r.woken);
	ck_assert_int_eq(pthread_mutex_trylock(&r.m), EBUSY);
	__atomic_store_n(&r.release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ck_assert_int_eq(r.ret, 0);
	ck_assert_int_eq(r.unlocks, 2);
	ck_assert_int_eq(pthread_mutex_trylock(&r.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r.m), 0);
}
END_TEST

/* Robust kinds: the signaller dies holding the mutex (scenarios/cond.c). */
START_TEST(robust_owner_dies_in_wait)
{
	enum mkind k = (enum mkind)_i;
	struct sc_pair p = { .stage = 0 };

	if (!mkind_robust(k))
		return;
	ck_assert_int_eq(mkind_init((pthread_mutex_t *)&p.m, k), 0);
	ck_assert_int_eq(lock_ops.cond_init(&p.c, LK_PRIVATE), 0);
	sc_owner_dies_after_signal(&p, 0, 1);
}
END_TEST

/*
 * glibc: a condvar waiter still uses its mutex, so destroying the mutex
 * meanwhile is EBUSY (tst-mutex8), for every non-robust kind.
 */
struct busy {
	pthread_mutex_t m;
	pthread_cond_t c;
	volatile int waiting;
	int done;
};

static void *busy_waiter(void *arg)
{
	struct busy *b = arg;

	pthread_mutex_lock(&b->m);
	__atomic_store_n(&b->waiting, 1, __ATOMIC_RELEASE);
	while (!b->done)
		pthread_cond_wait(&b->c, &b->m);
	pthread_mutex_unlock(&b->m);
	return NULL;
}

START_TEST(mutex_busy_while_cond_waits)
{
	enum mkind k = (enum mkind)_i;
	struct busy b = { .c = PTHREAD_COND_INITIALIZER };
	pthread_t t;

	if (k == MK_PP || mkind_robust(k))
		return;
	ck_assert_int_eq(mkind_init(&b.m, k), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, busy_waiter, &b), 0);
	ck_assert(wait_flag(&b.waiting));
	ck_assert_int_eq(pthread_mutex_lock(&b.m), 0);	/* it is in the wait */
	ck_assert_int_eq(pthread_mutex_unlock(&b.m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&b.m), EBUSY);
	pthread_mutex_lock(&b.m);
	b.done = 1;
	pthread_cond_signal(&b.c);
	pthread_mutex_unlock(&b.m);
	pthread_join(t, NULL);
	ck_assert_int_eq(pthread_mutex_destroy(&b.m), 0);
}
END_TEST

/* ---- cancellation (scenarios/cond.c) ---- */
START_TEST(cancel_in_wait)
{
	pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	sc_cancel_in_wait(&m, &c);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

/* ---- C11 threads ---- */
struct c11 {
	mtx_t m;
	cnd_t c;
	int value, done;
};

static int c11_worker(void *arg)
{
	struct c11 *x = arg;

	mtx_lock(&x->m);
	while (x->value == 0)
		cnd_wait(&x->c, &x->m);
	x->done = x->value + 1;
	cnd_signal(&x->c);
	mtx_unlock(&x->m);
	return 7;
}

START_TEST(c11_threads)
{
	struct c11 x = { .value = 0 };
	struct timespec d;
	thrd_t t;
	int res;

	ck_assert_int_eq(mtx_init(&x.m, mtx_plain | mtx_recursive), thrd_success);
	ck_assert_int_eq(cnd_init(&x.c), thrd_success);
	ck_assert_int_eq(thrd_create(&t, c11_worker, &x), thrd_success);
	ck_assert_int_eq(mtx_lock(&x.m), thrd_success);
	ck_assert_int_eq(mtx_lock(&x.m), thrd_success);	/* recursive */
	ck_assert_int_eq(mtx_unlock(&x.m), thrd_success);
	x.value = 41;
	cnd_signal(&x.c);
	while (!x.done)
		cnd_wait(&x.c, &x.m);
	ck_assert_int_eq(x.done, 42);
	d = deadline_in(CLOCK_REALTIME, 1000000);
	ck_assert_int_eq(cnd_timedwait(&x.c, &x.m, &d), thrd_timedout);
	ck_assert_int_eq(mtx_unlock(&x.m), thrd_success);
	ck_assert_int_eq(thrd_join(t, &res), thrd_success);
	ck_assert_int_eq(res, 7);
	mtx_destroy(&x.m);
	ck_assert_int_eq(mtx_init(&x.m, mtx_timed), thrd_success);
	ck_assert_int_eq(mtx_trylock(&x.m), thrd_success);
	ck_assert_int_eq(mtx_trylock(&x.m), thrd_busy);
	d = deadline_in(CLOCK_REALTIME, 1000000);
	ck_assert_int_eq(mtx_timedlock(&x.m, &d), thrd_timedout);
	ck_assert_int_eq(mtx_unlock(&x.m), thrd_success);
	mtx_destroy(&x.m);
	/* glibc makes an unknown type a plain mutex */
	ck_assert_int_eq(mtx_init(&x.m, 12345), thrd_success);
	ck_assert_int_eq(mtx_lock(&x.m), thrd_success);
	ck_assert_int_eq(mtx_unlock(&x.m), thrd_success);
	mtx_destroy(&x.m);
	cnd_destroy(&x.c);
}
END_TEST

Suite *suite_cond(void)
{
	TCase *tc;
	Suite *s = check_suite_one("cond", 60, &tc);

	tcase_add_loop_test(tc, producer_consumer, 0, 2 * MK_COUNT);
	tcase_add_loop_test(tc, broadcast_phases, 0, MK_COUNT);
	tcase_add_test(tc, timed_waits);
	tcase_add_test(tc, recursive_held_twice);
	tcase_add_loop_test(tc, robust_owner_dies_in_wait, 0, MK_COUNT);
	tcase_add_test(tc, cancel_in_wait);
	tcase_add_loop_test(tc, mutex_busy_while_cond_waits, 0, MK_COUNT);
	tcase_add_test(tc, c11_threads);
	return s;
}
