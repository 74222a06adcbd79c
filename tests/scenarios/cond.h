/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cond.h - condvar scenarios that test-uspin's cond suite runs on
 * uspin_cond_t (test_cond.c) and test-dropin's on pthread_cond_t
 * (dropin/cond.c, dropin/process.c, dropin/edges.c), through lock_ops.h.
 * Each runs on a mutex the suite made (a policy, a pthread kind) and
 * asserts what must hold on every one; the suite asserts what only its
 * API can tell.
 */
#ifndef USPIN_SCENARIOS_COND_H
#define USPIN_SCENARIOS_COND_H

#include <stdint.h>

#include "lock_ops.h"

/*
 * A mutex, a condvar and a stage, for two parties: in MAP_SHARED memory
 * (sc_pair_map) where they are processes.
 */
struct sc_pair {
	struct lock_obj m, c;
	volatile int stage;
};

/* A pair in MAP_SHARED memory: the mutex of @kind, the condvar shared. */
struct sc_pair *sc_pair_map(enum lock_kind kind);
void sc_pair_unmap(struct sc_pair *p);

/* How a scenario's waiters wait. */
enum sc_wait {
	SC_WAIT,		/* cond_wait() */
	SC_TIMEDWAIT,		/* cond_timedwait(), CLOCK_REALTIME */
	SC_CLOCKWAIT_MONOTONIC,	/* cond_clockwait(CLOCK_MONOTONIC) */
};

/*
 * Producer/consumer on a bounded queue under @m, with two condvars and
 * signals; timed waits, short enough to race the signals, must not lose
 * one.  Every item arrives once, no wait fails.
 */
struct sc_queue_cfg {
	int producers, consumers;	/* 16 in all, at most */
	long per_producer;
	enum sc_wait wait;		/* the consumers' */
	int64_t timeout_ns;		/* of a timed wait */
	int yield_every;		/* a consumer lets the mutex go every
					   N items (0: never) */
};
void sc_queue(void *m, const struct sc_queue_cfg *cfg);

/*
 * Broadcast phases: the threads wait for the phase to change, the last
 * to arrive advances it and broadcasts (every other phase after
 * unlocking, as many programs do, if @broadcast_unlocked).  Nobody
 * misses a phase or sees one skipped.
 */
struct sc_phases_cfg {
	int threads;		/* 8 at most */
	int rounds;
	int broadcast_unlocked;
};
void sc_phases(void *m, const struct sc_phases_cfg *cfg);

/*
 * A process-shared pair, parent and child taking turns for @rounds
 * rounds each: the child waits for odd stages and broadcasts, the parent
 * for even ones and signals.
 */
void sc_ping_pong(struct sc_pair *p, int rounds);

/*
 * A thread waiting on @c under @m (both initialised; @m one whose unlock
 * by another thread fails, as an errorcheck mutex's) is cancelled in the
 * wait: its cleanup handler runs with @m taken again (its unlock there
 * succeeds; the word holds its TID where lock_ops can tell), and the
 * thread ends PTHREAD_CANCELED, @m free.  @c is left for the suite.
 */
void sc_cancel_in_wait(void *m, void *c);

/*
 * The owner dies after it signalled: a thread (@in_child 0) or a child
 * process (1) locks @p's robust mutex, sets the stage, signals the
 * condvar (broadcasts, if @broadcast) and ends holding the mutex, while
 * we wait.  Our wait returns EOWNERDEAD with the mutex ours (where
 * lock_ops can tell); made consistent, it works on.  Returns how many
 * waits returned 0 before that (woken before the owner took the mutex).
 */
int sc_owner_dies_after_signal(struct sc_pair *p, int in_child, int broadcast);

#endif
