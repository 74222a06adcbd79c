// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_cond.c - uspin_cond_t: the API's errors, what a signal and a
 * broadcast guarantee (one waiter that was waiting, never a later one; all
 * of them), timeouts on both clocks, every kind of uspin mutex (private,
 * process-shared across fork, robust with an owner that dies), requeueing
 * onto the mutex, cancellation, and producer/consumer traffic under every
 * policy on both kernel paths.  A lost wake-up is a hang, which Check's
 * timeout turns into a failure.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>

#include "scenarios/cond.h"
#include "setup.h"
#include "test_util.h"
#include "uspin_testing.h"

/* Wait up to 10 s until @n waiters sleep in @c (joined, mutex released). */
static void wait_waiters(uspin_cond_t *c, uspin_mutex_t *m, uint32_t n)
{
	int i;

	for (i = 0; i < 100000; i++) {
		uint32_t joined;

		uspin_mutex_lock(m);
		joined = c->g1_unsignalled + c->g2_size;
		uspin_mutex_unlock(m);
		if (joined >= n)
			return;
		usleep(100);
	}
	ck_abort_msg("waiters never joined the condvar");
}

START_TEST(layout_and_init)
{
	uspin_cond_t zero, s = USPIN_COND_INITIALIZER, c;

	ck_assert_uint_eq(sizeof(uspin_cond_t), 48);
	ck_assert_uint_eq(sizeof(uspin_cond_t), sizeof(pthread_cond_t));
	ck_assert_uint_eq(_Alignof(uspin_cond_t), _Alignof(pthread_cond_t));
	memset(&zero, 0, sizeof(zero));
	ck_assert_int_eq(memcmp(&zero, &s, sizeof(s)), 0);
	ck_assert_int_eq(uspin_cond_init(NULL, 0), EINVAL);
	ck_assert_int_eq(uspin_cond_init(&c, 0x1), EINVAL);
	ck_assert_int_eq(uspin_cond_init(&c, USPIN_ROBUST), EINVAL);
	ck_assert_int_eq(uspin_cond_init(&c, USPIN_PROCESS_SHARED |
					 USPIN_COND_MONOTONIC), 0);
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	ck_assert_int_eq(uspin_cond_init(&c, 0), 0);
	ck_assert_int_eq(memcmp(&zero, &c, sizeof(c)), 0);
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	ck_assert_int_eq(uspin_cond_destroy(NULL), EINVAL);
	/* Nobody waits: no effect, no system call needed. */
	ck_assert_int_eq(uspin_cond_signal(&s), 0);
	ck_assert_int_eq(uspin_cond_broadcast(&s), 0);
	ck_assert_int_eq(memcmp(&zero, &s, sizeof(s)), 0);
	ck_assert_int_eq(uspin_cond_signal(NULL), EINVAL);
	ck_assert_int_eq(uspin_cond_broadcast(NULL), EINVAL);
}
END_TEST

START_TEST(errors)
{
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	struct timespec bad = { 0, 1000000000L }, neg = { 0, -1 };
	struct timespec soon = deadline_in(CLOCK_REALTIME, 1000000);
	struct holder h;

	/* Not the owner: EPERM, and the condvar is untouched. */
	ck_assert_int_eq(uspin_cond_wait(&c, &m), EPERM);
	ck_assert_int_eq(uspin_cond_timedwait(&c, &m, &soon), EPERM);
	holder_start(&h, &m);
	ck_assert_int_eq(uspin_cond_wait(&c, &m), EPERM);
	holder_stop(&h);
	ck_assert_uint_eq(c.wrefs, 0);

	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_cond_timedwait(&c, &m, &bad), EINVAL);
	ck_assert_int_eq(uspin_cond_timedwait(&c, &m, &neg), EINVAL);
	ck_assert_int_eq(uspin_cond_timedwait(&c, &m, NULL), EINVAL);
	ck_assert_int_eq(uspin_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID,
					      &soon), EINVAL);
	ck_assert_int_eq(uspin_cond_clockwait(&c, &m, CLOCK_BOOTTIME, &soon),
			 EINVAL);
	ck_assert_int_eq(uspin_cond_wait(NULL, &m), EINVAL);
	ck_assert_int_eq(uspin_cond_wait(&c, NULL), EINVAL);
	/* Still ours after every refusal. */
	ck_assert_uint_eq(WORD_TID(m.word), sys_gettid());
	ck_assert_uint_eq(c.wrefs, 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
}
END_TEST

