// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_running_state.c - accuracy and safety of the active running-state
 * provider (vdso in the patched guest, bpf on a stock host), whichever
 * uspin_running_state_init() attached.
 *
 * With no provider attached the suite holds no test and prints one
 * "SKIP: running-state: ..." line (nothing is counted as passed), unless
 * USPIN_RS_REQUIRE names the provider that must be active (vm-check and
 * check-bpf set it), in which case a missing provider fails.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "internal.h"
#include "running_state.h"
#include "test_util.h"

#define OFF_WITHIN_NS	(50 * 1000000LL)	/* "a few ms", TCG slack */

/*
 * The caller's TID, learnt the way a lock user's is: libuspin then
 * registers the thread with the provider (the rseq provider publishes only
 * registered threads; the kernel array and BPF publish every thread).
 */
static uint32_t self_tid(void)
{
	return uspin_self_tid();
}

/* Per-thread areas (rseq): this process's own memory, no array. */
static int per_thread_areas(void)
{
	return uspin_rs_view.base == NULL;
}

/* Per-thread areas, or the kernel's per-process array (since series v3). */
static int per_process_view(void)
{
	return per_thread_areas() || uspin_rs_view.own_process;
}

/* With USPIN_RS_REQUIRE set, the provider it names must be the one attached. */
START_TEST(required_provider_is_attached)
{
	ck_assert_str_eq(uspin_running_state_provider(),
			 getenv("USPIN_RS_REQUIRE"));
}
END_TEST

/* Wait until @tid reads @want; return the ns it took, or -1 on timeout. */
static int64_t wait_for_state(uint32_t tid, enum uspin_rs_answer want,
			      int64_t limit_ns)
{
	int64_t t0 = now_on(CLOCK_MONOTONIC), t;

	for (;;) {
		t = now_on(CLOCK_MONOTONIC) - t0;
		if (uspin_rs_query(tid) == want)
			return t;
		if (t > limit_ns)
			return -1;
		sched_yield();
	}
}

/* Wait until @tid reads OFF or UNKNOWN (an exited TID); as above. */
static int64_t wait_for_not_on(uint32_t tid, int64_t limit_ns)
{
	int64_t t0 = now_on(CLOCK_MONOTONIC), t;

	for (;;) {
		t = now_on(CLOCK_MONOTONIC) - t0;
		if (uspin_rs_query(tid) != USPIN_RS_ON)
			return t;
		if (t > limit_ns)
			return -1;
		sched_yield();
	}
}

struct busy {
	volatile int stop;
	volatile uint32_t tid;
	long samples, on;
};

/* Reads its own entry: whenever it runs, the answer must be ON. */
static void *busy_self_sampler(void *arg)
{
	struct busy *b = arg;
	uint32_t self = self_tid();

	b->tid = self;
	while (!b->stop) {
		b->samples++;
		b->on += uspin_rs_query(self) == USPIN_RS_ON;
	}
	return NULL;
}

START_TEST(busy_thread_reads_on)
{
	struct busy b = { 0 };
	struct timespec d = { 0, 200000000 };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, busy_self_sampler, &b), 0);
	nanosleep(&d, NULL);
	b.stop = 1;
	pthread_join(t, NULL);
	ck_assert_int_gt(b.samples, 1000);
	ck_assert_msg(b.on * 1000 >= b.samples * 999,
		      "busy thread read ON in %ld of %ld samples", b.on, b.samples);
	/* Our own entry, while we run, too. */
	ck_assert_int_eq(uspin_rs_query(self_tid()), USPIN_RS_ON);
}
END_TEST

static void ignore(int sig)
{
	(void)sig;
}

struct sleeper {
	volatile uint32_t tid;
	uint32_t futex_word;
	int how;		/* 0 nanosleep, 1 FUTEX_WAIT */
};

static void *sleep_somehow(void *arg)
{
	struct sleeper *s = arg;
	struct timespec d = { 2, 0 };

	s->tid = self_tid();
	if (s->how == 0)
		nanosleep(&d, NULL);
	else
		sys_futex(&s->futex_word, FUTEX_WAIT_PRIVATE, 0, &d);
	return NULL;
}

