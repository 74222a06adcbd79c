// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * setup.c - everything libuspin learns once, in a constructor, so that no
 * lock or unlock path ever probes, reads the environment, allocates, talks
 * to a helper or makes a system call it could avoid: the futex ops the
 * kernel has, the CPUs we may run on, the rate of the spin time base, the
 * running-state provider, the time-slice extension (slice_ext.c),
 * USPIN_POLICY, USPIN_WAIT and USPIN_SLICE_EXT.  Until it is done
 * (a static binary whose own constructors lock first), every mutex acts
 * as BLOCK on the FUTEX_WAIT path, which works on every kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cycles.h"
#include "futex_ops.h"
#include "process_state.h"
#include "running_state.h"
#include "setup.h"
#include "spinners.h"

struct uspin_setup uspin_setup_state;
int uspin_force_stock_kernel;
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
__thread uint64_t uspin_cycles_fallback __attribute__((tls_model("initial-exec")));
#endif

/* Spin budgets (see spin_tuning.h) and the handoff threshold, in ns. */
#define SPIN_MIN_NS		2000u
#define SPIN_MAX_NS		40000u
#define USER_SPIN_MAX_NS	200000u
/*
 * A spinner whose CPU other tasks want spins on for at most twice this
 * mutex's typical contended hold (spin.c), and never past a scheduler
 * slice (about 1 ms: the scheduler would take the CPU then anyway).
 */
#define SHARED_SPIN_MAX_NS	1000000u
#define HANDOFF_AFTER_NS	1000000u
/*
 * Spinning on a running owner (spin.c).  The cap only guards against a
 * provider that says ON wrongly or an owner that never lets go; 5 ms is
 * five times the longest hold the evaluation measures (docs/design.md).
 * A gap of 200 us between two reads of the word is longer than an
 * undisturbed spinner sees but a few times a second (interrupts, a
 * hypervisor's hiccups: up to 100-200 us under TCG) and shorter than a
 * preemption by a CPU hog (a slice, 1 ms and up): the spinner's CPU was
 * given to someone else.  make bench-spin-gaps measures both sides.
 */
#define SPIN_CAP_US		5000u
#define PREEMPT_GAP_NS		200000u
/* Where nothing tells us the rate of the time base. */
#define NOMINAL_CYCLES_PER_US	2000u

/*
 * Locking a private word that holds 0 succeeds at once where the op exists;
 * a stock kernel answers ENOSYS.  Any other answer also means "do not use".
 */
static int probe_futex_lock(int adaptive)
{
	uint32_t word = 0;

	return futex_lock_op(&word, adaptive, 0, CLOCK_MONOTONIC, NULL) == 0 &&
	       WORD_TID(word) == uspin_self_tid();
}

/* Unlocking a word we own with no waiters stores 0. */
static int probe_futex_unlock(void)
{
	uint32_t word = uspin_self_tid();

	return futex_unlock_op(&word, 0) == 0 && word == 0;
}

