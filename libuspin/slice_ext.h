/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slice_ext.h - the rseq time-slice extension on the owner's side: a
 * thread that holds a lock word asks the kernel not to preempt it at the
 * end of its slice (rseq::slice_ctrl.request); a grant it finds set when
 * it lets the last word go is given back at once (rseq_slice_yield).  The
 * inline halves run on every lock and unlock, so while the calling thread
 * does not use the extension they cost one TLS byte test.  Included by
 * internal.h; the per-thread state is in thread_tls.h, the rest in
 * slice_ext.c.
 */
#ifndef USPIN_SLICE_EXT_H
#define USPIN_SLICE_EXT_H

#include <errno.h>
#include <stdint.h>
#include <urcu/compiler.h>

#include "slice_ext_abi.h"

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
	struct uspin_slice *s = &uspin_thread.slice;

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
	struct uspin_slice *s = &uspin_thread.slice;

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
/* Test hook (uspin_testing.h). */
int uspin_slice_force(int on) USPIN_HIDDEN;

#endif
