// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_liveness.c - a dead helper is never trusted, and a restarted one
 * is trusted again without the clients doing anything.
 *
 * A client ("test-bpf client watch", attached through libuspin) reports
 * every change of the answer for itself (running) and for a thread that
 * sleeps in 1 ms steps.  The helpers here are private ones (their own
 * socket, status page and bpffs pin).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "running_state_providers.h"
#include "test_bpf.h"

#define DEAD_WITHIN_NS	(100 * 1000000LL)

/* A copy of the status page as the file holds it now. */
static struct uspin_stated_status read_status(const char *path)
{
	struct uspin_stated_status st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, &st, sizeof(st)), sizeof(st));
	close(fd);
	return st;
}

static void watch_env(const struct helper *h, char *buf, size_t len,
		      const char *env[3])
{
	snprintf(buf, len, "%s=%s", USPIN_STATED_SOCKET_ENV, h->sock);
	env[0] = buf;
	env[1] = "USPIN_RS_PROVIDER=bpf";
	env[2] = NULL;
}

static void expect_state(struct client *c, const char *state, int ms,
			 const char *when, int64_t *t)
{
	char line[160], want[64];

	snprintf(want, sizeof(want), "state %s ", state);
	ck_assert_msg(client_expect(c, want, line, sizeof(line), ms),
		      "%s: the client never read '%s' within %d ms", when, state, ms);
	if (t)
		*t = strtoll(line + strlen(want), NULL, 10);
}

static volatile int b_stop;
static volatile uint32_t b_tid;
static int b_pipe[2];

