// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin.c - libuspin under each of its policies.  user_adaptive is the
 * proposal under evaluation; the running-state provider it found is in
 * meta.json and in every plot's caption, because without a provider it is
 * only a bounded spin and must not be mistaken for the real thing.
 *
 * uspin_user_adaptive waits in the kernel the way the library chooses by
 * default (FUTEX_LOCK where the kernel has it).  The _futex_wait variant
 * sets USPIN_WAIT=futex-wait, which libuspin reads at setup, so it runs in
 * a process of its own: the same user-space spin over the classic
 * FUTEX_WAIT/WAKE, separating the array's effect from the new op's.
 *
 * The owner's side, rseq's time slice extension (docs/rseq-slice.md), is
 * a switch of its own: every lock here runs with USPIN_SLICE_EXT=0, so a
 * name keeps meaning one waiting policy, and the _slice variants run the
 * same policy with USPIN_SLICE_EXT=1.  uspin_block_slice is the extension
 * alone (no spinning), uspin_user_adaptive_slice both sides together.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "lock.h"
#include "running_state_abi.h"
#include "uspin.h"

_Static_assert(sizeof(uspin_mutex_t) <= BENCH_LOCK_SIZE,
	       "uspin_mutex_t does not fit the lock storage");

static struct uspin_info us_info(void)
{
	struct uspin_info info;

	uspin_query(&info);
	return info;
}

/* Without the op the library spins a bounded while: that is uspin_spin. */
static const char *us_kadapt_probe(void)
{
	if (!us_info().futex_lock_adaptive)
		return "FUTEX_LOCK_ADAPTIVE absent on this kernel (libuspin would fall back to its bounded spin, measured as uspin_spin)";
	return NULL;
}

static const char *us_slow_path(void)
{
	return us_info().futex_lock ? "slow path FUTEX_LOCK"
				    : "slow path FUTEX_WAIT (stock-kernel fallback)";
}

static const char *us_uadapt_describe(void)
{
	static char buf[160];
	struct uspin_info info = us_info();
	const char *wait = getenv("USPIN_WAIT");

	snprintf(buf, sizeof(buf), "running-state provider %s%s; %s%s%s",
		 info.running_state,
		 strcmp(info.running_state, "none") == 0 ?
			" (degrades to bounded spin)" : "",
		 us_slow_path(), wait ? "; USPIN_WAIT=" : "", wait ? wait : "");
	return buf;
}

/* On a kernel without FUTEX_LOCK the default already is FUTEX_WAIT. */
static const char *us_fwait_probe(void)
{
	if (!us_info().futex_lock)
		return "no FUTEX_LOCK on this kernel: uspin_user_adaptive already waits with FUTEX_WAIT";
	return NULL;
}

static const char *us_fwait_describe(void)
{
	return "user-adaptive spin, then FUTEX_WAIT instead of FUTEX_LOCK";
}

static int us_init(void *l, enum uspin_policy policy)
{
	return uspin_mutex_init(l, policy);
}

static int us_block_init(void *l)
{
	return us_init(l, USPIN_POLICY_BLOCK);
}

static int us_spin_init(void *l)
{
	return us_init(l, USPIN_POLICY_SPIN_BOUNDED);
}

static int us_kadapt_init(void *l)
{
	return us_init(l, USPIN_POLICY_KERNEL_ADAPTIVE);
}

static int us_uadapt_init(void *l)
{
	return us_init(l, USPIN_POLICY_USER_ADAPTIVE);
}

static int us_uadapt_bounded_init(void *l)
{
	return us_init(l, USPIN_POLICY_USER_ADAPTIVE_BOUNDED);
}

static int us_capped_init(void *l)
{
	return us_init(l, USPIN_POLICY_SPIN_CAPPED);
}

static void us_lock(void *l)
{
	int err = uspin_mutex_lock(l);

	if (err) {
		fprintf(stderr, "uspin-bench: uspin_mutex_lock: %s\n",
			strerror(err));
		abort();
	}
}

static void us_unlock(void *l)
{
	uspin_mutex_unlock(l);
}

static void us_destroy(void *l)
{
	uspin_mutex_destroy(l);
}

static const char *const slice_off_env[] = { "USPIN_SLICE_EXT=0", NULL };
static const char *const slice_on_env[] = { "USPIN_SLICE_EXT=1", NULL };
static const char *const shadow_env[] = {
	"USPIN_SHADOW=1", "USPIN_SLICE_EXT=0", NULL
};
static const char *const fwait_env[] = {
	"USPIN_WAIT=futex-wait", "USPIN_SLICE_EXT=0", NULL
};
static const char *const areas_env[] = {
	"USPIN_RS_PROVIDER=rseq", "USPIN_SLICE_EXT=0", NULL
};

/* The extension's variants need it on this kernel. */
static const char *us_slice_probe(void)
{
	struct uspin_slice_info si;

	if (uspin_slice_extension(&si, sizeof(si)) != 0 || !si.available)
		return "no rseq time slice extension on this kernel (Linux 7.0+ or kernel/patches/rseq-slice)";
	return NULL;
}

/* Shadow mode counts something only where the running state is known. */
static const char *us_shadow_probe(void)
{
	struct uspin_info info = us_info();

	if (strcmp(info.running_state, "none") == 0)
		return "no running-state provider: shadow mode would see nothing";
	return NULL;
}

