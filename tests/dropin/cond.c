// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond.c - pthread_cond_* as programs use them, with every mutex kind:
 * producer/consumer, broadcast phases, timed waits on both clocks and
 * clockwait, the errors, a recursive mutex held twice across a wait
 * (glibc keeps it locked), robust mutexes whose owner dies (the wait
 * returns EOWNERDEAD), cancellation, and C11 mtx_t/cnd_t.
 */
#include <stdio.h>
#include <threads.h>

#include "util.h"

/* ---- producer/consumer on a bounded queue, every kind ---- */
#define QCAP 4
struct queue {
	pthread_mutex_t m;
	pthread_cond_t not_empty, not_full;
	long buf[QCAP];
	int head, count, producers_left, timed;
	long per_producer, sum, consumed;
	long errors;
};

static void *producer(void *arg)
{
	struct queue *q = arg;
	long i;

	for (i = 1; i <= q->per_producer; i++) {
		pthread_mutex_lock(&q->m);
		while (q->count == QCAP)
			if (pthread_cond_wait(&q->not_full, &q->m))
				q->errors++;
		q->buf[(q->head + q->count++) % QCAP] = i;
		pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->m);
	}
	pthread_mutex_lock(&q->m);
	if (--q->producers_left == 0)
		pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->m);
	return NULL;
}

static void *consumer(void *arg)
{
	struct queue *q = arg;
	int r;

	pthread_mutex_lock(&q->m);
	for (;;) {
		while (q->count == 0 && q->producers_left) {
			if (q->timed) {
				struct timespec d = in_ns(CLOCK_REALTIME, 300000);

				r = pthread_cond_timedwait(&q->not_empty, &q->m, &d);
			} else {
				r = pthread_cond_wait(&q->not_empty, &q->m);
			}
			if (r && r != ETIMEDOUT)
				q->errors++;
		}
		if (q->count == 0)
			break;
		q->sum += q->buf[q->head];
		q->head = (q->head + 1) % QCAP;
		q->count--;
		q->consumed++;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->m);
	return NULL;
}

START_TEST(producer_consumer)
{
	enum mkind k = (enum mkind)(_i / 2);
	struct queue *q;
	pthread_t t[6];
	int i;

	if (k == MK_PP)
		return;		/* needs a real-time thread to lock */
	q = calloc(1, sizeof(*q));
	ck_assert_int_eq(mkind_init(&q->m, k), 0);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->timed = _i & 1;
	q->per_producer = scaled(2000);
	q->producers_left = 3;
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, producer, q), 0);
	for (i = 3; i < 6; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, consumer, q), 0);
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(q->errors, 0);
	ck_assert_int_eq(q->consumed, 3 * q->per_producer);
	ck_assert_int_eq(q->sum, 3 * q->per_producer * (q->per_producer + 1) / 2);
	ck_assert_int_eq(pthread_cond_destroy(&q->not_empty), 0);
	ck_assert_int_eq(pthread_cond_destroy(&q->not_full), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&q->m), 0);
	free(q);
}
END_TEST

/* ---- broadcast phases ---- */
struct phases {
	pthread_mutex_t m;
	pthread_cond_t c;
	int n, arrived, phase, rounds;
	long missed;
};

static void *phase_main(void *arg)
{
	struct phases *p = arg;
	int r;

	for (r = 0; r < p->rounds; r++) {
		int mine;

		pthread_mutex_lock(&p->m);
		mine = p->phase;
		if (++p->arrived == p->n) {
			p->arrived = 0;
			p->phase++;
			if (r & 1) {
				pthread_cond_broadcast(&p->c);
			} else {
				/* after unlocking, as many programs do */
				pthread_mutex_unlock(&p->m);
				pthread_cond_broadcast(&p->c);
				pthread_mutex_lock(&p->m);
			}
		} else {
			while (p->phase == mine)
				if (pthread_cond_wait(&p->c, &p->m))
					p->missed++;
		}
		if (p->phase < mine + 1)
			p->missed++;
		pthread_mutex_unlock(&p->m);
	}
	return NULL;
}

