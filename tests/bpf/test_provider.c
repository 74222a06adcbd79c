// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_provider.c - the bpf provider through libuspin: exited threads,
 * USER_ADAPTIVE mutual exclusion, root's self-load without a helper, pid
 * namespaces, and uspin-info as root and as nobody.
 *
 * Accuracy for busy, sleeping, FUTEX_WAIT, stopped and out-of-range TIDs
 * is the shared running-state suite of test-uspin, which check-bpf runs
 * with USPIN_RS_REQUIRE=bpf.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "running_state.h"
#include "test_bpf.h"

#define WITHIN_NS	(50 * 1000000LL)

static void require_bpf(void)
{
	setenv("USPIN_RS_PROVIDER", "bpf", 1);
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
	*(volatile uint32_t *)arg = test_gettid();
	return NULL;
}

/*
 * The final switch-out of an exiting thread writes 0, so a reaped TID reads
 * OFF (not UNKNOWN) until it is reused; OFF is also the truth.
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
	uint32_t self = test_gettid();
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
	tcase_add_loop_test(tc, user_adaptive_mutual_exclusion, 0,
			    sizeof(nthreads) / sizeof(nthreads[0]));
	return tc;
}

static void *sleeper(void *arg)
{
	*(volatile uint32_t *)arg = test_gettid();
	pause();
	return NULL;
}

/* Root with no helper answering: libuspin loads its own copy. */
START_TEST(root_self_loads_without_helper)
{
	uint32_t tid = 0;
	pthread_t t;

	setenv(USPIN_STATED_SOCKET_ENV, "/nonexistent/uspin-stated.sock", 1);
	require_bpf();
	/* We ran through the load itself: UNKNOWN until our next switch. */
	usleep(1000);
	ck_assert_int_eq(uspin_rs_query(test_gettid()), USPIN_RS_ON);
	pthread_create(&t, NULL, sleeper, &tid);
	while (!tid)
		sched_yield();
	ck_assert_msg(wait_for(tid, USPIN_RS_OFF) >= 0,
		      "sleeping thread does not read OFF");
}
END_TEST

/* 0 if @fn ran in a child in a new pid namespace; 1 to skip. */
static int in_new_pid_ns(int (*fn)(void))
{
	int st;
	pid_t pid;

	if (unshare(CLONE_NEWPID) != 0) {
		printf("SKIP: bpf/root-only: unshare(CLONE_NEWPID): %s\n",
		       strerror(errno));
		return 1;
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn());
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child in a new pid namespace: status %#x", st);
	return 0;
}

/* Our pid 1 is not global pid 1: no answer at all. */
static int refuses_attach(void)
{
	setenv("USPIN_RS_PROVIDER", "bpf", 1);
	return strcmp(uspin_running_state_init(), "none") != 0 ||
	       uspin_rs_query(getpid()) != USPIN_RS_UNKNOWN;
}

static int drops_inherited_view(void)
{
	return uspin_rs_view.nr_entries != 0 ||
	       uspin_rs_query(getpid()) != USPIN_RS_UNKNOWN;
}

START_TEST(new_pid_namespace_refuses)
{
	in_new_pid_ns(refuses_attach);
}
END_TEST

START_TEST(fork_into_new_pid_namespace_drops_the_view)
{
	require_bpf();
	in_new_pid_ns(drops_inherited_view);
}
END_TEST

TCase *tcase_root_only(void)
{
	TCase *tc = tcase_create("root-only");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, root_self_loads_without_helper);
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

START_TEST(uspin_info_reports_bpf)
{
	char out[2048];

	run_uspin_info(_i, out, sizeof(out));
	ck_assert_msg(strstr(out, "running-state:        bpf\n") != NULL,
		      "uspin-info as %s:\n%s", _i ? "nobody" : "root", out);
	ck_assert_msg(strstr(out, "auto policy:          user-adaptive\n") != NULL,
		      "uspin-info as %s:\n%s", _i ? "nobody" : "root", out);
}
END_TEST

TCase *tcase_uspin_info(void)
{
	TCase *tc = tcase_create("uspin-info");

	tcase_add_loop_test(tc, uspin_info_reports_bpf, 0, 2);
	return tc;
}
