/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * futex_lock_abi.h - the user-space half of the FUTEX_LOCK ABI.
 *
 * The one place where libuspin (and the benchmarks) name the op numbers of
 * the kernel series in kernel/patches.  tests/kernel compiles this header
 * against the patched include/uapi/linux/futex.h and fails if they drift.
 * Op 13 is FUTEX_LOCK_PI2 in 6.1, so the 2010 numbers (13, 14) moved.
 */
#ifndef USPIN_FUTEX_LOCK_ABI_H
#define USPIN_FUTEX_LOCK_ABI_H

#define USPIN_FUTEX_LOCK		14
#define USPIN_FUTEX_LOCK_ADAPTIVE	15
/*
 * The unlock slow path when FUTEX_WAITERS is set (instead of xchg(word, 0)
 * + FUTEX_WAKE): futex(word, USPIN_FUTEX_UNLOCK [| FUTEX_PRIVATE_FLAG], 0,
 * NULL, NULL, 0).  0: released (the word is 0, or the kernel handed it to a
 * starving waiter); EPERM: the TID part is not the caller's; EFAULT; EINVAL
 * (misaligned, non-zero unused argument, PI waiters on the word); ENOSYS:
 * no such op (probe it next to FUTEX_LOCK).  See docs/kernel-futex.md.
 */
#define USPIN_FUTEX_UNLOCK		16

#endif
