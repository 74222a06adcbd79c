/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mutex_flags.h - the bits of m->flags past the public ones, and what they
 * say about a mutex: shared futex ops, robust, a pending handoff request.
 */
#ifndef USPIN_MUTEX_FLAGS_H
#define USPIN_MUTEX_FLAGS_H

#include "internal.h"

/* ---- m->flags (USPIN_SLOW_FLAGS: internal.h) ---- */
#define USPIN_INIT_FLAGS	(USPIN_POLICY_MASK | USPIN_PROCESS_SHARED | \
				 USPIN_ROBUST)
#define USPIN_NOTRECOVERABLE	0x400u	/* unlocked after EOWNERDEAD */
/* Bits 12-19: the typical contended hold (spin_tuning.h, log scale). */
#define USPIN_HOLD_SHIFT	12
#define USPIN_HOLD_MASK		0xffu
/* Bits 20-31: the learned spin length, in units of 1024 cycles. */
#define USPIN_ESTIMATE_SHIFT	20
#define USPIN_ESTIMATE_UNIT	1024u

/*
 * Shared futex ops for process-shared and for robust mutexes: the kernel
 * wakes a dead owner's waiters with a shared key (handle_futex_death()),
 * as glibc assumes for its robust mutexes too.
 */
static inline int mutex_futex_shared(const uspin_mutex_t *m)
{
	return (mutex_flags(m) & USPIN_SLOW_FLAGS) != 0;
}

static inline int mutex_is_robust(const uspin_mutex_t *m)
{
	return (mutex_flags(m) & USPIN_ROBUST) != 0;
}

/*
 * A private mutex's starving waiter asks for the word in m->handoff
 * (mutex_lock.c); a process-shared one keeps its owner's tag there
 * (owner.c).  The TID of a pending request, or 0.
 */
static inline uint32_t mutex_handoff_request(const uspin_mutex_t *m)
{
	return mutex_flags(m) & USPIN_PROCESS_SHARED ? 0 :
	       CMM_LOAD_SHARED(m->handoff);
}

#endif
