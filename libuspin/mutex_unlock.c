// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_unlock.c - one CAS TID -> 0 when nobody waits; otherwise clear the
 * word and wake one waiter, which retries (in the kernel with FUTEX_LOCK,
 * which re-sets FUTEX_WAITERS if others remain queued; in user space on
 * stock kernels, where it sets FUTEX_WAITERS itself).
 */
#include <errno.h>

#include "futex_ops.h"
#include "mutex_impl.h"
#include "robust_list.h"

/* The caller owns the word and the CAS fast path did not apply. */
void uspin_release_word(uspin_mutex_t *m)
{
	int shared = mutex_is_shared(m);

	if (caa_unlikely(CMM_LOAD_SHARED(m->word) & FUTEX_OWNER_DIED)) {
		/*
		 * EOWNERDEAD was returned and uspin_mutex_consistent() was not
		 * called: the protected state is unrecoverable, for good.
		 */
		uatomic_or(&m->flags, USPIN_NOTRECOVERABLE);
		uatomic_xchg(&m->word, FUTEX_OWNER_DIED);
		futex_wake(&m->word, INT_MAX, shared);
		return;
	}
	if (uatomic_xchg(&m->word, 0) & FUTEX_WAITERS)
		futex_wake(&m->word, 1, shared);
}

static int unlock_slow(uspin_mutex_t *m, uint32_t tid)
{
	if (WORD_TID(CMM_LOAD_SHARED(m->word)) != tid)
		return EPERM;
	uspin_release_word(m);
	return 0;
}

static int unlock_robust(uspin_mutex_t *m, uint32_t tid)
{
	if (WORD_TID(CMM_LOAD_SHARED(m->word)) != tid)
		return EPERM;
	uspin_robust_begin(m);
	uspin_robust_dequeue(m);
	if (uatomic_cmpxchg(&m->word, tid, 0) != tid)
		uspin_release_word(m);
	uspin_robust_end();
	return 0;
}

static __attribute__((noinline)) int unlock_contended(uspin_mutex_t *m)
{
	uint32_t tid = uspin_self_tid();

	if (mutex_is_shared(m))
		return unlock_robust(m, tid);
	if (uatomic_cmpxchg(&m->word, tid, 0) == tid)
		return 0;
	return unlock_slow(m, tid);
}

int uspin_mutex_unlock(uspin_mutex_t *m)
{
	uint32_t tid = uspin_self_tid_cache;

	if (caa_likely(tid && !mutex_is_shared(m) &&
		       uatomic_cmpxchg(&m->word, tid, 0) == tid))
		return 0;
	return unlock_contended(m);
}
