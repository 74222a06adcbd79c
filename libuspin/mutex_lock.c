// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex_lock.c - lock, timedlock, clocklock: the fast path of internal.h
 * (one CAS, a plain store while single-threaded), then the policy's
 * spin phase, then the kernel: FUTEX_LOCK[_ADAPTIVE] where the kernel has
 * it, the FUTEX_WAIT protocol with handoff otherwise.
 */
#include <errno.h>

#include "cycles.h"
#include "futex_ops.h"
#include "mutex_flags.h"
#include "mutex_slow.h"
#include "policy.h"
#include "process_state.h"
#include "robust_list.h"
#include "setup.h"
#include "slow_stats.h"
#include "spin.h"

/*
 * Called with the word just taken by @tid.  A set FUTEX_OWNER_DIED means the
 * previous owner died holding it: report EOWNERDEAD, or, if a previous
 * EOWNERDEAD holder unlocked without uspin_mutex_consistent(), hand the
 * word back in its unrecoverable state and wake everybody to learn it.
 * A process-shared, non-robust word is only marked by the kernel for a
 * task that died inside a lock or unlock call (list_op_pending,
 * lock_pending()), outside its critical section: nothing to report and
 * nobody to call uspin_mutex_consistent(), so the bit just goes.
 */
int uspin_after_acquire(uspin_mutex_t *m, uint32_t tid)
{
	uint32_t v = CMM_LOAD_SHARED(m->word);

	if (caa_likely(!(v & FUTEX_OWNER_DIED)))
		return 0;
	if ((mutex_flags(m) & USPIN_SLOW_FLAGS) == USPIN_PROCESS_SHARED) {
		uatomic_and(&m->word, ~FUTEX_OWNER_DIED);
		return 0;
	}
	if (mutex_flags(m) & USPIN_NOTRECOVERABLE) {
		uatomic_xchg(&m->word, FUTEX_OWNER_DIED);
		futex_wake(&m->word, INT_MAX, mutex_futex_shared(m));
		return ENOTRECOVERABLE;
	}
	return EOWNERDEAD;
}

int uspin_take_free(uspin_mutex_t *m, uint32_t v, uint32_t newbits)
{
	return uatomic_cmpxchg(&m->word, v, v | newbits) == v;
}

/*
 * A timed lock's deadline on the cycle counter: one clock read, at entry.
 * UINT64_MAX: none (or further than any spin could last); 0: passed.
 */
static uint64_t cycles_deadline(clockid_t clock, const struct timespec *abstime)
{
	struct timespec now;
	int64_t left;

	if (!abstime)
		return UINT64_MAX;
	clock_gettime(clock, &now);
	left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
	       (abstime->tv_nsec - now.tv_nsec);
	if (left <= 0)
		return 0;
	if (left > 1000000000000LL)
		return UINT64_MAX;
	return uspin_cycles() + (uint64_t)left * uspin_setup()->cycles_per_us / 1000;
}

/*
 * Before a FUTEX_WAIT on the word's value *@v: FUTEX_WAITERS set in it, so
 * that the unlock wakes the sleeper.  0 if the word moved (look again).
 */
static int mark_waiters(uspin_mutex_t *m, uint32_t *v)
{
	if (*v & FUTEX_WAITERS)
		return 1;
	if (uatomic_cmpxchg(&m->word, *v, *v | FUTEX_WAITERS) != *v)
		return 0;
	*v |= FUTEX_WAITERS;
	return 1;
}

/* The kernel op of the series: it queues, sets FUTEX_WAITERS, takes over. */
static int block_futex_lock(uspin_mutex_t *m, uint32_t tid, int adaptive,
			    clockid_t clock, const struct timespec *abstime)
{
	int r;

	do {
		uspin_stats.blocks++;
		r = futex_lock_op(&m->word, adaptive, mutex_futex_shared(m),
				  clock, abstime);
	} while (r == EINTR);
	return r ? r : uspin_after_acquire(m, tid);
}

