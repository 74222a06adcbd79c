/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slice_ext_abi.h - the rseq time-slice extension's user ABI (Linux 7.0;
 * also our patched 6.12 guest kernel, kernel/patches/rseq-slice/).  The
 * installed kernel headers predate it, so every name is defined here, and
 * only where the headers lack it.
 */
#ifndef USPIN_SLICE_EXT_ABI_H
#define USPIN_SLICE_EXT_ABI_H

#include <stdint.h>

/* prctl(PR_RSEQ_SLICE_EXTENSION, GET | SET, mode, 0, 0): per thread. */
#ifndef PR_RSEQ_SLICE_EXTENSION
#define PR_RSEQ_SLICE_EXTENSION		79
#define PR_RSEQ_SLICE_EXTENSION_GET	1
#define PR_RSEQ_SLICE_EXTENSION_SET	2
#endif
#ifndef PR_RSEQ_SLICE_EXT_ENABLE
#define PR_RSEQ_SLICE_EXT_ENABLE	0x1
#endif

/* SET's answer when the kernel was booted with rseq_slice_ext=0. */
#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif

/* Ends a grant and gives the CPU back: 1 if a grant was active. */
#ifndef __NR_rseq_slice_yield
#if defined(__x86_64__) && !defined(__ILP32__)
#define __NR_rseq_slice_yield	471
#endif
#endif

/*
 * struct rseq as the kernel lays it out: flags at 16 (the kernel's
 * feature bits below), slice_ctrl at 28.  glibc >= 2.35 registers 32
 * bytes, so both are inside every registered area even where glibc
 * reports a smaller feature size (__rseq_size is 20 on Debian's 2.36).
 */
#define USPIN_RSEQ_FLAGS_OFFSET		16
#define USPIN_RSEQ_SLICE_CTRL_OFFSET	28
#define USPIN_RSEQ_FLAG_SLICE_EXT_AVAILABLE	(1u << 4)
#define USPIN_RSEQ_FLAG_SLICE_EXT_ENABLED	(1u << 5)

/* rseq::slice_ctrl, little endian: byte 0 is ours, byte 1 the kernel's. */
struct uspin_rseq_slice_ctrl {
	uint8_t request;	/* set by the thread: "in a critical section" */
	uint8_t granted;	/* set by the kernel instead of preempting */
	uint16_t reserved;
};

#endif
