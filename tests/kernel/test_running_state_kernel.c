// SPDX-License-Identifier: MIT
/*
 * test-running-state-kernel: the patched kernel's running-state array
 * (kernel/patches/running-state/), in the guest, as root.  What the kernel
 * promises, checked through the raw ABI (prctl + the mapping), plus the
 * vdso provider on top of it.  The provider-generic accuracy checks are
 * test-uspin's running-state suite.
 *
 * Compiled against the patched kernel's uapi headers, so the
 * _Static_asserts below fail the build when vdso/running_state_abi.h and
 * <linux/sched_running_state.h> / <linux/prctl.h> drift apart.
 *
 * Every test runs in its own forked process (Check's fork mode), which
 * opts itself in; the runner process never does.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <linux/sched_running_state.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sys_util.h"
#include "guest_util.h"
#include "running_state.h"
#include "running_state_abi.h"
#include "uspin.h"

/* ---- ABI drift: user-space header vs the kernel's uapi headers --------- */
#define SAME_FIELD(f) \
	_Static_assert(offsetof(struct uspin_kernel_rs, f) == \
		       offsetof(struct sched_running_state, f) && \
		       sizeof(((struct uspin_kernel_rs *)0)->f) == \
		       sizeof(((struct sched_running_state *)0)->f), \
		       "running_state_abi.h and the kernel disagree on " #f)
SAME_FIELD(version);
SAME_FIELD(flags);
SAME_FIELD(nr_entries);
SAME_FIELD(entry_size);
SAME_FIELD(line_shift);
SAME_FIELD(block_shift);
SAME_FIELD(base);
SAME_FIELD(size);
SAME_FIELD(pid_ns);
_Static_assert(sizeof(struct uspin_kernel_rs) == sizeof(struct sched_running_state),
	       "struct size differs");
_Static_assert(sizeof(struct sched_running_state) == SCHED_RS_SIZE_VER0,
	       "SCHED_RS_SIZE_VER0 is not the first struct's size");
_Static_assert(USPIN_RS_SIZE_VER0 == SCHED_RS_SIZE_VER0, "VER0 size differs");
_Static_assert(USPIN_PR_SCHED_RUNNING_STATE == PR_SCHED_RUNNING_STATE, "prctl differs");
_Static_assert(USPIN_PR_SCHED_RS_ENABLE == PR_SCHED_RS_ENABLE, "ENABLE differs");
_Static_assert(USPIN_PR_SCHED_RS_GET == PR_SCHED_RS_GET, "GET differs");
_Static_assert(USPIN_PR_SCHED_RS_DISABLE == PR_SCHED_RS_DISABLE, "DISABLE differs");
_Static_assert(USPIN_PR_SCHED_RS_MAP_PEER == PR_SCHED_RS_MAP_PEER, "MAP_PEER differs");
_Static_assert(USPIN_RS_VERSION == SCHED_RS_VERSION, "version differs");
_Static_assert(USPIN_RS_FLAG_OPTED_IN == SCHED_RS_FLAG_OPTED_IN, "flag differs");
_Static_assert(USPIN_RS_FLAG_PUBLISHING == SCHED_RS_FLAG_PUBLISHING, "flag differs");
_Static_assert(USPIN_RS_FLAG_PER_PROCESS == SCHED_RS_FLAG_PER_PROCESS, "flag differs");
_Static_assert(USPIN_RS_ENTRY_UNKNOWN == SCHED_RS_UNKNOWN, "UNKNOWN differs");
_Static_assert(USPIN_RS_ENTRY_OFF == SCHED_RS_OFF_CPU, "OFF differs");
_Static_assert(USPIN_RS_ENTRY_ON == SCHED_RS_ON_CPU, "ON differs");

#define RS_SYSCTL	"/proc/sys/kernel/sched_running_state"
#define PID_MAX		"/proc/sys/kernel/pid_max"
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"
#define DEBUGFS		"/sys/kernel/debug"
#define RS_DELAY_KNOB	DEBUGFS "/sched_rs_test_delay_ms"
#define ARCH_MAP_VDSO_32	0x2002
#define PF_KTHREAD	0x00200000

/* ---- helpers ----------------------------------------------------------- */

static int rs_prctl(int op, struct uspin_kernel_rs *rs, unsigned long size)
{
	return prctl(PR_SCHED_RUNNING_STATE, op, (unsigned long)rs, size, 0UL);
}

static struct uspin_kernel_rs rs_enable(void)
{
	struct uspin_kernel_rs rs;

	memset(&rs, 0, sizeof(rs));
	ck_assert_msg(rs_prctl(PR_SCHED_RS_ENABLE, &rs, sizeof(rs)) == 0,
		      "PR_SCHED_RS_ENABLE: %s", strerror(errno));
	return rs;
}

static struct uspin_kernel_rs rs_get(void)
{
	struct uspin_kernel_rs rs;

	memset(&rs, 0xa5, sizeof(rs));
	ck_assert_msg(rs_prctl(PR_SCHED_RS_GET, &rs, sizeof(rs)) == 0,
		      "PR_SCHED_RS_GET: %s", strerror(errno));
	return rs;
}

/* PR_SCHED_RS_MAP_PEER of @pid through a pidfd: 0, or -1 with errno. */
static int rs_map_peer(pid_t pid, struct uspin_kernel_rs *rs)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), ret, err;

	if (fd < 0)
		return -1;
	memset(rs, 0, sizeof(*rs));
	ret = prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_MAP_PEER,
		    (unsigned long)rs, sizeof(*rs), (unsigned long)fd);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static uint32_t rs_index(const struct uspin_kernel_rs *rs, uint32_t tid)
{
	return uspin_rs_abi_index(tid, rs->line_shift, rs->block_shift);
}

static uint32_t rs_read(const struct uspin_kernel_rs *rs, uint32_t tid)
{
	const volatile uint32_t *a = (const volatile uint32_t *)(uintptr_t)rs->base;

	return a[rs_index(rs, tid)];
}

/* Since version 3 "on" names no CPU: any other value is a bug. */
static int is_on(uint32_t e)
{
	return e == SCHED_RS_ON_CPU;
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	ck_assert_msg(f, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fscanf(f, "%ld", &v), 1);
	fclose(f);
	return v;
}

static void set_publishing(int on)
{
	ck_assert_int_eq(write_long(RS_SYSCTL, on), 0);
	ck_assert_int_eq(read_long(RS_SYSCTL), on);
}

static uint64_t own_pid_ns(void)
{
	struct stat st;

	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	return st.st_ino;
}

static void ms_sleep(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&d, NULL);
}

/* Poll until @pred(entry of @tid) holds; 1 if it did within ~2 s. */
static int wait_entry(const struct uspin_kernel_rs *rs, uint32_t tid,
		      int (*pred)(uint32_t))
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (pred(rs_read(rs, tid)))
			return 1;
		if (i % 16 == 15)
			ms_sleep(1);
		else
			sched_yield();
	}
	return 0;
}

static int is_off(uint32_t e)
{
	return e == SCHED_RS_OFF_CPU;
}

static int is_zero(uint32_t e)
{
	return e == SCHED_RS_UNKNOWN;
}

/*
 * A thread that spins until told, or sleeps until told.  A spinning one
 * reads its own entry through @rs (when set) and counts how often it is
 * ON: only the thread itself can be sure to look while it runs (a reader
 * that shares its CPU always sees it OFF, correctly).
 */
struct worker {
	pthread_t thr;
	const struct uspin_kernel_rs *rs;
	volatile uint32_t tid;
	volatile int stop;
	volatile long samples, on;
	int sleep;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint32_t self = sys_gettid();

	w->tid = self;
	while (!w->stop) {
		if (w->sleep) {
			ms_sleep(1);
		} else if (w->rs && ((volatile const struct uspin_kernel_rs *)w->rs)->base) {
			w->samples++;
			w->on += is_on(rs_read(w->rs, self));
		}
	}
	return NULL;
}

static void worker_start_rs(struct worker *w, int sleep,
			    const struct uspin_kernel_rs *rs)
{
	memset(w, 0, sizeof(*w));
	w->sleep = sleep;
	w->rs = rs;
	ck_assert_int_eq(pthread_create(&w->thr, NULL, worker_fn, w), 0);
	while (!w->tid)
		sched_yield();
}

static void worker_start(struct worker *w, int sleep)
{
	worker_start_rs(w, sleep, NULL);
}

