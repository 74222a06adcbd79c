// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_trylock.c - one CAS; also takes over a word whose owner died.
 * A word taken sets the time-slice request (slice_ext.h).
 */
#include <errno.h>

#include "mutex_flags.h"
#include "mutex_slow.h"
#include "process_state.h"
#include "robust_list.h"

static int trylock_word(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t v = uatomic_cmpxchg(&m->word, 0, tid);

	if (caa_likely(v == 0))
		return 0;
	if (WORD_TID(v))
		return EBUSY;
	/* Free with FUTEX_WAITERS (a waiter was woken): keep the bit. */
	if (!(v & FUTEX_OWNER_DIED))
		return uspin_take_free(m, v, tid) ? 0 : EBUSY;
	if (mutex_flags(m) & USPIN_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	/* Keep OWNER_DIED (reported) and WAITERS (others may sleep). */
	if (!uspin_take_free(m, v, tid))
		return EBUSY;
	return uspin_after_acquire(m, tid);
}

int uspin_mutex_trylock(uspin_mutex_t *m)
{
	uint32_t tid = uspin_word_self(m, uspin_self_tid());
	int r;

	if (caa_likely(!(mutex_flags(m) & USPIN_SLOW_FLAGS)))
		return uspin_slice_after_lock(trylock_word(m, tid));
	/* Robust and process-shared: as lock_pending() (mutex_lock.c). */
	uspin_robust_begin(m);
	r = trylock_word(m, tid);
	if (r == 0 || r == EOWNERDEAD) {
		uspin_owner_tag_set(m);
		if (mutex_is_robust(m))
			uspin_robust_enqueue(m);
	}
	uspin_robust_end();
	return uspin_slice_after_lock(r);
}
