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
 */
#ifndef USPIN_BPF_RS_LAYOUT_H
#define USPIN_BPF_RS_LAYOUT_H

#define USPIN_BPF_CHUNK_TIDS	1024	/* power of two: 4 KiB per element */

/* Version of the layout above (entry encoding as in running_state.h). */
#define USPIN_BPF_LAYOUT_VERSION	1

#endif