/* Wait until a spinning worker has seen itself ON; 1 if within ~2 s. */
static int worker_saw_on(struct worker *w)
{
	int i;

	for (i = 0; i < 2000 && !w->on; i++)
		ms_sleep(1);
	return w->on > 0;
}

static void worker_stop(struct worker *w)
{
	w->stop = 1;
	pthread_join(w->thr, NULL);
}

/* Wait for a child; its exit status, or 128 + signal. */
static int child_status(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* The [line] of /proc/self/maps that starts at @start: perms and name. */
static int maps_line(unsigned long start, char perms[5], char *name, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char p[5];
		int off = 0;

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &s, &e, p, &off) < 3 ||
		    s != start)
			continue;
		memcpy(perms, p, 5);
		snprintf(name, len, "%s", off ? line + off : "");
		name[strcspn(name, "\n")] = 0;
		found = 1;
	}
	fclose(f);
	return found;
}

static void setup(void)
{
	if (read_long(RS_SYSCTL) != 1)
		set_publishing(1);
}

/* ---- the ABI ----------------------------------------------------------- */

START_TEST(bad_arguments_are_einval)
{
	unsigned char buf[128];
	struct uspin_kernel_rs rs;

	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_GET, &rs, SCHED_RS_SIZE_VER0 - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_ENABLE, &rs, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_GET, &rs, 1 << 20), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_MAP_PEER + 1, &rs, sizeof(rs)), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;		/* MAP_PEER's fifth argument is a pidfd */
	ck_assert_int_eq(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_MAP_PEER,
			       (unsigned long)&rs, sizeof(rs), 1UL << 40), -1);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_int_eq(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_MAP_PEER,
			       (unsigned long)&rs, SCHED_RS_SIZE_VER0 - 1, 0UL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_GET,
			       (unsigned long)&rs, sizeof(rs), 1UL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_GET, (void *)8, sizeof(rs)), -1);
	ck_assert_int_eq(errno, EFAULT);
	/* A larger buffer (a later caller) gets this version, then zeros. */
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_GET, (void *)buf, sizeof(buf)), 0);
	ck_assert_int_eq(((struct sched_running_state *)buf)->version, SCHED_RS_VERSION);
	ck_assert_int_eq(buf[SCHED_RS_SIZE_VER0], 0);
	ck_assert_int_eq(buf[sizeof(buf) - 1], 0);
}
END_TEST

START_TEST(get_before_opting_in_changes_nothing)
{
	struct uspin_kernel_rs rs = rs_get(), again;

	ck_assert_int_eq(rs.version, SCHED_RS_VERSION);
	ck_assert_uint_eq(rs.flags & SCHED_RS_FLAG_OPTED_IN, 0);
	ck_assert_uint_eq(rs.flags & SCHED_RS_FLAG_PUBLISHING, SCHED_RS_FLAG_PUBLISHING);
	ck_assert_uint_eq(rs.base, 0);
	ck_assert_uint_eq(rs.size, 0);
	ck_assert_uint_eq(rs.pid_ns, own_pid_ns());
	again = rs_get();
	ck_assert_uint_eq(again.flags & SCHED_RS_FLAG_OPTED_IN, 0);
}
END_TEST

START_TEST(enable_describes_and_publishes_the_caller)
{
	struct uspin_kernel_rs rs = rs_enable(), get;
	long pid_max_limit = 4 * 1024 * 1024;	/* 64-bit, CONFIG_BASE_FULL */
	uint32_t me = sys_gettid(), e;

	ck_assert_int_eq(rs.version, SCHED_RS_VERSION);
	ck_assert_int_eq(rs.entry_size, 4);
	ck_assert_uint_eq(rs.nr_entries, pid_max_limit);
	ck_assert_uint_eq(rs.line_shift, 4);	/* 64-byte lines */
	ck_assert_uint_eq(rs.block_shift, 10);	/* 4 KiB pages */
	ck_assert_uint_eq(rs.base % 4096, 0);
	ck_assert_uint_eq(rs.size, (uint64_t)rs.nr_entries * 4);
	ck_assert_uint_eq(rs.pid_ns, own_pid_ns());
	ck_assert_uint_eq(rs.flags, SCHED_RS_FLAG_OPTED_IN | SCHED_RS_FLAG_PUBLISHING |
				    SCHED_RS_FLAG_PER_PROCESS);
	/* The caller reads ON at once, no switch needed. */
	e = rs_read(&rs, me);
	ck_assert_msg(is_on(e), "own entry %u after ENABLE", e);
	/* Idempotent: same mapping, and GET agrees. */
	get = rs_enable();
	ck_assert_uint_eq(get.base, rs.base);
	get = rs_get();
	ck_assert_uint_eq(get.base, rs.base);
	ck_assert_uint_eq(get.flags, rs.flags);
	printf("running-state: %u entries at 0x%llx, lines of %u, blocks of %u, pid ns %llu\n",
	       rs.nr_entries, (unsigned long long)rs.base, 1u << rs.line_shift,
	       1u << rs.block_shift, (unsigned long long)rs.pid_ns);
}
END_TEST

/*
 * On every CPU the caller reads ON (2), never 2 + its CPU: version 3 of
 * the encoding withholds the CPU (version 2 read 3 on CPU 1).  The switch
 * that moves the caller to CPU c stores its entry there.
 */
START_TEST(entry_names_no_cpu)
{
	struct uspin_kernel_rs rs = rs_enable();
	uint32_t me = sys_gettid(), e;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	ck_assert_int_ge(ncpus, 2);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
		ck_assert_int_eq(sched_getcpu(), cpu);
		e = rs_read(&rs, me);
		ck_assert_msg(e == SCHED_RS_ON_CPU, "on CPU %d the entry reads %u", cpu, e);
	}
}
END_TEST

/* The kernel's sched_rs_index() and ours agree, and it is a permutation. */
START_TEST(index_is_the_kernels_and_a_permutation)
{
	static uint8_t seen[1024];
	uint32_t t, differ = 0, first = 0;

	/*
	 * Compared in a plain loop, asserted once: every passing Check
	 * assertion writes its location to the parent (a system call), and
	 * 600,000 of them outlast the timeout on the sanitizer kernel in TCG.
	 */
	for (t = 0; t < (1u << 22); t += 7)
		if (uspin_rs_abi_index(t, 4, 10) != sched_rs_index(t, 4, 10) && !differ++)
			first = t;
	ck_assert_msg(differ == 0, "%u TIDs index differently, the first %u", differ, first);
	for (t = 0; t < 1024; t++) {
		uint32_t i = uspin_rs_abi_index(3 * 1024 + t, 4, 10);

		ck_assert_uint_eq(i >> 10, 3);
		ck_assert_int_eq(seen[i & 1023]++, 0);
	}
	/* 64 consecutive TIDs: 64 different 64-byte lines */
	for (t = 1; t < 64; t++)
		ck_assert_uint_ne(uspin_rs_abi_index(t, 4, 10) / 16,
				  uspin_rs_abi_index(0, 4, 10) / 16);
	ck_assert_uint_eq(uspin_rs_abi_index(64, 4, 10) / 16, 0);
	/* line_shift 0: a plain array */
	ck_assert_uint_eq(uspin_rs_abi_index(12345, 0, 0), 12345);
}
END_TEST

