/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sys_util.h - the raw system calls the tests and benchmarks make
 * themselves: the caller's TID (the owner value of a lock word) and
 * futex(2) without a libc wrapper.  libuspin has its own (futex_ops.h,
 * thread_self.c); this header is for code outside the library, including
 * the drop-in suites, which use no uspin header: system headers only.
 */
#ifndef USPIN_SYS_UTIL_H
#define USPIN_SYS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The caller's TID, as the kernel writes it into a robust/PI lock word. */
static inline uint32_t sys_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/*
 * futex(2) with all six arguments; -1 and errno on failure.  @timeout is
 * a pointer for most ops, but FUTEX_CMP_REQUEUE and FUTEX_WAKE_OP read
 * that slot as a count (val2), hence void *.
 */
static inline long sys_futex6(void *uaddr, int op, uint32_t val,
			      const void *timeout, void *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

/* The common four: FUTEX_WAIT, FUTEX_WAKE, FUTEX_LOCK*, FUTEX_UNLOCK*. */
static inline long sys_futex(void *uaddr, int op, uint32_t val,
			     const struct timespec *timeout)
{
	return sys_futex6(uaddr, op, val, timeout, NULL, 0);
}

#endif /* USPIN_SYS_UTIL_H */
