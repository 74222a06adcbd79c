// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_init.c - init and destroy.  Destroy refuses (EBUSY) while a waiter
 * has not been signalled, and otherwise waits until every signalled
 * waiter is done with the condvar's memory, so that the condvar may be
 * destroyed as soon as a broadcast returns (as POSIX allows).
 */
#include <string.h>

#include "cond_impl.h"

int uspin_cond_init(uspin_cond_t *c, unsigned int flags)
{
	if (!c || (flags & ~(USPIN_PROCESS_SHARED | USPIN_COND_MONOTONIC)))
		return EINVAL;
	memset(c, 0, sizeof(*c));
	c->wrefs = (flags & USPIN_PROCESS_SHARED ? COND_SHARED : 0) |
		   (flags & USPIN_COND_MONOTONIC ? COND_MONOTONIC : 0);
	return 0;
}

int uspin_cond_destroy(uspin_cond_t *c)
{
	uint32_t w, seen;
	int busy;

	if (!c)
		return EINVAL;
	cond_lock(c);
	busy = c->g1_unsignalled || c->g2_size;
	cond_unlock(c);
	if (busy)
		return EBUSY;
	w = uatomic_read(&c->wrefs);
	while ((seen = uatomic_cmpxchg(&c->wrefs, w, w | COND_DESTROYING)) != w)
		w = seen;
	w |= COND_DESTROYING;
	while (w / COND_REF) {
		futex_wait_abs(&c->wrefs, w, w & COND_SHARED,
			       FUTEX_BITSET_MATCH_ANY, CLOCK_MONOTONIC, NULL);
		w = uatomic_read(&c->wrefs);
	}
	return 0;
}
