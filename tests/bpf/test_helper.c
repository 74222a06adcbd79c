// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_helper.c - uspin-stated: refuses bad requests, survives clients
 * that vanish mid-handshake, and gives an unprivileged process a map it
 * can read but not write.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "running_state.h"
#include "test_bpf.h"

static void expect_refused(const void *req, size_t len, int status)
{
	struct uspin_stated_reply rep;
	int fd, n = helper_exchange(req, len, &rep, &fd);

	ck_assert_int_eq(n, sizeof(rep));
	ck_assert_int_eq(fd, -1);
	ck_assert_uint_eq(rep.magic, USPIN_STATED_MAGIC);
	ck_assert_int_eq(rep.status, status);
}

/* A good request still gets the map: the helper is alive and serving. */
static void expect_served(void)
{
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	int fd, n = helper_exchange(&req, sizeof(req), &rep, &fd);

	ck_assert_int_eq(n, sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(rep.stride, 1);
	ck_assert_uint_ge(rep.nr_entries, 1024);
	close(fd);
}

START_TEST(refuses_bad_requests)
{
	struct uspin_stated_req req = good_request();
	char garbage[sizeof(req)], big[sizeof(req) + 8] = { 0 };
	size_t i;

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 37 + 11);
	expect_refused(garbage, sizeof(garbage), -EPROTO);
	expect_refused(&req, sizeof(req) - 1, -EPROTO);		/* short */
	expect_refused(&req, 4, -EPROTO);
	memcpy(big, &req, sizeof(req));
	expect_refused(big, sizeof(big), -EPROTO);		/* long */
	req.version = USPIN_STATED_VERSION + 1;
	expect_refused(&req, sizeof(req), -EPROTONOSUPPORT);
	req = good_request();
	req.flags = 1;
	expect_refused(&req, sizeof(req), -EINVAL);
	req = good_request();
	req.size = 8;
	expect_refused(&req, sizeof(req), -EINVAL);
	expect_served();
}
END_TEST

static int raw_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
		 getenv(USPIN_STATED_SOCKET_ENV));
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return s;
}

START_TEST(survives_clients_that_vanish)
{
	struct uspin_stated_req req = good_request();
	const char *pidfile = getenv("USPIN_STATED_PIDFILE");
	int i, s;

	for (i = 0; i < 20; i++) {
		s = raw_connect();			/* connect, say nothing */
		close(s);
		s = raw_connect();			/* ask, leave before the reply */
		ck_assert_int_eq(send(s, &req, sizeof(req), 0), sizeof(req));
		close(s);
		s = raw_connect();			/* half a request */
		ck_assert_int_eq(send(s, &req, 3, 0), 3);
		shutdown(s, SHUT_WR);
		close(s);
	}
	/* Silent past the helper's timeout: it must drop us and go on. */
	s = raw_connect();
	usleep(2 * USPIN_STATED_SERVER_TIMEOUT_MS * 1000);
	close(s);
	expect_served();
	if (pidfile) {
		FILE *f = fopen(pidfile, "r");
		int pid = 0;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
		fclose(f);
		ck_assert_int_eq(kill(pid, 0), 0);
	}
}
END_TEST

TCase *tcase_helper_protocol(void)
{
	TCase *tc = tcase_create("helper-protocol");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, refuses_bad_requests);
	tcase_add_test(tc, survives_clients_that_vanish);
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
	volatile uint32_t *ro;
	uint32_t self = test_gettid();
	int fd, st;
	pid_t pid;
	void *p;

	if (become_nobody() || geteuid() != NOBODY_ID)
		return 1;
	/* Through the library, as an application would. */
	setenv("USPIN_RS_PROVIDER", "bpf", 1);
	if (strcmp(uspin_running_state_init(), "bpf") != 0)
		return 2;
	if (uspin_rs_query(self) != USPIN_RS_ON)
		return 3;
	if (uspin_rs_query(uspin_rs_view.nr_entries) != USPIN_RS_UNKNOWN)
		return 4;
	/* And raw: the fd cannot be mapped writable nor upgraded. */
	if (helper_exchange(&req, sizeof(req), &rep, &fd) != sizeof(rep) || fd < 0)
		return 5;
	p = mmap(NULL, rep.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED)
		return 6;
	p = mmap(NULL, rep.map_bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 7;
	if (mprotect(p, 4096, PROT_READ | PROT_WRITE) == 0)
		return 8;
	ro = p;
	if (ro[self] == USPIN_RS_ENTRY_OFF || ro[self] == USPIN_RS_ENTRY_UNKNOWN)
		return 9;
	/* A store through the read-only mapping must kill the writer. */
	pid = fork();
	if (pid == 0) {
		ro[self] = 0;
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
	    WTERMSIG(st) != SIGSEGV)
		return 10;
	return 0;
}

START_TEST(nobody_gets_a_read_only_map)
{
	static const char *const what[] = {
		"ok", "setuid(65534)", "provider bpf did not attach",
		"own TID does not read ON", "nr_entries does not read UNKNOWN",
		"no fd from the helper", "mmap(PROT_WRITE) succeeded",
		"mmap(PROT_READ) failed", "mprotect(PROT_WRITE) succeeded",
		"own entry in the raw mapping is not ON",
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
		      WEXITSTATUS(st) < 11 ? what[WEXITSTATUS(st)] : "?");
}
END_TEST

TCase *tcase_unprivileged(void)
{
	TCase *tc = tcase_create("unprivileged");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, nobody_gets_a_read_only_map);
	return tc;
}
