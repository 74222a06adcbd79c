// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpu_wanted.c - the spin phase's need_resched() (cpu_wanted.h): ask for
 * a time slice extension, or find our CPU's run-queue length.
 * The request is set once per spin phase: the kernel clears it when it
 * grants or switches the thread out, which ends the phase either way.
 */
#include <sched.h>

#include "cpu_wanted.h"
#include "internal.h"

void uspin_cpu_want_begin(struct uspin_cpu_want *w)
{
	struct uspin_slice *s = &uspin_thread.slice;
	int cpu;

	w->request = NULL;
	w->granted = NULL;
	w->rq = NULL;
	w->requested = 0;
	/*
	 * Only where the kernel grants (a forced request is never granted).
	 * Set even when an outer lock's request is: the kernel clears the
	 * request at every switch and grant, the lock paths set it per lock.
	 */
	if (s->on && s->kernel) {
		CMM_STORE_SHARED(s->ctrl->request, 1);
		w->requested = s->depth == 0;
		w->request = &s->ctrl->request;
		w->granted = &s->ctrl->granted;
		return;
	}
	if (uspin_rs_view.rq) {
		cpu = sched_getcpu();
		if (cpu >= 0 && (uint32_t)cpu < uspin_rs_view.nr_rq)
			w->rq = &uspin_rs_view.rq[cpu];
	}
}

/*
 * A grant found here is left to the system call that follows (the
 * waiter's sleep) or to the unlock of the lock the spinner took (its
 * request is set again by the lock path: slice_ext.h).
 */
void uspin_cpu_want_end(struct uspin_cpu_want *w)
{
	if (w->requested && uspin_thread.slice.depth == 0)
		CMM_STORE_SHARED(uspin_thread.slice.ctrl->request, 0);
}
