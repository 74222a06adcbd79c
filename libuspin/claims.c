// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * claims.c - a private mutex's claims (a starving waiter's handoff request,
 * the spinners and the passing-over stamp of spin.c) renewed in a fork
 * child, where the threads that made them do not exist.
 *
 * Left alone, a child that releases a mutex its forking thread held (the
 * pthread_atfork pattern) hands the word to a parent thread's request, or
 * leaves it free for a spinner that is not there, and its own waiters
 * sleep for ever (tests/torture).  The mutex has no free bytes for a
 * process identity of its own in pthread's layout, but a private one that
 * is not robust leaves the robust-list pair unused: 4 bytes of it hold the
 * generation of the process that last renewed its claims
 * (mutex_claims_gen()).  Every new process counts one generation more
 * than its parent (thread_self.c), so any claim older than the current
 * process is recognised, whatever the depth of forks and PID reuse; the
 * counter wraps after 2^31 nested forks.
 *
 * Claims are made and read only after uspin_claims_current(), so a mutex
 * whose generation is current holds only this process's claims; one that
 * is not holds none that anyone here may still act on.  The first thread
 * to see that sets the generation's top bit (RENEWING) with a CAS, clears
 * the claims and stores the generation; others wait for it.  A RENEWING
 * mark of an older generation is a renewal that a fork cut short: it is
 * renewed again.
 */
#include "process_state.h"

#define RENEWING	0x80000000u

void uspin_claims_renew(uspin_mutex_t *m)
{
	uint32_t *g = mutex_claims_gen(m), cur = uspin_process.gen;
	uint32_t v = CMM_LOAD_SHARED(*g), seen;

	while (v != cur) {
		if (v == (cur | RENEWING)) {
			caa_cpu_relax();
			v = CMM_LOAD_SHARED(*g);
			continue;
		}
		seen = uatomic_cmpxchg(g, v, cur | RENEWING);
		if (seen != v) {
			v = seen;
			continue;
		}
		CMM_STORE_SHARED(m->handoff, 0);
		CMM_STORE_SHARED(m->spinner, 0);
		CMM_STORE_SHARED(m->robust_next, NULL);
		cmm_smp_wmb();
		CMM_STORE_SHARED(*g, cur);
		return;
	}
	cmm_smp_rmb();	/* the claims after the generation that covers them */
}
