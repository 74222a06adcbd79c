/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.h - helpers of the drop-in suites.  These are plain pthread
 * programs (no uspin header, no libuspin): they must pass on glibc alone
 * (the control) and under uspin-run with every policy.  DROPIN_EXPECT
 * (uspin or glibc) says which implementation the run must be on.
 */
#ifndef DROPIN_TEST_UTIL_H
#define DROPIN_TEST_UTIL_H

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check_suites.h"
#include "../sys_util.h"
#include "../test_common.h"

/* The lock word (__lock) of a pthread mutex. */
static inline uint32_t word_of(pthread_mutex_t *m)
{
	return __atomic_load_n((uint32_t *)m, __ATOMIC_ACQUIRE);
}

/* glibc's __owner, where uspin keeps its flags. */
static inline uint32_t owner_field(pthread_mutex_t *m)
{
	return (uint32_t)m->__data.__owner;
}

/* Is this process on uspin's mutexes (the lock word holds our TID)? */
static inline int on_uspin(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int yes;

	pthread_mutex_lock(&m);
	yes = (word_of(&m) & 0x3fffffff) == sys_gettid();
	pthread_mutex_unlock(&m);
	return yes;
}

/* What the run must be on: 1 uspin, 0 glibc, -1 not said. */
static inline int expect_uspin(void)
{
	const char *e = getenv("DROPIN_EXPECT");

	if (!e)
		return -1;
	return strcmp(e, "uspin") == 0;
}

/* The mutex kinds of the suites. */
enum mkind {
	MK_NORMAL, MK_ERRORCHECK, MK_RECURSIVE, MK_ADAPTIVE,
	MK_STATIC_NORMAL, MK_STATIC_RECURSIVE, MK_STATIC_ERRORCHECK,
	MK_STATIC_ADAPTIVE, MK_ROBUST_NORMAL, MK_ROBUST_ERRORCHECK,
	MK_ROBUST_RECURSIVE, MK_PSHARED, MK_PSHARED_ROBUST, MK_PI, MK_PP,
	MK_PI_ROBUST, MK_COUNT
};

int mkind_init(pthread_mutex_t *m, enum mkind k);
const char *mkind_name(enum mkind k);
int mkind_type(enum mkind k);		/* PTHREAD_MUTEX_NORMAL, ... */
int mkind_robust(enum mkind k);
int mkind_glibc(enum mkind k);		/* priority kinds: glibc runs them */

Suite *suite_kinds(void);
Suite *suite_kill(void);
Suite *suite_cond(void);
Suite *suite_process(void);
Suite *suite_edges(void);

#endif