START_TEST(broadcast_phases)
{
	enum mkind k = (enum mkind)_i;
	struct phases p = { .n = 8 };
	pthread_t t[8];
	int i;

	if (k == MK_PP)
		return;
	ck_assert_int_eq(mkind_init(&p.m, k), 0);
	pthread_cond_init(&p.c, NULL);
	p.rounds = (int)scaled(200);
	for (i = 0; i < p.n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, phase_main, &p), 0);
	for (i = 0; i < p.n; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(p.missed, 0);
	ck_assert_int_eq(p.phase, p.rounds);
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

	d = in_ns(CLOCK_REALTIME, 20000000);
	ck_assert_int_eq(pthread_cond_timedwait(&rt, &m, &d), ETIMEDOUT);
	ck_assert_int_ge(now_ns(CLOCK_REALTIME),
			 (int64_t)d.tv_sec * NSEC_PER_SEC + d.tv_nsec);
	d = in_ns(CLOCK_MONOTONIC, 20000000);
	ck_assert_int_eq(pthread_cond_timedwait(&mono, &m, &d), ETIMEDOUT);
	ck_assert_int_ge(now_ns(CLOCK_MONOTONIC),
			 (int64_t)d.tv_sec * NSEC_PER_SEC + d.tv_nsec);
	d = in_ns(CLOCK_MONOTONIC, 20000000);
	ck_assert_int_eq(pthread_cond_clockwait(&rt, &m, CLOCK_MONOTONIC, &d),
			 ETIMEDOUT);
	d = in_ns(CLOCK_REALTIME, 20000000);
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
	d = in_ns(CLOCK_REALTIME, 1000000);
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

/* ---- robust: the signaller dies holding the mutex ---- */
struct robust_cv {
	pthread_mutex_t m;
	pthread_cond_t c;
	int ready;
};

static void *signal_and_die(void *arg)
{
	struct robust_cv *r = arg;

	pthread_mutex_lock(&r->m);
	r->ready = 1;
	pthread_cond_broadcast(&r->c);
	return NULL;	/* exits holding it */
}

START_TEST(robust_owner_dies_in_wait)
{
	enum mkind k = (enum mkind)_i;
	struct robust_cv r = { .c = PTHREAD_COND_INITIALIZER };
	pthread_t t;
	int ret;

	if (!mkind_robust(k))
		return;
	ck_assert_int_eq(mkind_init(&r.m, k), 0);
	ck_assert_int_eq(pthread_mutex_lock(&r.m), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, signal_and_die, &r), 0);
	do
		ret = pthread_cond_wait(&r.c, &r.m);
	while (ret == 0 && !r.ready);
	ck_assert_int_eq(ret, EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&r.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r.m), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(pthread_mutex_lock(&r.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r.m), 0);
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

/* ---- cancellation ---- */
struct cancel {
	pthread_mutex_t *m;
	pthread_cond_t *c;
	volatile int started, in_cleanup_locked;
	uint32_t tid;
};

static void cleanup(void *arg)
{
	struct cancel *x = arg;

	/* The mutex is ours again: an errorcheck unlock proves it. */
	x->in_cleanup_locked = pthread_mutex_unlock(x->m) == 0 ? 1 : -1;
}

static void *cancel_waiter(void *arg)
{
	struct cancel *x = arg;

	pthread_mutex_lock(x->m);
	pthread_cleanup_push(cleanup, x);
	__atomic_store_n(&x->started, 1, __ATOMIC_RELEASE);
	for (;;)
		pthread_cond_wait(x->c, x->m);
	pthread_cleanup_pop(1);
	return NULL;
}

START_TEST(cancel_in_wait)
{
	pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct cancel x = { .m = &m, .c = &c };
	pthread_t t;
	void *res;

	ck_assert_int_eq(pthread_create(&t, NULL, cancel_waiter, &x), 0);
	ck_assert(wait_flag(&x.started));
	pthread_mutex_lock(&m);		/* it is asleep in the wait now */
	pthread_mutex_unlock(&m);
	usleep(10000);
	ck_assert_int_eq(pthread_cancel(t), 0);
	ck_assert_int_eq(pthread_join(t, &res), 0);
	ck_assert_ptr_eq(res, PTHREAD_CANCELED);
	ck_assert_int_eq(x.in_cleanup_locked, 1);
	ck_assert_int_eq(pthread_mutex_trylock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
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
	d = in_ns(CLOCK_REALTIME, 1000000);
	ck_assert_int_eq(cnd_timedwait(&x.c, &x.m, &d), thrd_timedout);
	ck_assert_int_eq(mtx_unlock(&x.m), thrd_success);
	ck_assert_int_eq(thrd_join(t, &res), thrd_success);
	ck_assert_int_eq(res, 7);
	mtx_destroy(&x.m);
	ck_assert_int_eq(mtx_init(&x.m, mtx_timed), thrd_success);
	ck_assert_int_eq(mtx_trylock(&x.m), thrd_success);
	ck_assert_int_eq(mtx_trylock(&x.m), thrd_busy);
	d = in_ns(CLOCK_REALTIME, 1000000);
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
	Suite *s = suite_create("cond");
	TCase *tc = tcase_create("cond");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, producer_consumer, 0, 2 * MK_COUNT);
	tcase_add_loop_test(tc, broadcast_phases, 0, MK_COUNT);
	tcase_add_test(tc, timed_waits);
	tcase_add_test(tc, recursive_held_twice);
	tcase_add_loop_test(tc, robust_owner_dies_in_wait, 0, MK_COUNT);
	tcase_add_test(tc, cancel_in_wait);
	tcase_add_loop_test(tc, mutex_busy_while_cond_waits, 0, MK_COUNT);
	tcase_add_test(tc, c11_threads);
	suite_add_tcase(s, tc);
	return s;
}
