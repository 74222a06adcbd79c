// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_helper.c - uspin-stated against hostile and careless clients: bad,
 * truncated, oversized and random requests get a clean refusal; clients
 * that vanish or stay silent neither wedge the helper nor delay anyone
 * else; each client's credentials are logged; an unprivileged process
 * gets a map and a status page it can read but not write; --group keeps
 * everyone else out.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <bpf/bpf.h>

#include "test_bpf.h"
#include "bpf/rs_layout.h"

static void close_fds(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

static void expect_refused(const void *req, size_t len, int status)
{
	struct uspin_stated_reply rep;
	int fds[2], n = helper_exchange(req, len, &rep, fds);

	ck_assert_int_eq(n, sizeof(rep));
	ck_assert_int_eq(fds[0], -1);
	ck_assert_uint_eq(rep.magic, USPIN_STATED_MAGIC);
	ck_assert_uint_eq(rep.version, USPIN_STATED_VERSION);
	ck_assert_int_eq(rep.status, status);
	ck_assert_uint_eq(rep.nfds, 0);
}

/* A good request still gets the map: the helper is alive and serving. */
static void expect_served(void)
{
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	int fds[2], n = helper_exchange(&req, sizeof(req), &rep, fds);

	ck_assert_int_eq(n, sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	ck_assert_int_ge(fds[0], 0);
	ck_assert_int_ge(fds[1], 0);
	ck_assert_uint_eq(rep.nfds, 2);
	ck_assert_uint_eq(rep.stride, 1);
	ck_assert_uint_ge(rep.nr_entries, 1024);
	/* The TIDs, then the run queues of USPIN_BPF_MAX_CPUS CPUs. */
	ck_assert_uint_eq(rep.map_bytes,
			  ((uint64_t)rep.nr_entries + USPIN_BPF_MAX_CPUS) * 4);
	ck_assert_uint_eq(rep.status_bytes, USPIN_STATED_STATUS_BYTES);
	close_fds(fds);
}

static void expect_helper_alive(void)
{
	const char *pid = getenv("USPIN_STATED_PID");

	if (pid)
		ck_assert_msg(kill(atoi(pid), 0) == 0, "uspin-stated %s is gone", pid);
	expect_served();
}

/* Wait (up to 3 s) for @needle in the runner's helper log. */
static int log_has(const char *path, const char *needle)
{
	int t;

	for (t = 0; t < 3000; t += 20) {
		if (strstr(helper_log(path), needle))
			return 1;
		usleep(20000);
	}
	return 0;
}

/*
 * SO_PEERCRED, logged: a child as uid 65534 asks once properly and once
 * with garbage; both lines name its pid and uid.
 */
START_TEST(client_credentials_are_logged)
{
	const char *log = getenv("USPIN_STATED_LOG");
	char served[128], refused[128];
	int st;
	pid_t pid;

	ck_assert_msg(log != NULL, "USPIN_STATED_LOG not set");
	/* The log is rate-limited per second: start in a fresh second. */
	usleep(1100 * 1000);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct uspin_stated_req req = good_request();
		struct uspin_stated_reply rep;
		int fds[2];

		if (become_nobody())
			_exit(1);
		if (helper_exchange(&req, sizeof(req), &rep, fds) != sizeof(rep) ||
		    rep.status != 0)
			_exit(2);
		req.magic = 0;
		if (helper_exchange(&req, sizeof(req), &rep, fds) != sizeof(rep) ||
		    rep.status != -EPROTO)
			_exit(3);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %#x", st);
	snprintf(served, sizeof(served), "client pid %d uid %d gid %d: served",
		 (int)pid, NOBODY_ID, NOBODY_ID);
	snprintf(refused, sizeof(refused),
		 "client pid %d uid %d gid %d: refused: malformed request",
		 (int)pid, NOBODY_ID, NOBODY_ID);
	ck_assert_msg(log_has(log, served), "no '%s' in the log:\n%s", served,
		      helper_log(log));
	ck_assert_msg(log_has(log, refused), "no '%s' in the log:\n%s", refused,
		      helper_log(log));
}
END_TEST

START_TEST(refuses_bad_requests)
{
	struct uspin_stated_req req = good_request();
	static char huge[65536];
	char garbage[sizeof(req)], big[sizeof(req) + 8] = { 0 };
	size_t i;

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 37 + 11);
	expect_refused(garbage, sizeof(garbage), -EPROTO);
	expect_refused(&req, 0, -EPROTO);			/* empty */
	expect_refused(&req, sizeof(req) - 1, -EPROTO);		/* short */
	expect_refused(&req, 4, -EPROTO);
	memcpy(big, &req, sizeof(req));
	expect_refused(big, sizeof(big), -EPROTO);		/* long */
	memcpy(huge, &req, sizeof(req));
	expect_refused(huge, sizeof(huge), -EPROTO);		/* 64 KiB */
	req.version = USPIN_STATED_VERSION + 1;
	expect_refused(&req, sizeof(req), -EPROTONOSUPPORT);
	req.version = 1;					/* v1 client */
	expect_refused(&req, sizeof(req), -EPROTONOSUPPORT);
	req = good_request();
	req.flags = 1;
	expect_refused(&req, sizeof(req), -EINVAL);
	req = good_request();
	req.size = 8;
	expect_refused(&req, sizeof(req), -EINVAL);
	expect_helper_alive();
}
END_TEST

/*
 * A good request carrying an fd: refused by the kernel where the helper
 * could switch SCM_RIGHTS off (SO_PASSRIGHTS, 6.16+), else by the helper.
 */
START_TEST(refuses_requests_carrying_fds)
{
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &req, .iov_len = sizeof(req) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int s = silent_connect(NULL), fd = open("/dev/null", O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(s, 0);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	n = sendmsg(s, &msg, MSG_NOSIGNAL);
	if (n < 0) {
		ck_assert_int_eq(errno, EPERM);
	} else {
		ck_assert_int_eq(recv(s, &rep, sizeof(rep), 0), sizeof(rep));
		ck_assert_int_eq(rep.status, -EINVAL);
	}
	close(s);
	close(fd);
	expect_helper_alive();
}
END_TEST

static uint64_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 16);
}