/* Timeouts on both clocks; the mutex is held again on return. */
START_TEST(timeouts)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	uspin_mutex_t m;
	uspin_cond_t c, mono;
	struct timespec past = { 0, 0 }, negative = { -1, 0 };
	int i;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i)), 0);
	ck_assert_int_eq(uspin_cond_init(&c, 0), 0);
	ck_assert_int_eq(uspin_cond_init(&mono, USPIN_COND_MONOTONIC), 0);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	for (i = 0; i < 2; i++) {
		struct timespec d = deadline_in(clocks[i], 20000000);

		ck_assert_int_eq(uspin_cond_clockwait(&c, &m, clocks[i], &d),
				 ETIMEDOUT);
		ck_assert_int_ge(now_on(clocks[i]), ts_ns(&d));
		ck_assert_uint_eq(WORD_TID(m.word), sys_gettid());
		ck_assert_int_eq(uspin_cond_clockwait(&c, &m, clocks[i], &past),
				 ETIMEDOUT);
		ck_assert_int_eq(uspin_cond_clockwait(&c, &m, clocks[i],
						      &negative), ETIMEDOUT);
	}
	{
		struct timespec d = deadline_in(CLOCK_REALTIME, 20000000);

		ck_assert_int_eq(uspin_cond_timedwait(&c, &m, &d), ETIMEDOUT);
		ck_assert_int_ge(now_on(CLOCK_REALTIME), ts_ns(&d));
		d = deadline_in(CLOCK_MONOTONIC, 20000000);
		ck_assert_int_eq(uspin_cond_timedwait(&mono, &m, &d), ETIMEDOUT);
		ck_assert_int_ge(now_on(CLOCK_MONOTONIC), ts_ns(&d));
	}
	ck_assert_uint_eq(WORD_TID(m.word), sys_gettid());
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	/* Everybody left: the condvar is back to rest. */
	ck_assert_uint_eq(c.g1_unsignalled + c.g2_size, 0);
	ck_assert_uint_eq(c.wrefs / 8, 0);
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	ck_assert_int_eq(uspin_cond_destroy(&mono), 0);
}
END_TEST

/* ---- waiters in threads ---- */
struct waiter {
	pthread_t thread;
	uspin_cond_t *c;
	uspin_mutex_t *m;
	volatile int *predicate;	/* NULL: return after one wait */
	const struct timespec *deadline;
	volatile int started, done;
	int ret;
	uint32_t word_after;		/* m->word right after the wait */
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	uspin_mutex_lock(w->m);
	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	do {
		w->ret = w->deadline ?
			 uspin_cond_timedwait(w->c, w->m, w->deadline) :
			 uspin_cond_wait(w->c, w->m);
	} while (w->ret == 0 && w->predicate && !*w->predicate);
	w->word_after = w->m->word;
	uspin_mutex_unlock(w->m);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void waiter_start(struct waiter *w, uspin_cond_t *c, uspin_mutex_t *m)
{
	w->c = c;
	w->m = m;
	w->started = w->done = 0;
	ck_assert_int_eq(pthread_create(&w->thread, NULL, waiter_main, w), 0);
	ck_assert(wait_flag(&w->started));
}

/*
 * A signal wakes exactly one waiter; with the mutex held by the signaller
 * the woken one is requeued onto the mutex (FUTEX_WAITERS set) and runs
 * when it is unlocked.
 */
START_TEST(signal_wakes_one)
{
	uspin_mutex_t m;
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	struct waiter w[2] = { { 0 } };
	int first;

	uspin_force_stock_kernel = _i & 1;
	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i / 2)), 0);
	waiter_start(&w[0], &c, &m);
	waiter_start(&w[1], &c, &m);
	wait_waiters(&c, &m, 2);

	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_cond_signal(&c), 0);
	/* Requeued onto the mutex we hold, not woken to block on it. */
	ck_assert(m.word & FUTEX_WAITERS);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	while (!__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&w[1].done, __ATOMIC_ACQUIRE))
		usleep(100);
	first = w[0].done ? 0 : 1;
	ck_assert_int_eq(w[first].ret, 0);
	ck_assert_uint_eq(WORD_TID(w[first].word_after) != 0, 1);
	/* The other one still waits: one signal, one waiter. */
	usleep(50000);
	ck_assert_int_eq(__atomic_load_n(&w[!first].done, __ATOMIC_ACQUIRE), 0);
	ck_assert_int_eq(uspin_cond_signal(&c), 0);	/* without the mutex */
	pthread_join(w[0].thread, NULL);
	pthread_join(w[1].thread, NULL);
	ck_assert_int_eq(w[!first].ret, 0);
	ck_assert_uint_eq(m.word, 0);
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	uspin_force_stock_kernel = 0;
}
END_TEST

