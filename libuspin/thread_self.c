// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thread_self.c - the caller's kernel TID, cached per thread so that the
 * uncontended paths make no system call.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mutex_impl.h"

USPIN_TLS uint32_t uspin_self_tid_cache;

/* fork() gives the child a new TID but a copy of the parent's TLS. */
static void forget_tid_in_child(void)
{
	uspin_self_tid_cache = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_tid_in_child);
}

uint32_t uspin_self_tid_slow(void)
{
	pthread_once(&atfork_once, register_atfork);
	uspin_self_tid_cache = (uint32_t)syscall(SYS_gettid);
	return uspin_self_tid_cache;
}
