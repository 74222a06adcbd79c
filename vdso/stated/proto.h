/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * proto.h - the uspin-stated protocol: one request, one reply, on a
 * SOCK_SEQPACKET Unix socket (so a message arrives whole or not at all and
 * a short one is seen as short).
 *
 * The client sends struct uspin_stated_req.  The helper answers with
 * struct uspin_stated_reply; when status is 0 the reply carries one file
 * descriptor (SCM_RIGHTS): the frozen, mmapable BPF array map, which user
 * space can only map PROT_READ (see NOTES.md).  Anything else — wrong
 * size, magic or version — gets a reply with a negative errno and no fd,
 * then the connection is closed.  A version bump changes both structs.
 */
#ifndef USPIN_STATED_PROTO_H
#define USPIN_STATED_PROTO_H

#include <stdint.h>

#define USPIN_STATED_SOCKET_DEFAULT	"/run/uspin/stated.sock"
#define USPIN_STATED_SOCKET_ENV		"USPIN_STATED_SOCKET"
#define USPIN_STATED_MAGIC		0x55535053u	/* "SPSU" little-endian */
#define USPIN_STATED_VERSION		1u
/*
 * A silent peer is dropped after this long.  The helper's limit is the
 * shorter, so a client queued behind a silent one is still answered.
 */
#define USPIN_STATED_CLIENT_TIMEOUT_MS	2000
#define USPIN_STATED_SERVER_TIMEOUT_MS	250

struct uspin_stated_req {
	uint32_t magic;
	uint32_t version;
	uint32_t size;		/* sizeof(struct uspin_stated_req) */
	uint32_t flags;		/* must be 0 */
};

struct uspin_stated_reply {
	uint32_t magic;
	uint32_t version;
	int32_t status;		/* 0, or -errno: no fd attached */
	uint32_t layout;	/* USPIN_BPF_LAYOUT_VERSION */
	uint32_t nr_entries;	/* TIDs [0, nr_entries) are covered */
	uint32_t stride;	/* in uint32_t units */
	uint64_t map_bytes;	/* length to mmap from offset 0 */
};

#endif
