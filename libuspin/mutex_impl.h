/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mutex_impl.h - what the mutex_*.c files share: the lock-word layout, the
 * per-thread TID cache, the resolved policy and the slow paths.
 */
#ifndef USPIN_MUTEX_IMPL_H
#define USPIN_MUTEX_IMPL_H

#include <linux/futex.h>
#include <stdint.h>
#include <time.h>
#include <urcu/compiler.h>
#include <urcu/uatomic.h>

#include "uspin.h"

#define USPIN_HIDDEN __attribute__((visibility("hidden")))

/* Lock word: the kernel's robust/PI layout. */
#define WORD_TID(v)	((v) & FUTEX_TID_MASK)

/* m->flags: the init flags plus state that lives with the mutex. */
#define USPIN_INIT_FLAGS	(USPIN_POLICY_MASK | USPIN_PROCESS_SHARED)
#define USPIN_NOTRECOVERABLE	0x10000u /* unlocked after EOWNERDEAD */

static inline int mutex_is_shared(const uspin_mutex_t *m)
{
	return (CMM_LOAD_SHARED(m->flags) & USPIN_PROCESS_SHARED) != 0;
}

/* ---- thread_self.c: the caller's TID, cached per thread ---- */
/* initial-exec: no __tls_get_addr call on the fast path of libuspin.so. */
#define USPIN_TLS __thread __attribute__((tls_model("initial-exec")))
extern USPIN_TLS uint32_t uspin_self_tid_cache USPIN_HIDDEN;
uint32_t uspin_self_tid_slow(void) USPIN_HIDDEN;

static inline uint32_t uspin_self_tid(void)
{
	uint32_t tid = uspin_self_tid_cache;

	if (caa_unlikely(!tid))
		tid = uspin_self_tid_slow();
	return tid;
}

/* ---- kernel_caps.c: what the running kernel offers, probed once ---- */
struct uspin_caps {
	int futex_lock;
	int futex_lock_adaptive;
	unsigned int ncpus;
	const char *running_state;	/* provider name */
	enum uspin_policy auto_policy;	/* AUTO after USPIN_POLICY */
	int policy_overridden;
};
const struct uspin_caps *uspin_caps(void) USPIN_HIDDEN;

/* ---- policy.c: what a mutex actually does when it must wait ---- */
enum uspin_wait_kind {
	WAIT_FUTEX_WAIT,	/* stock kernel: FUTEX_WAIT/FUTEX_WAKE */
	WAIT_FUTEX_LOCK,	/* FUTEX_LOCK */
	WAIT_FUTEX_LOCK_ADAPTIVE,
};
enum uspin_spin_kind {
	SPIN_NONE,
	SPIN_BOUNDED,		/* self-tuning budget */
	SPIN_OWNER_RUNNING,	/* while the running-state provider says ON */
};
struct uspin_plan {
	enum uspin_spin_kind spin;
	enum uspin_wait_kind wait;
};
struct uspin_plan uspin_plan_for(const uspin_mutex_t *m) USPIN_HIDDEN;
enum uspin_policy uspin_effective_policy(enum uspin_policy p) USPIN_HIDDEN;

/* ---- spin.c: the spin phase; returns 1 once it owns the word ---- */
int uspin_spin_bounded(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;
int uspin_spin_owner_running(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

/* ---- mutex_lock.c ---- */
int uspin_lock_slow(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		    const struct timespec *abstime) USPIN_HIDDEN;
/* Outcome of taking the word: 0, or EOWNERDEAD / ENOTRECOVERABLE. */
int uspin_after_acquire(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

/* ---- mutex_unlock.c ---- */
void uspin_release_word(uspin_mutex_t *m) USPIN_HIDDEN;

/* ---- test hook (uspin_testing.h): force the stock-kernel paths ---- */
extern int uspin_force_stock_kernel USPIN_HIDDEN;

#endif
