// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * real.c - glibc's mutex functions, for the kinds the drop-in leaves to
 * glibc (priority inheritance, priority protection).  Looked up with
 * dlsym(RTLD_NEXT): the next definition after ours, glibc's (or another
 * interposer's that was preloaded after us).  Resolved in a constructor
 * and again on first use, in case such a mutex is used by a constructor
 * that runs before ours; dlsym may allocate, so never on a path that
 * runs a mutex of ours.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"

static struct dropin_real real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void *must(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "libuspin-pthread: no %s after us: %s\n", name,
			dlerror());
		abort();
	}
	return p;
}

static void resolve(void)
{
	real.mutex_init = must("pthread_mutex_init");
	real.mutex_destroy = must("pthread_mutex_destroy");
	real.mutex_lock = must("pthread_mutex_lock");
	real.mutex_trylock = must("pthread_mutex_trylock");
	real.mutex_timedlock = must("pthread_mutex_timedlock");
	real.mutex_clocklock = must("pthread_mutex_clocklock");
	real.mutex_unlock = must("pthread_mutex_unlock");
	real.mutex_consistent = must("pthread_mutex_consistent");
}

const struct dropin_real *dropin_real(void)
{
	pthread_once(&real_once, resolve);
	return &real;
}

__attribute__((constructor)) static void dropin_real_constructor(void)
{
	dropin_real();
}
