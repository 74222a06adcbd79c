// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parking_lot.c - a spin-then-park lock as Rust's parking_lot (RawMutex)
 * and WebKit's WTF::Lock build it, on a futex: the rival a user picks
 * today when glibc's mutex is not enough.  Its rules, from parking_lot's
 * raw_mutex.rs and spinwait.rs:
 *  - a waiter spins only while nobody is parked (the PARKED bit clear):
 *    three rounds of 2, 4 and 8 pauses, then seven sched_yield()s, and
 *    parks once that runs out or anyone else has parked;
 *  - unlock wakes one parked waiter; the lock is then free for whoever
 *    comes first (barging), except that once a random 0-1 ms has passed
 *    since the last fair unlock, the unlocker hands the lock itself to
 *    the woken waiter ("eventual fairness").
 * It does not know whether the owner runs: that is the difference the
 * proposal claims to make.  The word carries no owner TID.
 */
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "futex_sys.h"
#include "lock.h"

#define PL_LOCKED	1u
#define PL_PARKED	2u	/* someone may sleep on the word */
#define PL_HANDOFF	4u	/* LOCKED, handed to a parked waiter */
#define PL_SPIN_ROUNDS	3	/* 2, 4, 8 pauses */
#define PL_YIELD_ROUNDS	7
#define PL_FAIR_MAX_NS	1000000u

struct parking_lot {
	uint32_t state;
	uint32_t parked;	/* waiters between deciding to park and leaving */
	uint64_t fair_after;	/* CLOCK_MONOTONIC ns of the next fair unlock */
	uint64_t seed;		/* the fair timeout's random source */
};

static uint64_t pl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: parking_lot draws the timeout from a per-bucket generator. */
static uint64_t pl_fair_timeout(struct parking_lot *l)
{
	uint64_t x = l->seed;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	l->seed = x;
	return (x * 0x2545f4914f6cdd1dull) % PL_FAIR_MAX_NS;
}

static int pl_init(void *p)
{
	struct parking_lot *l = p;

	l->state = 0;
	l->parked = 0;
	l->seed = 0x9e3779b97f4a7c15ull;
	l->fair_after = pl_now_ns() + pl_fair_timeout(l);
	return 0;
}

/* One step of parking_lot's SpinWait; 0 once it says "park now". */
static int pl_spin(int *round)
{
	int i;

	if (*round >= PL_SPIN_ROUNDS + PL_YIELD_ROUNDS)
		return 0;
	if (*round < PL_SPIN_ROUNDS) {
		for (i = 0; i < 2 << *round; i++)
			caa_cpu_relax();
	} else {
		sched_yield();
	}
	(*round)++;
	return 1;
}

static void pl_lock_slow(struct parking_lot *l)
{
	int round = 0, parked = 0;
	uint32_t s;

	for (;;) {
		s = uatomic_read(&l->state);
		if (parked && (s & PL_HANDOFF)) {
			/* Handed over: LOCKED stays set, it is ours. */
			if (uatomic_cmpxchg(&l->state, s, s & ~PL_HANDOFF) != s)
				continue;
			uatomic_dec(&l->parked);
			return;
		}
		if (!(s & PL_LOCKED)) {
			if (uatomic_cmpxchg(&l->state, s, s | PL_LOCKED) != s)
				continue;
			if (parked)
				uatomic_dec(&l->parked);
			return;
		}
		if (!(s & PL_PARKED) && pl_spin(&round))
			continue;
		if (!parked) {
			uatomic_inc(&l->parked);
			parked = 1;
		}
		if (!(s & PL_PARKED) &&
		    uatomic_cmpxchg(&l->state, s, s | PL_PARKED) != s)
			continue;
		bench_futex_wait(&l->state, s | PL_PARKED);
		round = 0;
	}
}

static void pl_lock(void *p)
{
	struct parking_lot *l = p;

	if (uatomic_cmpxchg(&l->state, 0, PL_LOCKED) != 0)
		pl_lock_slow(l);
}

static void pl_unlock(void *p)
{
	struct parking_lot *l = p;
	uint64_t now;

	if (uatomic_cmpxchg(&l->state, PL_LOCKED, 0) == PL_LOCKED)
		return;
	/*
	 * PARKED: wake one, handing the lock over if the fair timeout passed.
	 * Only to a counted waiter: it cannot leave without the lock, so one
	 * of them sees HANDOFF, woken or not yet asleep.
	 */
	now = pl_now_ns();
	if (now >= l->fair_after && uatomic_read(&l->parked) > 0) {
		l->fair_after = now + pl_fair_timeout(l);
		uatomic_or(&l->state, PL_HANDOFF);
	} else {
		/* Others stay marked if more than the one we wake are parked. */
		uatomic_set(&l->state,
			    uatomic_read(&l->parked) > 1 ? PL_PARKED : 0);
	}
	bench_futex_wake(&l->state, 1);
}

static void pl_destroy(void *p)
{
}

const struct bench_lock bench_lock_parking_lot = {
	.name = "parking_lot",
	.init = pl_init,
	.lock = pl_lock,
	.unlock = pl_unlock,
	.destroy = pl_destroy,
};
