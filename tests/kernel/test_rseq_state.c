// SPDX-License-Identifier: MIT
/*
 * test-rseq-state: the rseq provider (vdso/provider_rseq.c) on the kernel
 * of kernel/patches/rseq/ (prctl(PR_SCHED_THREAD_STATE)), in the guest.
 * Run with USPIN_RS_PROVIDER=rseq (tests/kernel/run-guest-suites does).
 *
 *   exit_race            10,000 owners exit while a spinner reads their
 *                        areas: no fault, only valid encodings, UNKNOWN
 *                        once the owner is joined
 *   unregistered_thread  a thread that never took a libuspin slow path
 *                        reads UNKNOWN, even to itself
 *   fork_child           the parent's threads read UNKNOWN in a fork child
 *                        (none of its map, no stale "on CPU"); the child
 *                        reads itself ON once registered
 *   other_process        the owner of a process-shared mutex, in another
 *                        process, reads UNKNOWN
 *   pin_is_charged       the pinned page counts in VmPin while registered;
 *                        past RLIMIT_MEMLOCK, registering fails with ENOMEM
 *                        without CAP_IPC_LOCK and works with it
 *
 * Every test runs in its own forked process (Check's fork mode).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sys_util.h"
#include "internal.h"
#include "running_state.h"
#include "running_state_abi.h"
#include "uspin.h"

/* The library's copy of the prctl ABI must match the patched kernel's. */
_Static_assert(USPIN_PR_SCHED_THREAD_STATE == PR_SCHED_THREAD_STATE &&
	       USPIN_PR_SCHED_TS_REGISTER == PR_SCHED_TS_REGISTER &&
	       USPIN_PR_SCHED_TS_UNREGISTER == PR_SCHED_TS_UNREGISTER &&
	       USPIN_PR_SCHED_TS_GET == PR_SCHED_TS_GET,
	       "vdso/running_state_abi.h and the kernel disagree on PR_SCHED_THREAD_STATE");

#define EXIT_RACE_ROUNDS	10000

static long ncpus_conf;

/* A value the provider may ever return: 0, 1, or 2 + a CPU that exists. */
static int valid_entry(uint32_t e)
{
	return e < USPIN_RS_ENTRY_CPU0 ||
	       e - USPIN_RS_ENTRY_CPU0 < (uint32_t)ncpus_conf;
}

START_TEST(provider_is_rseq)
{
	ck_assert_str_eq(uspin_running_state_provider(), "rseq");
	ck_assert_ptr_null((const void *)uspin_rs_view.base);
	ck_assert_ptr_nonnull((const void *)uspin_rs_view.ptrs);
	/* The kernel refuses a second registration of this thread. */
	(void)uspin_self_tid();
	ck_assert_int_eq(prctl(PR_SCHED_THREAD_STATE, PR_SCHED_TS_REGISTER,
			       (unsigned long)&ncpus_conf, 0UL, 0UL), -1);
	ck_assert_int_eq(errno, EBUSY);
}
END_TEST

struct race {
	volatile uint32_t target;	/* TID the spinner reads; 0: none */
	volatile int stop;
	long reads, on, invalid;
	uint32_t bad_value;
};

static void *spinner(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		uint32_t t = r->target, e;

		if (!t)
			continue;
		e = uspin_rs_entry(t);
		r->reads++;
		r->on += e >= USPIN_RS_ENTRY_CPU0;
		if (!valid_entry(e)) {
			r->invalid++;
			r->bad_value = e;
		}
	}
	return NULL;
}

struct owner {
	struct race *race;
	uspin_mutex_t *m;
	int self_on;		/* it read itself ON while registered */
};

/* Takes the lock (registering itself), publishes its TID, exits holding. */
static void *owner(void *arg)
{
	struct owner *o = arg;
	uint32_t tid;

	uspin_mutex_lock(o->m);
	tid = uspin_self_tid();
	o->self_on = uspin_rs_query(tid) == USPIN_RS_ON;
	o->race->target = tid;
	return NULL;
}