START_TEST(mapping_is_read_only_and_cannot_be_made_writable)
{
	struct uspin_kernel_rs rs = rs_enable();
	char perms[5] = "", name[128] = "", *p;
	unsigned long len = rs.size;
	int fd;
	uint32_t v, me = sys_gettid();
	pid_t pid;

	ck_assert_msg(maps_line(rs.base, perms, name, sizeof(name)),
		      "no mapping at 0x%llx in /proc/self/maps", (unsigned long long)rs.base);
	ck_assert_str_eq(perms, "r--s");
	ck_assert_msg(strstr(name, "sched_running_state"), "mapping named '%s'", name);
	errno = 0;
	ck_assert_int_eq(mprotect((void *)(uintptr_t)rs.base, len, PROT_READ | PROT_WRITE), -1);
	ck_assert_int_eq(errno, EACCES);
	errno = 0;
	ck_assert_int_eq(mprotect((void *)(uintptr_t)rs.base, len, PROT_READ | PROT_EXEC), -1);
	ck_assert_int_eq(errno, EACCES);
	/* no split: part of it can be neither unmapped nor reprotected */
	errno = 0;
	ck_assert_int_eq(munmap((void *)(uintptr_t)rs.base, 4096), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(mprotect((void *)(uintptr_t)rs.base, 4096, PROT_NONE), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* no growing */
	ck_assert_ptr_eq(mremap((void *)(uintptr_t)rs.base, len, len + 4096, 0), MAP_FAILED);
	/* /proc/self/mem (FOLL_FORCE) cannot write it, but can read it */
	fd = open("/proc/self/mem", O_RDWR);
	ck_assert_int_ge(fd, 0);
	v = 0x12345678;
	ck_assert_int_eq(pwrite(fd, &v, 4, (off_t)(rs.base + 4ul * rs_index(&rs, me))), -1);
	v = 0;
	ck_assert_int_eq(pread(fd, &v, 4, (off_t)(rs.base + 4ul * rs_index(&rs, me))), 4);
	ck_assert_msg(is_on(v), "own entry read through /proc/self/mem: %u", v);
	close(fd);
	/* a store faults */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		p = (char *)(uintptr_t)rs.base;
		p[4 * rs_index(&rs, me)] = 1;
		_exit(0);
	}
	ck_assert_int_eq(child_status(pid), 128 + SIGSEGV);
	/* still intact */
	ck_assert(is_on(rs_read(&rs, me)));
}
END_TEST

START_TEST(mremap_moves_it_and_get_follows)
{
	struct uspin_kernel_rs rs = rs_enable(), get;
	void *to, *moved;
	uint32_t me = sys_gettid();

	/* reserve a destination, then move the whole mapping there */
	to = mmap(NULL, rs.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(to, MAP_FAILED);
	moved = mremap((void *)(uintptr_t)rs.base, rs.size, rs.size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ck_assert_ptr_eq(moved, to);
	get = rs_get();
	ck_assert_uint_eq(get.base, (uintptr_t)to);
	ms_sleep(2);			/* switched out and back in */
	ck_assert(is_on(rs_read(&get, me)));
	/* ENABLE finds the moved mapping rather than making another */
	ck_assert_uint_eq(rs_enable().base, (uintptr_t)to);
	/* unmapped: GET says so, ENABLE maps it again */
	ck_assert_int_eq(munmap(to, rs.size), 0);
	ck_assert_uint_eq(rs_get().base, 0);
	get = rs_enable();
	ck_assert_uint_ne(get.base, 0);
	ck_assert(is_on(rs_read(&get, me)));
}
END_TEST

/* ---- who is published ------------------------------------------------- */

START_TEST(threads_before_and_after_opting_in_are_published)
{
	struct worker before, busy, sleeper;
	static struct uspin_kernel_rs rs;	/* read by "before" before it is set */
	uint32_t gone;

	/* exists before the opt-in; reads its entry once there is one */
	worker_start_rs(&before, 0, &rs);
	rs = rs_enable();
	worker_start_rs(&busy, 0, &rs);
	worker_start(&sleeper, 1);
	ck_assert_msg(worker_saw_on(&busy), "busy thread never read itself ON");
	ck_assert_msg(wait_entry(&rs, sleeper.tid, is_off), "sleeping thread never OFF");
	ck_assert_msg(worker_saw_on(&before),
		      "thread created before the opt-in never read itself ON");
	gone = busy.tid;
	worker_stop(&busy);
	ck_assert_msg(busy.on * 100 >= busy.samples * 99,
		      "busy thread read itself ON in %ld of %ld samples", busy.on, busy.samples);
	/* an exited thread is unpublished: no information, never ON */
	ck_assert_msg(wait_entry(&rs, gone, is_zero), "exited thread %u not 0", gone);
	worker_stop(&sleeper);
	worker_stop(&before);
}
END_TEST

/* The exec'd image: says it is there on fd 3, then stays busy. */
static int after_exec(void)
{
	struct uspin_kernel_rs rs;

	memset(&rs, 0xa5, sizeof(rs));
	if (rs_prctl(PR_SCHED_RS_GET, &rs, sizeof(rs)))
		return 10;
	if (rs.flags & SCHED_RS_FLAG_OPTED_IN)
		return 11;		/* exec must drop the opt-in */
	if (rs.base)
		return 12;		/* ... and the mapping */
	if (write(3, "x", 1) != 1)
		return 13;
	for (;;)
		;			/* busy until killed: must stay invisible */
}

/*
 * Fork a child that runs after_exec() in a fresh image, reporting on
 * @report (its fd 3; closed here), after a byte on @go if @go >= 0.  It
 * dies with the test.
 */
static pid_t fork_after_exec(int report, int go)
{
	pid_t pid = fork();
	char c;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* kept across exec */
		if (dup2(report, 3) != 3 || (go >= 0 && read(go, &c, 1) != 1))
			_exit(98);
		execl("/proc/self/exe", "test-running-state-kernel", "after-exec",
		      (char *)NULL);
		_exit(99);
	}
	close(report);
	return pid;
}

START_TEST(fork_inherits_exec_drops)
{
	struct uspin_kernel_rs rs = rs_enable();
	volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int i, st, p[2];
	char c;

	ck_assert_ptr_ne((void *)flag, MAP_FAILED);
	/* fork: opted in, same mapping, published */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct uspin_kernel_rs c;

		memset(&c, 0, sizeof(c));
		if (rs_prctl(PR_SCHED_RS_GET, &c, sizeof(c)))
			_exit(10);
		if (!(c.flags & SCHED_RS_FLAG_OPTED_IN) || c.base != rs.base)
			_exit(11);
		_exit(is_on(rs_read(&c, sys_gettid())) ? 0 : 12);
	}
	ck_assert_int_eq(child_status(pid), 0);

	/* exec: not opted in, not visible while it runs */
	ck_assert_int_eq(pipe(p), 0);
	pid = fork_after_exec(p[1], -1);
	ck_assert_msg(read(p[0], &c, 1) == 1,
		      "exec'd child died before it ran: 0x%x (11: still opted in, 12: still mapped)",
		      (waitpid(pid, &st, 0), st));
	for (i = 0; i < 300; i++) {
		ck_assert_uint_eq(rs_read(&rs, pid), SCHED_RS_UNKNOWN);
		ms_sleep(1);
		if (waitpid(pid, &st, WNOHANG) == pid)
			ck_abort_msg("exec'd child exited with 0x%x (11: still opted in, 12: still mapped)",
				     st);
	}
	kill(pid, SIGKILL);
	ck_assert_int_eq(child_status(pid), 128 + SIGKILL);
	munmap((void *)flag, 4096);
}
END_TEST

/* A busy child that dies with the test (a failed assertion leaks none). */
static pid_t fork_busy(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			;
	}
	return pid;
}

/*
 * Every non-zero entry of the array is one of our threads: not a process
 * that never opted in, and not one that did (a fork child, published in
 * its own array).  Up to patch 8 the array was the pid namespace's, and
 * the child was in it.
 */
START_TEST(nothing_else_is_visible)
{
	struct uspin_kernel_rs rs;
	struct worker w;
	pid_t other, sibling;
	uint32_t t, nonzero = 0, me = getpid();
	char path[64];

	other = fork_busy();		/* never opts in */
	rs = rs_enable();
	sibling = fork_busy();		/* opted in */
	worker_start(&w, 0);
	ms_sleep(20);
	for (t = 1; t < rs.nr_entries; t++) {
		uint32_t e = rs_read(&rs, t);
		long tgid = -1;
		FILE *f;

		if (!e)
			continue;
		nonzero++;
		snprintf(path, sizeof(path), "/proc/%u/status", t);
		f = fopen(path, "r");
		if (f) {
			char line[128];

			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "Tgid: %ld", &tgid) == 1)
					break;
			fclose(f);
		}
		ck_assert_msg(tgid == me, "TID %u (tgid %ld) reads %u but only %u opted in",
			      t, tgid, e, me);
	}
	ck_assert_uint_ge(nonzero, 2);	/* us and the worker */
	ck_assert_uint_eq(rs_read(&rs, other), SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(rs_read(&rs, sibling), SCHED_RS_UNKNOWN);
	worker_stop(&w);
	kill(other, SIGKILL);
	kill(sibling, SIGKILL);
	child_status(other);
	child_status(sibling);
}
END_TEST

/*
 * PR_SCHED_RS_MAP_PEER maps another process's array where ptrace could
 * read that process.  A busy opted-in child reads ON in it, OFF while
 * stopped, ON when continued and 0 once dead; we are not in its array, nor
 * it in ours.  Mapping it twice gives one view.  A process that never
 * opted in can be mapped and reads 0.  An exec ends what a view shows: the
 * new program is not in it, and a new MAP_PEER gives another array.  As
 * another user, the parent (root) cannot be mapped; a bad fd is EBADF.
 */
