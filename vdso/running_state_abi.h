/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * running_state_abi.h - the user-space half of the kernel's running-state
 * ABI (kernel/patches: include/uapi/linux/sched_running_state.h).
 *
 * The one place where uspin names it; tests/kernel compiles this header
 * against the patched uapi header and fails if the two drift.
 *
 * The kernel maps a read-only array of one __u32 per TID next to the vDSO
 * data pages and exports a vDSO function that describes it:
 *
 *   long __vdso_sched_running_state(struct sched_running_state *rs,
 *                                   unsigned long size);
 *
 * It fills *rs (at most @size bytes) and returns 0, or -EINVAL when @size
 * is smaller than the version-1 layout.  Entries use running_state.h's
 * encoding (0 off CPU, 0xffffffff unknown, n on CPU n - 1).
 */
#ifndef USPIN_RUNNING_STATE_ABI_H
#define USPIN_RUNNING_STATE_ABI_H

#include <stdint.h>

#define USPIN_VDSO_RS_SYMBOL	"__vdso_sched_running_state"
#define USPIN_VDSO_RS_VERSION	"LINUX_2.6"	/* x86-64 vDSO symbol version */

#define USPIN_RS_LAYOUT_V1		1
#define USPIN_RS_FLAG_PUBLISHING	0x1u	/* sysctl on: entries are live */

struct uspin_vdso_running_state {
	uint32_t version;	/* layout version, USPIN_RS_LAYOUT_V1 */
	uint32_t entry_size;	/* bytes per entry: 4 */
	uint32_t nr_entries;	/* TIDs [0, nr_entries) are covered */
	uint32_t flags;		/* USPIN_RS_FLAG_* */
	uint64_t base;		/* user address of the entry of TID 0 */
};

typedef long (*uspin_vdso_rs_fn)(struct uspin_vdso_running_state *rs,
				 unsigned long size);

#endif