/*
 * glibc bug 13165: a signal must not be taken by a thread that started
 * waiting after it.  A waits; we signal holding the mutex; B starts to
 * wait before A can run (it needs the mutex).  A must return, B not.
 */
START_TEST(no_stolen_signal)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	struct waiter a = { 0 }, b = { 0 };

	waiter_start(&a, &c, &m);
	wait_waiters(&c, &m, 1);
	ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_cond_signal(&c), 0);
	ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	/* B may join before or after A took the signal: either way not B. */
	waiter_start(&b, &c, &m);
	ck_assert(wait_flag(&a.done));
	ck_assert_int_eq(a.ret, 0);
	wait_waiters(&c, &m, 1);
	usleep(50000);
	ck_assert_int_eq(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE), 0);
	ck_assert_int_eq(uspin_cond_signal(&c), 0);
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	ck_assert_int_eq(b.ret, 0);
}
END_TEST

/*
 * A waiter that timed out (or left) must not make a later signal go to
 * nobody: signal after one of two waiters timed out; the other wakes.
 */
START_TEST(signal_after_timeout_reaches_the_other)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	struct timespec d = deadline_in(CLOCK_REALTIME, 30000000);
	struct waiter a = { 0 }, b = { 0 };

	a.deadline = &d;
	waiter_start(&a, &c, &m);
	waiter_start(&b, &c, &m);
	ck_assert(wait_flag(&a.done));
	ck_assert_int_eq(a.ret, ETIMEDOUT);
	ck_assert_int_eq(uspin_cond_signal(&c), 0);
	ck_assert(wait_flag(&b.done));
	ck_assert_int_eq(b.ret, 0);
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
}
END_TEST

/*
 * Broadcast wakes them all; by the mutex owner, they are all requeued
 * onto the mutex and the condvar is free at once (destroy succeeds as
 * soon as the last one is out).
 */
#define NWAIT 8
START_TEST(broadcast_wakes_all)
{
	uspin_mutex_t m;
	uspin_cond_t c = USPIN_COND_INITIALIZER;
	struct waiter w[NWAIT] = { { 0 } };
	int i, holding = _i & 1;

	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i / 2)), 0);
	for (i = 0; i < NWAIT; i++)
		waiter_start(&w[i], &c, &m);
	wait_waiters(&c, &m, NWAIT);
	if (holding)
		ck_assert_int_eq(uspin_mutex_lock(&m), 0);
	ck_assert_int_eq(uspin_cond_broadcast(&c), 0);
	if (holding) {
		ck_assert(m.word & FUTEX_WAITERS);
		ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	}
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	for (i = 0; i < NWAIT; i++) {
		pthread_join(w[i].thread, NULL);
		ck_assert_int_eq(w[i].ret, 0);
		ck_assert(w[i].word_after & FUTEX_TID_MASK);
	}
	ck_assert_uint_eq(m.word, 0);
}
END_TEST

/*
 * Broadcast phases (scenarios/cond.c): six threads, broadcasts from
 * inside the mutex.
 */
START_TEST(broadcast_phases)
{
	struct sc_phases_cfg cfg = { .threads = 6, .rounds = (int)test_scaled(300) };
	uspin_mutex_t m;

	uspin_force_stock_kernel = _i & 1;
	ck_assert_int_eq(uspin_mutex_init(&m, policy_nr(_i / 2)), 0);
	sc_phases(&m, &cfg);
	uspin_force_stock_kernel = 0;
}
END_TEST

/*
 * Producer/consumer on a bounded queue (scenarios/cond.c); consumers use
 * timed waits on CLOCK_MONOTONIC with short deadlines in half the runs
 * (a timeout racing a signal must not lose it).
 */
static void run_queue(unsigned int mflags, int timed, int np, int nc)
{
	struct sc_queue_cfg cfg = {
		.producers = np, .consumers = nc,
		.per_producer = test_scaled(3000),
		.wait = timed ? SC_CLOCKWAIT_MONOTONIC : SC_WAIT,
		.timeout_ns = 200000, .yield_every = 64,
	};
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, mflags), 0);
	sc_queue(&m, &cfg);
}

START_TEST(producer_consumer)
{
	uspin_force_stock_kernel = _i & 1;
	run_queue(policy_nr(_i / 2), 0, 3, 3);
	run_queue(policy_nr(_i / 2), 1, 2, 4);
	uspin_force_stock_kernel = 0;
}
END_TEST