START_TEST(peer_view_needs_ptrace_access)
{
	struct uspin_kernel_rs rs, peer, again, quiet;
	pid_t plain, busy, ex, other;
	int i, p[2], go[2];
	char c;

	plain = fork_busy();		/* before we opt in: never published */
	rs = rs_enable();
	busy = fork_busy();		/* opted in, in its own array */
	ck_assert_msg(rs_map_peer(busy, &peer) == 0, "MAP_PEER: %s", strerror(errno));
	ck_assert_uint_ne(peer.base, 0);
	ck_assert_uint_ne(peer.base, rs.base);
	ck_assert_uint_eq(peer.size, rs.size);
	ck_assert_uint_eq(peer.pid_ns, rs.pid_ns);
	ck_assert_uint_eq(peer.flags, SCHED_RS_FLAG_OPTED_IN | SCHED_RS_FLAG_PUBLISHING |
				      SCHED_RS_FLAG_PER_PROCESS);
	ck_assert_int_eq(rs_map_peer(busy, &again), 0);
	ck_assert_uint_eq(again.base, peer.base);
	ck_assert_msg(wait_entry(&peer, busy, is_on), "busy peer never read ON");
	ck_assert_uint_eq(rs_read(&rs, busy), SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(rs_read(&peer, sys_gettid()), SCHED_RS_UNKNOWN);
	ck_assert_int_eq(kill(busy, SIGSTOP), 0);
	ck_assert_msg(wait_entry(&peer, busy, is_off), "stopped peer never read OFF");
	ck_assert_int_eq(kill(busy, SIGCONT), 0);
	ck_assert_msg(wait_entry(&peer, busy, is_on), "continued peer never read ON");
	kill(busy, SIGKILL);
	ck_assert_int_eq(child_status(busy), 128 + SIGKILL);
	ck_assert_uint_eq(rs_read(&peer, busy), SCHED_RS_UNKNOWN);	/* the view stays */

	ck_assert_int_eq(rs_map_peer(plain, &quiet), 0);
	ck_assert_uint_eq(quiet.flags & SCHED_RS_FLAG_OPTED_IN, 0);
	for (i = 0; i < 50; i++, ms_sleep(1))
		ck_assert_uint_eq(rs_read(&quiet, plain), SCHED_RS_UNKNOWN);
	kill(plain, SIGKILL);
	child_status(plain);

	/* exec: the old view does not show the new program */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(go), 0);
	ex = fork_after_exec(p[1], go[0]);
	ck_assert_int_eq(rs_map_peer(ex, &peer), 0);
	ck_assert_msg(wait_entry(&peer, ex, is_off), "peer waiting to exec never read OFF");
	ck_assert_int_eq(write(go[1], "x", 1), 1);
	ck_assert_msg(read(p[0], &c, 1) == 1, "exec'd child died before it ran");
	for (i = 0; i < 100; i++, ms_sleep(1))
		ck_assert_uint_eq(rs_read(&peer, ex), SCHED_RS_UNKNOWN);
	ck_assert_int_eq(rs_map_peer(ex, &again), 0);
	ck_assert_uint_ne(again.base, peer.base);
	ck_assert_uint_eq(again.flags & SCHED_RS_FLAG_OPTED_IN, 0);
	kill(ex, SIGKILL);
	child_status(ex);

	errno = 0;
	ck_assert_int_eq(prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_MAP_PEER,
			       (unsigned long)&again, sizeof(again), 0UL), -1);
	ck_assert_int_eq(errno, EBADF);		/* fd 0 is not a pidfd */
	errno = 0;				/* kthreadd has no memory */
	ck_assert_int_eq(rs_map_peer(2, &again), -1);
	ck_assert_int_eq(errno, ESRCH);

	other = fork();			/* another user may not read root */
	ck_assert_int_ge(other, 0);
	if (other == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (rs_map_peer(getppid(), &again) == 0)
			_exit(11);
		_exit(errno == EACCES ? 0 : 12);
	}
	ck_assert_msg(child_status(other) == 0,
		      "as uid 65534: 10 setresuid, 11 MAP_PEER of root succeeded, 12 not EACCES");
}
END_TEST

/*
 * A view of another process is revoked when that process drops privileges
 * without an exec (_i 0: PR_SET_DUMPABLE 0; 1: setresuid() to nobody):
 * before the call returns, the process moves to a new array.  We (root)
 * map the array of an opted-in fork child and see it on a CPU; once it
 * has dropped, the old view reads 0 for good, a new MAP_PEER (root may
 * still read it) gives a new view that shows it, and the child reads
 * itself through its own mapping.  v3 kept the old view working.
 */
struct drop_shared {
	volatile int go, dropped, self_on, err;
};

START_TEST(peer_view_is_revoked_when_the_target_drops_privileges)
{
	struct drop_shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uspin_kernel_rs rs = rs_enable(), peer, again;
	uint32_t seen = 0;
	pid_t child;
	int i;

	ck_assert_ptr_ne(sh, MAP_FAILED);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (!sh->go)
			;
		if (_i == 0 ? prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) :
			      setresuid(65534, 65534, 65534))
			sh->err = errno;
		/* Its own mapping (inherited, its own array) shows it. */
		sh->self_on = is_on(rs_read(&rs, sys_gettid()));
		__atomic_store_n(&sh->dropped, 1, __ATOMIC_RELEASE);
		for (;;)
			;
	}
	ck_assert_msg(rs_map_peer(child, &peer) == 0, "MAP_PEER: %s", strerror(errno));
	ck_assert_msg(wait_entry(&peer, child, is_on), "busy child never read ON");
	sh->go = 1;
	for (i = 0; i < 5000 && !__atomic_load_n(&sh->dropped, __ATOMIC_ACQUIRE); i++)
		ms_sleep(1);
	ck_assert_msg(sh->dropped, "the child never dropped its privileges");
	ck_assert_int_eq(sh->err, 0);
	for (i = 0; i < 50; i++, ms_sleep(1))
		seen |= rs_read(&peer, child);
	ck_assert_msg(seen == SCHED_RS_UNKNOWN,
		      "the old view still showed the child (%u) after it dropped privileges",
		      seen);
	ck_assert_msg(sh->self_on, "the child did not read itself ON through its own mapping");
	ck_assert_msg(rs_map_peer(child, &again) == 0, "MAP_PEER again: %s", strerror(errno));
	ck_assert_uint_ne(again.base, peer.base);
	ck_assert_msg(wait_entry(&again, child, is_on), "the new view never showed the child ON");
	kill(child, SIGKILL);
	ck_assert_int_eq(child_status(child), 128 + SIGKILL);
	munmap(sh, 4096);
}
END_TEST

/* kB of the mapping at @base that are mapped once (smaps' Private_*). */
static long smaps_private_kb(uint64_t base)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long start, end;
	char line[512];
	long kb, sum = -1;
	int in = 0;

	ck_assert_msg(f, "/proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = start == base;
			if (in)
				sum = 0;
		} else if (in && (sscanf(line, "Private_Clean: %ld kB", &kb) == 1 ||
				  sscanf(line, "Private_Dirty: %ld kB", &kb) == 1)) {
			sum += kb;
		}
	}
	fclose(f);
	ck_assert_msg(sum >= 0, "no mapping at %#lx in smaps", (unsigned long)base);
	return sum;
}

struct grow_shared {
	volatile pid_t want, tid;
	volatile int go;
};

static void *spin_and_tell(void *arg)
{
	struct grow_shared *sh = arg;

	__atomic_store_n(&sh->tid, sys_gettid(), __ATOMIC_RELEASE);
	for (;;)
		;
	return NULL;
}

/*
 * Reading a view of another process allocates nothing in that process's
 * array.  We read every page of a busy child's view: only the child's own
 * chunk may be mapped once (Private in smaps); the pages it does not have
 * are one shared page of zeroes.  v3 allocated each, 16 MiB.  Then the
 * child starts a thread whose TID (set with ns_last_pid) lies in a chunk
 * we read as zeroes: allocating it must replace what our view maps there,
 * or we would read 0 for that thread for good.
 */