/* Runs until told to stop, then blocks for good (no more switches). */
static void *busy_then_block(void *arg)
{
	char c;

	b_tid = sys_gettid();
	while (!b_stop)
		;
	if (read(b_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

START_TEST(sigkill_unknown_at_once_restart_resumes)
{
	struct uspin_rs_view v;
	pthread_t b;
	char envsock[256];
	struct helper h;
	struct client c, fresh;
	struct uspin_stated_status st1, st2, st3;
	const char *env[3];
	char envbuf[256], line[160];
	int64_t t_kill, t_seen;
	int st;

	helper_paths(&h, "liveness");
	helper_start(&h, NULL);
	st1 = read_status(h.status);
	ck_assert_uint_eq(st1.alive, (uint32_t)h.pid);	/* its TID */
	watch_env(&h, envbuf, sizeof(envbuf), env);
	client_start(&c, "watch", env);
	ck_assert_msg(client_expect(&c, "provider bpf", line, sizeof(line), 5000),
		      "client did not attach the bpf provider");
	expect_state(&c, "ON OFF", 5000, "first helper", NULL);
	/* This process too, with a thread that runs now. */
	snprintf(envsock, sizeof(envsock), "%s", h.sock);
	setenv(USPIN_STATED_SOCKET_ENV, envsock, 1);
	ck_assert_int_eq(view_attach(&v), 0);
	ck_assert_int_eq(pipe(b_pipe), 0);
	ck_assert_int_eq(pthread_create(&b, NULL, busy_then_block, NULL), 0);
	while (view_query(&v, b_tid) != USPIN_RS_ON)
		sched_yield();

	/* SIGKILL: the kernel marks the word OWNER_DIED on the way out. */
	t_kill = now_on(CLOCK_MONOTONIC);
	kill(h.pid, SIGKILL);
	expect_state(&c, "UNKNOWN UNKNOWN", 2000, "after SIGKILL", &t_seen);
	printf("bpf/liveness: UNKNOWN %.2f ms after SIGKILL\n",
	       (t_seen - t_kill) / 1e6);
	ck_assert_msg(t_seen - t_kill <= DEAD_WITHIN_NS,
		      "UNKNOWN only %.1f ms after SIGKILL", (t_seen - t_kill) / 1e6);
	ck_assert_int_eq(waitpid(h.pid, &st, 0), h.pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	h.pid = 0;
	st2 = read_status(h.status);
	ck_assert_uint_eq(st2.alive & FUTEX_TID_MASK, 0);
	ck_assert(st2.alive & FUTEX_OWNER_DIED);
	/*
	 * While no helper publishes, the busy thread blocks for good: its
	 * entry still says what the last helper saw.  A new helper must not
	 * vouch for it -- it resets every entry before it goes live.
	 */
	ck_assert_int_eq(view_query(&v, b_tid), USPIN_RS_UNKNOWN);
	ck_assert_msg(strstr(uspin_rs_provider_bpf.describe(), "helper gone"),
		      "describe: %s", uspin_rs_provider_bpf.describe());
	b_stop = 1;
	usleep(20000);

	/* A new helper takes the page and the pinned map over. */
	helper_start(&h, NULL);
	expect_state(&c, "ON OFF", 10000, "after the restart", NULL);
	ck_assert_msg(view_query(&v, b_tid) == USPIN_RS_UNKNOWN,
		      "a thread blocked while no helper ran reads %s (entry %#x)",
		      answer_name(view_query(&v, b_tid)),
		      v.base[b_tid * v.stride]);
	ck_assert_int_eq(write(b_pipe[1], "x", 1), 1);
	pthread_join(b, NULL);
	st3 = read_status(h.status);
	ck_assert_uint_eq(st3.map_id, st1.map_id);
	ck_assert_uint_eq(st3.generation, st1.generation + 1);
	ck_assert_uint_eq(st3.alive, (uint32_t)h.pid);

	/* SIGTERM: it marks itself dead, then stops publishing. */
	ck_assert_int_eq(helper_stop(&h, SIGTERM), 0);
	expect_state(&c, "UNKNOWN UNKNOWN", 1000, "after SIGTERM", NULL);

	/*
	 * The pinned map is lost (here: removed): the next helper starts a
	 * new map under a new status page; the old client keeps reading the
	 * old page, dead, so it stays UNKNOWN -- never stale -- while new
	 * clients get the new map.
	 */
	ck_assert_int_eq(unlink(h.pin), 0);
	helper_start(&h, NULL);
	st3 = read_status(h.status);
	ck_assert_uint_ne(st3.map_id, st1.map_id);
	ck_assert_msg(!client_expect(&c, "state ", line, sizeof(line), 500),
		      "client of the lost map changed to '%s'", line);
	client_start(&fresh, "watch", env);
	expect_state(&fresh, "ON OFF", 5000, "new client of the new map", NULL);
	client_stop(&fresh);
	client_stop(&c);
	ck_assert_int_eq(helper_stop(&h, SIGTERM), 0);
	helper_remove(&h);
}
END_TEST

/* One helper per status page; the second one says why it gives up. */
START_TEST(second_helper_refused)
{
	const char *bin = getenv("USPIN_STATED_BIN");
	struct helper h;
	char log[300];
	int st, fd;
	pid_t pid;

	helper_paths(&h, "second");
	helper_start(&h, NULL);
	snprintf(log, sizeof(log), "%s/second.log", h.dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execl(bin, bin, "--foreground", "--socket", h.sock, "--status",
		      h.status, "--pin", h.pin, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "second helper: %#x", st);
	ck_assert_msg(strstr(helper_log(log), "another uspin-stated is running"),
		      "%s", helper_log(log));
	ck_assert_msg(kill(h.pid, 0) == 0, "the first helper is gone");
	ck_assert_uint_eq(read_status(h.status).alive, (uint32_t)h.pid);
	ck_assert_int_eq(helper_stop(&h, SIGTERM), 0);
	helper_remove(&h);
}
END_TEST

/*
 * A helper that does not answer at all (stopped) costs an attaching
 * client its bounded timeout, once, and nothing more.
 */
START_TEST(stopped_helper_costs_one_timeout)
{
	struct uspin_rs_view v;
	struct helper h;
	int64_t t0, t;
	int err;

	helper_paths(&h, "stopped");
	helper_start(&h, NULL);
	setenv(USPIN_STATED_SOCKET_ENV, h.sock, 1);
	kill(h.pid, SIGSTOP);
	t0 = now_on(CLOCK_MONOTONIC);
	err = view_attach(&v);
	t = now_on(CLOCK_MONOTONIC) - t0;
	kill(h.pid, SIGCONT);
	ck_assert_int_eq(err, ETIMEDOUT);
	printf("bpf/liveness: attach to a stopped helper gave up after %.1f ms\n",
	       t / 1e6);
	ck_assert_msg(t < 4LL * USPIN_STATED_CLIENT_TIMEOUT_MS * 1000000,
		      "attach took %.1f ms", t / 1e6);
	ck_assert_int_eq(view_attach(&v), 0);	/* and it serves again */
	ck_assert_int_eq(helper_stop(&h, SIGTERM), 0);
	helper_remove(&h);
}
END_TEST

TCase *tcase_liveness(void)
{
	TCase *tc = tcase_create("liveness");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, sigkill_unknown_at_once_restart_resumes);
	tcase_add_test(tc, second_helper_refused);
	tcase_add_test(tc, stopped_helper_costs_one_timeout);
	return tc;
}
