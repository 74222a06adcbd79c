// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_unlock.c - the fast path of internal.h when nobody waits (one CAS
 * TID -> 0, a plain store while single-threaded); otherwise hand the word
 * to a waiter that asked for it, or leave it to a waiter that spins, or
 * let the kernel release it (FUTEX_UNLOCK, which may hand it over itself),
 * or clear it and wake one waiter, which retries.
 */
#include <errno.h>

#include "futex_ops.h"
#include "mutex_flags.h"
#include "mutex_slow.h"
#include "process_state.h"
#include "robust_list.h"
#include "setup.h"
#include "spin.h"

void uspin_release_word(uspin_mutex_t *m, uint32_t tid)
{
	int shared = mutex_futex_shared(m);
	uint32_t v, h;

	uspin_claims_current(m);
	v = CMM_LOAD_SHARED(m->word);

	if (caa_unlikely(v & FUTEX_OWNER_DIED)) {
		/*
		 * EOWNERDEAD was returned and uspin_mutex_consistent() was not
		 * called: the protected state is unrecoverable, for good.
		 */
		uatomic_or(&m->flags, USPIN_NOTRECOVERABLE);
		uatomic_xchg(&m->word, FUTEX_OWNER_DIED);
		futex_wake(&m->word, INT_MAX, shared);
		return;
	}
	/*
	 * A starving FUTEX_WAIT waiter asked: the word goes to it, never 0.
	 * Wake every USPIN_WAKE_HANDOFF sleeper: the next requester may
	 * already sleep there too (at most two: one handed the word, one
	 * asking); the one that does not own the word sleeps again.
	 */
	if (mutex_handoff_request(m) &&
	    (h = uatomic_xchg(&m->handoff, 0)) != 0) {
		uatomic_xchg(&m->word, h | FUTEX_WAITERS);
		futex_wake_bitset(&m->word, INT_MAX, USPIN_WAKE_HANDOFF, shared);
		return;
	}
	/* Others sleep, but a waiter spins: the word goes to it (spin.c). */
	if (!shared && (v & FUTEX_WAITERS) && uspin_pass_to_spinner(m, tid))
		return;
	/* Not for a shared word's mark (owner.c): the kernel would say EPERM. */
	if (uspin_setup()->futex_unlock && !uspin_force_stock_kernel &&
	    WORD_TID(v) == tid && !(tid & USPIN_WORD_SHARED) &&
	    futex_unlock_op(&m->word, shared) == 0)
		return;
	/*
	 * Process-shared: the free word keeps FUTEX_WAITERS until the waiter
	 * we wake retries (issue 25).  Killed before that, it passes the
	 * wake-up on only if the word is still free (the kernel's pending-op
	 * rule); whoever took it meanwhile kept the bit and wakes the next
	 * one.  Nobody woken means nobody sleeps: the bit goes.
	 */
	if (mutex_flags(m) & USPIN_PROCESS_SHARED) {
		if (!(uatomic_xchg(&m->word, FUTEX_WAITERS) & FUTEX_WAITERS) ||
		    futex_wake_count(&m->word, 1, shared) == 0)
			uatomic_cmpxchg(&m->word, FUTEX_WAITERS, 0);
		return;
	}
	if (uatomic_xchg(&m->word, 0) & FUTEX_WAITERS)
		futex_wake(&m->word, 1, shared);
}

/* Robust and process-shared: as lock_pending() (mutex_lock.c). */
static void unlock_pending(uspin_mutex_t *m, uint32_t tid)
{
	uspin_robust_begin(m);
	if (mutex_is_robust(m))
		uspin_robust_dequeue(m);
	uspin_owner_tag_clear(m);
	if (uatomic_cmpxchg(&m->word, tid, 0) != tid)
		uspin_release_word(m, tid);
	uspin_robust_end();
}

/*
 * @tid: what the caller writes into the word.  A fork child's thread may
 * own a word that names its forking thread's TID instead (owner.c): the
 * CAS then fails and uspin_release_word() releases it.
 */
int uspin_unlock_contended(uspin_mutex_t *m, unsigned int mode)
{
	uint32_t tid = uspin_word_self(m, uspin_self_tid());

	if (!uspin_mutex_owned(m)) {
		if (mode & USPIN_MODE_ERRORCHECK || mutex_is_robust(m))
			return EPERM;
		/*
		 * A normal mutex: anyone may unlock it (as glibc).  Not our
		 * word, so not our time-slice request: the owner's stays set
		 * until it relocks (relock_by_owner()) or unlocks another.
		 */
		uspin_release_word(m, tid);
		return 0;
	}
	uspin_hold_end(m);
	if (mutex_flags(m) & USPIN_SLOW_FLAGS)
		unlock_pending(m, tid);
	else if (uatomic_cmpxchg(&m->word, tid, 0) != tid)
		uspin_release_word(m, tid);
	/* After the wake-up or kernel op: a system call ends a grant anyway. */
	uspin_slice_exit();
	return 0;
}

/* The fast path (internal.h); anything else is a tail call. */
int uspin_mutex_unlock(uspin_mutex_t *m)
{
	uint32_t tid = uspin_self_tid_cached();

	if (caa_likely(tid && !(mutex_flags(m) & USPIN_SLOW_FLAGS)) &&
	    uspin_fast_unlock(m, tid))
		return 0;
	return uspin_unlock_contended(m, USPIN_MODE_ERRORCHECK);
}