START_TEST(producer_consumer_robust_private)
{
	run_queue(USPIN_ROBUST, 0, 3, 3);
	run_queue(USPIN_ROBUST | USPIN_POLICY_SPIN_BOUNDED, 1, 2, 2);
}
END_TEST

/* ---- process-shared: parent and child on one condvar ---- */
START_TEST(process_shared_ping_pong)
{
	struct sc_pair *p = sc_pair_map(_i ? LK_ROBUST : LK_SHARED);

	sc_ping_pong(p, (int)test_scaled(200));
	sc_pair_unmap(p);
}
END_TEST

/*
 * Robust: the thread that signals dies holding the mutex; the waiter's
 * wait returns EOWNERDEAD with the mutex held, and no wait returned
 * before that.  Also across processes.
 */
START_TEST(robust_owner_dies_after_signal)
{
	struct sc_pair *p = sc_pair_map(LK_ROBUST);

	ck_assert_int_eq(sc_owner_dies_after_signal(p, _i, 0), 0);
	sc_pair_unmap(p);
}
END_TEST

/* ---- cancellation ---- */
START_TEST(cancel_reacquires_before_cleanup)
{
	uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
	uspin_cond_t c = USPIN_COND_INITIALIZER;

	sc_cancel_in_wait(&m, &c);	/* scenarios/cond.c */
	/* It left the condvar: no waiter counted, destroy works. */
	ck_assert_uint_eq(c.g1_unsignalled + c.g2_size, 0);
	ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	ck_assert_uint_eq(m.word, 0);
}
END_TEST

/* A waiter that may be cancelled, or return once *predicate holds. */
struct cancel_arg {
	uspin_mutex_t *m;
	uspin_cond_t *c;
	volatile int *predicate;
	volatile int started;
	volatile int returned;	/* the wait loop ended: not cancelled */
	int ret;
};

static void cancel_unlock(void *arg)
{
	struct cancel_arg *a = arg;

	uspin_mutex_unlock(a->m);
}

static void *cancel_waiter(void *arg)
{
	struct cancel_arg *a = arg;

	uspin_mutex_lock(a->m);
	pthread_cleanup_push(cancel_unlock, a);
	__atomic_store_n(&a->started, 1, __ATOMIC_RELEASE);
	while (!*a->predicate)
		a->ret = uspin_cond_wait(a->c, a->m);
	a->returned = 1;
	pthread_cleanup_pop(1);
	return NULL;
}

/*
 * Cancel one of two waiters while signalling once: the signal must reach
 * the survivor even when the cancelled one took it.  (If the cancellation
 * came too late to act, the first one returned normally with the signal,
 * and the survivor needs another.)  Whether it was cancelled is what the
 * thread says, not pthread_join's result: glibc's SIGCANCEL handler sets
 * the result to PTHREAD_CANCELED even when it runs after the thread
 * function returned (a pthread_cancel that found the thread in its
 * asynchronous sleep, delivered late), so a thread that took the signal
 * and returned can still join as "cancelled".
 */
START_TEST(cancel_racing_signal_passes_it_on)
{
	int rounds = (int)test_scaled(200), r, cancelled = 0;
	void *res;

	for (r = 0; r < rounds; r++) {
		uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
		uspin_cond_t c = USPIN_COND_INITIALIZER;
		volatile int ready = 0;
		struct cancel_arg a = { .m = &m, .c = &c, .predicate = &ready };
		struct waiter b = { 0 };
		pthread_t t;

		b.predicate = &ready;
		ck_assert_int_eq(pthread_create(&t, NULL, cancel_waiter, &a), 0);
		ck_assert(wait_flag(&a.started));
		waiter_start(&b, &c, &m);
		wait_waiters(&c, &m, 2);
		uspin_mutex_lock(&m);
		ready = 1;
		uspin_cond_signal(&c);
		if (r & 1)
			uspin_mutex_unlock(&m);
		pthread_cancel(t);
		if (!(r & 1))
			uspin_mutex_unlock(&m);
		pthread_join(t, &res);
		if (a.returned)
			uspin_cond_signal(&c);
		else
			cancelled++;
		ck_assert(a.returned || res == PTHREAD_CANCELED);
		ck_assert(wait_flag(&b.done));
		ck_assert_int_eq(b.ret, 0);
		pthread_join(b.thread, NULL);
		ck_assert_uint_eq(m.word, 0);
		ck_assert_int_eq(uspin_cond_destroy(&c), 0);
	}
	/* Most rounds cancel a sleeping waiter. */
	ck_assert_int_gt(cancelled, rounds / 2);
}
END_TEST

