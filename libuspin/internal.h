/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libuspin's internal interface to the pthread drop-in
 * (pthread/, linked with libuspin.a into libuspin-pthread.so): the lock
 * word, the caller's TID, the one uncontended fast path that both APIs
 * inline, and the slow paths and condvar wait that a pthread_mutex_t /
 * pthread_cond_t adapter calls.  The drop-in includes this and uspin.h,
 * nothing else of libuspin's.
 *
 * Hidden symbols and no ABI: this interface is versioned with the source
 * (the drop-in is always built from the same tree), so it may change in
 * any commit that changes both sides.  libuspin's own files add the
 * private header of each concern they use (process_state.h, setup.h,
 * policy.h, spin.h, slow_stats.h, mutex_slow.h, mutex_flags.h).
 */
#ifndef USPIN_INTERNAL_H
#define USPIN_INTERNAL_H

#include <linux/futex.h>
#include <stdint.h>
#include <time.h>
#include <urcu/compiler.h>
#include <urcu/uatomic.h>

#include "uspin.h"

#define USPIN_HIDDEN __attribute__((visibility("hidden")))

/* glibc >= 2.32: false from the first pthread_create on. */
#if defined(__has_include) && __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define uspin_single_threaded()	(__libc_single_threaded != 0)
#else
#define uspin_single_threaded()	0
#endif

/* ---- the lock word: the kernel's robust/PI layout ---- */
#define WORD_TID(v)	((v) & FUTEX_TID_MASK)

/* ---- m->flags ---- */
/* What keeps a mutex off the inline fast paths. */
#define USPIN_SLOW_FLAGS	(USPIN_PROCESS_SHARED | USPIN_ROBUST)

static inline uint32_t mutex_flags(const uspin_mutex_t *m)
{
	return CMM_LOAD_SHARED(m->flags);
}

/*
 * What a relock by the owner and an unlock by another thread do.  The
 * uspin API is always USPIN_MODE_ERRORCHECK; mode 0 is glibc's normal
 * mutex: the owner's relock sleeps until another thread unlocks (anyone
 * may unlock a normal mutex that is not robust).
 */
#define USPIN_MODE_ERRORCHECK	0x1u	/* EDEADLK on relock, EPERM on foreign unlock */

/* ---- thread_self.c: the caller's TID, right in every process ---- */
#define USPIN_TLS __thread __attribute__((tls_model("initial-exec")))

#include "thread_tls.h"

extern const volatile uint32_t *uspin_process_pid USPIN_HIDDEN;
uint32_t uspin_self_tid_slow(void) USPIN_HIDDEN;

/* The cached TID if it is valid in this process, else 0. */
static inline uint32_t uspin_self_tid_cached(void)
{
	uint32_t tid = uspin_thread.self.tid;

	if (caa_likely(tid && uspin_thread.self.pid == *uspin_process_pid))
		return tid;
	return 0;
}

static inline uint32_t uspin_self_tid(void)
{
	uint32_t tid = uspin_self_tid_cached();

	return caa_likely(tid) ? tid : uspin_self_tid_slow();
}

/* ---- owner.c: who owns a mutex, in every process shape ---- */
/*
 * Bit 29 of the TID part, set beside the owner's TID in the words of
 * process-shared mutexes that are not robust.  TIDs stay below 2^22
 * (PID_MAX_LIMIT), so the kernel takes such a word for no task's: its
 * exit-time robust handling, which compares a word with the dying
 * thread's TID as the dying thread's pid namespace numbers it, never marks
 * the word of a thread of another namespace that has the same number.
 */
#define USPIN_WORD_SHARED	0x20000000u

/* What the calling thread, TID @tid, writes into @m's word. */
static inline uint32_t uspin_word_self(const uspin_mutex_t *m, uint32_t tid)
{
	return (mutex_flags(m) & USPIN_SLOW_FLAGS) == USPIN_PROCESS_SHARED ?
	       tid | USPIN_WORD_SHARED : tid;
}

/*
 * Does the calling thread own @m?  Its TID in the word, and for a
 * process-shared mutex its pid namespace beside it (TIDs of two namespaces
 * may be equal); in a fork child, also what its forking thread held in a
 * private mutex.  What relock (EDEADLK) and unlock (EPERM) ask.
 */
int uspin_mutex_owned(const uspin_mutex_t *m) USPIN_HIDDEN;

/* The rseq time-slice extension: uspin_slice_enter() / _exit(). */
#include "slice_ext.h"


/*
 * ---- the fast path: a private, non-robust mutex, @tid a cached TID ----
 * One CAS, or a plain load and store while glibc says the process is
 * single-threaded (nobody else can touch a private word then): on this
 * project's host that makes an uncontended pair 3x cheaper (make
 * bench-uncontended, docs/pthread-dropin.md "Cost").  1 if it took or
 * released the word; 0 sends the caller to the slow path.  Either way the
 * time-slice request follows the word (slice_ext.h): one TLS byte test
 * while the thread does not use it.  caa_likely() only lays the
 * single-threaded case out straight: behind two taken branches it cost
 * 1.06x glibc's pair, straight 0.84x, while the CAS pays nothing
 * measurable for its branch (make bench-uncontended, docs/evaluation.md).
 */
