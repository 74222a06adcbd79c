// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_bpf.c - running state from uspin-stated on a stock kernel.
 *
 * Opt-in only: libuspin never loads anything into the kernel.  If an
 * administrator runs uspin-stated (vdso/stated/), attach() -- once, from
 * libuspin's setup -- asks it, within USPIN_STATED_CLIENT_TIMEOUT_MS, for
 * the BPF map and the status page, and maps both read-only:
 *   - the map: one u32 per TID, encoding 2, stride 1, then one per CPU:
 *     the tasks runnable there (view.rq: is a spinner's CPU wanted?);
 *   - the status page: its first word is the view's liveness word, held by
 *     the helper as a robust futex, so every query answers UNKNOWN from
 *     the moment the helper dies until a new helper takes the same page
 *     and map over (then this process reads correct entries again without
 *     doing anything: no IPC ever happens after attach).
 * No helper: attach fails at once (ENOENT / ECONNREFUSED), the next
 * provider is tried, and describe() says how to opt in.
 *
 * Socket: $USPIN_STATED_SOCKET (ignored in set-uid/set-gid programs) or
 * /run/uspin/stated.sock; the listening end must belong to root or to us.
 *
 * The program indexes by global pid; the lock word holds TIDs of the
 * caller's pid namespace.  Outside the initial namespace we do not attach,
 * and new_process() drops the view in a fork child that landed in another
 * namespace, so a TID is never looked up under another thread's pid.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pid_namespace.h"
#include "running_state_providers.h"
#include "bpf/rs_layout.h"
#include "stated/proto.h"
#include "stated_client.h"

/* What attach() found, for describe().  Written once, in setup. */
static struct {
	int tried;
	int err;			/* 0: attached */
	const char *why;		/* the step that failed */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const volatile struct uspin_stated_status *status;
	uint32_t nr_entries;
} bpf;

static const char *socket_path(void)
{
	const char *p = secure_getenv(USPIN_STATED_SOCKET_ENV);

	return p && *p ? p : USPIN_STATED_SOCKET_DEFAULT;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (ms); 0 or a positive errno. */
static int wait_until(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = deadline - mono_ms();
		if (left <= 0)
			return ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return errno;
	}
}

/*
 * Connect without blocking past @deadline: a listener whose backlog is
 * full answers EAGAIN to a non-blocking connect (Unix sockets never
 * complete it asynchronously), so retry every millisecond.
 */
static int connect_helper(const char *path, int64_t deadline, int *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec ms = { 0, 1000000 };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		if (err == EINTR)
			continue;
		if (err != EAGAIN || mono_ms() >= deadline) {
			close(fd);
			return err == EAGAIN ? ETIMEDOUT : err;
		}
		nanosleep(&ms, NULL);
	}
	/* Who listens: root (the helper) or ourselves, nobody else. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
	    (cr.uid != 0 && cr.uid != getuid())) {
		close(fd);
		return EPERM;
	}
	*sock = fd;
	return 0;
}

ssize_t uspin_stated_recv(int sock, int flags, struct uspin_stated_reply *rep,
			  int fds[2], int *msg_flags)
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
	ssize_t n;
	int nfds = 0;

	fds[0] = fds[1] = -1;
	n = recvmsg(sock, &msg, flags);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t i, k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (nfds < 2)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	if (msg_flags)
		*msg_flags = msg.msg_flags;
	return n;
}

/* Receive the reply and its two fds by @deadline: 0 or a positive errno. */
static int recv_reply(int sock, int64_t deadline,
		      struct uspin_stated_reply *rep, int fds[2])
{
	ssize_t n;
	int err, mflags;

	err = wait_until(sock, POLLIN, deadline);
	if (err)
		return err;
	n = uspin_stated_recv(sock, MSG_CMSG_CLOEXEC | MSG_DONTWAIT, rep, fds,
			      &mflags);
	if (n < 0)
		return (int)-n;
	if (n != sizeof(*rep) || (mflags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    rep->magic != USPIN_STATED_MAGIC || rep->version != USPIN_STATED_VERSION)
		return EPROTO;
	if (rep->status != 0)
		return rep->status < 0 && rep->status > -4096 ? -rep->status : EPROTO;
	return fds[1] >= 0 && rep->nfds == 2 ? 0 : EPROTO;
}

/* The status page: a root-owned (or our own) regular file, big enough. */
static int map_status(int fd, const struct uspin_stated_reply *rep,
		      const volatile struct uspin_stated_status **out)
{
	const volatile struct uspin_stated_status *st;
	struct stat sb;
	void *p;

	if (fstat(fd, &sb) != 0)
		return errno;
	if (!S_ISREG(sb.st_mode) || (sb.st_uid != 0 && sb.st_uid != getuid()) ||
	    rep->status_bytes < sizeof(*st) ||
	    rep->status_bytes % USPIN_STATED_STATUS_BYTES ||
	    (uint64_t)sb.st_size < rep->status_bytes)
		return EPROTO;
	p = mmap(NULL, rep->status_bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return errno;
	st = p;
	if (st->magic != USPIN_STATED_STATUS_MAGIC ||
	    st->version != USPIN_STATED_STATUS_VERSION ||
	    st->layout != USPIN_BPF_LAYOUT_VERSION ||
	    st->nr_entries != rep->nr_entries) {
		munmap(p, rep->status_bytes);
		return EPROTO;
	}
	*out = st;
	return 0;
}

static int attach_via_helper(struct uspin_rs_view *view)
{
	const struct uspin_stated_req req = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
		.size = sizeof(req),
	};
	int64_t deadline = mono_ms() + USPIN_STATED_CLIENT_TIMEOUT_MS;
	const volatile struct uspin_stated_status *st = NULL;
	struct uspin_stated_reply rep;
	int sock = -1, fds[2] = { -1, -1 }, err;
	void *map;

	bpf.why = "cannot reach uspin-stated";
	err = connect_helper(bpf.path, deadline, &sock);
	if (err)
		return err;
	bpf.why = "uspin-stated did not hand out the map";
	/* The queue of a fresh connection has room: this never waits. */
	if (send(sock, &req, sizeof(req), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(req))
		err = errno;
	else
		err = recv_reply(sock, deadline, &rep, fds);
	close(sock);
	if (err)
		goto out;
	err = EPROTO;
	bpf.why = "uspin-stated's reply does not describe a map this library reads";
	if (rep.layout != USPIN_BPF_LAYOUT_VERSION || rep.stride != 1 ||
	    rep.nr_entries == 0 || rep.nr_entries % USPIN_BPF_CHUNK_TIDS ||
	    rep.nr_entries > USPIN_BPF_MAX_TID_CHUNKS * USPIN_BPF_CHUNK_TIDS ||
	    rep.map_bytes != ((uint64_t)rep.nr_entries + USPIN_BPF_MAX_CPUS) *
			     sizeof(uint32_t))
		goto out;
	bpf.why = "cannot map the status page";
	err = map_status(fds[1], &rep, &st);
	if (err)
		goto out;
	bpf.why = "cannot map the running-state map";
	map = mmap(NULL, rep.map_bytes, PROT_READ, MAP_SHARED, fds[0], 0);
	if (map == MAP_FAILED) {
		err = errno;
		munmap((void *)st, rep.status_bytes);
		goto out;
	}
	/* The mappings hold the map and the page; the fds are not needed. */
	view->base = map;
	view->stride = 1;
	view->has_cpu = 1;	/* the program stores 2 + cpu */
	view->nr_entries = rep.nr_entries;
	view->rq = (const volatile uint32_t *)map + rep.nr_entries;
	view->nr_rq = USPIN_BPF_MAX_CPUS;
	view->alive = &st->alive;
	bpf.status = st;
	bpf.nr_entries = rep.nr_entries;
	err = 0;
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return err;
}

static int bpf_attach(struct uspin_rs_view *view)
{
	bpf.tried = 1;
	snprintf(bpf.path, sizeof(bpf.path), "%s", socket_path());
	if (!uspin_in_initial_pid_ns()) {
		bpf.why = "not in the initial pid namespace (the map speaks global TIDs)";
		bpf.err = EXDEV;
		return bpf.err;
	}
	bpf.err = attach_via_helper(view);
	return bpf.err;
}

/* The BPF map speaks global TIDs: useless in another pid namespace. */
static void bpf_new_process(struct uspin_rs_view *view)
{
	if (view->nr_entries && !uspin_in_initial_pid_ns())
		__atomic_store_n(&view->nr_entries, 0, __ATOMIC_RELEASE);
}

static const char *bpf_describe(void)
{
	static char line[400];
	uint32_t w;

	if (!bpf.tried) {
		snprintf(line, sizeof(line),
			 "not tried (another provider attached first); would ask uspin-stated at %s",
			 socket_path());
	} else if (bpf.err == 0) {
		w = bpf.status->alive;
		if (uspin_rs_alive_word(w))
			snprintf(line, sizeof(line),
				 "map from uspin-stated at %s: %u TIDs, helper pid %u live (generation %u)",
				 bpf.path, bpf.nr_entries, bpf.status->helper_pid,
				 bpf.status->generation);
		else
			snprintf(line, sizeof(line),
				 "map from uspin-stated at %s: helper gone, every answer UNKNOWN until an administrator restarts it (this process then resumes by itself)",
				 bpf.path);
	} else {
		snprintf(line, sizeof(line),
			 "not attached: %s at %s (%s). libuspin never loads BPF itself; to opt in, an administrator runs uspin-stated as root",
			 bpf.why, bpf.path, strerror(bpf.err));
	}
	return line;
}

const struct uspin_rs_provider uspin_rs_provider_bpf = {
	.name = "bpf",
	.attach = bpf_attach,
	.new_process = bpf_new_process,
	.describe = bpf_describe,
};