/*
 * Random requests: pure noise, a good request with a few bytes changed,
 * cut short, or with a tail.  Each gets exactly the answer the protocol
 * gives (served iff it is byte for byte a good request), and the helper
 * serves properly afterwards.
 */
START_TEST(fuzzed_requests_get_clean_refusals)
{
	const struct uspin_stated_req good = good_request();
	const char *seed_env = getenv("USPIN_FUZZ_SEED");
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x5eed0f0e5a11ull;
	static unsigned char msg[4096 + 64];
	int i, served = 0, refused = 0;

	rnd_state = seed ? seed : 1;
	for (i = 0; i < 600; i++) {
		struct uspin_stated_reply rep;
		size_t len, k, j;
		int fds[2], n, valid;

		switch (rnd() % 5) {
		case 0:				/* noise */
			len = rnd() % 48;
			for (k = 0; k < len; k++)
				msg[k] = (unsigned char)rnd();
			break;
		case 1:				/* a few bytes changed */
			len = sizeof(good);
			memcpy(msg, &good, len);
			for (j = rnd() % 3 + 1; j; j--)
				msg[rnd() % len] = (unsigned char)rnd();
			break;
		case 2:				/* truncated */
			len = rnd() % sizeof(good);
			memcpy(msg, &good, sizeof(good));
			break;
		case 3:				/* a tail */
			len = sizeof(good) + 1 + rnd() % (sizeof(msg) - sizeof(good) - 1);
			memcpy(msg, &good, sizeof(good));
			for (k = sizeof(good); k < len; k++)
				msg[k] = (unsigned char)rnd();
			break;
		default:			/* good but for one field */
			len = sizeof(good);
			memcpy(msg, &good, len);
			((uint32_t *)msg)[rnd() % 4] = rnd() % 4;
			break;
		}
		valid = len == sizeof(good) && memcmp(msg, &good, len) == 0;
		n = helper_exchange(msg, len, &rep, fds);
		ck_assert_msg(n == (int)sizeof(rep),
			      "seed %#llx case %d: reply length %d",
			      (unsigned long long)seed, i, n);
		ck_assert_uint_eq(rep.magic, USPIN_STATED_MAGIC);
		if (valid) {
			ck_assert_int_eq(rep.status, 0);
			ck_assert_int_ge(fds[1], 0);
			served++;
		} else {
			ck_assert_msg(rep.status == -EPROTO ||
				      rep.status == -EPROTONOSUPPORT ||
				      rep.status == -EINVAL,
				      "seed %#llx case %d: status %d",
				      (unsigned long long)seed, i, rep.status);
			ck_assert_int_eq(fds[0], -1);
			refused++;
		}
		close_fds(fds);
	}
	printf("bpf/fuzz: seed %#llx: %d refused, %d served\n",
	       (unsigned long long)seed, refused, served);
	expect_helper_alive();
}
END_TEST

