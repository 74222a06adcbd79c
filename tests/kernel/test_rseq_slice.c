// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_rseq_slice.c - the rseq time slice extension on the patched kernel
 * (kernel/patches/rseq-slice/, Linux 7.0's ABI): registration flags, the
 * prctl and its errors, what threads, fork and exec inherit, and the
 * grant itself (observed, yielded, revoked by expiry and by any system
 * call, never given while disabled, never forged from user space).
 *
 * The extension lives in glibc's rseq area (__rseq_offset), which glibc
 * registers for every thread without RSEQ_FLAG_SLICE_EXT_DEFAULT_ON.
 * Critical sections spin on a loop count, not on clock_gettime(): on the
 * jiffies guest that is a system call, and a system call ends a grant.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <linux/prctl.h>
#include <linux/rseq.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_rseq_slice_yield
#define __NR_rseq_slice_yield 471
#endif

/* The ABI of Linux 7.0, as the patched uapi headers must have it. */
_Static_assert(PR_RSEQ_SLICE_EXTENSION == 79, "prctl number");
_Static_assert(PR_RSEQ_SLICE_EXTENSION_GET == 1 && PR_RSEQ_SLICE_EXTENSION_SET == 2 &&
	       PR_RSEQ_SLICE_EXT_ENABLE == 1, "prctl arguments");
_Static_assert(RSEQ_FLAG_SLICE_EXT_DEFAULT_ON == 2, "rseq() flag");
_Static_assert(RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE == 16 &&
	       RSEQ_CS_FLAG_SLICE_EXT_ENABLED == 32, "rseq::flags bits");
_Static_assert(offsetof(struct rseq, slice_ctrl) == 28 &&
	       sizeof(struct rseq_slice_ctrl) == 4, "inside the original 32 bytes");

static struct rseq *rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

static volatile struct rseq_slice_ctrl *ctrl(void)
{
	return &rseq_area()->slice_ctrl;
}

static uint32_t area_flags(void)
{
	return __atomic_load_n(&rseq_area()->flags, __ATOMIC_RELAXED);
}

static long slice_prctl(unsigned long op, unsigned long a3, unsigned long a4,
			unsigned long a5)
{
	return prctl(PR_RSEQ_SLICE_EXTENSION, op, a3, a4, a5);
}

static long slice_get(void)
{
	return slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
}

static long slice_set(unsigned long on)
{
	return slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, on, 0, 0);
}

static long slice_yield(void)
{
	return syscall(__NR_rseq_slice_yield);
}

static void require_glibc_rseq(void)
{
	/*
	 * __rseq_size is the feature size glibc knows (20 in Debian's
	 * 2.36); the area it registers is 32 bytes, as the kernel requires
	 * at least, so slice_ctrl at offset 28 is always inside it.
	 */
	ck_assert_msg(__rseq_size > 0, "glibc registered no rseq area");
}

START_TEST(registration_reports_available)
{
	require_glibc_rseq();
	ck_assert_uint_ne(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE, 0);
	/* glibc registers without RSEQ_FLAG_SLICE_EXT_DEFAULT_ON */
	ck_assert_uint_eq(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_ENABLED, 0);
	ck_assert_int_eq(slice_get(), 0);
	ck_assert_uint_eq(ctrl()->all, 0);
}
END_TEST

START_TEST(prctl_set_and_get)
{
	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	ck_assert_int_eq(slice_get(), PR_RSEQ_SLICE_EXT_ENABLE);
	ck_assert_uint_ne(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_ENABLED, 0);
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);	/* no change */
	ck_assert_int_eq(slice_set(0), 0);
	ck_assert_int_eq(slice_get(), 0);
	ck_assert_uint_eq(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_ENABLED, 0);
	ck_assert_uint_ne(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE, 0);
}
END_TEST

static void expect_einval(long rc)
{
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(errno, EINVAL);
}

START_TEST(prctl_rejects_bad_arguments)
{
	require_glibc_rseq();
	expect_einval(slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 1, 0, 0));
	expect_einval(slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 2, 0, 0));
	expect_einval(slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 1, 1, 0));
	expect_einval(slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 1, 0, 1));
	expect_einval(slice_prctl(0, 0, 0, 0));
	expect_einval(slice_prctl(3, 0, 0, 0));
	/* nothing changed */
	ck_assert_int_eq(slice_get(), 0);
}
END_TEST

