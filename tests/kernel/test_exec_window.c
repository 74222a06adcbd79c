// SPDX-License-Identifier: MIT
/*
 * test-exec-window: what a task publishes while it execs, in the guest.
 * execve() runs for microseconds between de_thread() and the end of
 * begin_new_exec(); the test kernel's debugfs exec_test_delay_ms
 * (kernel/patches/testing/) makes it sleep there after exec_mmap(), so
 * the exec'ing task is switched out and in, and other tasks run.
 *
 *   freed_tid_is_left_to_its_new_holder
 *       running-state array: a non-leader thread of a published process
 *       execs; de_thread() gives it the leader's TID and frees its own,
 *       which a new process takes during the delay and sleeps.  Once
 *       the exec is over, the new holder's entry must read OFF.  (v2
 *       unpublished the exec'ing thread after exec_mmap(): every switch
 *       stored into the freed TID's entry, the last one 0.  Since v3
 *       each process has its own array, read here through
 *       PR_SCHED_RS_MAP_PEER views, and the two entries are apart.)
 *   new_program_memory_is_left_alone
 *       per-thread areas: a thread registers its area at the address
 *       where the new program's stack will hold the name of the file it
 *       execs, and execs; the new program must find AT_EXECFN intact.
 *       (v2 stored through the old address from the switches after
 *       exec_mmap(), into the new program's memory.)
 *
 * Both fail on the v2 code (docs/running-state-abi.md, "Who is published";
 * docs/rseq-state.md, "Tests").
 * Every test runs in its own forked process (Check's fork mode).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/sched_running_state.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sys_util.h"
#include "guest_util.h"

#define RS_SYSCTL	"/proc/sys/kernel/sched_running_state"
#define DEBUGFS		"/sys/kernel/debug"
#define DELAY_KNOB	DEBUGFS "/exec_test_delay_ms"
#define EXEC_DELAY_MS	300
#define SELF		"/proc/self/exe"

static void set_exec_delay(long ms)
{
	int err = write_long(DELAY_KNOB, ms);

	ck_assert_msg(err == 0, "%s: %s (a kernel without CONFIG_EXEC_TEST_DELAY?)",
		      DELAY_KNOB, strerror(err));
}

static void setup(void)
{
	if (access(DELAY_KNOB, F_OK) != 0)
		mount("none", DEBUGFS, "debugfs", 0, NULL);
	set_exec_delay(0);
}

static void teardown(void)
{
	write_long(DELAY_KNOB, 0);
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Read @len bytes from @fd within @ms; 0, or -1. */
static int read_within(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1 || read(fd, buf, len) != (ssize_t)len)
		return -1;
	return 0;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ---- running-state array ----------------------------------------------- */

struct exec_from_thread {
	volatile pid_t tid;	/* the exec'ing thread's own TID */
	int go[2];		/* a byte here starts its exec */
	int done;		/* the new program writes its TID here */
};

static void *exec_from_thread(void *arg)
{
	struct exec_from_thread *x = arg;
	char c;

	x->tid = (pid_t)sys_gettid();
	if (read(x->go[0], &c, 1) != 1)
		_exit(20);
	if (dup2(x->done, 3) != 3)
		_exit(21);
	/* per thread, and kept across the exec: the new program dies with us */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	execl(SELF, "test-exec-window", "report-tid", (char *)NULL);
	_exit(22);
}

/* Run after the exec: tell the test which TID the program got. */
static int report_tid(void)
{
	pid_t tid = (pid_t)sys_gettid();

	if (write(3, &tid, sizeof(tid)) != sizeof(tid))
		return 1;
	for (;;)
		pause();
}

/* A process with TID @tid, which sleeps; 0 while @tid is taken. */
static pid_t take_tid(pid_t tid);

/* The entry of @tid in the array of process @pid, mapped into ours. */
static const volatile uint32_t *peer_entry(pid_t pid, pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct sched_running_state rs;

	ck_assert_msg(fd >= 0, "pidfd_open(%d): %s", pid, strerror(errno));
	memset(&rs, 0, sizeof(rs));
	ck_assert_msg(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_MAP_PEER,
			    (unsigned long)&rs, sizeof(rs), (unsigned long)fd) == 0,
		      "PR_SCHED_RS_MAP_PEER(%d): %s", pid, strerror(errno));
	close(fd);
	return (const volatile uint32_t *)(uintptr_t)rs.base +
	       sched_rs_index(tid, rs.line_shift, rs.block_shift);
}

static pid_t take_tid(pid_t tid)
{
	pid_t set_tid = tid;
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&set_tid,
		.set_tid_size = 1,
	};
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed test leaks none */
		for (;;)
			pause();
	}
	if (pid < 0) {
		ck_assert_msg(errno == EEXIST, "clone3(set_tid=%d): %s", tid,
			      strerror(errno));
		return 0;
	}
	return (pid_t)pid;
}