START_TEST(survives_clients_that_vanish)
{
	struct uspin_stated_req req = good_request();
	int i, s;

	for (i = 0; i < 20; i++) {
		s = silent_connect(NULL);		/* connect, say nothing */
		ck_assert_int_ge(s, 0);
		close(s);
		s = silent_connect(NULL);		/* ask, leave before the reply */
		ck_assert_int_ge(s, 0);
		ck_assert_int_eq(send(s, &req, sizeof(req), 0), sizeof(req));
		close(s);
		s = silent_connect(NULL);		/* half a request */
		ck_assert_int_ge(s, 0);
		ck_assert_int_eq(send(s, &req, 3, 0), 3);
		shutdown(s, SHUT_WR);
		close(s);
	}
	expect_helper_alive();
}
END_TEST

/* Wait for the helper to close @s (EOF); 1 if it did within @ms. */
static int closed_by_helper(int s, int ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN | POLLRDHUP };
	char b;

	return poll(&p, 1, ms) == 1 && recv(s, &b, 1, MSG_DONTWAIT) == 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

#define SILENT	200

/*
 * 200 connections that say nothing, then libuspin's attach (the
 * provider's own code) five times: the median must stay within 50 ms.
 * Then every silent connection is dropped by the helper's timeout.
 */
START_TEST(silent_connections_do_not_delay_attach)
{
	int s[SILENT], i;
	int64_t t[5], t0;
	struct uspin_rs_view v;

	for (i = 0; i < SILENT; i++) {
		s[i] = silent_connect(NULL);
		ck_assert_msg(s[i] >= 0, "silent connection %d: %s", i,
			      strerror(-s[i]));
	}
	for (i = 0; i < 5; i++) {
		t0 = now_on(CLOCK_MONOTONIC);
		ck_assert_int_eq(view_attach(&v), 0);
		t[i] = now_on(CLOCK_MONOTONIC) - t0;
		ck_assert_int_eq(view_query(&v, sys_gettid()), USPIN_RS_ON);
	}
	qsort(t, 5, sizeof(t[0]), cmp_i64);
	printf("bpf/attach with %d silent connections: median %.1f us, max %.1f us\n",
	       SILENT, t[2] / 1e3, t[4] / 1e3);
	ck_assert_msg(t[2] <= 50 * 1000000LL, "attach took %.1f ms (median)",
		      t[2] / 1e6);
	for (i = 0; i < SILENT; i++) {
		ck_assert_msg(closed_by_helper(s[i], USPIN_STATED_SERVER_TIMEOUT_MS + 2000),
			      "silent connection %d not dropped", i);
		close(s[i]);
	}
}
END_TEST

/*
 * One uid may hold at most 256 waiting connections: beyond that its
 * oldest go first, and a new client (of that uid, even) is served.
 */
START_TEST(one_uid_cannot_hoard_connections)
{
	enum { N = 300, CAP = 256 };
	static int s[N];
	int i;

	for (i = 0; i < N; i++) {
		s[i] = silent_connect(NULL);
		ck_assert_int_ge(s[i], 0);
	}
	expect_served();	/* accepted after all of them, in order */
	for (i = 0; i < N - CAP; i++)
		ck_assert_msg(closed_by_helper(s[i], 0),
			      "connection %d of %d from one uid still waiting", i, N);
	ck_assert_msg(!closed_by_helper(s[N - 1], 0), "newest connection dropped");
	for (i = 0; i < N; i++)
		close(s[i]);
}
END_TEST

