/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * proto.h - the uspin-stated protocol (version 2) and its status page.
 *
 * One request, one reply, on a SOCK_SEQPACKET Unix socket (a message
 * arrives whole or not at all, and a short or long one is seen as such).
 * The client sends struct uspin_stated_req; the helper answers with struct
 * uspin_stated_reply and closes.  When status is 0 the reply carries two
 * file descriptors (SCM_RIGHTS), in this order:
 *   [0] the frozen, mmapable BPF array map (user space can only map it
 *       PROT_READ; map_bytes from offset 0; entries as in running_state.h,
 *       encoding 2, stride 1, for nr_entries TIDs, then, in layout 3,
 *       USPIN_BPF_MAX_CPUS run-queue lengths: bpf/rs_layout.h);
 *   [1] the status page, opened O_RDONLY (status_bytes from offset 0,
 *       struct uspin_stated_status).
 * Anything else -- wrong size, magic, version or flags, a peer outside the
 * allowed group -- gets a reply with a negative errno and no fds.  A peer
 * silent for USPIN_STATED_SERVER_TIMEOUT_MS is dropped without a reply.
 * A version bump changes the request and the reply.  See
 * docs/bpf-provider.md.
 */
#ifndef USPIN_STATED_PROTO_H
#define USPIN_STATED_PROTO_H

#include <stdint.h>

#define USPIN_STATED_SOCKET_DEFAULT	"/run/uspin/stated.sock"
#define USPIN_STATED_STATUS_DEFAULT	"/run/uspin/status"
#define USPIN_STATED_PIN_DEFAULT	"/sys/fs/bpf/uspin/running_state"
#define USPIN_STATED_SOCKET_ENV		"USPIN_STATED_SOCKET"
#define USPIN_STATED_MAGIC		0x55535053u	/* "SPSU" little-endian */
#define USPIN_STATED_VERSION		2u
/*
 * The client's whole attach (connect, request, reply) is bounded by this;
 * it runs once, in libuspin's constructor.  The helper never blocks on a
 * client, so a live helper answers in microseconds.
 */
#define USPIN_STATED_CLIENT_TIMEOUT_MS	250
/* A connection that sends no request for this long is dropped. */
#define USPIN_STATED_SERVER_TIMEOUT_MS	1000

struct uspin_stated_req {
	uint32_t magic;
	uint32_t version;
	uint32_t size;		/* sizeof(struct uspin_stated_req) */
	uint32_t flags;		/* must be 0 */
};

struct uspin_stated_reply {
	uint32_t magic;
	uint32_t version;
	int32_t status;		/* 0, or -errno: no fds attached */
	uint32_t layout;	/* USPIN_BPF_LAYOUT_VERSION */
	uint32_t nr_entries;	/* TIDs [0, nr_entries) are covered */
	uint32_t stride;	/* in uint32_t units */
	uint64_t map_bytes;	/* length of the map to mmap from offset 0 */
	uint32_t status_bytes;	/* length of the status page */
	uint32_t nfds;		/* fds attached: 2 when status is 0, else 0 */
};

/*
 * The status page: a root-owned file (default /run/uspin/status) that
 * every client maps read-only and that outlives helpers.  A helper that
 * takes it over keeps using the same map (pinned in bpffs), so clients
 * that attached to an earlier helper resume without doing anything.
 *
 * alive is the liveness word of running_state.h, in robust-futex format:
 * the TID of the helper while it publishes, with FUTEX_OWNER_DIED set by
 * the kernel the moment that helper dies (it is on the helper's robust
 * list), or by the helper itself when it stops.  Clients read it on every
 * query and answer UNKNOWN while it is not live.
 */
struct uspin_stated_status {
	uint32_t alive;		/* offset 0: helper TID | FUTEX_OWNER_DIED */
	uint32_t magic;		/* USPIN_STATED_STATUS_MAGIC */
	uint32_t version;	/* USPIN_STATED_STATUS_VERSION */
	uint32_t layout;	/* USPIN_BPF_LAYOUT_VERSION of the map */
	uint32_t nr_entries;	/* TIDs the map covers */
	uint32_t map_id;	/* kernel id of the map this page speaks for */
	uint32_t generation;	/* helpers that went live on this page */
	uint32_t helper_pid;	/* the last helper that went live */
};

#define USPIN_STATED_STATUS_MAGIC	0x54535355u	/* "USST" */
#define USPIN_STATED_STATUS_VERSION	1u
#define USPIN_STATED_STATUS_BYTES	4096u

#endif
