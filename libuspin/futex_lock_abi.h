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
#define USPIN_FUTEX_UNLOCK		16

#endif