/* CPUs in our affinity mask (taskset, cpusets), not the machine's. */
static unsigned int affinity_cpus(void)
{
	int n = CPU_SETSIZE;

	for (;;) {
		size_t sz = CPU_ALLOC_SIZE(n);
		cpu_set_t *set = CPU_ALLOC(n);
		int r, count;

		if (!set)
			return 1;
		r = sched_getaffinity(0, sz, set);
		count = CPU_COUNT_S(sz, set);
		CPU_FREE(set);
		if (r == 0)
			return count > 0 ? (unsigned int)count : 1;
		if (errno != EINVAL || n >= (1 << 20))
			return 1;
		n *= 2;
	}
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Cycles per microsecond against CLOCK_MONOTONIC_RAW over three 20 us
 * windows (median), only where that clock is fine-grained: on a jiffies
 * clocksource it moves in 4 ms steps and every read is a system call.
 */
static uint64_t measure_cycles_per_us(void)
{
	struct timespec res;
	uint64_t r[3], t;
	int i;

	if (clock_getres(CLOCK_MONOTONIC_RAW, &res) != 0 || res.tv_sec ||
	    res.tv_nsec > 1000)
		return 0;
	for (i = 0; i < 3; i++) {
		uint64_t t0 = raw_ns(), c0 = uspin_cycles(), t1, c1;

		do {
			t1 = raw_ns();
			c1 = uspin_cycles();
		} while (t1 - t0 < 20000);
		r[i] = (c1 - c0) * 1000 / (t1 - t0);
	}
	if (r[0] > r[1]) { t = r[0]; r[0] = r[1]; r[1] = t; }
	if (r[1] > r[2]) { t = r[1]; r[1] = r[2]; r[2] = t; }
	if (r[0] > r[1]) { t = r[0]; r[0] = r[1]; r[1] = t; }
	return r[1];
}

/* What the CPU or the hypervisor says the rate is, or 0. */
static uint64_t reported_cycles_per_us(void)
{
#if defined(__aarch64__)
	uint64_t frq;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
	return frq / 1000000;
#elif defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d, max;

	/* Hypervisor timing leaf (KVM, VMware, ...): TSC kHz in eax. */
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		__cpuid(0x40000000, max, b, c, d);
		if (max >= 0x40000010) {
			__cpuid(0x40000010, a, b, c, d);
			if (a)
				return a / 1000;
		}
	}
	max = __get_cpuid_max(0, NULL);
	if (max >= 0x15) {
		/* TSC = crystal (ecx Hz) * ebx / eax */
		__cpuid(0x15, a, b, c, d);
		if (a && b && c)
			return (uint64_t)c * b / a / 1000000;
	}
	if (max >= 0x16) {
		__cpuid(0x16, a, b, c, d);	/* base MHz; the TSC runs at it */
		if (a)
			return a;
	}
	return 0;
#else
	return 0;
#endif
}

static void calibrate(struct uspin_setup *s)
{
	uint64_t per_us = measure_cycles_per_us();

	s->cycles_quality = CYCLES_MEASURED;
	if (per_us < 50 || per_us > 50000) {
		per_us = reported_cycles_per_us();
		s->cycles_quality = CYCLES_CPUID;
	}
	if (per_us < 50 || per_us > 50000) {
		per_us = NOMINAL_CYCLES_PER_US;
		s->cycles_quality = CYCLES_NOMINAL;
	}
	s->cycles_per_us = per_us;
	s->spin_min = SPIN_MIN_NS * per_us / 1000;
	s->spin_max = SPIN_MAX_NS * per_us / 1000;
	s->user_spin_max = USER_SPIN_MAX_NS * per_us / 1000;
	s->shared_spin_max = SHARED_SPIN_MAX_NS * per_us / 1000;
	s->handoff_after = HANDOFF_AFTER_NS * per_us / 1000;
	s->spin_cap = (uint64_t)SPIN_CAP_US * per_us;
	s->preempt_gap = PREEMPT_GAP_NS * per_us / 1000;
}

/* As many spinners as can run beside the owner, at least one. */
static unsigned int max_spinners(unsigned int ncpus)
{
	return ncpus <= 2 ? 1 : ncpus - 1 > 255 ? 255 : ncpus - 1;
}

/*
 * USPIN_SPIN_CAP_US=N replaces the cap of user-adaptive and spin-capped
 * (0: none, spin as long as the owner runs); a bad value is reported.
 */
static void read_spin_cap_env(struct uspin_setup *s)
{
	const char *env = getenv("USPIN_SPIN_CAP_US");
	unsigned long long us;
	char *end;

	if (!env || !*env)
		return;
	errno = 0;
	us = strtoull(env, &end, 10);
	if (*end || errno || env[0] == '-' || us > 60ull * 1000000) {
		fprintf(stderr,
			"uspin: USPIN_SPIN_CAP_US=%s is not a number of microseconds up to 60000000; using %u\n",
			env, SPIN_CAP_US);
		return;
	}
	s->spin_cap = us * s->cycles_per_us;
	s->spin_cap_from_env = 1;
}

