// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_lock.c - the condvar's internal lock, contended: it guards a few
 * instructions of bookkeeping (never a system call), so spin briefly where
 * the holder can be running, then sleep on the word (glibc's lll_lock
 * protocol: 2 = taken, maybe with sleepers).
 */
#include "cond_impl.h"
#include "setup.h"

#define COND_LOCK_SPINS	100

void uspin_cond_lock_slow(uspin_cond_t *c)
{
	int shared = cond_pshared(c), i;

	if (uspin_setup()->ncpus > 1)
		for (i = 0; i < COND_LOCK_SPINS; i++) {
			caa_cpu_relax();
			if (CMM_LOAD_SHARED(c->lock) == 0 &&
			    uatomic_cmpxchg(&c->lock, 0, 1) == 0)
				return;
		}
	while (uatomic_xchg(&c->lock, 2) != 0)
		futex_wait_abs(&c->lock, 2, shared, FUTEX_BITSET_MATCH_ANY,
			       CLOCK_MONOTONIC, NULL);
}
