// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond.c - the condvar scenarios of cond.h, on lock_ops.h's table.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../check_suites.h"
#include "../test_common.h"
#include "cond.h"

#define OPS	lock_ops

struct sc_pair *sc_pair_map(enum lock_kind kind)
{
	struct sc_pair *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(OPS.mutex_init(&p->m, kind, LT_DEFAULT), 0);
	ck_assert_int_eq(OPS.cond_init(&p->c, LK_SHARED), 0);
	return p;
}

void sc_pair_unmap(struct sc_pair *p)
{
	munmap(p, sizeof(*p));
}

static int wait_as(void *c, void *m, enum sc_wait how, int64_t ns)
{
	struct timespec d;

	switch (how) {
	case SC_TIMEDWAIT:
		d = deadline_in(CLOCK_REALTIME, ns);
		return OPS.cond_timedwait(c, m, &d);
	case SC_CLOCKWAIT_MONOTONIC:
		d = deadline_in(CLOCK_MONOTONIC, ns);
		return OPS.cond_clockwait(c, m, CLOCK_MONOTONIC, &d);
	case SC_WAIT:
		break;
	}
	return OPS.cond_wait(c, m);
}

/* ---- producer/consumer ---- */
#define QCAP 4
struct queue {
	void *m;
	struct lock_obj not_empty, not_full;
	const struct sc_queue_cfg *cfg;
	long buf[QCAP];
	int head, count, producers_left;
	long sum, consumed, errors;
};

static void *producer(void *arg)
{
	struct queue *q = arg;
	long i;

	for (i = 1; i <= q->cfg->per_producer; i++) {
		OPS.lock(q->m);
		while (q->count == QCAP)
			if (OPS.cond_wait(&q->not_full, q->m))
				q->errors++;
		q->buf[(q->head + q->count++) % QCAP] = i;
		OPS.cond_signal(&q->not_empty);
		OPS.unlock(q->m);
	}
	OPS.lock(q->m);
	if (--q->producers_left == 0)
		OPS.cond_broadcast(&q->not_empty);
	OPS.unlock(q->m);
	return NULL;
}

static void *consumer(void *arg)
{
	struct queue *q = arg;
	const struct sc_queue_cfg *cfg = q->cfg;
	int r;

	OPS.lock(q->m);
	for (;;) {
		while (q->count == 0 && q->producers_left) {
			r = wait_as(&q->not_empty, q->m, cfg->wait,
				    cfg->timeout_ns);
			if (r && r != ETIMEDOUT)
				q->errors++;
		}
		if (q->count == 0)
			break;
		q->sum += q->buf[q->head];
		q->head = (q->head + 1) % QCAP;
		q->count--;
		q->consumed++;
		OPS.cond_signal(&q->not_full);
		if (cfg->yield_every && q->consumed % cfg->yield_every == 0) {
			OPS.unlock(q->m);
			sched_yield();
			OPS.lock(q->m);
		}
	}
	OPS.unlock(q->m);
	return NULL;
}

void sc_queue(void *m, const struct sc_queue_cfg *cfg)
{
	struct queue *q = calloc(1, sizeof(*q));
	long n = cfg->per_producer;
	pthread_t t[16];

	ck_assert_ptr_nonnull(q);
	ck_assert_int_le(cfg->producers + cfg->consumers, 16);
	q->m = m;
	q->cfg = cfg;
	q->producers_left = cfg->producers;
	ck_assert_int_eq(OPS.cond_init(&q->not_empty, LK_PRIVATE), 0);
	ck_assert_int_eq(OPS.cond_init(&q->not_full, LK_PRIVATE), 0);
	check_threads_start(t, cfg->producers, producer, q);
	check_threads_start(t + cfg->producers, cfg->consumers, consumer, q);
	check_threads_join(t, cfg->producers + cfg->consumers);
	ck_assert_int_eq(q->errors, 0);
	ck_assert_int_eq(q->consumed, cfg->producers * n);
	ck_assert_int_eq(q->sum, cfg->producers * n * (n + 1) / 2);
	ck_assert_int_eq(OPS.cond_destroy(&q->not_empty), 0);
	ck_assert_int_eq(OPS.cond_destroy(&q->not_full), 0);
	free(q);
}

/* ---- broadcast phases ---- */
struct phases {
	void *m;
	struct lock_obj c;
	const struct sc_phases_cfg *cfg;
	int arrived, phase;
	long missed;
};

static void *phase_main(void *arg)
{
	struct phases *p = arg;
	int r;

	for (r = 0; r < p->cfg->rounds; r++) {
		int mine;

		OPS.lock(p->m);
		mine = p->phase;
		if (++p->arrived == p->cfg->threads) {
			p->arrived = 0;
			p->phase++;
			if (p->cfg->broadcast_unlocked && !(r & 1)) {
				OPS.unlock(p->m);
				OPS.cond_broadcast(&p->c);
				OPS.lock(p->m);
			} else {
				OPS.cond_broadcast(&p->c);
			}
		} else {
			while (p->phase == mine)
				if (OPS.cond_wait(&p->c, p->m) != 0)
					p->missed++;
		}
		/* Nobody leaves a phase before all arrived: never two. */
		if (p->phase != mine + 1)
			p->missed++;
		OPS.unlock(p->m);
	}
	return NULL;
}

