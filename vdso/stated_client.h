/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stated_client.h - the client's receive of a uspin-stated reply, inside
 * libuspin (provider_bpf.c) and for tests/bpf, which speak the protocol
 * to the helper the same way.  Hidden: not libuspin's API.
 */
#ifndef USPIN_STATED_CLIENT_H
#define USPIN_STATED_CLIENT_H

#include <sys/types.h>

#include "stated/proto.h"

/*
 * One recvmsg() on @sock with @flags (MSG_CMSG_CLOEXEC, MSG_DONTWAIT...):
 * the reply into *@rep, the first two descriptors it carries into
 * @fds[0] and @fds[1] (-1 where fewer came; any more are closed), the
 * message's flags (MSG_TRUNC, MSG_CTRUNC) into *@msg_flags unless NULL.
 * The bytes received, or -errno.
 */
ssize_t uspin_stated_recv(int sock, int flags, struct uspin_stated_reply *rep,
			  int fds[2], int *msg_flags)
	__attribute__((visibility("hidden")));

#endif