static inline int uspin_fast_lock(uspin_mutex_t *m, uint32_t tid)
{
	if (caa_likely(uspin_single_threaded())) {
		if (CMM_LOAD_SHARED(m->word) != 0)
			return 0;
		CMM_STORE_SHARED(m->word, tid);
		cmm_barrier();
	} else if (uatomic_cmpxchg(&m->word, 0, tid) != 0) {
		return 0;
	}
	uspin_slice_enter();
	return 1;
}

/* Only a word that is @tid alone: FUTEX_WAITERS needs the slow path. */
static inline int uspin_fast_unlock(uspin_mutex_t *m, uint32_t tid)
{
	if (caa_likely(uspin_single_threaded())) {
		if (CMM_LOAD_SHARED(m->word) != tid)
			return 0;
		cmm_barrier();
		CMM_STORE_SHARED(m->word, 0);
	} else if (uatomic_cmpxchg(&m->word, tid, 0) != tid) {
		return 0;
	}
	if (caa_unlikely(uspin_thread.unlock_work)) {
		if (uspin_thread.unlock_work & USPIN_UNLOCK_HOLD) {
			uspin_thread.held.m = NULL;
			uspin_thread.unlock_work &= ~USPIN_UNLOCK_HOLD;
		}
		uspin_slice_exit();
	}
	return 1;
}

/* ---- mutex_lock.c, mutex_unlock.c: past the fast paths ---- */
/* The clocks a timed lock or wait may measure. */
static inline int uspin_clock_supported(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

/*
 * Lock per @mode, until @abstime on @clock (NULL: no timeout; the caller
 * checked it, as uspin_lock_timed() does): relock by the owner, robust
 * and process-shared bookkeeping, spin, block.  0, EDEADLK, ETIMEDOUT,
 * EOWNERDEAD, ENOTRECOVERABLE.
 */
int uspin_lock_contended(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
			 const struct timespec *abstime) USPIN_HIDDEN;
/*
 * A timed lock, @clock already checked: POSIX looks at @abstime only if
 * the call would block, so try first; then the one validation of
 * @abstime (EINVAL, or ETIMEDOUT for a negative time, in glibc's order).
 */
int uspin_lock_timed(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
		     const struct timespec *abstime) USPIN_HIDDEN;
/*
 * uspin_lock_contended() for a thread woken on the word (a condvar
 * waiter, maybe requeued there): the word keeps FUTEX_WAITERS while it
 * holds it, because others may still sleep there.
 */
int uspin_lock_as_woken(uspin_mutex_t *m, unsigned int mode, clockid_t clock,
			const struct timespec *abstime) USPIN_HIDDEN;
/*
 * Each of these takes or gives up the word for the time-slice request
 * (slice_ext.h) as it returns: 0 and EOWNERDEAD took it, nothing else did.
 */
/* Unlock per @mode: EPERM, or 0 (handoff, spinner, kernel op or wake). */
int uspin_unlock_contended(uspin_mutex_t *m, unsigned int mode) USPIN_HIDDEN;

/* ---- cond_wait.c, cond_signal.c: the condvar under any mutex ---- */
/*
 * The mutex of a wait, as the condvar sees it.  @m is the lock word a
 * waiter may be requeued onto (a uspin mutex), or NULL where that is not
 * possible (a mutex glibc runs, a recursive mutex the wait keeps);
 * @release and @reacquire do what pthread_cond_wait does to the mutex.
 * @reacquire must take the word with FUTEX_WAITERS set when @m is not
 * NULL (uspin_lock_as_woken() does): a requeued waiter cannot know
 * whether others still sleep on the word.
 */
struct uspin_cond_mutex {
	uspin_mutex_t *m;
	void *arg;
	int (*release)(struct uspin_cond_mutex *cm);	/* 0 or an errno */
	int (*reacquire)(struct uspin_cond_mutex *cm);	/* 0, EOWNERDEAD, ... */
	int kept;		/* for the adapter: the wait kept the lock */
};

/* The one check of a wait's time: EINVAL for bad nanoseconds or clock. */
int uspin_cond_check_time(clockid_t clock, const struct timespec *abstime)
	USPIN_HIDDEN;
/* The clock a timedwait of @c measures (its init flags). */
clockid_t uspin_cond_clock(const uspin_cond_t *c) USPIN_HIDDEN;
/*
 * The whole wait: join, release the mutex, sleep until signalled, timed
 * out (ETIMEDOUT) or cancelled, re-acquire.  @clock and @abstime (NULL:
 * no timeout) passed uspin_cond_check_time().
 */
int uspin_cond_wait_common(uspin_cond_t *c, struct uspin_cond_mutex *cm,
			   clockid_t clock, const struct timespec *abstime)
	USPIN_HIDDEN;
/* uspin_cond_signal() without the NULL check. */
int uspin_cond_signal_internal(uspin_cond_t *c) USPIN_HIDDEN;

#endif