void sc_phases(void *m, const struct sc_phases_cfg *cfg)
{
	struct phases p = { .m = m, .cfg = cfg };
	pthread_t t[8];

	ck_assert_int_le(cfg->threads, 8);
	ck_assert_int_eq(OPS.cond_init(&p.c, LK_PRIVATE), 0);
	check_threads_start(t, cfg->threads, phase_main, &p);
	check_threads_join(t, cfg->threads);
	ck_assert_int_eq(p.missed, 0);
	ck_assert_int_eq(p.phase, cfg->rounds);
	ck_assert_int_eq(OPS.cond_destroy(&p.c), 0);
}

/* ---- process-shared ---- */
void sc_ping_pong(struct sc_pair *p, int rounds)
{
	pid_t pid = fork();
	int i;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The child: odd stages. */
		for (i = 0; i < rounds; i++) {
			if (OPS.lock(&p->m))
				_exit(2);
			while (p->stage % 2 == 0)
				if (OPS.cond_wait(&p->c, &p->m))
					_exit(3);
			p->stage++;
			OPS.cond_broadcast(&p->c);
			OPS.unlock(&p->m);
		}
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		ck_assert_int_eq(OPS.lock(&p->m), 0);
		while (p->stage % 2 == 1)
			ck_assert_int_eq(OPS.cond_wait(&p->c, &p->m), 0);
		p->stage++;
		OPS.cond_signal(&p->c);
		ck_assert_int_eq(OPS.unlock(&p->m), 0);
	}
	ck_assert_int_eq(check_child_status(pid), 0);
	ck_assert_int_eq(p->stage, 2 * rounds);
}

/* ---- cancellation ---- */
struct canceller {
	void *m, *c;
	volatile int started, cleanup_ran;
	int held, unlocked;
};

static void cancel_cleanup(void *arg)
{
	struct canceller *x = arg;

	x->held = OPS.held_by_me ? OPS.held_by_me(x->m) : 1;
	x->unlocked = OPS.unlock(x->m);
	x->cleanup_ran = 1;
}

static void *cancel_waiter(void *arg)
{
	struct canceller *x = arg;

	OPS.lock(x->m);
	pthread_cleanup_push(cancel_cleanup, x);
	__atomic_store_n(&x->started, 1, __ATOMIC_RELEASE);
	for (;;)
		OPS.cond_wait(x->c, x->m);
	pthread_cleanup_pop(1);
	return NULL;
}

void sc_cancel_in_wait(void *m, void *c)
{
	struct canceller x = { .m = m, .c = c, .unlocked = -1 };
	pthread_t t;
	void *res;

	ck_assert_int_eq(pthread_create(&t, NULL, cancel_waiter, &x), 0);
	ck_assert(wait_flag(&x.started));
	/* Ours once it released the mutex inside the wait. */
	ck_assert_int_eq(OPS.lock(m), 0);
	ck_assert_int_eq(OPS.unlock(m), 0);
	usleep(10000);
	ck_assert_int_eq(pthread_cancel(t), 0);
	ck_assert_int_eq(pthread_join(t, &res), 0);
	ck_assert_ptr_eq(res, PTHREAD_CANCELED);
	ck_assert_int_eq(x.cleanup_ran, 1);
	ck_assert_int_eq(x.held, 1);
	ck_assert_int_eq(x.unlocked, 0);
	ck_assert_int_eq(OPS.trylock(m), 0);
	ck_assert_int_eq(OPS.unlock(m), 0);
}

/* ---- robust: the signaller dies holding the mutex ---- */
struct dier {
	struct sc_pair *p;
	int broadcast;
};

static void *signal_and_die(void *arg)
{
	struct dier *d = arg;

	if (OPS.lock(&d->p->m) != 0)
		return (void *)1;
	d->p->stage = 1;
	if (d->broadcast)
		OPS.cond_broadcast(&d->p->c);
	else
		OPS.cond_signal(&d->p->c);
	return NULL;	/* ends holding the mutex */
}

int sc_owner_dies_after_signal(struct sc_pair *p, int in_child, int broadcast)
{
	struct dier d = { p, broadcast };
	pthread_t t;
	pid_t pid = 0;
	void *ret;
	int r, early = 0;

	ck_assert_int_eq(OPS.lock(&p->m), 0);
	if (in_child) {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(signal_and_die(&d) ? 2 : 0);
	} else {
		ck_assert_int_eq(pthread_create(&t, NULL, signal_and_die, &d), 0);
	}
	while ((r = OPS.cond_wait(&p->c, &p->m)) == 0 && !p->stage)
		early++;
	ck_assert_int_eq(r, EOWNERDEAD);
	if (OPS.held_by_me)
		ck_assert(OPS.held_by_me(&p->m));
	ck_assert_int_eq(OPS.consistent(&p->m), 0);
	ck_assert_int_eq(OPS.unlock(&p->m), 0);
	if (in_child) {
		ck_assert_int_eq(check_child_status(pid), 0);
	} else {
		ck_assert_int_eq(pthread_join(t, &ret), 0);
		ck_assert_ptr_null(ret);
	}
	ck_assert_int_eq(OPS.lock(&p->m), 0);
	ck_assert_int_eq(OPS.unlock(&p->m), 0);
	return early;
}