START_TEST(exit_race)
{
	struct race r = { 0 };
	pthread_t sp;
	long i, not_on = 0, not_unknown = 0;
	uint32_t last_bad = 0;

	ck_assert_int_eq(pthread_create(&sp, NULL, spinner, &r), 0);
	for (i = 0; i < EXIT_RACE_ROUNDS; i++) {
		uspin_mutex_t m;
		struct owner o = { &r, &m, 0 };
		pthread_t t;
		uint32_t tid, e;

		ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_USER_ADAPTIVE), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, owner, &o), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		tid = r.target;
		ck_assert_uint_ne(tid, 0);
		not_on += !o.self_on;
		/*
		 * Joined: the kernel cleared the TID word in mm_release(),
		 * after do_exit() stored UNKNOWN into the area.
		 */
		e = uspin_rs_entry(tid);
		if (e != USPIN_RS_ENTRY_UNKNOWN) {
			not_unknown++;
			last_bad = e;
		}
		r.target = 0;
	}
	r.stop = 1;
	pthread_join(sp, NULL);
	printf("rseq-state/exit_race: %d owners exited, %ld concurrent reads (%ld ON), %ld invalid\n",
	       EXIT_RACE_ROUNDS, r.reads, r.on, r.invalid);
	ck_assert_msg(r.invalid == 0, "%ld reads of invalid entries (e.g. %u)",
		      r.invalid, r.bad_value);
	ck_assert_msg(not_on == 0, "%ld owners did not read themselves ON", not_on);
	ck_assert_msg(not_unknown == 0,
		      "%ld exited owners did not read UNKNOWN (e.g. %u)",
		      not_unknown, last_bad);
	ck_assert_int_gt(r.reads, 0);
}
END_TEST

static void *raw_self_query(void *arg)
{
	uint32_t *out = arg;

	out[0] = sys_gettid();
	out[1] = uspin_rs_entry(out[0]);
	return NULL;
}

START_TEST(unregistered_thread)
{
	uint32_t out[2];
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, raw_self_query, out), 0);
	pthread_join(t, NULL);
	ck_assert_uint_eq(out[1], USPIN_RS_ENTRY_UNKNOWN);
	/* And a registered one reads itself ON. */
	ck_assert_int_eq(uspin_rs_query(uspin_self_tid()), USPIN_RS_ON);
}
END_TEST

struct busy {
	volatile int stop;
	volatile uint32_t tid;
};

static void *busy(void *arg)
{
	struct busy *b = arg;

	b->tid = uspin_self_tid();	/* registered */
	while (!b->stop)
		;
	return NULL;
}

START_TEST(fork_child)
{
	struct busy b = { 0, 0 };
	uint32_t parent_tid = uspin_self_tid(), busy_tid;
	pthread_t t;
	pid_t pid;
	int status;

	ck_assert_ptr_nonnull((const void *)uspin_rs_view.ptrs);
	ck_assert_int_eq(pthread_create(&t, NULL, busy, &b), 0);
	while (!b.tid)
		sched_yield();
	busy_tid = b.tid;
	ck_assert_ptr_nonnull((const void *)uspin_rs_view.ptrs[busy_tid]);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Before any slow path: the parent's threads are not ours. */
		int rc = 0;

		if (uspin_rs_entry(parent_tid) != USPIN_RS_ENTRY_UNKNOWN)
			rc = 1;
		else if (uspin_rs_entry(busy_tid) != USPIN_RS_ENTRY_UNKNOWN)
			rc = 2;
		else if (uspin_rs_query(uspin_self_tid()) != USPIN_RS_ON)
			rc = 3;	/* registered on its first slow path */
		_exit(rc);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	b.stop = 1;
	pthread_join(t, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "fork child: status %#x (1: parent reads not UNKNOWN, 2: parent's thread, 3: child not ON)",
		      status);
	/* The parent itself is still registered. */
	ck_assert_int_eq(uspin_rs_query(parent_tid), USPIN_RS_ON);
}
END_TEST

struct shared {
	uspin_mutex_t m;
	volatile uint32_t owner_tid;
	volatile int owner_on;		/* the owner reads itself ON */
	volatile int release;
};

