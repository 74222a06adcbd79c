// SPDX-License-Identifier: MIT
/*
 * test-running-state-kernel: what is specific to the patched kernel's
 * running-state array (kernel/patches 0003, 0004), in the guest.  The
 * provider-generic accuracy checks are test-uspin's running-state suite.
 *
 * Compiled against the patched kernel's uapi headers, so the
 * _Static_asserts below fail the build when vdso/running_state_abi.h and
 * <linux/sched_running_state.h> drift apart.
 */
#include <check.h>
#include <errno.h>
#include <linux/sched_running_state.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "running_state.h"
#include "running_state_abi.h"
#include "vdso_sym.h"

/* ---- ABI drift: user-space header vs the kernel's uapi header ---------- */
#define SAME_FIELD(f) \
	_Static_assert(offsetof(struct uspin_vdso_running_state, f) == \
		       offsetof(struct sched_running_state, f) && \
		       sizeof(((struct uspin_vdso_running_state *)0)->f) == \
		       sizeof(((struct sched_running_state *)0)->f), \
		       "running_state_abi.h and the kernel disagree on " #f)
SAME_FIELD(version);
SAME_FIELD(entry_size);
SAME_FIELD(nr_entries);
SAME_FIELD(flags);
SAME_FIELD(base);
_Static_assert(sizeof(struct uspin_vdso_running_state) ==
	       sizeof(struct sched_running_state), "struct size differs");
_Static_assert(sizeof(struct sched_running_state) == SCHED_RS_SIZE_V1,
	       "SCHED_RS_SIZE_V1 is not the v1 struct size");
_Static_assert(USPIN_RS_LAYOUT_V1 == SCHED_RS_LAYOUT_V1, "layout version differs");
_Static_assert(USPIN_RS_FLAG_PUBLISHING == SCHED_RS_FLAG_PUBLISHING,
	       "publishing flag differs");
_Static_assert(USPIN_RS_ENTRY_OFF == SCHED_RS_OFF_CPU, "OFF encoding differs");
_Static_assert(USPIN_RS_ENTRY_UNKNOWN == SCHED_RS_UNKNOWN,
	       "UNKNOWN encoding differs");

#define RS_SYSCTL "/proc/sys/kernel/sched_running_state"

static uspin_vdso_rs_fn rs_fn(void)
{
	uspin_vdso_rs_fn fn = (uspin_vdso_rs_fn)uspin_vdso_sym(
		USPIN_VDSO_RS_VERSION, USPIN_VDSO_RS_SYMBOL);

	ck_assert_msg(fn, "no %s in the vDSO", USPIN_VDSO_RS_SYMBOL);
	return fn;
}

static struct uspin_vdso_running_state rs_get(void)
{
	struct uspin_vdso_running_state rs;

	memset(&rs, 0, sizeof(rs));
	ck_assert_int_eq(rs_fn()(&rs, sizeof(rs)), 0);
	return rs;
}

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	ck_assert_msg(f, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fscanf(f, "%d", &v), 1);
	fclose(f);
	return v;
}

static void set_publishing(int on)
{
	FILE *f = fopen(RS_SYSCTL, "w");

	ck_assert_msg(f, "open %s: %s", RS_SYSCTL, strerror(errno));
	ck_assert_int_gt(fprintf(f, "%d\n", on), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(read_int(RS_SYSCTL), on);
}

static uint32_t self_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* The [running_state] line of /proc/self/maps: start, end, perms. */
static int find_mapping(unsigned long *start, unsigned long *end, char perms[5],
			unsigned long *vvar_start)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	*vvar_start = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char p[5];

		if (sscanf(line, "%lx-%lx %4s", &s, &e, p) != 3)
			continue;
		if (strstr(line, "[running_state]")) {
			*start = s;
			*end = e;
			memcpy(perms, p, 5);
			found = 1;
		} else if (strstr(line, "[vvar]")) {
			*vvar_start = s;
		}
	}
	fclose(f);
	return found;
}