TCase *tcase_helper_protocol(void)
{
	TCase *tc = tcase_create("helper-protocol");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, client_credentials_are_logged);
	tcase_add_test(tc, refuses_bad_requests);
	tcase_add_test(tc, refuses_requests_carrying_fds);
	tcase_add_test(tc, fuzzed_requests_get_clean_refusals);
	tcase_add_test(tc, survives_clients_that_vanish);
	tcase_add_test(tc, silent_connections_do_not_delay_attach);
	tcase_add_test(tc, one_uid_cannot_hoard_connections);
	return tc;
}

/*
 * Exit codes of the unprivileged child: 0 all good, else the number of the
 * first check that failed (so the parent's message can say which).
 */
static int unprivileged_child(void)
{
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	struct uspin_rs_view v;
	volatile uint32_t *ro;
	uint32_t self = sys_gettid(), key = 0;
	static char chunk[4096];
	int fds[2], st;
	pid_t pid;
	void *p;

	if (become_nobody() || geteuid() != NOBODY_ID)
		return 1;
	/* The provider's own attach, as libuspin's setup runs it. */
	if (view_attach(&v) != 0)
		return 2;
	if (view_query(&v, self) != USPIN_RS_ON)
		return 3;
	if (view_query(&v, v.nr_entries) != USPIN_RS_UNKNOWN)
		return 4;
	/* And raw: neither fd can be mapped writable nor upgraded. */
	if (helper_exchange(&req, sizeof(req), &rep, fds) != sizeof(rep) ||
	    fds[0] < 0 || fds[1] < 0)
		return 5;
	p = mmap(NULL, rep.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (p != MAP_FAILED)
		return 6;
	p = mmap(NULL, rep.map_bytes, PROT_READ, MAP_SHARED, fds[0], 0);
	if (p == MAP_FAILED)
		return 7;
	if (mprotect(p, 4096, PROT_READ | PROT_WRITE) == 0)
		return 8;
	ro = p;
	if (uspin_rs_answer_of(ro[self]) != USPIN_RS_ON)
		return 9;
	if (bpf_map_update_elem(fds[0], &key, chunk, 0) == 0)
		return 10;
	if (mmap(NULL, rep.status_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fds[1], 0) != MAP_FAILED)
		return 11;
	if (write(fds[1], "x", 1) >= 0)
		return 12;
	/* A store through the read-only mapping must kill the writer. */
	pid = fork();
	if (pid == 0) {
		ro[self] = 0;
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
	    WTERMSIG(st) != SIGSEGV)
		return 13;
	return 0;
}

START_TEST(nobody_gets_read_only_views)
{
	static const char *const what[] = {
		"ok", "setuid(65534)", "provider bpf did not attach",
		"own TID does not read ON", "nr_entries does not read UNKNOWN",
		"no fds from the helper", "map: mmap(PROT_WRITE) succeeded",
		"map: mmap(PROT_READ) failed", "map: mprotect(PROT_WRITE) succeeded",
		"own entry in the raw mapping is not ON",
		"map: BPF_MAP_UPDATE_ELEM succeeded",
		"status page: mmap(PROT_WRITE) succeeded",
		"status page: write() succeeded",
		"store into the mapping was not SIGSEGV",
	};
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(unprivileged_child());
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "unprivileged child died (status %#x)", st);
	ck_assert_msg(WEXITSTATUS(st) == 0, "as uid 65534: %s",
		      WEXITSTATUS(st) < 14 ? what[WEXITSTATUS(st)] : "?");
}
END_TEST

/* The running helper keeps nothing it does not need. */
START_TEST(helper_runs_without_privilege)
{
	const char *pid = getenv("USPIN_STATED_PID");
	char path[64];
	const char *s;

	ck_assert_msg(pid != NULL, "USPIN_STATED_PID not set");
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	s = helper_log(path);
	ck_assert_msg(strstr(s, "\nUid:\t65534\t65534\t65534\t65534\n"), "%s", s);
	ck_assert_msg(strstr(s, "\nGid:\t65534\t65534\t65534\t65534\n"), "%s", s);
	ck_assert_msg(strstr(s, "\nGroups:\t\n") || strstr(s, "\nGroups:\t \n"), "%s", s);
	ck_assert_msg(strstr(s, "\nCapPrm:\t0000000000000000\n"), "%s", s);
	ck_assert_msg(strstr(s, "\nCapEff:\t0000000000000000\n"), "%s", s);
	ck_assert_msg(strstr(s, "\nNoNewPrivs:\t1\n"), "%s", s);
}
END_TEST