START_TEST(other_process)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int status;

	ck_assert_ptr_ne(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	ck_assert_int_eq(uspin_mutex_init(&sh->m, USPIN_POLICY_USER_ADAPTIVE |
					  USPIN_PROCESS_SHARED), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint32_t self;

		uspin_mutex_lock(&sh->m);
		self = uspin_self_tid();
		sh->owner_on = uspin_rs_query(self) == USPIN_RS_ON;
		sh->owner_tid = self;
		while (!sh->release)
			;
		uspin_mutex_unlock(&sh->m);
		_exit(0);
	}
	while (!sh->owner_tid)
		sched_yield();
	/* The owner runs (it said so), but not in our process: UNKNOWN. */
	ck_assert_int_eq(sh->owner_on, 1);
	ck_assert_uint_eq(sh->m.word & FUTEX_TID_MASK & ~USPIN_WORD_SHARED,
			  sh->owner_tid);
	ck_assert_int_eq(uspin_rs_query(sh->owner_tid), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_tid_running((pid_t)sh->owner_tid), -1);
	sh->release = 1;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(sh, sizeof(*sh));
}
END_TEST

/*
 * VmPin of /proc/self/status (the mm's pinned_vm), in kB; -1 if absent.
 * Read through a descriptor opened before any uid change: uid 65534
 * cannot open a root-started process's status in the guest.
 */
static int status_fd = -1;

static long vm_pin_kb(void)
{
	char buf[4096], *line;
	long kb = -1;
	ssize_t n = pread(status_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	line = strstr(buf, "VmPin:");
	if (line)
		sscanf(line, "VmPin: %ld kB", &kb);
	return kb;
}

struct pin_try {
	uint32_t *area;
	int err;
	long before, during, after;
};

/* A thread libuspin never registered: the prctl()s are its own. */
static void *pin_thread(void *arg)
{
	struct pin_try *p = arg;

	p->before = vm_pin_kb();
	p->during = p->after = -1;
	if (prctl(PR_SCHED_THREAD_STATE, PR_SCHED_TS_REGISTER,
		  (unsigned long)p->area, 0UL, 0UL)) {
		p->err = errno;
		p->after = vm_pin_kb();
		return NULL;
	}
	p->err = 0;
	p->during = vm_pin_kb();
	if (prctl(PR_SCHED_THREAD_STATE, PR_SCHED_TS_UNREGISTER, 0UL, 0UL, 0UL))
		p->err = -errno;
	p->after = vm_pin_kb();
	return NULL;
}

static struct pin_try pin_try(uint32_t *area)
{
	struct pin_try p = { .area = area };
	pthread_t t;

	if (pthread_create(&t, NULL, pin_thread, &p) || pthread_join(t, NULL))
		p.err = -1;
	return p;
}

/*
 * 0: root, whose CAP_IPC_LOCK passes any RLIMIT_MEMLOCK; 1: root with the
 * limit at 0 (still allowed); 2: the limit at 0 and no capabilities (an
 * unprivileged user): ENOMEM, nothing charged.  A small page: 4 kB charged.
 */
START_TEST(pin_is_charged)
{
	uint32_t *area = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t child;

	ck_assert_ptr_ne(area, MAP_FAILED);
	ck_assert_msg(getuid() == 0, "needs root (the guest runs as root)");
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct rlimit none = { 0, 0 };
		struct pin_try p;

		status_fd = open("/proc/self/status", O_RDONLY);
		if (_i >= 1 && setrlimit(RLIMIT_MEMLOCK, &none))
			_exit(2);
		if (_i == 2 && setresuid(65534, 65534, 65534))
			_exit(3);
		p = pin_try(area);
		printf("pin charge (%s): VmPin %ld kB before, %ld registered, %ld after; error %d\n",
		       _i == 0 ? "root" : _i == 1 ? "root, RLIMIT_MEMLOCK 0" :
		       "unprivileged, RLIMIT_MEMLOCK 0",
		       p.before, p.during, p.after, p.err);
		fflush(stdout);
		if (p.before < 0)
			_exit(4);
		if (_i == 2)
			_exit(p.err == ENOMEM && p.after == p.before ? 0 : 5);
		_exit(p.err == 0 && p.during == p.before + 4 &&
		      p.after == p.before ? 0 : 6);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x", status);
	munmap(area, 4096);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rseq-state");
	TCase *tc = tcase_create("rseq-state");
	SRunner *sr;
	int failed;

	ncpus_conf = sysconf(_SC_NPROCESSORS_CONF);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, provider_is_rseq);
	tcase_add_test(tc, exit_race);
	tcase_add_test(tc, unregistered_thread);
	tcase_add_test(tc, fork_child);
	tcase_add_test(tc, other_process);
	tcase_add_loop_test(tc, pin_is_charged, 0, 3);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