/*
 * Stock kernels: the TID|WAITERS protocol over FUTEX_WAIT.
 *
 * A waiter sets FUTEX_WAITERS before it sleeps; an acquisition out of this
 * loop always sets it too, because we cannot know whether others still
 * sleep (one spare FUTEX_WAKE at worst).  A woken waiter always comes back
 * here before it may time out, so a wake-up is never swallowed.
 *
 * Handoff: a waiter that has been blocked for handoff_after (1 ms) and
 * still finds the lock taken writes its TID into m->handoff (one at a
 * time) and sleeps as a USPIN_WAKE_HANDOFF waiter.  The next unlock takes
 * the request (xchg) and stores the requester's TID into the word instead
 * of 0, so neither a spinner nor a fast path can barge in; the requester
 * wakes owning the lock.  A requester that times out withdraws with a CAS;
 * if that fails an unlocker has taken the request and the word is on its
 * way, so it waits for it instead of timing out.  tests/model checks this.
 *
 * A woken waiter that finds the lock taken spins again (@spin, as the
 * kernel's woken mutex waiter does) before it sleeps again, unless it
 * asked for a handoff: then the lock comes to it.
 *
 * Only private mutexes hand off (issue 25).  The unlocker writes the
 * requester's TID while the requester sleeps; a process-shared mutex's
 * requester can be killed alone before that, and the word would then name
 * a dead task for good: the kernel's exit-time robust-list walk is over
 * by then, so even a robust word never gets FUTEX_OWNER_DIED.  A private
 * mutex's requester dies only with every other user of the mutex.
 */
static int block_futex_wait(uspin_mutex_t *m, uint32_t tid,
			    enum uspin_spin_kind spin, uint64_t deadline,
			    clockid_t clock, const struct timespec *abstime)
{
	int shared = mutex_futex_shared(m), asked = 0, promised = 0, woken = 0;
	int may_ask = !(mutex_flags(m) & USPIN_PROCESS_SHARED);
	uint64_t since = uspin_cycles();
	int r;
	uint32_t v;

	for (;;) {
		v = CMM_LOAD_SHARED(m->word);
		/*
		 * Handed over by the unlocker (private mutexes only: a shared
		 * word may name another pid namespace's thread with our TID).
		 * The unlocker's xchg of the word is its release; this load
		 * saw it, and the barrier orders our critical section after
		 * it: the acquire that the CAS of every other path has.
		 */
		if (may_ask && WORD_TID(v) == tid) {
			cmm_smp_mb();
			uspin_stats.handoffs++;
			return uspin_after_acquire(m, tid);
		}
		if (!WORD_TID(v)) {
			if (asked) {
				asked = 0;
				if (uatomic_cmpxchg(&m->handoff, tid, 0) != tid) {
					/*
					 * An unlocker took our request after we
					 * read v: it owns the word and is about
					 * to store our TID there.  Look again.
					 */
					promised = 1;
					continue;
				}
			}
			if (promised) {
				/*
				 * Read after the request was taken: a free
				 * word means that unlocker died before it
				 * stored our TID (robust: OWNER_DIED).
				 */
				if (!(v & FUTEX_OWNER_DIED)) {
					caa_cpu_relax();
					continue;
				}
				promised = 0;
			}
			if (mutex_flags(m) & USPIN_NOTRECOVERABLE)
				return ENOTRECOVERABLE;
			if (uspin_take_free(m, v, tid | FUTEX_WAITERS))
				return uspin_after_acquire(m, tid);
			continue;
		}
		if (may_ask && !asked && !promised &&
		    uspin_cycles() - since >= uspin_setup()->handoff_after &&
		    uatomic_cmpxchg(&m->handoff, 0, tid) == 0) {
			asked = 1;
			continue;	/* look at the word again */
		}
		if (woken && spin != SPIN_NONE && !asked && !promised) {
			woken = 0;
			if (uspin_spin(m, tid | FUTEX_WAITERS, spin, deadline))
				return 0;
			continue;
		}
		if (!mark_waiters(m, &v))
			continue;
		uspin_stats.blocks++;
		r = futex_wait_abs(&m->word, v, shared,
				   asked || promised ? USPIN_WAKE_HANDOFF :
						       USPIN_WAKE_NORMAL,
				   clock, promised ? NULL : abstime);
		if (r == ETIMEDOUT) {
			if (!asked || uatomic_cmpxchg(&m->handoff, tid, 0) == tid)
				return ETIMEDOUT;
			asked = 0;
			promised = 1;
		}
		/* 0 (woken), EAGAIN (word moved), EINTR: look again. */
		woken = r == 0;
	}
}

