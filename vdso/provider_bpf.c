// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_bpf.c - running state from the BPF program of vdso/bpf/ on a
 * stock kernel.
 *
 * attach: (a) ask uspin-stated (socket at $USPIN_STATED_SOCKET or
 * /run/uspin/stated.sock) for the frozen map and map it PROT_READ; (b) if
 * no helper answers and the process may load tracing programs, load a
 * private copy (uspin_bpf_self_load, in vdso/bpf/rs_load.c); (c) else fail,
 * and the next provider is tried.
 *
 * (b) is reached through a weak reference so that static links of
 * libuspin.a (the VM guest's binaries) need no libbpf: the archive member
 * holding the loader is only pulled in by a program that names it.
 * libuspin.so always contains it.
 *
 * The program indexes by global pid; the lock word holds TIDs of the
 * caller's pid namespace.  Outside the initial namespace we do not attach
 * (every query answers UNKNOWN), so a TID is never looked up under another
 * thread's pid.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "pid_namespace.h"
#include "running_state_providers.h"
#include "bpf/rs_layout.h"
#include "stated/proto.h"

extern int uspin_bpf_self_load(struct uspin_rs_view *view)
	__attribute__((weak));

/* CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON, is what tp_btf needs. */
static int may_load_bpf(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	return (eff >> CAP_SYS_ADMIN & 1) ||
	       ((eff >> 39 & 1) && (eff >> 38 & 1));	/* CAP_BPF, PERFMON */
}

static int connect_helper(const char *path)
{
	struct timeval tv = {
		.tv_sec = USPIN_STATED_CLIENT_TIMEOUT_MS / 1000,
		.tv_usec = USPIN_STATED_CLIENT_TIMEOUT_MS % 1000 * 1000,
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A wedged helper costs this process one timeout, once. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Receive the reply and at most one fd; close any other fd we are sent. */
static int recv_reply(int sock, struct uspin_stated_reply *rep, int *map_fd)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = rep, .iov_len = sizeof(*rep) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

	*map_fd = -1;
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		int *fds = (int *)CMSG_DATA(c);
		size_t i, nfds;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfds; i++) {
			if (*map_fd < 0)
				*map_fd = fds[i];
			else
				close(fds[i]);
		}
	}
	if (n != sizeof(*rep) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -EPROTO;
	return 0;
}

static int attach_via_helper(struct uspin_rs_view *view)
{
	const char *path = getenv(USPIN_STATED_SOCKET_ENV);
	struct uspin_stated_req req = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
		.size = sizeof(req),
	};
	struct uspin_stated_reply rep;
	int sock, map_fd = -1, err;
	void *p;

	sock = connect_helper(path && *path ? path : USPIN_STATED_SOCKET_DEFAULT);
	if (sock < 0)
		return -sock;
	if (send(sock, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		err = EPROTO;
	else
		err = -recv_reply(sock, &rep, &map_fd);
	close(sock);
	if (err)
		goto out;
	err = EPROTO;
	if (rep.magic != USPIN_STATED_MAGIC ||
	    rep.version != USPIN_STATED_VERSION)
		goto out;
	if (rep.status != 0) {
		err = rep.status < 0 ? -rep.status : EPROTO;
		goto out;
	}
	if (map_fd < 0 || rep.layout != USPIN_BPF_LAYOUT_VERSION || rep.stride == 0 ||
	    rep.nr_entries == 0 ||
	    (uint64_t)rep.nr_entries * rep.stride * 4 > rep.map_bytes)
		goto out;
	p = mmap(NULL, rep.map_bytes, PROT_READ, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		goto out;
	}
	/* The mapping holds the map; the fd is no longer needed. */
	view->base = p;
	view->stride = rep.stride;
	view->nr_entries = rep.nr_entries;
	err = 0;
out:
	if (map_fd >= 0)
		close(map_fd);
	return err;
}

static int bpf_attach(struct uspin_rs_view *view)
{
	int err;

	if (!uspin_in_initial_pid_ns())
		return EXDEV;
	err = attach_via_helper(view);
	if (err && uspin_bpf_self_load && may_load_bpf())
		err = uspin_bpf_self_load(view);
	return err;
}

const struct uspin_rs_provider uspin_rs_provider_bpf = {
	.name = "bpf",
	.attach = bpf_attach,
};
