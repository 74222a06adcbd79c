// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libearly.c - a library test-dropin links (DT_NEEDED): its constructor
 * runs before the preloaded libuspin-pthread.so's (the loader initialises
 * dependencies first and the preload last), so the mutexes it locks are
 * locked before uspin's setup ran.  The executable's .preinit_array runs
 * even earlier (edges.c).  What they did is kept for the suite to check.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "../sys_util.h"

pthread_mutex_t early_held;		/* errorcheck, still locked by main */
pthread_mutex_t early_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
pthread_mutex_t early_pi;
pthread_cond_t early_cond = PTHREAD_COND_INITIALIZER;
int early_results[8];
uint32_t early_word, early_tid;

__attribute__((constructor)) static void early_ctor(void)
{
	pthread_mutexattr_t a;
	struct timespec past = { 0, 0 };

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	early_results[0] = pthread_mutex_init(&early_held, &a);
	early_results[1] = pthread_mutex_lock(&early_held);
	early_word = *(volatile uint32_t *)&early_held;
	early_tid = sys_gettid();
	early_results[2] = pthread_mutex_lock(&early_rec);
	early_results[3] = pthread_mutex_lock(&early_rec);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	early_results[4] = pthread_mutex_init(&early_pi, &a);
	early_results[5] = pthread_mutex_lock(&early_pi) ||
			   pthread_mutex_unlock(&early_pi);
	early_results[6] = pthread_cond_signal(&early_cond);
	early_results[7] = pthread_cond_timedwait(&early_cond, &early_held,
						  &past) == ETIMEDOUT ? 0 : -1;
	pthread_mutexattr_destroy(&a);
}
