/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cond_impl.h - what the condvar's files share: the meaning of the fields
 * of uspin_cond_t, its internal lock and the futex requeue.  The interface
 * through which a wait releases and re-acquires "its mutex" (a uspin
 * mutex, or whatever the pthread drop-in hands over) is in internal.h.
 *
 * docs/condvar.md is the protocol; tests/model/condvar.pml checks it.  In
 * short: waiters join a group; a group's waiters sleep on one of the two
 * futex words seq[] and every signal or broadcast meant for them changes
 * that word.  G2 (generation gen) takes new waiters; G1 (gen - 1) is the
 * group signals go to: a signal counts one of G1's waiters as signalled
 * (g1_unsignalled--, g1_pending++), and when G1 has none left unsignalled
 * the next signal first turns G2 into G1 (gen++).  A woken G1 waiter
 * takes one pending signal; waiters of older generations have all been
 * signalled.  So a signal only ever goes to a waiter that was waiting when
 * it was called, and anyone of G1 may take it.  A broadcast retires both
 * groups at once (gen += 2).  Everything but the futex calls happens
 * under the internal lock, held for a few instructions.
 */
#ifndef USPIN_COND_IMPL_H
#define USPIN_COND_IMPL_H

#include <errno.h>
#include <limits.h>

#include "futex_ops.h"
#include "internal.h"

/* ---- wrefs: glibc's __wrefs layout, so glibc's init bits mean the same ---- */
#define COND_SHARED		0x1u	/* process-shared */
#define COND_MONOTONIC		0x2u	/* timedwait on CLOCK_MONOTONIC */
#define COND_DESTROYING		0x4u	/* destroy waits for the last waiter */
#define COND_REF		0x8u	/* one waiter inside (count << 3) */

/* ---- state: under the internal lock ---- */
#define STATE_FUTEX_SHARED	0x1u	/* seq[] waits use shared futex ops */
#define STATE_REQUEUE_OK	0x2u	/* waiters' mutex takes requeued waiters */
#define STATE_MIXED		0x4u	/* waiters came with different mutexes */
#define STATE_DUTY(slot)	(0x8u << (slot))	/* a broadcast left
							   seq[slot]'s sleepers
							   to be requeued */
#define STATE_DUTY_MASK		(STATE_DUTY(0) | STATE_DUTY(1))

_Static_assert(sizeof(uspin_cond_t) == 48, "uspin_cond_t is 48 bytes");
_Static_assert(offsetof(uspin_cond_t, wrefs) == 36,
	       "wrefs sits where glibc keeps __wrefs");

/* struct uspin_cond_mutex and the wait itself: internal.h */

/* ---- cond_signal.c ---- */
/*
 * A broadcast's duty (STATE_DUTY bits of @duty): requeue the sleepers of
 * those seq[] words onto @m, which the caller holds, or wake them all if
 * @m is NULL.  @shared: the futex flavour of seq[].
 */
void uspin_cond_do_duty(uspin_cond_t *c, unsigned int duty, uspin_mutex_t *m,
			int shared) USPIN_HIDDEN;

/* ---- cond_lock.c: the internal lock (0 free, 1 taken, 2 with sleepers) ---- */
void uspin_cond_lock_slow(uspin_cond_t *c) USPIN_HIDDEN;

static inline int cond_pshared(const uspin_cond_t *c)
{
	return (CMM_LOAD_SHARED(c->wrefs) & COND_SHARED) != 0;
}

static inline void cond_lock(uspin_cond_t *c)
{
	if (caa_unlikely(uatomic_cmpxchg(&c->lock, 0, 1) != 0))
		uspin_cond_lock_slow(c);
}

static inline void cond_unlock(uspin_cond_t *c)
{
	if (caa_unlikely(uatomic_xchg(&c->lock, 0) == 2))
		futex_wake(&c->lock, 1, cond_pshared(c));
}

/* Members: waiters between joining and their last access to @c. */
static inline uint32_t cond_members(const uspin_cond_t *c)
{
	return uatomic_read(&c->wrefs) / COND_REF;
}

/* A member is done with @c; the last one wakes a waiting destroy. */
static inline void cond_unref(uspin_cond_t *c)
{
	uint32_t w = uatomic_add_return(&c->wrefs, -COND_REF);

	if (caa_unlikely(w / COND_REF == 0 && (w & COND_DESTROYING)))
		futex_wake(&c->wrefs, INT_MAX, w & COND_SHARED);
}

/*
 * Move up to @nr sleepers of @from onto @to if *from still holds @val;
 * wake none.  Returns 0, EAGAIN (*from changed), or another errno.
 */
static inline int futex_requeue_to(uint32_t *from, uint32_t val, uint32_t *to,
				   int nr, int shared)
{
	long r = syscall(SYS_futex, from,
			 FUTEX_CMP_REQUEUE | futex_private_flag(shared), 0,
			 (unsigned long)nr, to, val);

	return r < 0 ? errno : 0;
}

#endif