TCase *tcase_unprivileged(void)
{
	TCase *tc = tcase_create("unprivileged");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, nobody_gets_read_only_views);
	tcase_add_test(tc, helper_runs_without_privilege);
	return tc;
}

/* --- --group ----------------------------------------------------------- */

#define GROUP	"users"

enum how { PLAIN, SUPPLEMENTARY, PRIMARY, DAC_OVERRIDE };

/*
 * As uid 65534 (@how: no groups, GROUP as a supplementary group, GROUP as
 * the primary group, or no groups but CAP_DAC_OVERRIDE so that the socket
 * mode does not stop us and the helper has to): the reply status, or
 * 100 + errno of a failed connect.
 */
static int ask_as_nobody(const char *sock, enum how how, gid_t g)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct caps[2];
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	gid_t gid = how == PRIMARY ? g : NOBODY_ID;
	int fds[2], n;

	if (how == DAC_OVERRIDE && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
		return 90;
	if (setgroups(how == SUPPLEMENTARY, &g) || setresgid(gid, gid, gid) ||
	    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
		return 91;
	if (how == DAC_OVERRIDE) {
		memset(caps, 0, sizeof(caps));
		if (syscall(SYS_capget, &hdr, caps) != 0)
			return 92;
		caps[0].effective = 1u << CAP_DAC_OVERRIDE;
		if (syscall(SYS_capset, &hdr, caps) != 0)
			return 93;
	}
	n = helper_exchange_at(sock, &req, sizeof(req), &rep, fds);
	if (n < 0)
		return 100 + -n;
	if (n != sizeof(rep))
		return 94;
	if ((rep.status == 0) != (fds[1] >= 0))
		return 95;
	return rep.status;
}

static int as_child(const char *sock, enum how how, gid_t g)
{
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(ask_as_nobody(sock, how, g) & 0xff);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "child died: %#x", st);
	return (signed char)WEXITSTATUS(st);
}

START_TEST(group_restricts_clients)
{
	static const char *const extra[] = { "--group", GROUP, NULL };
	struct group *gr = getgrnam(GROUP);
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	struct helper h;
	struct stat sb;
	char line[128];
	int fds[2], r;

	ck_assert_ptr_nonnull(gr);
	helper_paths(&h, "group");
	helper_start(&h, extra);
	ck_assert_int_eq(stat(h.sock, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0660);
	ck_assert_uint_eq(sb.st_gid, gr->gr_gid);
	/* root: always */
	ck_assert_int_eq(helper_exchange_at(h.sock, &req, sizeof(req), &rep, fds),
			 sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	close_fds(fds);
	/* members: served */
	r = as_child(h.sock, SUPPLEMENTARY, gr->gr_gid);
	ck_assert_msg(r == 0, "member (supplementary): %d", r);
	r = as_child(h.sock, PRIMARY, gr->gr_gid);
	ck_assert_msg(r == 0, "member (primary): %d", r);
	/* others: the socket's mode stops them ... */
	r = as_child(h.sock, PLAIN, gr->gr_gid);
	ck_assert_msg(r == (signed char)(100 + EACCES), "non-member connect: %d", r);
	/* ... and where it does not, the helper does (SO_PEERCRED/GROUPS) */
	r = as_child(h.sock, DAC_OVERRIDE, gr->gr_gid);
	ck_assert_msg(r == -EACCES, "non-member with CAP_DAC_OVERRIDE: %d", r);
	snprintf(line, sizeof(line), "uid %d gid %d: refused: not in the allowed group",
		 NOBODY_ID, NOBODY_ID);
	ck_assert_msg(log_has(h.log, line), "no '%s' in:\n%s", line,
		      helper_log(h.log));
	ck_assert_int_eq(helper_stop(&h, SIGTERM), 0);
	helper_remove(&h);
}
END_TEST

TCase *tcase_group(void)
{
	TCase *tc = tcase_create("group");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, group_restricts_clients);
	return tc;
}