START_TEST(peer_view_allocates_nothing_in_its_target)
{
	struct grow_shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uspin_kernel_rs peer;
	uint32_t chunk;
	uint64_t off;
	pthread_t t;
	pid_t child;
	long kb;
	int i;

	ck_assert_ptr_ne(sh, MAP_FAILED);
	ck_assert_msg(access(NS_LAST_PID, W_OK) == 0, "%s: %s", NS_LAST_PID, strerror(errno));
	rs_enable();
	child = fork();			/* opted in, in its own array */
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (!sh->go)
			;
		if (write_long(NS_LAST_PID, sh->want - 1) ||
		    pthread_create(&t, NULL, spin_and_tell, sh))
			_exit(1);
		for (;;)
			;
	}
	ck_assert_msg(rs_map_peer(child, &peer) == 0, "MAP_PEER: %s", strerror(errno));
	ck_assert_msg(wait_entry(&peer, child, is_on), "busy child never read ON");
	for (off = 0; off < peer.size; off += 4096)
		(void)*(const volatile uint32_t *)(uintptr_t)(peer.base + off);
	kb = smaps_private_kb(peer.base);
	printf("running-state: a peer view read whole maps %ld kB once, of %lu kB\n",
	       kb, (unsigned long)(peer.size >> 10));
	ck_assert_msg(kb <= 16, "reading a peer view made its target's array grow: "
		      "%ld kB mapped once", kb);

	chunk = (uint32_t)child >> peer.block_shift;
	sh->want = (pid_t)(((chunk + 3) << peer.block_shift) + 5);
	ck_assert_int_lt(sh->want, read_long(PID_MAX));
	ck_assert_uint_eq(rs_read(&peer, sh->want), SCHED_RS_UNKNOWN);
	sh->go = 1;
	for (i = 0; i < 5000 && !__atomic_load_n(&sh->tid, __ATOMIC_ACQUIRE); i++)
		ms_sleep(1);
	ck_assert_msg(sh->tid, "the child's thread never started");
	ck_assert_msg((uint32_t)sh->tid >> peer.block_shift != chunk,
		      "thread TID %d (wanted %d) is in the child's own chunk", sh->tid,
		      sh->want);
	ck_assert_msg(wait_entry(&peer, sh->tid, is_on),
		      "thread %d in a chunk allocated after we read it never read ON "
		      "(the view kept its page of zeroes)", sh->tid);
	kill(child, SIGKILL);
	ck_assert_int_eq(child_status(child), 128 + SIGKILL);
	munmap(sh, 4096);
}
END_TEST

struct holdup_shared {
	volatile int a_ready, go, a_done, b_started;
	volatile int b_before[3], b_err[3];
	volatile long a_ms;
};

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Opting in and out serialise per process, not system-wide.  The test
 * kernel's debugfs knob makes PR_SCHED_RS_DISABLE sleep a second with its
 * lock held; while process A is in it, three unrelated processes opt in
 * and map their own view.  The lock is hashed by mm (64 of them): at
 * least one of the three must be done before A is (all three sharing A's
 * lock has a chance of 1 in 262144).  On v3 all three waited for A.
 */
START_TEST(unrelated_opt_out_holds_up_nobody)
{
	struct holdup_shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uspin_kernel_rs rs;
	struct timespec t0;
	pid_t a, b[3];
	int i, before = 0, err;

	ck_assert_ptr_ne(sh, MAP_FAILED);
	if (access(RS_DELAY_KNOB, F_OK) != 0)
		mount("none", DEBUGFS, "debugfs", 0, NULL);
	if (access(RS_DELAY_KNOB, F_OK) != 0 && errno == ENOENT) {
		printf("SKIP: running-state-kernel/unrelated_opt_out_holds_up_nobody: no %s "
		       "(a kernel without CONFIG_SCHED_RS_TEST_DELAY: the distro kernel)\n",
		       RS_DELAY_KNOB);
		munmap(sh, 4096);
		return;
	}
	err = write_long(RS_DELAY_KNOB, 1000);
	ck_assert_msg(err == 0, "%s: %s (a kernel without CONFIG_SCHED_RS_TEST_DELAY?)",
		      RS_DELAY_KNOB, strerror(err));
	a = fork();
	ck_assert_int_ge(a, 0);
	if (a == 0) {
		rs_enable();
		sh->a_ready = 1;
		while (!sh->go)
			;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (rs_prctl(PR_SCHED_RS_DISABLE, &rs, sizeof(rs)))
			_exit(1);
		sh->a_ms = ms_since(&t0);
		__atomic_store_n(&sh->a_done, 1, __ATOMIC_RELEASE);
		_exit(0);
	}
	while (!sh->a_ready)
		ms_sleep(1);
	sh->go = 1;
	ms_sleep(200);			/* A is in its second */
	for (i = 0; i < 3; i++) {
		b[i] = fork();
		ck_assert_int_ge(b[i], 0);
		if (b[i] == 0) {
			if (__atomic_load_n(&sh->a_done, __ATOMIC_ACQUIRE))
				_exit(2);
			if (rs_prctl(PR_SCHED_RS_ENABLE, &rs, sizeof(rs)))
				sh->b_err[i] = errno;
			sh->b_before[i] = !__atomic_load_n(&sh->a_done, __ATOMIC_ACQUIRE);
			_exit(0);
		}
	}
	for (i = 0; i < 3; i++)
		ck_assert_msg(child_status(b[i]) == 0,
			      "B%d started after A was done: the delay did not hold A", i);
	ck_assert_int_eq(child_status(a), 0);
	write_long(RS_DELAY_KNOB, 0);
	for (i = 0; i < 3; i++) {
		ck_assert_msg(sh->b_err[i] == 0, "B%d: PR_SCHED_RS_ENABLE: %s", i,
			      strerror(sh->b_err[i]));
		before += sh->b_before[i];
	}
	printf("running-state: A's opt-out took %ld ms; %d of 3 others opted in meanwhile\n",
	       sh->a_ms, before);
	ck_assert_msg(sh->a_ms >= 900, "A's opt-out took %ld ms: the delay did not apply",
		      sh->a_ms);
	ck_assert_msg(before > 0, "all 3 unrelated processes waited for A's opt-out");
	munmap(sh, 4096);
}
END_TEST

static void *short_lived(void *arg)
{
	return arg;
}

/* Creates and joins threads until told to stop; how many. */
static void *churn_fn(void *arg)
{
	volatile int *stop = arg;
	pthread_t t;
	long n = 0;

	while (!*stop)
		if (pthread_create(&t, NULL, short_lived, NULL) == 0 &&
		    pthread_join(t, NULL) == 0)
			n++;
	return (void *)n;
}

/*
 * PR_SCHED_RS_DISABLE: every entry of the process reads 0 when it returns,
 * also while threads come and go, and none is left anywhere once they are
 * gone; ENABLE publishes again.
 */
START_TEST(opting_out_leaves_no_entry_behind)
{
	struct uspin_kernel_rs rs = rs_enable(), d;
	uint32_t t, e = 0, self = sys_gettid();
	struct worker busy, sleeper;
	volatile int stop = 0;
	pthread_t churn;
	void *churned;

	worker_start(&busy, 0);
	worker_start(&sleeper, 1);
	ck_assert(wait_entry(&rs, sleeper.tid, is_off));
	ck_assert_uint_ne(rs_read(&rs, busy.tid), SCHED_RS_UNKNOWN);
	ck_assert_int_eq(pthread_create(&churn, NULL, churn_fn, (void *)&stop), 0);
	ms_sleep(20);

	/* a size out of range is refused before anything changes */
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_DISABLE, &d, SCHED_RS_SIZE_VER0 - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(rs_get().flags & SCHED_RS_FLAG_OPTED_IN, SCHED_RS_FLAG_OPTED_IN);
	memset(&d, 0xa5, sizeof(d));
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_DISABLE, &d, sizeof(d)), 0);
	ck_assert_uint_eq(d.flags, SCHED_RS_FLAG_PUBLISHING | SCHED_RS_FLAG_PER_PROCESS);
	ck_assert_uint_eq(d.base, rs.base);
	ck_assert_uint_eq(rs_read(&rs, busy.tid), SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(rs_read(&rs, sleeper.tid), SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(rs_read(&rs, self), SCHED_RS_UNKNOWN);
	ms_sleep(20);
	stop = 1;
	ck_assert_int_eq(pthread_join(churn, &churned), 0);
	ck_assert_int_gt((long)churned, 0);
	ck_assert_uint_eq(rs_read(&rs, busy.tid), SCHED_RS_UNKNOWN);
	ck_assert_uint_eq(rs_read(&rs, sleeper.tid), SCHED_RS_UNKNOWN);
	/* one check per entry would cost a message to Check's runner each */
	for (t = 1; t < rs.nr_entries; t++) {
		e = rs_read(&rs, t);
		if (e != SCHED_RS_UNKNOWN)
			break;
	}
	ck_assert_msg(t == rs.nr_entries, "TID %u reads %u after its process opted out",
		      t, e);
	/* twice is harmless; ENABLE publishes the threads again */
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_DISABLE, &d, sizeof(d)), 0);
	rs_enable();
	/* an unwritable buffer is EFAULT, but the process is out all the same */
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_DISABLE, (void *)8, sizeof(d)), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_uint_eq(rs_get().flags & SCHED_RS_FLAG_OPTED_IN, 0);
	ck_assert_uint_eq(rs_read(&rs, self), SCHED_RS_UNKNOWN);
	rs_enable();
	ck_assert(is_on(rs_read(&rs, self)));
	ck_assert(wait_entry(&rs, sleeper.tid, is_off));
	worker_stop(&busy);
	worker_stop(&sleeper);
}
END_TEST

