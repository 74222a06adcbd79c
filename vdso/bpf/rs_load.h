/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rs_load.h - load the running-state BPF program (libbpf skeleton), shared
 * by uspin-stated, libuspin's root-only self-load and the ping-pong bench.
 */
#ifndef USPIN_BPF_RS_LOAD_H
#define USPIN_BPF_RS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "running_state.h"

struct uspin_bpf_rs {
	void *skel;		/* struct running_state_bpf */
	void *link;		/* non-NULL while attached (links in skel) */
	int map_fd;		/* frozen: user space can only map it read-only */
	uint32_t nr_entries;
	size_t map_bytes;
};

int uspin_bpf_rs_load(struct uspin_bpf_rs *rs, int verbose);
int uspin_bpf_rs_attach(struct uspin_bpf_rs *rs);
void uspin_bpf_rs_detach(struct uspin_bpf_rs *rs);
void uspin_bpf_rs_destroy(struct uspin_bpf_rs *rs);
int uspin_bpf_rs_prog_fd(const struct uspin_bpf_rs *rs);

/* libuspin's fallback for privileged processes: see provider_bpf.c. */
int uspin_bpf_self_load(struct uspin_rs_view *view);

#endif
