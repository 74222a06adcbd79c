// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * futex_wait_tid.c - a FUTEX_WAIT/WAKE mutex on the TID|FUTEX_WAITERS word
 * (the 2010 series' "futex_wait_tid"): the word libuspin and FUTEX_LOCK
 * use, with only the classic ops.  It shows what the owner-bearing word
 * costs before any spinning is added.
 */
#include <urcu/uatomic.h>

#include "futex_sys.h"
#include "lock.h"

static int fwt_init(void *l)
{
	*(uint32_t *)l = 0;
	return 0;
}

static void fwt_lock(void *l)
{
	uint32_t *w = l;
	uint32_t tid = bench_tid();
	uint32_t v;

	if (uatomic_cmpxchg(w, 0, tid) == 0)
		return;
	for (;;) {
		v = uatomic_read(w);
		if (v == 0) {
			/*
			 * We were a waiter, others may still sleep: take it
			 * with WAITERS set so the next unlock wakes one.
			 */
			if (uatomic_cmpxchg(w, 0, tid | FUTEX_WAITERS) == 0)
				return;
			continue;
		}
		if (!(v & FUTEX_WAITERS) &&
		    uatomic_cmpxchg(w, v, v | FUTEX_WAITERS) != v)
			continue;
		bench_futex_wait(w, v | FUTEX_WAITERS);
	}
}

static void fwt_unlock(void *l)
{
	bench_tid_word_unlock(l);
}

static void fwt_destroy(void *l)
{
}

const struct bench_lock bench_lock_futex_wait_tid = {
	.name = "futex_wait_tid",
	.init = fwt_init,
	.lock = fwt_lock,
	.unlock = fwt_unlock,
	.destroy = fwt_destroy,
};
