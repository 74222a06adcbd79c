// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_provider.c - the bpf provider through libuspin: exited threads,
 * USER_ADAPTIVE mutual exclusion, describe(); a root process with no
 * helper loads nothing; pid namespaces; uspin-info as root and as nobody.
 *
 * Accuracy for busy, sleeping, FUTEX_WAIT, stopped and out-of-range TIDs
 * is the shared running-state suite of test-uspin, which check-bpf runs
 * with USPIN_RS_REQUIRE=bpf.  The run queues (a spinner's "is my CPU
 * wanted?"): a CPU with a second busy thread reads 2 or more, and 1 or
 * less once it is alone; the helper attached every tracing program it
 * loaded (the wake-ups publish a run queue as it grows).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "running_state_providers.h"
#include "test_bpf.h"

#define WITHIN_NS	(50 * 1000000LL)

/* The runner exports USPIN_RS_PROVIDER=bpf and the helper's socket. */
static void require_bpf(void)
{
	ck_assert_str_eq(uspin_running_state_init(), "bpf");
}

static int64_t wait_for(uint32_t tid, enum uspin_rs_answer want)
{
	int64_t t0 = now_on(CLOCK_MONOTONIC), t;

	while ((t = now_on(CLOCK_MONOTONIC) - t0) <= WITHIN_NS) {
		if (uspin_rs_query(tid) == want)
			return t;
		sched_yield();
	}
	return -1;
}

static void *note_tid(void *arg)
{
	*(volatile uint32_t *)arg = sys_gettid();
	return NULL;
}

/*
 * The final switch-out of an exiting thread writes OFF, as the kernel's
 * array does, so a reaped TID reads OFF until it is reused.
 */
START_TEST(exited_thread_reads_off)
{
	uint32_t tid = 0;
	pthread_t t;

	require_bpf();
	pthread_create(&t, NULL, note_tid, &tid);
	pthread_join(t, NULL);
	ck_assert_uint_ne(tid, 0);
	ck_assert_msg(wait_for(tid, USPIN_RS_OFF) >= 0,
		      "exited TID %u does not read OFF (entry %#x)", tid,
		      uspin_rs_entry(tid));
}
END_TEST

START_TEST(out_of_range_reads_unknown)
{
	require_bpf();
	ck_assert_int_eq(uspin_rs_query(uspin_rs_view.nr_entries), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(0xfffffffeu), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(1u << 30), USPIN_RS_UNKNOWN);
}
END_TEST

START_TEST(describe_names_the_live_helper)
{
	const char *d;
	char want[300];

	require_bpf();
	ck_assert_ptr_nonnull(uspin_rs_provider_bpf.describe);
	d = uspin_rs_provider_bpf.describe();
	snprintf(want, sizeof(want), "map from uspin-stated at %s: %u TIDs, helper pid %s live",
		 getenv(USPIN_STATED_SOCKET_ENV), uspin_rs_view.nr_entries,
		 getenv("USPIN_STATED_PID"));
	ck_assert_msg(strstr(d, want) != NULL, "describe: %s", d);
}
END_TEST

/* rq[cpu] within [@at_least, @at_most] within 50 ms: its value, or -1. */
static int rq_within(int cpu, int at_least, int at_most)
{
	int64_t t0 = now_on(CLOCK_MONOTONIC);
	int n;

	do {
		n = (int)uspin_rs_view.rq[cpu];
		if (n >= at_least && n <= at_most)
			return n;
		sched_yield();
	} while (now_on(CLOCK_MONOTONIC) - t0 <= WITHIN_NS);
	return -1;
}

START_TEST(run_queue_shows_a_second_busy_thread)
{
	struct hog h[2];
	cpu_set_t set;
	int cpu = -1, k, busy;

	require_bpf();
	ck_assert_ptr_nonnull((const void *)uspin_rs_view.rq);
	sched_getaffinity(0, sizeof(set), &set);
	for (k = 0; k < CPU_SETSIZE && cpu < 0; k++)
		if (CPU_ISSET(k, &set))
			cpu = k;
	ck_assert_int_ge(cpu, 0);
	for (k = 0; k < 2; k++)
		hog_start(&h[k], cpu);
	busy = rq_within(cpu, 2, 1000);
	ck_assert_msg(busy >= 2, "CPU %d with two busy threads reads %u", cpu,
		      uspin_rs_view.rq[cpu]);
	for (k = 0; k < 2; k++)
		hog_stop(&h[k]);
	ck_assert_msg(rq_within(cpu, 0, busy - 1) >= 0,
		      "CPU %d still reads %u without its %d busy threads' load",
		      cpu, uspin_rs_view.rq[cpu], busy);
}
END_TEST

/* Is program @prog_id the target of one of the system's BPF links? */
static int prog_is_linked(uint32_t prog_id)
{
	uint32_t id = 0;
	int found = 0;

	while (!found && bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info li;
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		found = bpf_obj_get_info_by_fd(fd, &li, &len) == 0 &&
			li.prog_id == prog_id;
		close(fd);
	}
	return found;
}

/*
 * Every tracing program of the helper's (those that use its map) is
 * attached: a loaded but unattached wake-up program once left the run
 * queues published at switches only.
 */
START_TEST(every_tracing_program_is_attached)
{
	struct bpf_prog_info info;
	uint32_t map_id, id = 0;
	int progs = 0, fd;

	require_bpf();
	map_id = ((const struct uspin_stated_status *)uspin_rs_view.alive)->map_id;
	while ((fd = next_prog_using_map(map_id, &id, &info)) >= 0) {
		if (info.type == BPF_PROG_TYPE_TRACING) {
			progs++;
			ck_assert_msg(prog_is_linked(id),
				      "program %s (id %u) is loaded but not attached",
				      info.name, id);
		}
		close(fd);
	}
	/* sched_switch and the two wake-ups at least. */
	ck_assert_int_ge(progs, 3);
}
END_TEST

struct excl {
	uspin_mutex_t m;
	long per_thread;
	volatile long counter;		/* only ever touched under m */
	volatile uint32_t inside;
	long violations;
};

static void *excl_thread(void *arg)
{
	struct excl *x = arg;
	uint32_t self = sys_gettid();
	long i;

	for (i = 0; i < x->per_thread; i++) {
		ck_assert_int_eq(uspin_mutex_lock(&x->m), 0);
		if (x->inside != 0)
			__atomic_add_fetch(&x->violations, 1, __ATOMIC_RELAXED);
		x->inside = self;
		x->counter++;
		if (x->inside != self)
			__atomic_add_fetch(&x->violations, 1, __ATOMIC_RELAXED);
		x->inside = 0;
		ck_assert_int_eq(uspin_mutex_unlock(&x->m), 0);
	}
	return NULL;
}

static const int nthreads[] = { 2, 4, 16, 64 };

START_TEST(user_adaptive_mutual_exclusion)
{
	int n = nthreads[_i], i;
	pthread_t t[64];
	struct excl x = { .per_thread = 160000 / n };

	require_bpf();
	ck_assert_int_eq(uspin_mutex_init(&x.m, USPIN_POLICY_USER_ADAPTIVE), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, excl_thread, &x), 0);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(x.violations, 0);
	ck_assert_int_eq(x.counter, x.per_thread * n);
}
END_TEST

