/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spin.h - the spin phase (spin.c): spin per plan on the owner's running
 * state, time contended holds, leave the word to a running spinner.
 */
#ifndef USPIN_SPIN_H
#define USPIN_SPIN_H

#include "policy.h"

/*
 * ---- spin.c: the spin phase; returns 1 once it owns the word ----
 * A free word is taken as word | @take: the caller's TID, plus
 * FUTEX_WAITERS for a waiter that has slept (others may still sleep).
 */
int uspin_spin(uspin_mutex_t *m, uint32_t take, enum uspin_spin_kind kind,
	       uint64_t deadline) USPIN_HIDDEN;
/* Time a contended hold: from a slow-path acquisition to the unlock. */
void uspin_hold_begin(uspin_mutex_t *m) USPIN_HIDDEN;
void uspin_hold_end(uspin_mutex_t *m) USPIN_HIDDEN;

/*
 * The unlocker of a private mutex whose word says others sleep: 1 if it
 * left the word free for a spinner instead of waking a sleeper.
 */
int uspin_pass_to_spinner(uspin_mutex_t *m, uint32_t tid) USPIN_HIDDEN;

#endif