/*
 * Many waiters, signals and broadcasts from inside and outside the mutex,
 * timed and untimed waits: every waiter's predicate eventually holds and
 * nobody hangs.
 */
struct storm {
	uspin_mutex_t m;
	uspin_cond_t c;
	long tickets, taken, rounds;
	int waiters_done;
};

static void *storm_waiter(void *arg)
{
	struct storm *s = arg;
	long i;

	for (i = 0; i < s->rounds; i++) {
		uspin_mutex_lock(&s->m);
		while (s->tickets == 0) {
			if (i % 3 == 0) {
				struct timespec d = deadline_in(CLOCK_REALTIME,
								100000);

				uspin_cond_timedwait(&s->c, &s->m, &d);
			} else {
				uspin_cond_wait(&s->c, &s->m);
			}
		}
		s->tickets--;
		s->taken++;
		uspin_mutex_unlock(&s->m);
	}
	uspin_mutex_lock(&s->m);
	s->waiters_done++;
	uspin_mutex_unlock(&s->m);
	return NULL;
}

static void *storm_signaller(void *arg)
{
	struct storm *s = arg;
	long i;

	for (i = 0; i < s->rounds * 2; i++) {
		int inside = i & 1, bcast = i % 7 == 0;

		uspin_mutex_lock(&s->m);
		s->tickets++;
		if (inside)
			bcast ? uspin_cond_broadcast(&s->c) :
				uspin_cond_signal(&s->c);
		uspin_mutex_unlock(&s->m);
		if (!inside)
			bcast ? uspin_cond_broadcast(&s->c) :
				uspin_cond_signal(&s->c);
		if (i % 16 == 0)
			sched_yield();
	}
	return NULL;
}

START_TEST(storm)
{
	struct storm s = { 0 };
	pthread_t w[4], sg;
	int i;

	uspin_force_stock_kernel = _i & 1;
	ck_assert_int_eq(uspin_mutex_init(&s.m, policy_nr(_i / 2)), 0);
	s.rounds = test_scaled(1000);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&w[i], NULL, storm_waiter, &s), 0);
	/* 2 signaller runs x 2 x rounds tickets = 4 waiters x rounds. */
	ck_assert_int_eq(pthread_create(&sg, NULL, storm_signaller, &s), 0);
	pthread_join(sg, NULL);
	ck_assert_int_eq(pthread_create(&sg, NULL, storm_signaller, &s), 0);
	pthread_join(sg, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	ck_assert_int_eq(s.taken, 4 * s.rounds);
	ck_assert_int_eq(s.tickets, 0);
	ck_assert_int_eq(uspin_cond_destroy(&s.c), 0);
	uspin_force_stock_kernel = 0;
}
END_TEST

Suite *suite_cond(void)
{
	Suite *s = suite_create("cond");
	TCase *api = tcase_create("api");
	TCase *wake = tcase_create("wake");
	TCase *traffic = tcase_create("traffic");
	TCase *proc = tcase_create("process");

	tcase_add_test(api, layout_and_init);
	tcase_add_test(api, errors);
	tcase_add_loop_test(api, timeouts, 0, NR_POLICIES);
	suite_add_tcase(s, api);

	tcase_set_timeout(wake, 30);
	tcase_add_loop_test(wake, signal_wakes_one, 0, 2 * NR_POLICIES);
	tcase_add_test(wake, no_stolen_signal);
	tcase_add_test(wake, signal_after_timeout_reaches_the_other);
	tcase_add_loop_test(wake, broadcast_wakes_all, 0, 2 * NR_POLICIES);
	tcase_add_test(wake, cancel_reacquires_before_cleanup);
	tcase_add_test(wake, cancel_racing_signal_passes_it_on);
	suite_add_tcase(s, wake);

	tcase_set_timeout(traffic, 120);
	tcase_add_loop_test(traffic, broadcast_phases, 0, 2 * NR_POLICIES);
	tcase_add_loop_test(traffic, producer_consumer, 0, 2 * NR_POLICIES);
	tcase_add_test(traffic, producer_consumer_robust_private);
	tcase_add_loop_test(traffic, storm, 0, 2 * NR_POLICIES);
	suite_add_tcase(s, traffic);

	tcase_set_timeout(proc, 30);
	tcase_add_loop_test(proc, process_shared_ping_pong, 0, 2);
	tcase_add_loop_test(proc, robust_owner_dies_after_signal, 0, 2);
	suite_add_tcase(s, proc);
	return s;
}
