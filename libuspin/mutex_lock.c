// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_lock.c - lock, timedlock, clocklock: one CAS when uncontended, then
 * the policy's spin phase, then the kernel (FUTEX_LOCK[_ADAPTIVE] where the
 * kernel has it, the FUTEX_WAIT protocol otherwise).
 */
#include <errno.h>

#include "futex_ops.h"
#include "mutex_impl.h"
#include "robust_list.h"

/*
 * Called with the word just taken by @tid.  A set FUTEX_OWNER_DIED means the
 * previous owner died holding it: report EOWNERDEAD, or, if a previous
 * EOWNERDEAD holder unlocked without uspin_mutex_consistent(), hand the
 * word back in its unrecoverable state and wake everybody to learn it.
 */
int uspin_after_acquire(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t v = CMM_LOAD_SHARED(m->word);

	if (caa_likely(!(v & FUTEX_OWNER_DIED)))
		return 0;
	if (CMM_LOAD_SHARED(m->flags) & USPIN_NOTRECOVERABLE) {
		uatomic_xchg(&m->word, FUTEX_OWNER_DIED);
		futex_wake(&m->word, INT_MAX, mutex_is_shared(m));
		return ENOTRECOVERABLE;
	}
	return EOWNERDEAD;
}

/* The kernel op of the series: it queues, sets FUTEX_WAITERS, takes over. */
static int block_futex_lock(uspin_mutex_t *m, uint32_t tid, int adaptive,
			    clockid_t clock, const struct timespec *abstime)
{
	int r;

	do
		r = futex_lock_op(&m->word, adaptive, mutex_is_shared(m), clock,
				  abstime);
	while (r == EINTR);
	return r ? r : uspin_after_acquire(m, tid);
}

/*
 * Stock kernels: the TID|WAITERS protocol over FUTEX_WAIT.  A waiter sets
 * FUTEX_WAITERS before it sleeps; an acquisition out of this loop always
 * sets it too, because we cannot know whether others still sleep (one
 * spare FUTEX_WAKE at worst).  A woken waiter always comes back here before
 * it may time out, so a wake-up is never swallowed (tests/model proves it).
 */
static int block_futex_wait(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
			    const struct timespec *abstime)
{
	int shared = mutex_is_shared(m);
	uint32_t v;
	int r;

	for (;;) {
		v = CMM_LOAD_SHARED(m->word);
		if (!WORD_TID(v)) {
			if (CMM_LOAD_SHARED(m->flags) & USPIN_NOTRECOVERABLE)
				return ENOTRECOVERABLE;
			if (uatomic_cmpxchg(&m->word, v,
					    v | tid | FUTEX_WAITERS) == v)
				return uspin_after_acquire(m, tid);
			continue;
		}
		if (!(v & FUTEX_WAITERS)) {
			if (uatomic_cmpxchg(&m->word, v, v | FUTEX_WAITERS) != v)
				continue;
			v |= FUTEX_WAITERS;
		}
		r = futex_wait_abs(&m->word, v, shared, clock, abstime);
		if (r == ETIMEDOUT)
			return ETIMEDOUT;
		/* 0 (woken), EAGAIN (word moved), EINTR: look again. */
	}
}

int uspin_lock_slow(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		    const struct timespec *abstime)
{
	uint32_t v = CMM_LOAD_SHARED(m->word);
	struct uspin_plan plan;

	if (WORD_TID(v) == tid)
		return EDEADLK;
	if (CMM_LOAD_SHARED(m->flags) & USPIN_NOTRECOVERABLE)
		return ENOTRECOVERABLE;

	plan = uspin_plan_for(m);
	if (plan.spin == SPIN_BOUNDED && uspin_spin_bounded(m, tid))
		return 0;
	if (plan.spin == SPIN_OWNER_RUNNING && uspin_spin_owner_running(m, tid))
		return 0;

	switch (plan.wait) {
	case WAIT_FUTEX_LOCK:
		return block_futex_lock(m, tid, 0, clock, abstime);
	case WAIT_FUTEX_LOCK_ADAPTIVE:
		return block_futex_lock(m, tid, 1, clock, abstime);
	case WAIT_FUTEX_WAIT:
		break;
	}
	return block_futex_wait(m, tid, clock, abstime);
}

static int lock_robust(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		       const struct timespec *abstime)
{
	int r;

	uspin_robust_begin(m);
	if (uatomic_cmpxchg(&m->word, 0, tid) == 0)
		r = 0;
	else
		r = uspin_lock_slow(m, tid, clock, abstime);
	if (r == 0 || r == EOWNERDEAD)
		uspin_robust_enqueue(m);
	uspin_robust_end();
	return r;
}

/* Everything but the uncontended private case; kept out of line. */
static __attribute__((noinline)) int lock_contended(uspin_mutex_t *m,
						    clockid_t clock,
						    const struct timespec *abstime)
{
	uint32_t tid = uspin_self_tid();

	if (mutex_is_shared(m))
		return lock_robust(m, tid, clock, abstime);
	if (uatomic_cmpxchg(&m->word, 0, tid) == 0)
		return 0;
	return uspin_lock_slow(m, tid, clock, abstime);
}

/*
 * The fast path: a private mutex, a cached TID, one CAS.  Anything else is
 * a tail call, so this stays a leaf that saves no registers.
 */
static inline int lock_common(uspin_mutex_t *m, clockid_t clock,
			      const struct timespec *abstime)
{
	uint32_t tid = uspin_self_tid_cache;

	if (caa_likely(tid && !mutex_is_shared(m) &&
		       uatomic_cmpxchg(&m->word, 0, tid) == 0))
		return 0;
	return lock_contended(m, clock, abstime);
}

int uspin_mutex_lock(uspin_mutex_t *m)
{
	return lock_common(m, CLOCK_MONOTONIC, NULL);
}

int uspin_mutex_clocklock(uspin_mutex_t *m, clockid_t clock,
			  const struct timespec *abstime)
{
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return EINVAL;
	if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)
		return EINVAL;
	/* Already past: the kernel rejects negative times, so answer here. */
	if (abstime->tv_sec < 0) {
		int r = uspin_mutex_trylock(m);

		if (r != EBUSY)
			return r;
		return WORD_TID(CMM_LOAD_SHARED(m->word)) == uspin_self_tid() ?
		       EDEADLK : ETIMEDOUT;
	}
	return lock_common(m, clock, abstime);
}

int uspin_mutex_timedlock(uspin_mutex_t *m, const struct timespec *abstime)
{
	return uspin_mutex_clocklock(m, CLOCK_REALTIME, abstime);
}