TCase *tcase_provider(void)
{
	TCase *tc = tcase_create("provider");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, exited_thread_reads_off);
	tcase_add_test(tc, out_of_range_reads_unknown);
	tcase_add_test(tc, describe_names_the_live_helper);
	tcase_add_test(tc, run_queue_shows_a_second_busy_thread);
	tcase_add_test(tc, every_tracing_program_is_attached);
	tcase_add_loop_test(tc, user_adaptive_mutual_exclusion, 0,
			    sizeof(nthreads) / sizeof(nthreads[0]));
	return tc;
}

/* --- root, no helper ----------------------------------------------------- */

static const char *const no_helper_env[] = {
	USPIN_STATED_SOCKET_ENV "=/nonexistent/uspin-stated.sock",
	"USPIN_RS_PROVIDER=bpf",
	NULL,
};

static int new_ids(const uint32_t *before, int nb, const uint32_t *after, int na)
{
	int i, j, n = 0;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		n += j == nb;
	}
	return n;
}

/*
 * A root process that links libuspin and asks for the bpf provider, with
 * no helper to answer: it gets none, says how to opt in, holds no BPF
 * object and no new uspin program appeared in the kernel while it ran.
 */
START_TEST(root_without_helper_loads_nothing)
{
	uint32_t before[256], after[256];
	int nb, na;
	struct client c;
	char line[600];

	ck_assert_int_eq(geteuid(), 0);
	nb = uspin_prog_ids(before, 256);
	ck_assert_int_ge(nb, 0);
	client_start(&c, "probe", no_helper_env);
	ck_assert_msg(client_expect(&c, "provider ", line, sizeof(line), 5000),
		      "no provider line");
	ck_assert_str_eq(line, "provider none");
	ck_assert(client_expect(&c, "describe ", line, sizeof(line), 5000));
	ck_assert_msg(strstr(line, "libuspin never loads BPF itself") &&
		      strstr(line, "/nonexistent/uspin-stated.sock"), "%s", line);
	ck_assert(client_expect(&c, "bpf-fds ", line, sizeof(line), 5000));
	ck_assert_str_eq(line, "bpf-fds 0");
	na = uspin_prog_ids(after, 256);	/* while the client still runs */
	client_stop(&c);
	ck_assert_msg(new_ids(before, nb, after, na) == 0,
		      "%d new uspin_* BPF programs while a root client ran with no helper",
		      new_ids(before, nb, after, na));
}
END_TEST

