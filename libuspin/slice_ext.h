/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slice_ext.h - the rseq time-slice extension on the owner's side: a
 * thread that holds a lock word asks the kernel not to preempt it at the
 * end of its slice (rseq::slice_ctrl.request); a grant it finds set when
 * it lets the last word go is given back at once (rseq_slice_yield).  The
 * inline halves run on every lock and unlock, so while the calling thread
 * does not use the extension they cost one TLS byte test.  Included by
 * internal.h (after USPIN_TLS); slice_ext.c has the rest.
 */
#ifndef USPIN_SLICE_EXT_H
#define USPIN_SLICE_EXT_H

#include <errno.h>
#include <stdint.h>
#include <urcu/compiler.h>

#include "slice_ext_abi.h"

/*
 * Per thread.  @depth counts the lock words the thread holds (not
 * recursion levels: the drop-in's recursive relock never takes a word),
 * only while @on; the request is set by each lock, cleared at 1 -> 0.  A
 * signal handler that locks and unlocks in between is balanced, so its
 * nesting inside our read-modify-writes leaves both right.  A fork child
 * starts at depth 0 with no request, its enable kept, as the kernel keeps
 * it over fork (slice_ext.c); the private words its forking thread held
 * are its own (owner.c), but their requests were the parent's, so their
 * unlocks leave depth 0 alone.  exec drops the kernel's and ours alike.
 */
struct uspin_slice {
	uint8_t on;		/* first: the one byte the fast paths test */
	uint8_t kernel;		/* on through the prctl (else forced) */
	uint32_t depth;
	struct uspin_rseq_slice_ctrl *ctrl;	/* in the thread's rseq area */
	uint64_t requests, granted, yields;	/* uspin_thread_stats() */
};
extern USPIN_TLS struct uspin_slice uspin_slice USPIN_HIDDEN;

/* Counts the grant and ends it (out of line: a system call anyway). */
void uspin_slice_yield(void) USPIN_HIDDEN;

/*
 * The calling thread took a lock word.  The kernel clears the request
 * whenever the thread is switched out, migrated or signalled (it was
 * "scheduled anyway"), so every lock asks again, nested or not: a byte
 * store, against a section that runs on unprotected after a nested
 * lock slept.
 */
static inline void uspin_slice_enter(void)
{
	struct uspin_slice *s = &uspin_slice;

	if (caa_likely(!s->on))
		return;
	if (s->depth++ == 0)
		s->requests++;
	CMM_STORE_SHARED(s->ctrl->request, 1);
}

/*
 * The calling thread gave a lock word up (after the store that freed it:
 * the request covers the whole critical section).  A depth already 0
 * means a word taken before @on was set (a fork child, the test hook):
 * nothing was requested for it.
 */
static inline void uspin_slice_exit(void)
{
	struct uspin_slice *s = &uspin_slice;

	if (caa_likely(!s->on))
		return;
	if (s->depth != 1) {
		if (s->depth)
			s->depth--;
		return;
	}
	s->depth = 0;
	cmm_barrier();
	/* Cleared before granted is read: a grant after this is impossible. */
	CMM_STORE_SHARED(s->ctrl->request, 0);
	cmm_barrier();
	if (caa_unlikely(CMM_LOAD_SHARED(s->ctrl->granted)))
		uspin_slice_yield();
}

/* For the lock paths: count an acquisition (0, EOWNERDEAD) and pass @r. */
static inline int uspin_slice_after_lock(int r)
{
	if (r == 0 || r == EOWNERDEAD)
		uspin_slice_enter();
	return r;
}

/*
 * ---- slice_ext.c, called outside every lock path ----
 * The calling thread's first slow path (thread_self.c), and the thread
 * that ran setup: enable it per USPIN_SLICE_EXT where the kernel can.
 */
void uspin_slice_thread_init(void) USPIN_HIDDEN;

#endif