START_TEST(freed_tid_is_left_to_its_new_holder)
{
	struct exec_from_thread *x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct sched_running_state rs;
	const volatile uint32_t *thread_entry, *leader_entry, *holder_entry;
	pid_t proc, holder = 0, tid, new_tid = 0;
	int done[2], i;
	uint32_t e;

	ck_assert_ptr_ne(x, MAP_FAILED);
	ck_assert_int_eq(write_long(RS_SYSCTL, 1), 0);
	memset(&rs, 0, sizeof(rs));
	ck_assert_msg(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_ENABLE,
			    (unsigned long)&rs, sizeof(rs), 0UL) == 0,
		      "PR_SCHED_RS_ENABLE: %s", strerror(errno));
	ck_assert_int_eq(pipe(x->go), 0);
	ck_assert_int_eq(pipe(done), 0);
	x->done = done[1];

	/* A published process (fork inherits the opt-in) with two threads. */
	proc = fork();
	ck_assert_int_ge(proc, 0);
	if (proc == 0) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed test leaks none */
		if (pthread_create(&t, NULL, exec_from_thread, x))
			_exit(23);
		for (;;)
			pause();
	}
	close(done[1]);
	for (i = 0; i < 5000 && !x->tid; i++)
		ms_sleep(1);
	tid = x->tid;
	ck_assert_msg(tid && tid != proc, "the exec'ing thread never started");
	for (i = 0; i < 5000 && task_state(proc, tid) != 'S'; i++)
		ms_sleep(1);
	thread_entry = peer_entry(proc, tid);
	leader_entry = peer_entry(proc, proc);
	e = *thread_entry;
	ck_assert_msg(e == SCHED_RS_OFF_CPU,
		      "thread %d waiting for its go reads %u, not OFF", tid, e);

	set_exec_delay(EXEC_DELAY_MS);
	ck_assert_int_eq(write(x->go[1], "x", 1), 1);
	/* de_thread() frees @tid before exec_mmap(): take it as it goes. */
	for (i = 0; i < 50000 && !holder; i++) {
		holder = take_tid(tid);
		if (!holder)
			usleep(100);
	}
	ck_assert_msg(holder, "TID %d was never freed", tid);
	ck_assert_msg(read_within(done[0], &new_tid, sizeof(new_tid), 10000) == 0,
		      "the exec'd program did not report");
	set_exec_delay(0);
	ck_assert_msg(new_tid == proc, "the exec'd program has TID %d, not the leader's %d",
		      new_tid, proc);

	for (i = 0; i < 5000 && task_state(holder, holder) != 'S'; i++)
		ms_sleep(1);
	ck_assert_int_eq(task_state(holder, holder), 'S');
	holder_entry = peer_entry(holder, tid);
	e = *holder_entry;
	ck_assert_msg(e == SCHED_RS_OFF_CPU,
		      "TID %d's new holder, asleep, reads %u after the exec of the thread that had it, not OFF (%u)",
		      tid, e, SCHED_RS_OFF_CPU);
	/* The exec'd program is not published: exec drops the opt-in. */
	ck_assert_uint_eq(*leader_entry, SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(*thread_entry, SCHED_RS_UNKNOWN);
	reap(holder);
	reap(proc);
	munmap(x, sizeof(*x));
}
END_TEST

/* ---- per-thread areas -------------------------------------------------- */

/*
 * The page exec's new mm starts with: [STACK_TOP_MAX - PAGE_SIZE,
 * STACK_TOP_MAX), holding the file name right below its top 8 bytes.
 * STACK_TOP_MAX is the top of the 56-bit space under 5-level paging, of
 * the 47-bit one otherwise.  Map it here (or find our own stack there).
 */
static char *new_stack_top(void)
{
	static const uintptr_t tops[] = { (1UL << 56) - 4096, (1UL << 47) - 4096 };
	unsigned int i;

	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		char *page = (char *)(tops[i] - 4096);
		void *p = mmap(page, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == page)
			return page + 4096;
		if (p != MAP_FAILED)
			munmap(p, 4096);
		else if (errno == EEXIST && msync(page, 4096, MS_ASYNC) == 0)
			return page + 4096;
	}
	return NULL;
}

/* Run after the exec: is the file name on the new stack intact? */
static int check_execfn(void)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);

	if (fn && strcmp(fn, SELF) == 0)
		return 0;
	fprintf(stderr, "test-exec-window: AT_EXECFN is \"%s\", not \"%s\"\n",
		fn ? fn : "(none)", SELF);
	return 1;
}

START_TEST(new_program_memory_is_left_alone)
{
	pid_t pid;
	int st;

	set_exec_delay(EXEC_DELAY_MS);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *top = new_stack_top();

		if (!top)
			_exit(30);
		/* the last 4 bytes of the file name, its NUL included */
		if (prctl(PR_SCHED_THREAD_STATE, PR_SCHED_TS_REGISTER,
			  (unsigned long)(top - 8 - 4), 0UL, 0UL))
			_exit(31);
		execl(SELF, "test-exec-window", "check-execfn", (char *)NULL);
		_exit(32);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	set_exec_delay(0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "status 0x%x (exit 1: the new program's file name was overwritten; 30: no page at the stack top; 31: register failed)",
		      st);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("exec-window");
	TCase *tc = tcase_create("exec-window");
	SRunner *sr;
	int failed;

	if (argc > 1 && strcmp(argv[1], "report-tid") == 0)
		return report_tid();
	if (argc > 1 && strcmp(argv[1], "check-execfn") == 0)
		return check_execfn();
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, freed_tid_is_left_to_its_new_holder);
	tcase_add_test(tc, new_program_memory_is_left_alone);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
