// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cond_relock.c - re-acquire a uspin mutex after a condvar wait.
 *
 * The waiter may have been requeued onto the mutex word by a signaller or
 * a broadcast, and was then woken there like any FUTEX_WAIT waiter: it
 * cannot know whether others still sleep on the word, so the word must
 * carry FUTEX_WAITERS while it holds it, or their wake-up is lost (an
 * unlock that sees no FUTEX_WAITERS wakes nobody).  The mutex's own paths
 * take a free word as TID alone (fast path, spinning), so set the bit
 * after the acquisition: the word is ours then, and the only cost is one
 * spare wake-up at our unlock.  The same holds for a waiter that was not
 * requeued, so every condvar relock does it.
 */
#include "cond_impl.h"

int uspin_cond_relock(uspin_mutex_t *m, unsigned int mode)
{
	int r = uspin_lock_contended(m, mode, CLOCK_MONOTONIC, NULL);

	if ((r == 0 || r == EOWNERDEAD) &&
	    !(CMM_LOAD_SHARED(m->word) & FUTEX_WAITERS))
		uatomic_or(&m->word, FUTEX_WAITERS);
	return r;
}