START_TEST(short_size_is_einval)
{
	unsigned char buf[64];
	unsigned long sizes[] = { 0, 1, SCHED_RS_SIZE_V1 - 1 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 0xa5, sizeof(buf));
		ck_assert_int_eq(rs_fn()((void *)buf, sizes[i]), -EINVAL);
		/* nothing written */
		ck_assert_int_eq(buf[0], 0xa5);
		ck_assert_int_eq(buf[SCHED_RS_SIZE_V1 - 1], 0xa5);
	}
	/* a larger buffer (a future caller) gets v1 and no more */
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(rs_fn()((void *)buf, sizeof(buf)), 0);
	ck_assert_int_eq(((struct sched_running_state *)buf)->version,
			 SCHED_RS_LAYOUT_V1);
	ck_assert_int_eq(buf[SCHED_RS_SIZE_V1], 0xa5);
}
END_TEST

START_TEST(layout_covers_pid_max)
{
	struct uspin_vdso_running_state rs = rs_get();
	int pid_max = read_int("/proc/sys/kernel/pid_max");

	ck_assert_int_eq(rs.version, SCHED_RS_LAYOUT_V1);
	ck_assert_int_eq(rs.entry_size, 4);
	ck_assert_uint_ge(rs.nr_entries, (unsigned int)pid_max);
	ck_assert_uint_eq((rs.nr_entries * 4u) % 4096, 0);
	ck_assert_uint_eq(rs.base % 4096, 0);
	ck_assert_uint_eq(rs.flags & SCHED_RS_FLAG_PUBLISHING,
			  SCHED_RS_FLAG_PUBLISHING);
	printf("running-state: nr_entries %u (pid_max %d), base 0x%llx\n",
	       rs.nr_entries, pid_max, (unsigned long long)rs.base);
}
END_TEST

START_TEST(mapping_is_read_only_below_vvar)
{
	struct uspin_vdso_running_state rs = rs_get();
	unsigned long s = 0, e = 0, vvar;
	char perms[5] = "";

	ck_assert_msg(find_mapping(&s, &e, perms, &vvar),
		      "no [running_state] in /proc/self/maps");
	ck_assert_str_eq(perms, "r--p");
	/* the array, then the header page, then [vvar] */
	ck_assert_uint_eq(s, rs.base);
	ck_assert_uint_eq(e, rs.base + rs.nr_entries * 4ul + 4096);
	ck_assert_uint_eq(e, vvar);
	errno = 0;
	ck_assert_int_eq(mprotect((void *)s, 4096, PROT_READ | PROT_WRITE), -1);
	ck_assert_int_eq(errno, EACCES);
	errno = 0;
	ck_assert_int_eq(mprotect((void *)s, e - s, PROT_READ | PROT_WRITE |
				  PROT_EXEC), -1);
	/* still readable, and we are on a CPU */
	ck_assert_uint_eq(((const volatile uint32_t *)(uintptr_t)rs.base)[self_tid()] != 0, 1);
}
END_TEST

/* Re-executed as "after-exec": the fresh image has its own working mapping. */
static int after_exec(void)
{
	uspin_vdso_rs_fn fn = (uspin_vdso_rs_fn)uspin_vdso_sym(
		USPIN_VDSO_RS_VERSION, USPIN_VDSO_RS_SYMBOL);
	struct uspin_vdso_running_state rs;
	unsigned long s, e, vvar;
	char perms[5];

	memset(&rs, 0, sizeof(rs));
	if (!fn || fn(&rs, sizeof(rs)) || !rs.nr_entries)
		return 10;
	if (!find_mapping(&s, &e, perms, &vvar) || s != rs.base ||
	    strcmp(perms, "r--p") || e != vvar)
		return 11;
	setenv("USPIN_RS_PROVIDER", "vdso", 1);
	if (strcmp(uspin_running_state_init(), "vdso"))
		return 12;
	if (uspin_rs_query(self_tid()) != USPIN_RS_ON)
		return 13;
	return 0;
}

START_TEST(present_after_exec)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test-running-state-kernel", "after-exec",
		      (char *)NULL);
		_exit(99);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exec'd child: status 0x%x (10 no fn, 11 mapping, 12 attach, 13 not ON)",
		      st);
}
END_TEST

/*
 * Re-executed as "after-thread-exec T" by a non-leader thread T: exec
 * gave this task the leader's pid (de_thread), so its new TID reads ON
 * and the old thread's TID (now the reaped leader's) reads OFF.
 */
