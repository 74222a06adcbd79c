// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_bpf_main.c - runs the BPF provider's suites, leaving out (and
 * reporting as skipped) those whose preconditions this machine lacks.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "test_bpf.h"

int helper_exchange(const void *req, size_t len,
		    struct uspin_stated_reply *rep, int *fd)
{
	const char *path = getenv(USPIN_STATED_SOCKET_ENV);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = rep, .iov_len = sizeof(*rep) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int s;

	*fd = -1;
	if (!path)
		return -ENOENT;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    (len && send(s, req, len, MSG_NOSIGNAL) != (ssize_t)len)) {
		n = -errno;
		goto out;
	}
	n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		n = -errno;
		goto out;
	}
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
out:
	close(s);
	return (int)n;
}

struct uspin_stated_req good_request(void)
{
	struct uspin_stated_req r = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
		.size = sizeof(r),
	};

	return r;
}

int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY_ID) || setuid(NOBODY_ID))
		return -errno;
	return 0;
}

/* Why the helper cannot be used, or NULL when it answers. */
static const char *helper_missing(void)
{
	static char why[160];
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	int fd, n;

	if (!getenv(USPIN_STATED_SOCKET_ENV))
		return "USPIN_STATED_SOCKET not set (run through make check-bpf)";
	n = helper_exchange(&req, sizeof(req), &rep, &fd);
	if (fd >= 0)
		close(fd);
	if (n == (int)sizeof(rep) && rep.status == 0 && fd >= 0)
		return NULL;
	snprintf(why, sizeof(why), "uspin-stated at %s does not answer (%s)",
		 getenv(USPIN_STATED_SOCKET_ENV),
		 n < 0 ? strerror(-n) : "bad reply");
	return why;
}

int main(void)
{
	const char *no_helper = helper_missing();
	const char *no_root = geteuid() == 0 ? NULL :
		"not root: loading BPF and switching to uid 65534 need root";
	const struct {
		const char *name;
		TCase *(*make)(void);
		int needs_helper, needs_root;
	} cases[] = {
		{ "helper-protocol", tcase_helper_protocol, 1, 0 },
		{ "unprivileged", tcase_unprivileged, 1, 1 },
		{ "provider", tcase_provider, 1, 0 },
		{ "root-only", tcase_root_only, 0, 1 },
		{ "uspin-info", tcase_uspin_info, 1, 1 },
	};
	Suite *s = suite_create("bpf");
	SRunner *sr;
	size_t i;
	int run, failed, skipped = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = cases[i].needs_helper && no_helper ? no_helper :
				  cases[i].needs_root && no_root ? no_root : NULL;

		if (why) {
			printf("SKIP: bpf/%s: %s\n", cases[i].name, why);
			skipped++;
			continue;
		}
		suite_add_tcase(s, cases[i].make());
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("test-bpf: %d tests run, %d failed, %d test cases skipped\n",
	       run, failed, skipped);
	return failed ? 1 : 0;
}