static void *get_in_thread(void *arg)
{
	long *out = arg;

	out[0] = slice_get();
	out[1] = slice_set(PR_RSEQ_SLICE_EXT_ENABLE);
	out[2] = slice_get();
	return NULL;
}

START_TEST(new_thread_starts_disabled)
{
	pthread_t t;
	long r[3];

	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, get_in_thread, r), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(r[0], 0);	/* per thread: a new area, disabled */
	ck_assert_int_eq(r[1], 0);
	ck_assert_int_eq(r[2], PR_RSEQ_SLICE_EXT_ENABLE);
	ck_assert_int_eq(slice_get(), PR_RSEQ_SLICE_EXT_ENABLE);
}
END_TEST

/* Runs this program again with one probe as argv[1] (see main()). */
static int run_probe(const char *probe, int tunable_off)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[] = { "test-rseq-slice", (char *)probe, NULL };
		char *envp_off[] = { "GLIBC_TUNABLES=glibc.pthread.rseq=0", NULL };
		char *envp[] = { NULL };

		execve("/proc/self/exe", argv, tunable_off ? envp_off : envp);
		_exit(99);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(fork_inherits_exec_resets)
{
	int status;
	pid_t pid;

	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(slice_get() == PR_RSEQ_SLICE_EXT_ENABLE &&
		      (area_flags() & RSEQ_CS_FLAG_SLICE_EXT_ENABLED) ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a fork child must keep the parent thread's setting");
	/* exec registers a fresh area: disabled again */
	ck_assert_int_eq(run_probe("--probe-disabled", 0), 0);
}
END_TEST

START_TEST(no_rseq_area_gives_enxio)
{
	ck_assert_int_eq(run_probe("--probe-enxio", 1), 0);
}
END_TEST

START_TEST(yield_without_grant_returns_zero)
{
	require_glibc_rseq();
	ck_assert_int_eq(slice_yield(), 0);		/* disabled */
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	ck_assert_int_eq(slice_yield(), 0);		/* nothing requested */
	ctrl()->request = 1;
	ck_assert_int_eq(slice_yield(), 0);		/* requested, not granted */
	ctrl()->request = 0;
}
END_TEST

START_TEST(forged_grant_is_ignored)
{
	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	/* The kernel's own state decides, not the user-writable byte. */
	ctrl()->granted = 1;
	ck_assert_int_eq(slice_yield(), 0);
	ctrl()->all = 0;
	ck_assert_int_eq(slice_get(), PR_RSEQ_SLICE_EXT_ENABLE);
}
END_TEST

/* ---- grants under a noise thread that keeps waking up on our CPU ---- */

struct noise {
	volatile int run;
};

static void spin(long iterations)
{
	for (volatile long i = 0; i < iterations; i++)
		;
}

/* Busy a little, sleep 50 us: every wakeup asks for the CPU. */
static void *noise_thread(void *arg)
{
	struct noise *n = arg;
	struct timespec ts = { .tv_nsec = 50 * 1000 };

	while (n->run) {
		spin(200);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	return NULL;
}

static void pin_to_last_cpu(void)
{
	cpu_set_t set;
	int cpu;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

enum on_grant { YIELD, OTHER_SYSCALL, OUTSTAY };

struct tally {
	long sections, grants, yielded, cleared_by_syscall, revoked;
};

/*
 * Critical sections of `iterations` loop turns with the extension
 * requested, for up to `seconds` or until `want` grants were seen; the
 * pinned noise thread (same CPU, created after pinning) provides the
 * reschedule requests.
 */
static struct tally run_sections(long iterations, double seconds, long want,
				 enum on_grant mode)
{
	struct tally t = { 0 };
	struct noise n = { .run = 1 };
	pthread_t thr;
	double end;

	pin_to_last_cpu();
	ck_assert_int_eq(pthread_create(&thr, NULL, noise_thread, &n), 0);
	end = now_s() + seconds;
	while (t.grants < want && now_s() < end) {
		t.sections++;
		ctrl()->request = 1;
		spin(iterations);
		ctrl()->request = 0;
		if (!ctrl()->granted)
			continue;
		t.grants++;
		if (mode == YIELD) {
			long rc = slice_yield();

			ck_assert(rc == 0 || rc == 1);
			t.yielded += rc;
		} else if (mode == OTHER_SYSCALL) {
			ck_assert_int_eq(syscall(SYS_getppid), getppid());
			if (ctrl()->all == 0)
				t.cleared_by_syscall++;
			ck_assert_int_eq(slice_yield(), 0);
		} else {
			/* No system call: only the timer can end the grant. */
			double give_up = now_s() + 0.5;

			while (ctrl()->granted && now_s() < give_up)
				spin(1000);
			if (!ctrl()->granted)
				t.revoked++;
			slice_yield();
		}
		/* The system call's entry work clears the whole word. */
		ck_assert_uint_eq(ctrl()->all, 0);
	}
	n.run = 0;
	pthread_join(thr, NULL);
	fprintf(stderr, "  %ld sections, %ld grants, %ld yielded in the grant, "
		"%ld cleared by another syscall, %ld revoked by expiry\n",
		t.sections, t.grants, t.yielded, t.cleared_by_syscall, t.revoked);
	return t;
}

START_TEST(grant_then_yield)
{
	struct tally t;

	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	t = run_sections(2000, 20.0, 50, YIELD);
	ck_assert_int_gt(t.grants, 0);
	ck_assert_int_gt(t.yielded, 0);
}
END_TEST

START_TEST(other_syscall_ends_grant)
{
	struct tally t;

	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	t = run_sections(2000, 20.0, 20, OTHER_SYSCALL);
	ck_assert_int_gt(t.grants, 0);
	ck_assert_int_eq(t.cleared_by_syscall, t.grants);
}
END_TEST

START_TEST(expiry_revokes_grant)
{
	struct tally t;

	require_glibc_rseq();
	ck_assert_int_eq(slice_set(PR_RSEQ_SLICE_EXT_ENABLE), 0);
	t = run_sections(2000, 20.0, 10, OUTSTAY);
	ck_assert_int_gt(t.grants, 0);
	ck_assert_int_eq(t.revoked, t.grants);
}
END_TEST

START_TEST(disabled_never_grants)
{
	struct tally t;

	require_glibc_rseq();
	ck_assert_int_eq(slice_get(), 0);
	t = run_sections(2000, 2.0, 1, YIELD);
	ck_assert_int_gt(t.sections, 0);
	ck_assert_int_eq(t.grants, 0);
}
END_TEST

/* The probes run in a freshly exec'd image (run_probe()). */
static int probe(const char *what)
{
	if (!strcmp(what, "--probe-disabled"))
		return slice_get() == 0 && __rseq_size > 0 &&
		       !(area_flags() & RSEQ_CS_FLAG_SLICE_EXT_ENABLED) ? 0 : 1;
	if (!strcmp(what, "--probe-enxio")) {
		if (__rseq_size != 0)
			return 2;	/* the tunable did not keep glibc out */
		return slice_set(PR_RSEQ_SLICE_EXT_ENABLE) == -1 && errno == ENXIO &&
		       slice_get() == 0 ? 0 : 1;
	}
	return 3;
}

int main(int argc, char **argv)
{
	Suite *s = suite_create("rseq-slice");
	TCase *abi = tcase_create("abi");
	TCase *grant = tcase_create("grant");
	SRunner *sr;
	int failed;

	if (argc > 1)
		return probe(argv[1]);

	tcase_add_test(abi, registration_reports_available);
	tcase_add_test(abi, prctl_set_and_get);
	tcase_add_test(abi, prctl_rejects_bad_arguments);
	tcase_add_test(abi, new_thread_starts_disabled);
	tcase_add_test(abi, fork_inherits_exec_resets);
	tcase_add_test(abi, no_rseq_area_gives_enxio);
	tcase_add_test(abi, yield_without_grant_returns_zero);
	tcase_add_test(abi, forged_grant_is_ignored);
	suite_add_tcase(s, abi);

	tcase_set_timeout(grant, 120);
	tcase_add_test(grant, grant_then_yield);
	tcase_add_test(grant, other_syscall_ends_grant);
	tcase_add_test(grant, expiry_revokes_grant);
	tcase_add_test(grant, disabled_never_grants);
	suite_add_tcase(s, grant);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