/*
 * A task that shares the mm without being a thread of the process (clone
 * with CLONE_VM, no CLONE_THREAD: what vfork() makes) is published as the
 * threads are, and PR_SCHED_RS_DISABLE unpublishes it too (v3 walked the
 * thread group only and left its entry behind).
 */
static volatile int sharer_stop;
static volatile pid_t sharer_tid;

static int sharer_fn(void *arg)
{
	sharer_tid = (pid_t)syscall(SYS_gettid);
	while (!sharer_stop)
		;		/* on a CPU, or switched out by the tick */
	return 0;
}

START_TEST(opting_out_unpublishes_mm_sharers)
{
	struct uspin_kernel_rs rs = rs_enable(), d;
	size_t stack_size = 64 * 1024;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	uint32_t e = 0;
	pid_t child;
	int i, status;

	ck_assert_ptr_ne(stack, MAP_FAILED);
	sharer_stop = 0;
	sharer_tid = 0;
	child = clone(sharer_fn, stack + stack_size, CLONE_VM | SIGCHLD, NULL);
	ck_assert_int_gt(child, 0);
	while (!sharer_tid)
		sched_yield();
	ck_assert_int_eq(sharer_tid, child);
	ck_assert_msg(wait_entry(&rs, child, is_on), "the CLONE_VM child was never published");
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_DISABLE, &d, sizeof(d)), 0);
	/* It keeps running and being switched: its entry stays 0. */
	for (i = 0; i < 50 && (e = rs_read(&rs, child)) == SCHED_RS_UNKNOWN; i++)
		ms_sleep(1);
	sharer_stop = 1;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(stack, stack_size);
	ck_assert_msg(e == SCHED_RS_UNKNOWN,
		      "the CLONE_VM child's entry reads %u after its mm opted out", e);
}
END_TEST

/* Kernel threads (PF_KTHREAD) are never published. */
START_TEST(kernel_threads_never_appear)
{
	struct uspin_kernel_rs rs = rs_enable();
	DIR *d = opendir("/proc");
	struct dirent *de;
	int kthreads = 0, round;

	ck_assert_ptr_nonnull(d);
	for (round = 0; round < 2; round++) {
		rewinddir(d);
		while ((de = readdir(d))) {
			char path[64], buf[512], *p;
			unsigned long flags = 0;
			long pid = strtol(de->d_name, &p, 10);
			FILE *f;

			if (*p || pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			f = fopen(path, "r");
			if (!f)
				continue;
			p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
			fclose(f);
			/* after "comm)": state ppid pgrp session tty tpgid flags */
			if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1 ||
			    !(flags & PF_KTHREAD))
				continue;
			kthreads += round == 0;
			ck_assert_msg(rs_read(&rs, pid) == SCHED_RS_UNKNOWN,
				      "kernel thread %ld reads %u", pid, rs_read(&rs, pid));
		}
		ms_sleep(50);	/* kworkers, RCU and timers run meanwhile */
	}
	closedir(d);
	ck_assert_int_gt(kthreads, 3);
}
END_TEST

/* ---- namespaces and pid_max ------------------------------------------- */

struct ns_report {
	uint64_t outer_base, inner_base, inner_ns;
	uint32_t inner_tid, thread_tid, outer_tid;
	uint32_t self_entry, thread_entry, inherited_self_entry;
	int step;
};

static struct uspin_kernel_rs ns_rs;	/* the child's own array */

static void *ns_thread(void *arg)
{
	volatile struct ns_report *r = arg;
	uint32_t self = sys_gettid(), e;

	r->thread_tid = self;
	while (r->step < 2) {
		e = rs_read(&ns_rs, self);
		if (is_on(e))
			r->thread_entry = e;
	}
	return NULL;
}

/* Let the parent go on (it waits for step 1), then fail with @code. */
static void ns_child_fails(volatile struct ns_report *r, int code)
{
	r->step = 2;
	_exit(code);
}

/*
 * In a new pid namespace: the child is TID 1 there, inherits the opt-in,
 * and its inherited mapping is its own array, indexed by its namespace's
 * TIDs: it reads itself and its thread there (TIDs 1 and 2), not its
 * parent's TID.  ENABLE finds that mapping.  The parent does not see the
 * child, and cannot map its array: the child's TIDs are not its own.
 */
START_TEST(new_pid_namespace_has_its_own_array)
{
	struct uspin_kernel_rs rs = rs_enable(), peer;
	volatile struct ns_report *r = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t me = sys_gettid();
	pid_t pid;
	int i;

	ck_assert_ptr_ne((void *)r, MAP_FAILED);
	ck_assert_msg(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID): %s", strerror(errno));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct uspin_kernel_rs c;
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		r->inner_tid = sys_gettid();
		/* the inherited mapping shows us, not our parent */
		r->inherited_self_entry = rs_read(&rs, 1);
		if (rs_read(&rs, me) != SCHED_RS_UNKNOWN)
			ns_child_fails(r, 14);
		memset(&c, 0, sizeof(c));
		if (rs_prctl(PR_SCHED_RS_GET, &c, sizeof(c)) ||
		    !(c.flags & SCHED_RS_FLAG_OPTED_IN))
			ns_child_fails(r, 10);
		if (c.base != rs.base)	/* the inherited mapping is ours */
			ns_child_fails(r, 11);
		if (rs_prctl(PR_SCHED_RS_ENABLE, &c, sizeof(c)) || c.base != rs.base)
			ns_child_fails(r, 12);
		ns_rs = c;
		r->inner_base = c.base;
		r->inner_ns = c.pid_ns;
		if (pthread_create(&t, NULL, ns_thread, (void *)r))
			ns_child_fails(r, 13);
		r->self_entry = rs_read(&c, r->inner_tid);
		for (i = 0; i < 2000 && !r->thread_entry; i++)
			ms_sleep(1);
		r->step = 1;
		while (r->step < 2)	/* busy while the parent looks */
			;
		pthread_join(t, NULL);
		_exit(0);
	}
	while (r->step < 1)
		sched_yield();
	/* seen from the parent's namespace: not in our array, not mappable */
	ck_assert_uint_eq(rs_read(&rs, pid), SCHED_RS_UNKNOWN);
	memset(&peer, 0, sizeof(peer));
	errno = 0;
	ck_assert_int_eq(rs_map_peer(pid, &peer), -1);
	ck_assert_int_eq(errno, EXDEV);
	r->step = 2;
	ck_assert_msg(child_status(pid) == 0,
		      "child: 10 not opted in, 11 inherited mapping not its own, 12 ENABLE, 13 thread, 14 reads its parent");
	ck_assert_uint_eq(r->inner_tid, 1);
	ck_assert_uint_eq(r->thread_tid, 2);
	ck_assert_msg(is_on(r->inherited_self_entry), "TID 1 reads %u through the inherited mapping",
		      r->inherited_self_entry);
	ck_assert_uint_eq(r->inner_base, rs.base);
	ck_assert_uint_ne(r->inner_ns, rs.pid_ns);
	ck_assert_msg(is_on(r->self_entry), "namespace TID 1 reads %u", r->self_entry);
	ck_assert_msg(is_on(r->thread_entry), "namespace TID 2 reads %u", r->thread_entry);
	munmap((void *)r, 4096);
}
END_TEST