/* USPIN_SHADOW=1: shadow mode for the blind spins (setup.h). */
static void read_shadow_env(struct uspin_setup *s)
{
	const char *env = getenv("USPIN_SHADOW");

	if (!env || !*env || strcmp(env, "0") == 0)
		return;
	if (strcmp(env, "1") == 0)
		s->shadow = 1;
	else
		fprintf(stderr, "uspin: USPIN_SHADOW=%s is not 0 or 1; using 0\n", env);
}

static int parse_policy(const char *s, enum uspin_policy *p)
{
	int i;

	for (i = 0; i < USPIN_POLICY_COUNT; i++)
		if (strcmp(s, uspin_policy_name((enum uspin_policy)i)) == 0) {
			*p = (enum uspin_policy)i;
			return 0;
		}
	return EINVAL;
}

/* AUTO: spin where spinning can be informed, never on one CPU. */
static enum uspin_policy resolve_auto(const struct uspin_setup *s,
				      const char *provider)
{
	if (s->ncpus <= 1)
		return USPIN_POLICY_BLOCK;
	if (strcmp(provider, "none") != 0)
		return USPIN_POLICY_USER_ADAPTIVE;
	if (s->futex_lock_adaptive)
		return USPIN_POLICY_KERNEL_ADAPTIVE;
	return USPIN_POLICY_SPIN_BOUNDED;
}

/* USPIN_POLICY replaces what AUTO resolves to; a bad value is reported. */
static void read_policy_env(struct uspin_setup *s)
{
	const char *env = getenv("USPIN_POLICY");
	enum uspin_policy p;

	if (!env || !*env)
		return;
	if (parse_policy(env, &p) != 0) {
		int i;

		/* The names from policy.c's table, as "auto|block|...". */
		fprintf(stderr, "uspin: USPIN_POLICY=%s is not one of ", env);
		for (i = 0; i < USPIN_POLICY_COUNT; i++)
			fprintf(stderr, "%s%s", i ? "|" : "",
				uspin_policy_name((enum uspin_policy)i));
		fputs("; using auto\n", stderr);
	} else if (p != USPIN_POLICY_AUTO) {
		s->auto_policy = p;
		s->policy_overridden = 1;
	}
}

/*
 * USPIN_WAIT=futex-wait keeps the kernel's FUTEX_LOCK ops out (to measure
 * user-space spinning over the stock-kernel protocol on the patched
 * kernel); futex-lock (or unset) uses them where they exist.
 */
static void read_wait_env(void)
{
	const char *env = getenv("USPIN_WAIT");

	if (!env || !*env || strcmp(env, "futex-lock") == 0)
		return;
	if (strcmp(env, "futex-wait") == 0)
		uspin_force_stock_kernel = 1;
	else
		fprintf(stderr,
			"uspin: USPIN_WAIT=%s is not one of futex-wait|futex-lock; ignored\n",
			env);
}

static void setup(void)
{
	struct uspin_setup *s = &uspin_setup_state;
	const char *provider;

	uspin_thread_self_setup();
	uspin_spinners_setup();
	s->ncpus = affinity_cpus();
	s->max_spinners = max_spinners(s->ncpus);
	calibrate(s);
	read_spin_cap_env(s);
	read_shadow_env(s);
	s->futex_lock = probe_futex_lock(0);
	s->futex_lock_adaptive = s->futex_lock && probe_futex_lock(1);
	s->futex_unlock = s->futex_lock && probe_futex_unlock();
	read_wait_env();
	provider = uspin_running_state_init();
	s->auto_policy = resolve_auto(s, provider);
	read_policy_env(s);
	uspin_slice_setup(s);
	cmm_smp_wmb();
	uatomic_set(&s->done, 1);
	/* Its own first slow path ran above, before the policy was known. */
	uspin_slice_thread_init();
}

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

void uspin_setup_run(void)
{
	pthread_once(&setup_once, setup);
}

__attribute__((constructor)) static void uspin_setup_constructor(void)
{
	uspin_setup_run();
}