/* Whether @pid sits in write(2) (as root: /proc/PID/syscall). */
static int in_write(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	return strncmp(helper_log(path), "1 ", 2) == 0;
}

/*
 * The same for uspin-info, which links libuspin alone.  Its stdout is a
 * pipe we filled, so it blocks in its final write -- past setup, every fd
 * still open -- while we look.
 */
START_TEST(root_uspin_info_without_helper_loads_nothing)
{
	const char *bin = getenv("USPIN_INFO_BIN");
	uint32_t before[256], after[256];
	static char fill[1 << 16];
	int nb, na, p[2], st, t;
	pid_t pid;

	ck_assert_ptr_nonnull(bin);
	nb = uspin_prog_ids(before, 256);
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		fcntl(1, F_SETFL, 0);	/* blocking writes */
		setenv(USPIN_STATED_SOCKET_ENV, "/nonexistent/uspin-stated.sock", 1);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	for (t = 0; t < 5000 && !in_write(pid); t += 5)
		usleep(5000);
	ck_assert_msg(in_write(pid), "uspin-info never blocked writing its output");
	na = uspin_prog_ids(after, 256);
	fcntl(p[0], F_SETFL, 0);
	while (read(p[0], fill, sizeof(fill)) > 0)
		;
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "uspin-info: %#x", st);
	ck_assert_int_eq(new_ids(before, nb, after, na), 0);
}
END_TEST

/* 0 if @fn ran in a child in a new pid namespace (and returned 0). */
static void in_new_pid_ns(int (*fn)(void))
{
	int st;
	pid_t pid;

	ck_assert_msg(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID): %s",
		      strerror(errno));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn());
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child in a new pid namespace: status %#x", st);
}

/* Our pid 1 is not global pid 1: the provider must not attach. */
static int refuses_attach(void)
{
	struct uspin_rs_view v;
	const char *d;

	if (view_attach(&v) != EXDEV)
		return 1;
	d = uspin_rs_provider_bpf.describe();
	return strstr(d, "not in the initial pid namespace") ? 0 : 2;
}

START_TEST(new_pid_namespace_refuses)
{
	in_new_pid_ns(refuses_attach);
}
END_TEST

static struct uspin_rs_view inherited;

/* libuspin calls new_process() on a new process's first slow path. */
static int drops_inherited_view(void)
{
	uspin_rs_provider_bpf.new_process(&inherited);
	return inherited.nr_entries != 0 ||
	       view_query(&inherited, getpid()) != USPIN_RS_UNKNOWN;
}

START_TEST(fork_into_new_pid_namespace_drops_the_view)
{
	int st;
	pid_t pid;

	ck_assert_int_eq(view_attach(&inherited), 0);
	ck_assert_ptr_nonnull(uspin_rs_provider_bpf.new_process);
	/* Control: a child in our namespace keeps it. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uspin_rs_provider_bpf.new_process(&inherited);
		_exit(inherited.nr_entries == 0 ||
		      view_query(&inherited, sys_gettid()) != USPIN_RS_ON);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "fork child in the initial pid namespace lost the view");
	in_new_pid_ns(drops_inherited_view);
}
END_TEST

TCase *tcase_root_only(void)
{
	TCase *tc = tcase_create("root-only");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, root_without_helper_loads_nothing);
	tcase_add_test(tc, root_uspin_info_without_helper_loads_nothing);
	tcase_add_test(tc, new_pid_namespace_refuses);
	tcase_add_test(tc, fork_into_new_pid_namespace_drops_the_view);
	return tc;
}

/* Run uspin-info (as nobody if @nobody) and return its stdout. */
static void run_uspin_info(int nobody, char *out, size_t len)
{
	const char *bin = getenv("USPIN_INFO_BIN");
	int p[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_msg(bin != NULL, "USPIN_INFO_BIN not set");
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		unsetenv("USPIN_RS_PROVIDER");
		unsetenv("USPIN_POLICY");
		if (nobody && become_nobody())
			_exit(126);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%s exited with status %#x", bin, st);
}

/* "running-state:" then spaces then "bpf" at the start of a line. */
static int says_bpf(const char *out)
{
	const char *l = strstr(out, "running-state:");

	if (!l || (l != out && l[-1] != '\n'))
		return 0;
	l += strlen("running-state:");
	while (*l == ' ')
		l++;
	return strncmp(l, "bpf", 3) == 0;
}

START_TEST(uspin_info_reports_bpf)
{
	char out[4096];

	run_uspin_info(_i, out, sizeof(out));
	ck_assert_msg(says_bpf(out), "uspin-info as %s:\n%s",
		      _i ? "nobody" : "root", out);
}
END_TEST

TCase *tcase_uspin_info(void)
{
	TCase *tc = tcase_create("uspin-info");

	tcase_add_loop_test(tc, uspin_info_reports_bpf, 0, 2);
	return tc;
}
