/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mutex_slow.h - the slow paths behind the entry points (mutex_lock.c,
 * mutex_unlock.c) and the wake bitsets of stock-kernel waiters.
 */
#ifndef USPIN_MUTEX_SLOW_H
#define USPIN_MUTEX_SLOW_H

#include "internal.h"

/* ---- mutex_lock.c (the entry points: internal.h) ---- */
/*
 * Everything after a failed fast path: spin per plan, then block.  A timed
 * lock converts @abstime to a deadline in cycles once, at entry.
 */
int uspin_lock_slow(uspin_mutex_t *m, uint32_t tid, clockid_t clock,
		    const struct timespec *abstime, unsigned int mode) USPIN_HIDDEN;
/* Outcome of taking the word: 0, or EOWNERDEAD / ENOTRECOVERABLE. */
int uspin_after_acquire(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;
/* Take a free word (TID part 0), keeping its flag bits; 1 on success. */
int uspin_take_free(uspin_mutex_t *m, uint32_t v, uint32_t newbits) USPIN_HIDDEN;

/* ---- mutex_unlock.c ---- */
/* The caller owns the word; give it up (handoff, kernel op or wake). */
void uspin_release_word(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

/* ---- handoff: FUTEX_WAIT waiters asking for the lock (stock kernels) ---- */
/* Waiters sleep with one of these bitsets; FUTEX_WAKE wakes either. */
#define USPIN_WAKE_NORMAL	0x1u
#define USPIN_WAKE_HANDOFF	0x2u

#endif
