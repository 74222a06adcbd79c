/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rs_layout.h - layout of the BPF running-state map, shared by the BPF
 * program (which sees only vmlinux.h types, hence #defines only here) and
 * user space.
 *
 * Array map elements are 8-byte aligned, so one u32 per element would leave
 * a hole after every entry (stride 2), and one element holding the whole
 * array is capped at KMALLOC_MAX_SIZE (4 MiB = 1 M TIDs, less than the
 * 4 M pid_max systemd sets).  Instead every element is a page-sized chunk
 * of USPIN_BPF_CHUNK_TIDS consecutive entries: elements of a mmapable array
 * lie back to back from offset 0 of the mapping, so user space sees one
 * dense u32 array (stride 1) of any length, and the program does one array
 * lookup per task it writes.
 *
 * Entries use encoding version 2 of running_state.h: 0 unknown, 1 off CPU,
 * cpu + 2 on CPU.  A freshly created map (all zero) is all-unknown.
 *
 * One more chunk follows the TIDs' (layout 3): entry c of it is the number
 * of tasks runnable on CPU c, the one running included (the run queue's
 * nr_running, published at every switch and wake-up there), so that a
 * spinner can see that its own CPU is wanted; 0 until first published.
 */
#ifndef USPIN_BPF_RS_LAYOUT_H
#define USPIN_BPF_RS_LAYOUT_H

#define USPIN_BPF_CHUNK_TIDS	1024	/* power of two: 4 KiB per element */
#define USPIN_BPF_CHUNK_BYTES	(USPIN_BPF_CHUNK_TIDS * 4)
/* PID_MAX_LIMIT (4 M TIDs) in chunks, and the run-queue chunk. */
#define USPIN_BPF_MAX_TID_CHUNKS	4096
#define USPIN_BPF_MAX_CHUNKS	(USPIN_BPF_MAX_TID_CHUNKS + 1)

/* Version of the layout above, entries in encoding 2. */
#define USPIN_BPF_LAYOUT_VERSION	3
/* CPUs the run-queue chunk covers. */
#define USPIN_BPF_MAX_CPUS		USPIN_BPF_CHUNK_TIDS

/* Encoding 2 (running_state.h), for the BPF side. */
#define USPIN_BPF_ENTRY_UNKNOWN	0
#define USPIN_BPF_ENTRY_OFF	1
#define USPIN_BPF_ENTRY_CPU0	2

/* BPF_F_MMAPABLE: the map flags user space checks on a reused map. */
#define USPIN_BPF_MAP_FLAGS	(1U << 10)

#endif
