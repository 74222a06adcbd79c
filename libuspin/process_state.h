/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * process_state.h - the process as its mutexes see it (thread_self.c,
 * owner.c, claims.c): its fork generation and pid namespace, the owner tag
 * of process-shared mutexes, and the claims a private mutex's waiters
 * leave.
 */
#ifndef USPIN_PROCESS_STATE_H
#define USPIN_PROCESS_STATE_H

#include "mutex_flags.h"

/* ---- thread_self.c (the TID itself: internal.h) ---- */
void uspin_thread_self_setup(void) USPIN_HIDDEN;

/*
 * The process, as its mutexes see it; set up again in every new process
 * (fork, _Fork, clone without CLONE_VM) before any of its threads uses a
 * mutex past the fast path.
 */
#define USPIN_GEN_MASK		0x7fffffffu
struct uspin_process {
	uint32_t gen;		/* fork generation: one more in every child */
	uint32_t pid_ns;	/* tag of the pid namespace, 0: not looked up */
	uint32_t inherited_tid;	/* the forking thread's TID in the parent */
	uint32_t inherited_by;	/* ... and here; 0 0: not a fork child */
};
extern struct uspin_process uspin_process USPIN_HIDDEN;

/* Random tags stay below every nsfs inode number (0xEFFFFFFA and up). */
#define USPIN_NSFS_INO_MIN	0xE0000000u
uint32_t uspin_pid_ns_tag_slow(void) USPIN_HIDDEN;

/* This process's pid namespace, as owners of shared mutexes tag it. */
static inline uint32_t uspin_pid_ns_tag(void)
{
	uint32_t tag = CMM_LOAD_SHARED(uspin_process.pid_ns);

	return caa_likely(tag) ? tag : uspin_pid_ns_tag_slow();
}

/* ---- owner.c (uspin_mutex_owned(): internal.h) ---- */
/*
 * A process-shared mutex keeps its owner's pid-namespace tag in
 * m->handoff, which only private mutexes use for handoff requests: set
 * once the word is taken, cleared before it is released.
 */
void uspin_owner_tag_set(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_owner_tag_clear(uspin_mutex_t *m) USPIN_HIDDEN;

/* ---- claims.c: what a private mutex's waiters leave in it ---- */
/*
 * A handoff request (m->handoff), the spinners (m->spinner) and the
 * passing-over stamp belong to threads of one process.  A fork child has
 * none of those threads: the first slow path of any of its threads on a
 * mutex whose claims carry an older generation clears them.
 */
void uspin_claims_renew(uspin_mutex_t *m) USPIN_HIDDEN;

/*
 * Private mutexes that are not robust leave the robust-list pair unused:
 * the drop-in counts condvar users in its first 4 bytes (pthread/dropin.h),
 * the claims' generation lives in the next 4, the passing-over stamp in
 * robust_next.
 */
static inline uint32_t *mutex_claims_gen(uspin_mutex_t *m)
{
	return (uint32_t *)(void *)&m->robust_prev + 1;
}

static inline int mutex_has_claims(const uspin_mutex_t *m)
{
	return !(mutex_flags(m) & USPIN_SLOW_FLAGS);
}

/* Before a private mutex's claims are read or made: are they this process's? */
static inline void uspin_claims_current(uspin_mutex_t *m)
{
	if (mutex_has_claims(m) &&
	    caa_unlikely(CMM_LOAD_SHARED(*mutex_claims_gen(m)) != uspin_process.gen))
		uspin_claims_renew(m);
}

#endif
