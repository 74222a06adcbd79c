/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpu_wanted.h - does another task want the spinner's CPU?  The kernel's
 * mutex spinner stops on need_resched(); a spinner in user space learns
 * it from whichever of these the kernel gives it (cpu_wanted.c):
 *
 *   - the rseq time slice extension (Linux 7.0; the guest's backport):
 *     a thread that has asked for an extension is granted one where the
 *     kernel would have preempted it, and finds the kernel's granted byte
 *     set: need_resched() itself (CPU_RESCHED), for a byte store per spin
 *     phase.  The system call that follows (the waiter goes to sleep)
 *     ends the grant;
 *   - the BPF provider's run-queue lengths (uspin-stated, stock kernels):
 *     another task runnable on the spinner's CPU (CPU_SHARED), which the
 *     scheduler will run once the spinner's slice is over;
 *   - neither: spin.c's gap between two reads of the word, after the fact.
 * What spin.c does with each is its own rule.
 *
 * One uspin_cpu_want per spin phase: uspin_cpu_want_begin(), any number
 * of uspin_cpu_wanted(), uspin_cpu_want_end().
 */
#ifndef USPIN_CPU_WANTED_H
#define USPIN_CPU_WANTED_H

#include <stdint.h>

#include "internal.h"
#include "running_state.h"

struct uspin_cpu_want {
	volatile uint8_t *request;	/* slice extension, or NULL */
	const volatile uint8_t *granted;
	const volatile uint32_t *rq;	/* our CPU's runnable tasks, or NULL */
	uint8_t requested;		/* we asked: withdraw at the end */
};

void uspin_cpu_want_begin(struct uspin_cpu_want *w) USPIN_HIDDEN;
void uspin_cpu_want_end(struct uspin_cpu_want *w) USPIN_HIDDEN;

enum uspin_cpu_demand {
	CPU_FREE,		/* nobody else waits for our CPU, or we cannot tell */
	CPU_SHARED,		/* other tasks are runnable on our CPU */
	CPU_RESCHED,		/* the kernel would preempt us now (a grant) */
	CPU_TAKEN,		/* we were switched out meanwhile */
};

/*
 * A load or two of data nobody else writes often.  The kernel clears the
 * request when it grants, and when it switches the thread out (or
 * migrates or signals it): a request found cleared without a grant means
 * the spinner was descheduled, exactly where the gap of spin.c only
 * guesses it.  A grant it missed (it lasts microseconds; a slow spin loop
 * under emulation can outlast it) ends in such a switch.
 */
static inline enum uspin_cpu_demand uspin_cpu_wanted(const struct uspin_cpu_want *w)
{
	if (w->request) {
		if (*w->granted)
			return CPU_RESCHED;
		if (!*w->request)
			return CPU_TAKEN;
	}
	if (w->rq && *w->rq > 1 && uspin_rs_alive_word(*uspin_rs_view.alive))
		return CPU_SHARED;
	return CPU_FREE;
}

#endif
