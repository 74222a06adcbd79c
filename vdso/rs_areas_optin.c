// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rs_areas_optin.c - librs-areas.so: LD_PRELOAD it into an unmodified
 * program to register a per-thread running-state area
 * (prctl(PR_SCHED_THREAD_STATE), kernel/patches/rseq/) for its main thread
 * before main() and again in every fork child, which the kernel does not
 * let inherit the registration.  The per-thread design's counterpart of
 * librs-optin.so, so that "perf bench sched pipe" (two processes, one
 * thread each) runs with the scheduler storing into areas.  For
 * measurements: bench/pingpong --cmd ... --preload, with --on / --off
 * creating / removing the flag file below, so that publication is
 * toggled per sample while the program and its environment stay the same.
 *
 * It registers only while $USPIN_RS_AREAS_FLAG (default
 * /tmp/uspin-rs-areas-on) exists.  Threads other than the main one are not
 * registered (perf bench sched pipe's default mode has none).  Says why on
 * stderr if a registration fails; the program runs either way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "running_state_abi.h"

#define RS_AREAS_FLAG	"/tmp/uspin-rs-areas-on"

/* One cache line, process memory: a fork child has its own copy at the same address. */
static uint32_t area[16] __attribute__((aligned(64)));

static void register_area(void)
{
	if (prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_REGISTER,
		  (unsigned long)area, 0UL, 0UL) != 0)
		fprintf(stderr, "librs-areas: PR_SCHED_THREAD_STATE: %s\n",
			strerror(errno));
}

__attribute__((constructor)) static void uspin_rs_areas_optin(void)
{
	const char *flag = getenv("USPIN_RS_AREAS_FLAG");

	if (access(flag && *flag ? flag : RS_AREAS_FLAG, F_OK) != 0)
		return;
	register_area();
	pthread_atfork(NULL, NULL, register_area);
}
