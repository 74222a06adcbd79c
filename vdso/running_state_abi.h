/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * running_state_abi.h - the user-space half of the kernel's running-state
 * ABI (kernel/patches/running-state/: include/uapi/linux/
 * sched_running_state.h and PR_SCHED_RUNNING_STATE in linux/prctl.h).
 *
 * The one place where uspin names it; tests/kernel compiles this header
 * against the patched uapi headers and fails if the two drift.
 *
 * A process opts in with
 *
 *   prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_ENABLE, &rs, sizeof(rs), 0)
 *
 * The kernel then publishes the running state of its threads (and of its
 * fork children, until exec) in an array, maps that array read-only into
 * the process, and fills rs.  In series v2 the array was the pid
 * namespace's, holding every opted-in process's threads; since v3 it is
 * the process's own (USPIN_RS_FLAG_PER_PROCESS), and
 * PR_SCHED_RS_MAP_PEER with a pidfd in the fifth argument maps another
 * process's array where ptrace could read that process.  PR_SCHED_RS_GET
 * only fills rs; PR_SCHED_RS_DISABLE (series v3) opts the process out
 * and fills rs.  Errors: EINVAL (no such prctl: a kernel without the
 * series; bad size or argument), EPERM (kernel.sched_running_state is 0),
 * ENOMEM; MAP_PEER also EBADF, ESRCH, EACCES, EXDEV (another pid
 * namespace).
 *
 * Entry of TID t: ((const uint32_t *)rs.base)[uspin_rs_abi_index(&rs, t)]
 * for t < rs.nr_entries, in running_state.h's encoding (0 unknown, 1 off
 * CPU, 2 on a CPU; version 2 of the series stored 2 + the CPU).
 */
#ifndef USPIN_RUNNING_STATE_ABI_H
#define USPIN_RUNNING_STATE_ABI_H

#include <stdint.h>

#define USPIN_PR_SCHED_RUNNING_STATE	0x53525354	/* "SRST" */
#define USPIN_PR_SCHED_RS_ENABLE	1
#define USPIN_PR_SCHED_RS_GET		2
#define USPIN_PR_SCHED_RS_DISABLE	3
#define USPIN_PR_SCHED_RS_MAP_PEER	4

/* The per-thread areas of kernel/patches/rseq/ (docs/rseq-state.md). */
#define USPIN_PR_SCHED_THREAD_STATE	0x53545453	/* "STTS" */
#define USPIN_PR_SCHED_TS_REGISTER	1
#define USPIN_PR_SCHED_TS_UNREGISTER	2
#define USPIN_PR_SCHED_TS_GET		3

#define USPIN_RS_VERSION		3
#define USPIN_RS_FLAG_OPTED_IN		0x1u	/* this process is published */
#define USPIN_RS_FLAG_PUBLISHING	0x2u	/* kernel.sched_running_state=1 */
#define USPIN_RS_FLAG_PER_PROCESS	0x4u	/* one process's threads only */

struct uspin_kernel_rs {
	uint32_t version;	/* USPIN_RS_VERSION */
	uint32_t flags;		/* USPIN_RS_FLAG_* */
	uint32_t nr_entries;	/* TIDs [0, nr_entries) have an entry */
	uint16_t entry_size;	/* 4 */
	uint8_t line_shift;	/* log2 entries per cache line (transpose) */
	uint8_t block_shift;	/* log2 entries per page (transpose block) */
	uint64_t base;		/* user address of the array, 0: not mapped */
	uint64_t size;		/* bytes mapped at base */
	uint64_t pid_ns;	/* st_ino of /proc/self/ns/pid it speaks */
};

#define USPIN_RS_SIZE_VER0	40

/*
 * Index of the entry of @tid: within each block of 2^block_shift entries
 * the TIDs are transposed so that 2^(block_shift - line_shift) consecutive
 * TIDs land in different cache lines (the kernel's sched_rs_index()).
 */
static inline uint32_t uspin_rs_abi_index(uint32_t tid, unsigned int line_shift,
					  unsigned int block_shift)
{
	unsigned int rows = block_shift - line_shift;

	return (tid >> block_shift << block_shift) |
	       ((tid & ((1u << rows) - 1)) << line_shift) |
	       ((tid >> rows) & ((1u << line_shift) - 1));
}

#endif