/* Loop index: 0 nanosleep, 1 FUTEX_WAIT. */
START_TEST(sleeping_thread_reads_off)
{
	struct sleeper s = { 0, 0, _i };
	struct sigaction sa;
	pthread_t t;
	int64_t took;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ignore;
	sigaction(SIGUSR2, &sa, NULL);
	ck_assert_int_eq(pthread_create(&t, NULL, sleep_somehow, &s), 0);
	while (!s.tid)
		sched_yield();
	took = wait_for_state(s.tid, USPIN_RS_OFF, OFF_WITHIN_NS);
	ck_assert_msg(took >= 0, "sleeping thread %u never read OFF", s.tid);
	if (_i) {
		s.futex_word = 1;
		sys_futex(&s.futex_word, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
	pthread_kill(t, SIGUSR2);	/* ignored below; ends nanosleep early */
	pthread_join(t, NULL);
	/*
	 * An exited TID reads OFF (BPF: its last switch-out) or UNKNOWN (the
	 * kernel array: a free TID is unpublished); join returns at
	 * CLONE_CHILD_CLEARTID, before that, while the thread may still be
	 * on another CPU: wait for it.
	 */
	ck_assert_msg(wait_for_not_on(s.tid, OFF_WITHIN_NS) >= 0,
		      "exited thread %u never stopped reading ON", s.tid);
}
END_TEST

/*
 * Wait until the child sets *@seen (it reads itself ON); -1 on timeout.
 * The parent cannot ask uspin_rs_query(child) for ON: when the two share a
 * CPU (pinned, or the other CPUs busy with unrelated work, which the load
 * balancer then leaves alone), the parent runs only while the child is
 * switched out, so every read it makes is correctly OFF.  (Seen on the
 * 2-CPU host with a compiler on the other CPU: ftrace shows hundreds of
 * switches into the child in that second, the child reads itself ON, the
 * parent reads OFF.)
 */
static int64_t wait_child_saw_on(volatile int *seen, int64_t limit_ns)
{
	int64_t t0 = now_on(CLOCK_MONOTONIC), t;

	for (;;) {
		t = now_on(CLOCK_MONOTONIC) - t0;
		if (*seen)
			return t;
		if (t > limit_ns)
			return -1;
		sched_yield();	/* lets a child on this CPU run */
	}
}

START_TEST(stopped_process_reads_off_and_back_on)
{
	volatile int *seen;
	pid_t pid;
	int status;

	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne((void *)seen, MAP_FAILED);
	*seen = 0;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint32_t self = self_tid();

		for (;;)	/* busy until killed, saying whether it reads ON */
			if (uspin_rs_query(self) == USPIN_RS_ON)
				*seen = 1;
	}
	ck_assert_msg(wait_child_saw_on(seen, 5 * NSEC_PER_SEC) >= 0,
		      "busy child %d never read itself ON", pid);
	if (per_process_view()) {
		/* Another process's thread: the provider cannot know it. */
		ck_assert_int_eq(uspin_rs_query(pid), USPIN_RS_UNKNOWN);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		munmap((void *)seen, sizeof(*seen));
		return;
	}
	kill(pid, SIGSTOP);
	ck_assert_int_eq(waitpid(pid, &status, WUNTRACED), pid);
	ck_assert_msg(wait_for_state(pid, USPIN_RS_OFF, OFF_WITHIN_NS) >= 0,
		      "stopped process never read OFF");
	*seen = 0;	/* the child is stopped: it cannot set it meanwhile */
	kill(pid, SIGCONT);
	ck_assert_msg(wait_child_saw_on(seen, 5 * NSEC_PER_SEC) >= 0,
		      "continued child %d never read itself ON", pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* waitpid() can return before the dead child's last switch-out. */
	ck_assert_msg(wait_for_not_on(pid, OFF_WITHIN_NS) >= 0,
		      "killed process never stopped reading ON");
	munmap((void *)seen, sizeof(*seen));
}
END_TEST

START_TEST(out_of_range_reads_unknown)
{
	ck_assert_int_eq(uspin_rs_query(uspin_rs_view.nr_entries), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(0x3fffffff), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(0xffffffffu), USPIN_RS_UNKNOWN);
	/* The idle task is not a thread. */
	ck_assert_int_ne(uspin_rs_query(0), USPIN_RS_ON);
}
END_TEST

START_TEST(store_into_mapping_is_sigsegv)
{
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		volatile uint32_t *entry =
			(volatile uint32_t *)uspin_rs_view.base;

		*entry = 1;	/* must fault */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		      "a store into the running-state array did not fault");
}
END_TEST

/* Child side of fork_and_exec_keep_the_mapping, after exec. */
static int self_check_after_exec(void)
{
	const char *p = uspin_running_state_init();

	if (strcmp(p, "none") == 0)
		return 3;
	return uspin_rs_query(self_tid()) == USPIN_RS_ON ? 0 : 4;
}

START_TEST(fork_and_exec_keep_the_mapping)
{
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(uspin_rs_query(self_tid()) == USPIN_RS_ON ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "forked child does not read itself ON");

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("USPIN_TEST_RS_SELF_CHECK", "1", 1);
		execl("/proc/self/exe", "test-uspin", "running-state", NULL);
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "exec'd child: status %d", WEXITSTATUS(status));
}
END_TEST