static int after_thread_exec(const char *old_tid)
{
	uint32_t old = (uint32_t)atoi(old_tid);
	struct timespec d = { 0, 20000000 };

	setenv("USPIN_RS_PROVIDER", "vdso", 1);
	if (strcmp(uspin_running_state_init(), "vdso"))
		return 12;
	if (self_tid() == old)
		return 14;
	if (uspin_rs_query(self_tid()) != USPIN_RS_ON)
		return 13;
	nanosleep(&d, NULL);
	return uspin_rs_query(old) == USPIN_RS_OFF ? 0 : 15;
}

static void *exec_from_thread(void *arg)
{
	char tid[16];

	(void)arg;
	snprintf(tid, sizeof(tid), "%u", self_tid());
	execl("/proc/self/exe", "test-running-state-kernel",
	      "after-thread-exec", tid, (char *)NULL);
	_exit(99);
}

START_TEST(exec_from_a_thread_moves_the_entry)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t t;

		pthread_create(&t, NULL, exec_from_thread, NULL);
		pause();
		_exit(98);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exec from a thread: status 0x%x (13 new TID not ON, 15 old TID not OFF)",
		      st);
}
END_TEST

static volatile int spin_stop;

static void *spinner(void *arg)
{
	*(volatile uint32_t *)arg = self_tid();
	while (!spin_stop)
		;
	return NULL;
}

START_TEST(sysctl_off_reads_unknown_on_again_reads_on)
{
	struct uspin_vdso_running_state rs;
	const volatile uint32_t *a;
	volatile uint32_t other = 0;
	uint32_t i, bad = 0, me = self_tid();
	struct timespec ms = { 0, 1000000 };
	pthread_t t;

	setenv("USPIN_RS_PROVIDER", "vdso", 1);
	ck_assert_str_eq(uspin_running_state_init(), "vdso");
	ck_assert_int_eq(read_int(RS_SYSCTL), 1);
	spin_stop = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, spinner, (void *)&other), 0);
	while (!other)
		sched_yield();

	set_publishing(0);
	rs = rs_get();
	ck_assert_uint_eq(rs.flags & SCHED_RS_FLAG_PUBLISHING, 0);
	a = (const volatile uint32_t *)(uintptr_t)rs.base;
	nanosleep(&ms, NULL);		/* switches happen, nothing is written */
	for (i = 0; i < rs.nr_entries; i++)
		bad += a[i] != SCHED_RS_UNKNOWN;
	ck_assert_uint_eq(rs.nr_entries, uspin_rs_view.nr_entries);
	ck_assert_int_eq(uspin_rs_query(me), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(other), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(1), USPIN_RS_UNKNOWN);

	set_publishing(1);
	spin_stop = 1;
	pthread_join(t, NULL);
	ck_assert_msg(bad == 0, "%u entries not UNKNOWN while off", bad);
	rs = rs_get();
	ck_assert_uint_eq(rs.flags & SCHED_RS_FLAG_PUBLISHING,
			  SCHED_RS_FLAG_PUBLISHING);
	nanosleep(&ms, NULL);		/* switched out and back in */
	ck_assert_int_eq(uspin_rs_query(me), USPIN_RS_ON);
	ck_assert_int_eq(uspin_rs_query(other), USPIN_RS_OFF);	/* exited */
}
END_TEST

START_TEST(sysctl_rejects_other_values)
{
	FILE *f = fopen(RS_SYSCTL, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "2\n");
	ck_assert_int_ne(fclose(f), 0);		/* EINVAL at the flush */
	ck_assert_int_eq(read_int(RS_SYSCTL), 1);
}
END_TEST

static Suite *kernel_rs_suite(void)
{
	Suite *s = suite_create("running-state-kernel");
	TCase *tc = tcase_create("kernel");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, short_size_is_einval);
	tcase_add_test(tc, layout_covers_pid_max);
	tcase_add_test(tc, mapping_is_read_only_below_vvar);
	tcase_add_test(tc, present_after_exec);
	tcase_add_test(tc, exec_from_a_thread_moves_the_entry);
	tcase_add_test(tc, sysctl_off_reads_unknown_on_again_reads_on);
	tcase_add_test(tc, sysctl_rejects_other_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc > 1 && strcmp(argv[1], "after-exec") == 0)
		return after_exec();
	if (argc > 2 && strcmp(argv[1], "after-thread-exec") == 0)
		return after_thread_exec(argv[2]);
	sr = srunner_create(kernel_rs_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
