/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thread_tls.h - the calling thread's libuspin state that the inline fast
 * paths touch: one initial-exec TLS block, so that a lock or unlock finds
 * its TID and what else it must do from one offset (one GOT load in a
 * shared library instead of three), and a fast unlock tests one byte for
 * all of what else.  Included by internal.h, after USPIN_TLS.
 */
#ifndef USPIN_THREAD_TLS_H
#define USPIN_THREAD_TLS_H

#include <stdint.h>

#include "slice_ext_abi.h"
#include "uspin.h"

/*
 * The TID cached per thread, and the process it was cached in.  A fork
 * child (fork, _Fork, clone without CLONE_VM) inherits the forking
 * thread's TLS but sees its wipe-on-fork page read 0, so
 * uspin_self_tid_cached() (internal.h) fails there until the child's
 * first slow path refreshes both.
 * Threads start with tid 0.
 */
struct uspin_self {
	uint32_t tid;
	uint32_t pid;
};

/*
 * spin.c: the hold a thread is timing (from a slow-path acquisition of @m
 * to its unlock), for the mutex's typical contended hold; the fast unlock
 * forgets it, so a hold begun by a fast lock is never taken for one.
 */
struct uspin_held {
	uspin_mutex_t *m;
	uint64_t since;
};

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

/* What a fast unlock has to do besides freeing the word: */
#define USPIN_UNLOCK_SLICE	0x1u	/* slice.on: end the request */
#define USPIN_UNLOCK_HOLD	0x2u	/* held.m set: forget the timing */

struct uspin_thread {
	struct uspin_self self;		/* thread_self.c */
	uint8_t unlock_work;		/* USPIN_UNLOCK_*, this thread's only */
	struct uspin_held held;		/* spin.c */
	struct uspin_slice slice;	/* slice_ext.c */
};
extern USPIN_TLS struct uspin_thread uspin_thread USPIN_HIDDEN;

#endif /* USPIN_THREAD_TLS_H */
