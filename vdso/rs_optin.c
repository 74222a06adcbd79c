// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rs_optin.c - librs-optin.so: LD_PRELOAD it into an unmodified program
 * to opt that process in to the patched kernel's running-state publication
 * (prctl PR_SCHED_RS_ENABLE) before main(), so that its threads and fork
 * children are published (the opt-in does not survive exec, so a wrapper
 * cannot do it).  For measurements: bench/pingpong --cmd ... --preload.
 * Says why on stderr if it cannot (quietly not while the administrator
 * keeps publication off, EPERM); the program runs either way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "running_state_abi.h"

__attribute__((constructor)) static void uspin_rs_optin(void)
{
	struct uspin_kernel_rs rs;

	memset(&rs, 0, sizeof(rs));
	if (prctl(USPIN_PR_SCHED_RUNNING_STATE, USPIN_PR_SCHED_RS_ENABLE,
		  (unsigned long)&rs, (unsigned long)sizeof(rs), 0UL) != 0 &&
	    errno != EPERM)
		fprintf(stderr, "librs-optin: PR_SCHED_RS_ENABLE: %s\n",
			strerror(errno));
}
