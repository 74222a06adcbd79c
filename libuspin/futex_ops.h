/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * futex_ops.h - the futex system calls libuspin makes, each returning 0 or
 * an errno value.  Only slow paths include this.
 */
#ifndef USPIN_FUTEX_OPS_H
#define USPIN_FUTEX_OPS_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "futex_lock_abi.h"

static inline int futex_call(uint32_t *uaddr, int op, uint32_t val,
			     const struct timespec *ts, uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op, val, ts, NULL, val3);

	return r < 0 ? errno : 0;
}

/* Private unless the mutex is process-shared. */
static inline int futex_private_flag(int shared)
{
	return shared ? 0 : FUTEX_PRIVATE_FLAG;
}

/* Clock flag for ops that take an absolute timeout (MONOTONIC default). */
static inline int futex_clock_flag(clockid_t clock)
{
	return clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0;
}

/*
 * Sleep while *uaddr == val, until @abstime on @clock (NULL: forever), as
 * one of the waiters @bitset names (FUTEX_WAKE wakes any).  Returns 0
 * (woken, maybe spuriously), EAGAIN (word changed), ETIMEDOUT or EINTR.
 */
static inline int futex_wait_abs(uint32_t *uaddr, uint32_t val, int shared,
				 uint32_t bitset, clockid_t clock,
				 const struct timespec *abstime)
{
	int op = FUTEX_WAIT_BITSET | futex_private_flag(shared);

	if (abstime)
		op |= futex_clock_flag(clock);
	return futex_call(uaddr, op, val, abstime, bitset);
}

static inline int futex_wake(uint32_t *uaddr, int nr, int shared)
{
	return futex_call(uaddr, FUTEX_WAKE | futex_private_flag(shared),
			  (uint32_t)nr, NULL, 0);
}

/* FUTEX_WAKE that says how many it woke (0 also on an error). */
static inline int futex_wake_count(uint32_t *uaddr, int nr, int shared)
{
	long r = syscall(SYS_futex, uaddr, FUTEX_WAKE | futex_private_flag(shared),
			 (uint32_t)nr, NULL, NULL, 0);

	return r > 0 ? (int)r : 0;
}

/* Wake up to @nr of the waiters that wait with a bit of @bitset. */
static inline int futex_wake_bitset(uint32_t *uaddr, int nr, uint32_t bitset,
				    int shared)
{
	return futex_call(uaddr, FUTEX_WAKE_BITSET | futex_private_flag(shared),
			  (uint32_t)nr, NULL, bitset);
}

/*
 * FUTEX_LOCK / FUTEX_LOCK_ADAPTIVE of the kernel series: returns 0 with the
 * caller's TID in the word, or ETIMEDOUT, EDEADLK, EFAULT, EINVAL, ENOSYS.
 */
static inline int futex_lock_op(uint32_t *uaddr, int adaptive, int shared,
				clockid_t clock, const struct timespec *abstime)
{
	int op = (adaptive ? USPIN_FUTEX_LOCK_ADAPTIVE : USPIN_FUTEX_LOCK) |
		 futex_private_flag(shared);

	if (abstime)
		op |= futex_clock_flag(clock);
	return futex_call(uaddr, op, 0, abstime, 0);
}

/*
 * FUTEX_UNLOCK of the kernel series: the owner releases a word with
 * FUTEX_WAITERS set; the kernel stores 0 and wakes a waiter, or hands the
 * word to a starving one.  Returns 0, or EPERM (not ours), EFAULT, EINVAL,
 * ENOSYS.
 */
static inline int futex_unlock_op(uint32_t *uaddr, int shared)
{
	return futex_call(uaddr, USPIN_FUTEX_UNLOCK | futex_private_flag(shared),
			  0, NULL, 0);
}

#endif