/* prctl(PR_SCHED_THREAD_STATE) of kernel/patches/rseq/: register, drop. */
static const char *us_areas_probe(void)
{
	static uint32_t area __attribute__((aligned(64)));

	if (prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_REGISTER,
		  (unsigned long)&area, 0UL, 0UL) != 0)
		return "no per-thread running-state areas on this kernel (kernel/patches/rseq)";
	prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_UNREGISTER, 0UL, 0UL, 0UL);
	return NULL;
}

#define USPIN_LOCK_ENV(_name, _init, _probe, _describe, _env)	\
	{						\
		.name = _name,				\
		.probe = _probe,			\
		.describe = _describe,			\
		.env = _env,				\
		.thread_stats = 1,			\
		.init = _init,				\
		.lock = us_lock,			\
		.unlock = us_unlock,			\
		.destroy = us_destroy,			\
	}
#define USPIN_LOCK(_name, _init, _probe, _describe)	\
	USPIN_LOCK_ENV(_name, _init, _probe, _describe, slice_off_env)
#define USPIN_LOCK_SLICE(_name, _init, _describe)	\
	USPIN_LOCK_ENV(_name, _init, us_slice_probe, _describe, slice_on_env)

const struct bench_lock bench_lock_uspin_block =
	USPIN_LOCK("uspin_block", us_block_init, NULL, us_slow_path);
const struct bench_lock bench_lock_uspin_spin =
	USPIN_LOCK("uspin_spin", us_spin_init, NULL, us_slow_path);
const struct bench_lock bench_lock_uspin_kernel_adaptive =
	USPIN_LOCK("uspin_kernel_adaptive", us_kadapt_init, us_kadapt_probe,
		   NULL);
const struct bench_lock bench_lock_uspin_user_adaptive =
	USPIN_LOCK("uspin_user_adaptive", us_uadapt_init, NULL,
		   us_uadapt_describe);

/*
 * The controls of the proposal (docs/design.md): its spin ended by v2's
 * learned budget instead, and its spin blind to the running state.
 */
const struct bench_lock bench_lock_uspin_user_adaptive_bounded =
	USPIN_LOCK("uspin_user_adaptive_bounded", us_uadapt_bounded_init, NULL,
		   us_uadapt_describe);
const struct bench_lock bench_lock_uspin_spin_capped =
	USPIN_LOCK("uspin_spin_capped", us_capped_init, NULL, us_slow_path);
/*
 * The blind control in shadow mode (USPIN_SHADOW=1): it spins exactly as
 * uspin_spin_capped but looks the owner up on every read, as the proposal
 * does, and counts the spin from the first sight of an owner the proposal
 * would have stopped for (shadow_* columns): the saving on offer at every
 * point, measured by the spinner that does not take it.
 */
const struct bench_lock bench_lock_uspin_spin_capped_shadow =
	USPIN_LOCK_ENV("uspin_spin_capped_shadow", us_capped_init, us_shadow_probe,
		       us_uadapt_describe, shadow_env);

/*
 * Fixed blind budgets (issue 21): the blind control with its cap set to B
 * us (USPIN_SPIN_CAP_US), so the proposal is set against each budget a
 * tuner could pick, not only against v3's 5 ms cap.
 */
#define USPIN_BLIND_BUDGET(_us)						\
	static const char *const budget##_us##_env[] = {		\
		"USPIN_SPIN_CAP_US=" #_us, "USPIN_SLICE_EXT=0", NULL	\
	};								\
	const struct bench_lock bench_lock_uspin_blind_##_us##us =	\
		USPIN_LOCK_ENV("uspin_blind_" #_us "us", us_capped_init,	\
			       NULL, us_slow_path, budget##_us##_env)
USPIN_BLIND_BUDGET(2);
USPIN_BLIND_BUDGET(10);
USPIN_BLIND_BUDGET(40);
USPIN_BLIND_BUDGET(200);

/* The proposal reading the per-thread areas (rseq series), not the array. */
const struct bench_lock bench_lock_uspin_user_adaptive_areas =
	USPIN_LOCK_ENV("uspin_user_adaptive_areas", us_uadapt_init,
		       us_areas_probe, us_uadapt_describe, areas_env);

const struct bench_lock bench_lock_uspin_user_adaptive_futex_wait = {
	.name = "uspin_user_adaptive_futex_wait",
	.probe = us_fwait_probe,
	.describe = us_fwait_describe,
	.env = fwait_env,
	.thread_stats = 1,
	.init = us_uadapt_init,
	.lock = us_lock,
	.unlock = us_unlock,
	.destroy = us_destroy,
};

/* The owner's side: the same policies with the slice extension on. */
const struct bench_lock bench_lock_uspin_block_slice =
	USPIN_LOCK_SLICE("uspin_block_slice", us_block_init, us_slow_path);
const struct bench_lock bench_lock_uspin_spin_slice =
	USPIN_LOCK_SLICE("uspin_spin_slice", us_spin_init, us_slow_path);
const struct bench_lock bench_lock_uspin_user_adaptive_slice =
	USPIN_LOCK_SLICE("uspin_user_adaptive_slice", us_uadapt_init,
			 us_uadapt_describe);