/*
 * @tid is what the caller writes into the word (uspin_word_self()).  Every
 * path takes the word with a CAS (liburcu's uatomic_cmpxchg() is a full
 * barrier, so the critical section cannot move before it), with the
 * kernel's atomic op of FUTEX_LOCK (a full barrier too, and the wake-up of
 * a handoff orders the rest), or by seeing it handed over
 * (block_futex_wait()'s barrier).
 */
int uspin_lock_slow(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		    const struct timespec *abstime, unsigned int mode)
{
	struct uspin_plan plan;
	uint64_t deadline;
	int r;

	if (mutex_flags(m) & USPIN_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	uspin_claims_current(m);
	uspin_stats.slow_paths++;
	deadline = cycles_deadline(clock, abstime);
	plan = uspin_plan_for(m);
	if (plan.spin != SPIN_NONE && uspin_spin(m, tid, plan.spin, deadline)) {
		uspin_hold_begin(m);
		return 0;	/* spinners never take a dead owner's word */
	}
	if (plan.wait == WAIT_FUTEX_WAIT)
		r = block_futex_wait(m, tid, plan.spin, deadline, clock,
				     abstime);
	else
		r = block_futex_lock(m, tid,
				     plan.wait == WAIT_FUTEX_LOCK_ADAPTIVE,
				     clock, abstime);
	/*
	 * The kernel compares the word with our TID as our pid namespace
	 * numbers it; a robust shared mutex's owner in another namespace may
	 * have the same number (owner.c).  Not ours: wait as on a stock
	 * kernel, which FUTEX_UNLOCK wakes like any waiter.
	 */
	if (r == EDEADLK && !uspin_mutex_owned(m))
		r = block_futex_wait(m, tid, SPIN_NONE, deadline, clock, abstime);
	if (r == 0)
		uspin_hold_begin(m);
	return r;
}

/*
 * Robust and process-shared mutexes: list_op_pending names the word for
 * the whole call, so that if we die inside it the kernel marks a word
 * that names us FUTEX_OWNER_DIED, and passes on a wake-up we took from a
 * free word to another waiter: a waiter killed in here never strands the
 * mutex or the other waiters (issue 25).  Only robust ones are then kept
 * on the robust list while held.
 */
static int lock_pending(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
			const struct timespec *abstime, unsigned int mode)
{
	int r;

	uspin_robust_begin(m);
	if (uatomic_cmpxchg(&m->word, 0, tid) == 0)
		r = 0;
	else
		r = uspin_lock_slow(m, tid, clock, abstime, mode);
	if (r == 0 || r == EOWNERDEAD) {
		uspin_owner_tag_set(m);
		if (mutex_is_robust(m))
			uspin_robust_enqueue(m);
	}
	uspin_robust_end();
	return r;
}

/*
 * glibc's normal mutex (and adaptive, and robust normal) relocked by its
 * owner sleeps on the lock word until somebody unlocks it, which any
 * thread may do for a normal mutex (glibc's tst-cond4, tst-cond14 rely
 * on it).  Wait for that like any FUTEX_WAIT waiter (FUTEX_WAITERS set,
 * so the unlock wakes us); 0 once the word is no longer ours.
 */
static int wait_for_other_unlock(uspin_mutex_t *m, uint32_t tid,
				 clockid_t clock, const struct timespec *abstime)
{
	int shared = mutex_futex_shared(m);
	uint32_t v;

	for (;;) {
		v = CMM_LOAD_SHARED(m->word);
		if (!uspin_mutex_owned(m))
			return 0;
		if (!mark_waiters(m, &v))
			continue;
		if (futex_wait_abs(&m->word, v, shared, USPIN_WAKE_NORMAL, clock,
				   abstime) == ETIMEDOUT)
			return ETIMEDOUT;
	}
}

/* Before lock_pending(): the word is ours, no lock or unlock is pending. */
static int relock_by_owner(uspin_mutex_t *m, uint32_t tid, unsigned int mode,
			   clockid_t clock, const struct timespec *abstime)
{
	int r;

	if (mode & USPIN_MODE_ERRORCHECK)
		return EDEADLK;
	r = wait_for_other_unlock(m, tid, clock, abstime);
	if (r)
		return r;
	/* Another thread's unlock took the word from us (slice_ext.h). */
	uspin_slice_exit();
	/* Woken on the word: others may sleep there too. */
	return uspin_lock_as_woken(m, mode, clock, abstime);
}

/*
 * Every way to the word ends here, so the time-slice request is set here
 * for all of them (spinning, FUTEX_LOCK, a handoff, a dead owner's word):
 * relock_by_owner() counts its own re-acquisition.
 */
int uspin_lock_contended(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
			 const struct timespec *abstime)
{
	uint32_t tid = uspin_word_self(m, uspin_self_tid());
	int r;

	if (WORD_TID(CMM_LOAD_SHARED(m->word)) && uspin_mutex_owned(m))
		return relock_by_owner(m, tid, mode, clock, abstime);
	if (mutex_flags(m) & USPIN_SLOW_FLAGS)
		r = lock_pending(m, tid, clock, abstime, mode);
	else if (uatomic_cmpxchg(&m->word, 0, tid) == 0)
		r = 0;
	else
		r = uspin_lock_slow(m, tid, clock, abstime, mode);
	return uspin_slice_after_lock(r);
}

/*
 * The condvar's relock and the owner's relock above.  The mutex's own
 * paths take a free word as TID alone (fast path, spinning), so set the
 * bit after the acquisition: the word is ours then, and the only cost is
 * one spare wake-up at our unlock.
 */
int uspin_lock_as_woken(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
			const struct timespec *abstime)
{
	int r = uspin_lock_contended(m, mode, clock, abstime);

	if ((r == 0 || r == EOWNERDEAD) &&
	    !(CMM_LOAD_SHARED(m->word) & FUTEX_WAITERS))
		uatomic_or(&m->word, FUTEX_WAITERS);
	return r;
}

/* The fast path (internal.h); anything else is a tail call. */
int uspin_mutex_lock(uspin_mutex_t *m)
{
	uint32_t tid = uspin_self_tid_cached();

	if (caa_likely(tid && !(mutex_flags(m) & USPIN_SLOW_FLAGS)) &&
	    uspin_fast_lock(m, tid))
		return 0;
	return uspin_lock_contended(m, USPIN_MODE_ERRORCHECK, CLOCK_MONOTONIC,
				    NULL);
}

/*
 * glibc's order: no deadline, then one long past (the kernel refuses
 * negative times, so it is answered here), then bad nanoseconds.
 */
static int check_abstime(const struct timespec *abstime)
{
	if (!abstime)
		return EINVAL;
	if (abstime->tv_sec < 0)
		return ETIMEDOUT;
	if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)
		return EINVAL;
	return 0;
}

/* An errorcheck relock is EDEADLK whatever abstime says (as glibc). */
int uspin_lock_timed(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
		     const struct timespec *abstime)
{
	int r = uspin_mutex_trylock(m);

	if (r != EBUSY)
		return r;
	if ((mode & USPIN_MODE_ERRORCHECK) && uspin_mutex_owned(m))
		return EDEADLK;
	r = check_abstime(abstime);
	if (r)
		return r;
	return uspin_lock_contended(m, mode, clock, abstime);
}

int uspin_mutex_clocklock(uspin_mutex_t *m, clockid_t clock,
			  const struct timespec *abstime)
{
	if (!m || !uspin_clock_supported(clock))
		return EINVAL;
	return uspin_lock_timed(m, USPIN_MODE_ERRORCHECK, clock, abstime);
}

int uspin_mutex_timedlock(uspin_mutex_t *m, const struct timespec *abstime)
{
	return uspin_mutex_clocklock(m, CLOCK_REALTIME, abstime);
}