/*
 * Oversubscribed: 16 threads on the CPUs there are, with critical sections
 * long enough that owners get preempted.  USER_ADAPTIVE must not burn CPU
 * on descheduled owners: CPU time and involuntary switches per acquisition
 * stay within a small factor of BLOCK's, measured in the same run.
 */
struct oversub {
	uspin_mutex_t m;
	long per_thread;
	volatile long counter;
};

static void *oversub_thread(void *arg)
{
	struct oversub *o = arg;
	long i;
	volatile long work;

	for (i = 0; i < o->per_thread; i++) {
		uspin_mutex_lock(&o->m);
		for (work = 0; work < 2000; work++)
			;
		o->counter++;
		uspin_mutex_unlock(&o->m);
		for (work = 0; work < 2000; work++)
			;
	}
	return NULL;
}

struct cost {
	double cpu_ns, nivcsw;	/* per acquisition */
};

static struct cost run_oversub(enum uspin_policy policy, long per_thread)
{
	struct oversub o = { .per_thread = per_thread };
	struct rusage r0, r1;
	pthread_t t[16];
	struct cost c;
	int i;

	ck_assert_int_eq(uspin_mutex_init(&o.m, policy), 0);
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, oversub_thread, &o);
	for (i = 0; i < 16; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &r1);
	ck_assert_int_eq(o.counter, 16 * per_thread);
	c.cpu_ns = ((r1.ru_utime.tv_sec - r0.ru_utime.tv_sec +
		     r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e9 +
		    (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec +
		     r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e3) /
		   (16.0 * per_thread);
	c.nivcsw = (double)(r1.ru_nivcsw - r0.ru_nivcsw) / (16.0 * per_thread);
	return c;
}

START_TEST(user_adaptive_does_not_burn_cpu_when_oversubscribed)
{
	long n = test_scaled(2000);
	struct cost block, ua;

	block = run_oversub(USPIN_POLICY_BLOCK, n);
	ua = run_oversub(USPIN_POLICY_USER_ADAPTIVE, n);
	printf("running-state/oversubscribed: per acquisition, block %.0f ns CPU %.3f invol. switches; user-adaptive %.0f ns CPU %.3f invol. switches\n",
	       block.cpu_ns, block.nivcsw, ua.cpu_ns, ua.nivcsw);
	ck_assert_msg(ua.cpu_ns <= 3.0 * block.cpu_ns + 2000,
		      "user-adaptive CPU/acq %.0f ns vs block %.0f ns",
		      ua.cpu_ns, block.cpu_ns);
	ck_assert_msg(ua.nivcsw <= 3.0 * block.nivcsw + 0.05,
		      "user-adaptive involuntary switches/acq %.3f vs block %.3f",
		      ua.nivcsw, block.nivcsw);
}
END_TEST

Suite *suite_running_state(void)
{
	TCase *tc;
	Suite *s = check_suite_one("running-state", 300, &tc);

	if (getenv("USPIN_TEST_RS_SELF_CHECK"))
		exit(self_check_after_exec());
	if (getenv("USPIN_RS_REQUIRE") && *getenv("USPIN_RS_REQUIRE")) {
		tcase_add_test(tc, required_provider_is_attached);
	} else if (strcmp(uspin_running_state_provider(), "none") == 0) {
		printf("SKIP: running-state: no running-state provider attached (8 checks not run)\n");
		return s;
	}
	tcase_add_test(tc, busy_thread_reads_on);
	tcase_add_loop_test(tc, sleeping_thread_reads_off, 0, 2);
	tcase_add_test(tc, stopped_process_reads_off_and_back_on);
	tcase_add_test(tc, out_of_range_reads_unknown);
	/* Per-thread areas are the process's own memory: writable. */
	if (per_thread_areas())
		printf("SKIP: running-state: store_into_mapping_is_sigsegv: the %s provider's areas are this process's own memory\n",
		       uspin_running_state_provider());
	else
		tcase_add_test(tc, store_into_mapping_is_sigsegv);
	tcase_add_test(tc, fork_and_exec_keep_the_mapping);
	tcase_add_test(tc, user_adaptive_does_not_burn_cpu_when_oversubscribed);
	return s;
}
