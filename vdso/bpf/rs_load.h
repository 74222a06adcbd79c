/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rs_load.h - load the running-state BPF program (libbpf skeleton).  Used
 * by uspin-stated and by measurement tools (bpf-pingpong); never linked
 * into libuspin, which only maps what the helper hands out.
 */
#ifndef USPIN_BPF_RS_LOAD_H
#define USPIN_BPF_RS_LOAD_H

#include <stddef.h>
#include <stdint.h>

struct uspin_bpf_rs {
	void *skel;		/* struct running_state_bpf */
	void *link;		/* non-NULL while attached (links in skel) */
	int map_fd;		/* frozen: user space can only map it read-only */
	uint32_t map_id;	/* the kernel's id of that map */
	uint32_t nr_entries;	/* TIDs covered; the run queues' chunk follows */
	size_t map_bytes;
	int reused;		/* the map was handed in (reuse_fd), not created */
};

/*
 * uspin_bpf_rs_load_map() - load the program with a new map sized for
 * pid_max (all entries unknown) or, when @reuse_fd >= 0, with that map (a
 * map an earlier helper pinned; see uspin_bpf_rs_check_map()).  Not
 * attached.  0 or a negative errno.  uspin_bpf_rs_load(): a new map.
 */
int uspin_bpf_rs_load_map(struct uspin_bpf_rs *rs, int verbose, int reuse_fd);
int uspin_bpf_rs_load(struct uspin_bpf_rs *rs, int verbose);
/* Is @fd a map this program can reuse?  0 (and its chunk count) or -errno. */
int uspin_bpf_rs_check_map(int fd, uint32_t *chunks, uint32_t *id);
int uspin_bpf_rs_attach(struct uspin_bpf_rs *rs);
void uspin_bpf_rs_detach(struct uspin_bpf_rs *rs);
/* Every entry back to unknown (run the reset program); 0 or -errno. */
int uspin_bpf_rs_reset(struct uspin_bpf_rs *rs);
void uspin_bpf_rs_destroy(struct uspin_bpf_rs *rs);
/* For measurements: the sched_switch program's fd, the repair's (or -1). */
int uspin_bpf_rs_prog_fd(const struct uspin_bpf_rs *rs);
int uspin_bpf_rs_repair_prog_fd(const struct uspin_bpf_rs *rs);

#endif
