/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_util.h - small helpers of libuspin's Check suites, beside those
 * every test program shares (test_common.h, check_suites.h) and the
 * scenarios test-dropin runs too (scenarios/).
 */
#ifndef USPIN_TEST_UTIL_H
#define USPIN_TEST_UTIL_H

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <urcu/arch.h>

#include "check_suites.h"
#include "running_state.h"
#include "sys_util.h"
#include "test_common.h"
#include "uspin.h"

/*
 * Every policy, for loops over them: libuspin's table (policy.c) numbers
 * them 0 .. USPIN_POLICY_COUNT - 1, so a loop index is a policy.
 */
#define NR_POLICIES	((unsigned int)USPIN_POLICY_COUNT)

static inline enum uspin_policy policy_nr(unsigned int i)
{
	return (enum uspin_policy)i;
}

/* A thread holding @m until told to release it. */
struct holder {
	pthread_t thread;
	uspin_mutex_t *m;
	volatile int locked;
	volatile int release;
	int lock_ret;
};

static inline void *holder_main(void *arg)
{
	struct holder *h = arg;

	h->lock_ret = uspin_mutex_lock(h->m);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (h->lock_ret == 0)
		uspin_mutex_unlock(h->m);
	return NULL;
}

static inline void holder_start(struct holder *h, uspin_mutex_t *m)
{
	h->m = m;
	h->locked = 0;
	h->release = 0;
	ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_main, h), 0);
	while (!__atomic_load_n(&h->locked, __ATOMIC_ACQUIRE))
		usleep(100);
	ck_assert_int_eq(h->lock_ret, 0);
}

static inline void holder_stop(struct holder *h)
{
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
}

/* Pin the calling thread to @cpu, and let it move there. */
static inline void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
	sched_yield();
}

/* A thread that busy-loops on a CPU until told to stop. */
struct hog {
	pthread_t thread;
	int cpu;
	volatile int pinned;
	volatile int stop;
};

static inline void *hog_main(void *arg)
{
	struct hog *h = arg;

	pin_self(h->cpu);
	__atomic_store_n(&h->pinned, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
		caa_cpu_relax();
	return NULL;
}

/* Start @h on @cpu; it runs there when this returns. */
static inline void hog_start(struct hog *h, int cpu)
{
	*h = (struct hog){ .cpu = cpu };
	ck_assert_int_eq(pthread_create(&h->thread, NULL, hog_main, h), 0);
	while (!__atomic_load_n(&h->pinned, __ATOMIC_ACQUIRE))
		usleep(100);
}

static inline void hog_stop(struct hog *h)
{
	__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
}

/* Suites, one per file. */
/*
 * A running-state view of the test's own in place of the provider's:
 * every TID unknown but @tid, which reads @entry (USPIN_RS_ENTRY_ON or
 * _OFF).  Threads that read the view must be ordered after the swap; the
 * caller puts *@saved back and frees the result.
 */
static inline uint32_t *fake_view_install(struct uspin_rs_view *saved,
					  uint32_t tid, uint32_t entry)
{
	uint32_t *e = calloc(tid + 1, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	e[tid] = entry;
	*saved = uspin_rs_view;
	uspin_rs_view = (struct uspin_rs_view){
		.base = e, .alive = &uspin_rs_always_alive,
		.nr_entries = tid + 1, .stride = 1, .own_process = 1,
	};
	return e;
}

Suite *suite_errors(void);
Suite *suite_timed(void);
Suite *suite_stress(void);
Suite *suite_shared(void);
Suite *suite_policy(void);
Suite *suite_setup(void);
Suite *suite_process(void);
Suite *suite_fairness(void);
Suite *suite_cond(void);
Suite *suite_kill(void);

/* Helper modes of test-uspin (see test_main.c). */
int test_setup_info_main(void);
int test_process_hold_robust_main(const char *fd);
Suite *suite_vdso_sym(void);
Suite *suite_running_state(void);
Suite *suite_spin(void);
Suite *suite_slice(void);
Suite *suite_shapes(void);
int test_slice_info_main(void);

#endif
