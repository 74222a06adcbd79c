/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * robust_list.h - process-shared mutexes on the owning thread's robust list,
 * so that the kernel marks them FUTEX_OWNER_DIED when the owner dies.
 */
#ifndef USPIN_ROBUST_LIST_H
#define USPIN_ROBUST_LIST_H

#include "internal.h"

/* Whether this thread's robust list can be joined (see robust_list.c). */
int uspin_robust_list_available(void) USPIN_HIDDEN;

/*
 * In the forking thread's replica in a child: a raw clone() child has no
 * robust list registered (glibc's fork and _Fork re-register it); give it
 * glibc's head back, emptied as glibc's _Fork does.
 */
void uspin_robust_after_fork(void) USPIN_HIDDEN;

/* Around a lock or unlock of @m: the kernel's list_op_pending protocol. */
void uspin_robust_begin(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_robust_end(void) USPIN_HIDDEN;
/* Link / unlink @m; only between begin and end, only by the owner. */
void uspin_robust_enqueue(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_robust_dequeue(uspin_mutex_t *m) USPIN_HIDDEN;

#endif
