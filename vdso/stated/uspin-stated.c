// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin-stated - load the running-state BPF program once and hand its map
 * to any local process that asks, so unprivileged programs get the
 * running-state array without loading BPF themselves.
 *
 * Clients are served one at a time, each bounded by a socket timeout: the
 * exchange is one small message each way, so a queue of well-behaved
 * clients drains in microseconds and a silent one costs the others at
 * most USPIN_STATED_SERVER_TIMEOUT_MS.  Protocol: stated/proto.h; trust model:
 * NOTES.md.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "bpf/rs_layout.h"
#include "bpf/rs_load.h"
#include "stated/proto.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uspin-stated [--socket PATH] [--foreground] [--pidfile PATH]\n"
		"Loads the uspin running-state BPF program and hands its read-only\n"
		"map to clients on PATH (default %s).\n",
		USPIN_STATED_SOCKET_DEFAULT);
}

/* Create the socket's directory (0755) if it is missing. */
static int make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	err = make_parent_dir(path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A live helper answers connect(); only a stale socket is removed. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return -EADDRINUSE;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(path, 0666) != 0 || listen(fd, 64) != 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Validate a request: 0, or the -errno the reply carries. */
static int check_request(const struct uspin_stated_req *req, ssize_t n)
{
	if (n != (ssize_t)sizeof(*req) || req->magic != USPIN_STATED_MAGIC)
		return -EPROTO;
	if (req->version != USPIN_STATED_VERSION)
		return -EPROTONOSUPPORT;
	if (req->size != sizeof(*req) || req->flags != 0)
		return -EINVAL;
	return 0;
}

static void serve_one(int conn, const struct uspin_bpf_rs *rs)
{
	struct timeval tv = { .tv_usec = USPIN_STATED_SERVER_TIMEOUT_MS * 1000 };
	/* One spare byte: an oversized request is seen as the wrong size. */
	union {
		struct uspin_stated_req req;
		char raw[sizeof(struct uspin_stated_req) + 1];
	} in;
	struct uspin_stated_reply rep = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
	};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	tv.tv_sec = tv.tv_usec / 1000000;
	tv.tv_usec %= 1000000;
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = recv(conn, &in, sizeof(in), 0);
	if (n <= 0)		/* gone, or silent past the timeout */
		return;
	rep.status = check_request(&in.req, n);
	if (rep.status == 0) {
		rep.layout = USPIN_BPF_LAYOUT_VERSION;
		rep.nr_entries = rs->nr_entries;
		rep.stride = 1;
		rep.map_bytes = rs->map_bytes;
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &rs->map_fd, sizeof(int));
	}
	/* The client may be gone already: no SIGPIPE, and nothing to do. */
	sendmsg(conn, &msg, MSG_NOSIGNAL);
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "%d\n", (int)getpid());
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = USPIN_STATED_SOCKET_DEFAULT, *pidfile = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct uspin_bpf_rs rs;
	sigset_t block, orig;
	int foreground = 0, lfd, err, o;

	while ((o = getopt_long(argc, argv, "s:fp:h", opts, NULL)) != -1) {
		switch (o) {
		case 's': path = optarg; break;
		case 'f': foreground = 1; break;
		case 'p': pidfile = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	err = uspin_bpf_rs_load(&rs, 1);
	if (!err)
		err = uspin_bpf_rs_attach(&rs);
	if (err) {
		fprintf(stderr, "uspin-stated: cannot load the BPF program: %s\n",
			strerror(-err));
		return 1;
	}
	lfd = listen_on(path);
	if (lfd < 0) {
		fprintf(stderr, "uspin-stated: %s: %s\n", path, strerror(-lfd));
		return 1;
	}
	if (!foreground && daemon(0, 0) != 0) {
		perror("uspin-stated: daemon");
		return 1;
	}
	if (pidfile && (err = write_pidfile(pidfile)) != 0) {
		fprintf(stderr, "uspin-stated: %s: %s\n", pidfile, strerror(-err));
		unlink(path);
		return 1;
	}

	/* Signals are only delivered inside ppoll(), so none is missed. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int conn;

		if (ppoll(&p, 1, NULL, &orig) <= 0)
			continue;
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		serve_one(conn, &rs);
		close(conn);
	}
	close(lfd);
	unlink(path);
	if (pidfile)
		unlink(pidfile);
	uspin_bpf_rs_destroy(&rs);
	return 0;
}