/* pid_max raised to PID_MAX_LIMIT: TIDs above 32768 are published too. */
START_TEST(tids_above_32768_are_published)
{
	long old_max = read_long(PID_MAX);
	static struct uspin_kernel_rs rs;
	volatile int *seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct worker w;
	pid_t child;
	int i;

	ck_assert_ptr_ne((void *)seen, MAP_FAILED);
	rs = rs_enable();
	ck_assert_int_eq(write_long(PID_MAX, 4194304), 0);
	ck_assert_int_eq(read_long(PID_MAX), 4194304);
	if (access(NS_LAST_PID, W_OK) == 0) {
		ck_assert_int_eq(write_long(NS_LAST_PID, 99999), 0);
	} else {
		/* no CONFIG_CHECKPOINT_RESTORE: walk the TIDs up */
		pid_t p;

		do {
			p = fork();
			if (p == 0)
				_exit(0);
			ck_assert_int_gt(p, 0);
			waitpid(p, NULL, 0);
		} while (p < 100000);
	}
	worker_start_rs(&w, 0, &rs);
	child = fork();
	if (child == 0) {
		uint32_t self = sys_gettid();

		for (;;)	/* busy, telling whether it reads itself ON */
			if (is_on(rs_read(&rs, self)))
				*seen = 1;
	}
	write_long(PID_MAX, old_max);
	ck_assert_msg(w.tid > 32768, "thread TID %u", w.tid);
	ck_assert_msg(child > 32768, "child TID %d", child);
	ck_assert_msg(worker_saw_on(&w), "thread %u above 32768 never read itself ON", w.tid);
	for (i = 0; i < 2000 && !*seen; i++)
		ms_sleep(1);
	ck_assert_msg(*seen, "child %d above 32768 never read itself ON", child);
	printf("running-state: TIDs %u (thread) and %d (fork child) published\n", w.tid, child);
	kill(child, SIGKILL);
	child_status(child);
	worker_stop(&w);
	ck_assert_msg(wait_entry(&rs, w.tid, is_zero), "exited thread not 0");
}
END_TEST

/* ---- the 32-bit vDSO and CRIU's compat restore path ------------------- */

/*
 * In a child that opted in: unmap [vdso] and [vvar], then map the 32-bit
 * vDSO image with arch_prctl(ARCH_MAP_VDSO_32), as CRIU does to restore a
 * compat task.  Only raw system calls after the unmap.
 */
static int map_vdso32(void)
{
	char buf[8192], *line;
	unsigned long vdso = 0, vdso_end = 0, vvar = 0, vvar_end = 0;
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n;
	long ret;

	if (fd < 0)
		return 20;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 21;
	buf[n] = 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &vdso, &vdso_end);
		else if (strstr(line, "[vvar]"))
			sscanf(line, "%lx-%lx", &vvar, &vvar_end);
	}
	if (!vdso || !vvar)
		return 22;
	if (syscall(SYS_munmap, vdso, vdso_end - vdso) ||
	    syscall(SYS_munmap, vvar, vvar_end - vvar))
		return 23;
	ret = syscall(SYS_arch_prctl, ARCH_MAP_VDSO_32, vvar);
	if (ret < 0)
		return errno == EINVAL ? 24 : 25;
	fd = syscall(SYS_open, "/proc/self/maps", O_RDONLY);
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 26;
	buf[n] = 0;
	return strstr(buf, "[vdso]") && strstr(buf, "sched_running_state") ? 0 : 27;
}

START_TEST(vdso32_can_still_be_mapped)
{
	pid_t pid;
	int st;

	rs_enable();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		syscall(SYS_exit_group, map_vdso32());
	st = child_status(pid);
	if (st == 24) {
		printf("SKIP: running-state-kernel/vdso32: no ARCH_MAP_VDSO_32 (kernel without IA32_EMULATION)\n");
		return;
	}
	ck_assert_msg(st == 0, "ARCH_MAP_VDSO_32 child: %d (22 no vdso/vvar, 23 munmap, 25 arch_prctl, 27 maps)",
		      st);
}
END_TEST

/* ---- the sysctl -------------------------------------------------------- */

START_TEST(sysctl_off_clears_everything_and_refuses_enable_and_peers)
{
	static struct uspin_kernel_rs rs;
	struct uspin_kernel_rs off;
	struct worker w;
	uint32_t t, bad = 0, me = sys_gettid();

	rs = rs_enable();
	worker_start_rs(&w, 0, &rs);
	ck_assert(worker_saw_on(&w));
	set_publishing(0);
	ms_sleep(5);			/* switches happen, nothing is written */
	for (t = 0; t < rs.nr_entries; t += 1)
		bad += rs_read(&rs, t) != 0;
	off = rs_get();
	ck_assert_uint_eq(off.flags, SCHED_RS_FLAG_OPTED_IN | SCHED_RS_FLAG_PER_PROCESS);
	errno = 0;
	ck_assert_int_eq(rs_prctl(PR_SCHED_RS_ENABLE, &off, sizeof(off)), -1);
	ck_assert_int_eq(errno, EPERM);
	/* Nor can another process's array be mapped (v3 mapped it). */
	errno = 0;
	ck_assert_int_eq(rs_map_peer(getppid(), &off), -1);
	ck_assert_int_eq(errno, EPERM);
	w.on = 0;
	set_publishing(1);
	ck_assert_msg(bad == 0, "%u entries non-zero while off", bad);
	ck_assert_msg(worker_saw_on(&w), "busy thread never read itself ON again");
	ms_sleep(2);
	ck_assert(is_on(rs_read(&rs, me)));
	worker_stop(&w);
	/* other values are refused and change nothing */
	ck_assert_int_eq(write_long(RS_SYSCTL, 2), EINVAL);
	ck_assert_int_eq(read_long(RS_SYSCTL), 1);
}
END_TEST

/* ---- the library's provider on top ------------------------------------ */

/*
 * libuspin attaches its provider in a constructor, so these run in a fresh
 * image started with USPIN_RS_PROVIDER=vdso ("provider NAME"), and report
 * by exit status; the rest of this program runs with USPIN_RS_PROVIDER=none
 * (see main()), so that libuspin does not opt it in behind the tests' back.
 */
static volatile int lib_stop;
static volatile long lib_samples, lib_on;

/* Reads its own state through the library's view while it spins. */
/*
 * The static key counts opted-in mms: ENABLE, a fork child, DISABLE, exec
 * and exit each move it, and it turns off a second after the last goes.
 * Every way in and out, twice down to no process at all; the kernel warns
 * (and vm-run fails the run) if the count ever goes below zero, and the
 * next process must still be published at once.
 */
START_TEST(key_follows_every_way_in_and_out)
{
	struct uspin_kernel_rs rs;
	struct worker w;
	int round, i;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 30; i++) {
			pid_t pid = fork();

			ck_assert_int_ge(pid, 0);
			if (pid == 0) {
				struct uspin_kernel_rs c;
				pid_t g;
				int st;

				memset(&c, 0, sizeof(c));
				if (rs_prctl(PR_SCHED_RS_ENABLE, &c, sizeof(c)))
					_exit(1);
				g = fork();
				if (g == 0) {
					if (i % 3 == 0)
						rs_prctl(PR_SCHED_RS_DISABLE, &c, sizeof(c));
					if (i % 3 == 1)
						execl("/proc/self/exe", "test-running-state-kernel",
						      "exit", (char *)NULL);
					_exit(i % 3 == 1 ? 2 : 0);
				}
				if (i % 2)
					rs_prctl(PR_SCHED_RS_DISABLE, &c, sizeof(c));
				_exit(g > 0 && waitpid(g, &st, 0) == g && st == 0 ? 0 : 3);
			}
			ck_assert_int_eq(child_status(pid), 0);
		}
		ms_sleep(1500);		/* no opted-in mm left: the key goes off */
	}
	rs = rs_enable();
	ck_assert(is_on(rs_read(&rs, sys_gettid())));
	worker_start_rs(&w, 0, &rs);
	ck_assert_msg(worker_saw_on(&w), "a thread opted in after the key went off never read itself ON");
	worker_stop(&w);
}
END_TEST

static void *lib_sampler(void *arg)
{
	uint32_t self = sys_gettid();

	(void)arg;
	while (!lib_stop) {
		lib_samples++;
		lib_on += uspin_rs_query(self) == USPIN_RS_ON;
	}
	return NULL;
}

static int provider_attach(void)
{
	struct uspin_kernel_rs rs;
	pthread_t busy, sleeper_thr;
	struct worker sleeper;
	int i;

	if (strcmp(uspin_running_state_provider(), "vdso"))
		return 20;		/* the constructor did not attach it */
	memset(&rs, 0, sizeof(rs));
	if (rs_prctl(PR_SCHED_RS_GET, &rs, sizeof(rs)) ||
	    rs.flags != (SCHED_RS_FLAG_OPTED_IN | SCHED_RS_FLAG_PUBLISHING |
			 SCHED_RS_FLAG_PER_PROCESS))
		return 21;		/* attach() opts the process in */
	if ((uintptr_t)uspin_rs_view.base != rs.base ||
	    uspin_rs_view.nr_entries != rs.nr_entries ||
	    !uspin_rs_view.own_process)
		return 22;
	if (uspin_rs_query(sys_gettid()) != USPIN_RS_ON)
		return 23;
	if (pthread_create(&busy, NULL, lib_sampler, NULL))
		return 24;
	memset(&sleeper, 0, sizeof(sleeper));
	sleeper.sleep = 1;
	if (pthread_create(&sleeper_thr, NULL, worker_fn, &sleeper))
		return 24;
	sleeper.thr = sleeper_thr;
	while (!sleeper.tid)
		sched_yield();
	for (i = 0; i < 2000 && uspin_rs_query(sleeper.tid) != USPIN_RS_OFF; i++)
		ms_sleep(1);
	if (uspin_rs_query(sleeper.tid) != USPIN_RS_OFF)
		return 25;
	ms_sleep(100);
	lib_stop = 1;
	pthread_join(busy, NULL);
	if (lib_samples < 1000 || lib_on * 100 < lib_samples * 99) {
		printf("provider: busy thread read itself ON in %ld of %ld samples\n",
		       lib_on, lib_samples);
		return 26;
	}
	if (uspin_rs_query(rs.nr_entries) != USPIN_RS_UNKNOWN)
		return 27;
	if (uspin_rs_query(1) != USPIN_RS_UNKNOWN)	/* init: not opted in */
		return 28;
	if (!uspin_running_state_active()->describe)
		return 29;
	printf("running-state: %s\n", uspin_running_state_active()->describe());
	sleeper.stop = 1;
	pthread_join(sleeper.thr, NULL);
	return 0;
}

/*
 * Across a fork into a new pid namespace: the inherited view is the child's
 * own array, so the child reads itself ON under its namespace TID 1 through
 * the library's view at once, and still after its first lock call has made
 * libuspin notice the new process (new_process() keeps the view).
 */
static int provider_new_pid_ns(void)
{
	volatile struct ns_report *r = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uintptr_t outer_base = (uintptr_t)uspin_rs_view.base;
	pid_t pid;
	int st;

	if (r == MAP_FAILED || strcmp(uspin_running_state_provider(), "vdso"))
		return 30;
	if (unshare(CLONE_NEWPID))
		return 31;
	pid = fork();
	if (pid < 0)
		return 32;
	if (pid == 0) {
		uspin_mutex_t m = USPIN_MUTEX_INITIALIZER;
		struct uspin_kernel_rs c;

		r->inner_tid = sys_gettid();
		r->inherited_self_entry = uspin_rs_query(r->inner_tid);
		if (uspin_mutex_lock(&m) || uspin_mutex_unlock(&m))
			_exit(12);
		r->inner_base = (uintptr_t)uspin_rs_view.base;
		r->self_entry = uspin_rs_query(r->inner_tid);
		memset(&c, 0, sizeof(c));
		if (rs_prctl(PR_SCHED_RS_GET, &c, sizeof(c)))
			_exit(10);
		r->inner_ns = c.pid_ns;
		_exit(c.base == r->inner_base ? 0 : 11);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 33;
	if (r->inner_tid != 1)
		return 34;
	if (r->inner_base != outer_base)
		return 35;		/* new_process() remapped needlessly */
	if (r->self_entry != USPIN_RS_ON)
		return 36;
	if (r->inherited_self_entry != USPIN_RS_ON)
		return 37;		/* the inherited view is the child's own */
	return 0;
}

/* Run "provider @what" in a fresh image with the vdso provider. */
static int run_provider_check(const char *what)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("USPIN_RS_PROVIDER", "vdso", 1);
		execl("/proc/self/exe", "test-running-state-kernel", "provider",
		      what, (char *)NULL);
		_exit(99);
	}
	return child_status(pid);
}

START_TEST(provider_vdso_attaches_and_agrees)
{
	int st = run_provider_check("attach");

	ck_assert_msg(st == 0, "provider attach: %d (20 not attached, 21 not opted in, 22 view or its scope, 23 self not ON, 25 sleeper not OFF, 26 busy not ON, 27/28 UNKNOWN, 29 describe)",
		      st);
}
END_TEST

START_TEST(provider_follows_a_fork_into_a_new_pid_namespace)
{
	int st = run_provider_check("new-pid-ns");

	ck_assert_msg(st == 0, "provider new-pid-ns: %d (33 child failed, 34 not TID 1, 35 remapped, 36 not ON, 37 inherited view not ON)",
		      st);
}
END_TEST

static Suite *kernel_rs_suite(void)
{
	Suite *s = suite_create("running-state-kernel");
	TCase *abi = tcase_create("abi"), *who = tcase_create("who"),
	      *ns = tcase_create("namespaces"), *admin = tcase_create("admin");

	tcase_add_checked_fixture(abi, setup, NULL);
	tcase_add_checked_fixture(who, setup, NULL);
	tcase_add_checked_fixture(ns, setup, NULL);
	tcase_add_checked_fixture(admin, setup, NULL);
	tcase_set_timeout(abi, 60);
	tcase_set_timeout(who, 120);
	tcase_set_timeout(ns, 120);
	tcase_set_timeout(admin, 120);
	tcase_add_test(abi, bad_arguments_are_einval);
	tcase_add_test(abi, get_before_opting_in_changes_nothing);
	tcase_add_test(abi, enable_describes_and_publishes_the_caller);
	tcase_add_test(abi, entry_names_no_cpu);
	tcase_add_test(abi, index_is_the_kernels_and_a_permutation);
	tcase_add_test(abi, mapping_is_read_only_and_cannot_be_made_writable);
	tcase_add_test(abi, mremap_moves_it_and_get_follows);
	tcase_add_test(abi, vdso32_can_still_be_mapped);
	tcase_add_test(who, threads_before_and_after_opting_in_are_published);
	tcase_add_test(who, fork_inherits_exec_drops);
	tcase_add_test(who, nothing_else_is_visible);
	tcase_add_test(who, peer_view_needs_ptrace_access);
	tcase_add_loop_test(who, peer_view_is_revoked_when_the_target_drops_privileges, 0, 2);
	tcase_add_test(who, peer_view_allocates_nothing_in_its_target);
	tcase_add_test(who, opting_out_leaves_no_entry_behind);
	tcase_add_test(who, opting_out_unpublishes_mm_sharers);
	tcase_add_test(who, kernel_threads_never_appear);
	tcase_add_test(ns, new_pid_namespace_has_its_own_array);
	tcase_add_test(ns, tids_above_32768_are_published);
	tcase_add_test(admin, sysctl_off_clears_everything_and_refuses_enable_and_peers);
	tcase_add_test(admin, key_follows_every_way_in_and_out);
	tcase_add_test(admin, unrelated_opt_out_holds_up_nobody);
	tcase_add_test(admin, provider_vdso_attaches_and_agrees);
	tcase_add_test(admin, provider_follows_a_fork_into_a_new_pid_namespace);
	suite_add_tcase(s, abi);
	suite_add_tcase(s, who);
	suite_add_tcase(s, ns);
	suite_add_tcase(s, admin);
	return s;
}

int main(int argc, char **argv)
{
	const char *provider = getenv("USPIN_RS_PROVIDER");
	SRunner *sr;
	int failed;

	if (argc > 1 && strcmp(argv[1], "after-exec") == 0)
		return after_exec();
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		return 0;
	if (argc > 2 && strcmp(argv[1], "provider") == 0)
		return strcmp(argv[2], "attach") == 0 ? provider_attach() :
		       strcmp(argv[2], "new-pid-ns") == 0 ? provider_new_pid_ns() : 2;
	/*
	 * libuspin's constructor attached a provider (and so opted this
	 * process in) unless told not to: start again without it.
	 */
	if (!provider || strcmp(provider, "none") != 0) {
		setenv("USPIN_RS_PROVIDER", "none", 1);
		execv("/proc/self/exe", argv);
		perror("test-running-state-kernel: exec");
		return 2;
	}
	sr = srunner_create(kernel_rs_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
