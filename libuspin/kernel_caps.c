// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernel_caps.c - probe once what the running kernel offers (FUTEX_LOCK,
 * FUTEX_LOCK_ADAPTIVE, a running-state provider, CPUs) and resolve AUTO.
 * Only slow paths and uspin_query() get here; the answer is cached.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "futex_ops.h"
#include "mutex_impl.h"
#include "running_state.h"

static struct uspin_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

/*
 * Locking a private word that holds 0 succeeds at once where the op exists;
 * a stock kernel answers ENOSYS.  Any other answer also means "do not use".
 */
static int probe_futex_lock(int adaptive)
{
	uint32_t word = 0;

	return futex_lock_op(&word, adaptive, 0, CLOCK_MONOTONIC, NULL) == 0 &&
	       WORD_TID(word) == uspin_self_tid();
}

static int parse_policy(const char *s, enum uspin_policy *p)
{
	int i;

	for (i = 0; i < USPIN_POLICY_COUNT; i++)
		if (strcmp(s, uspin_policy_name((enum uspin_policy)i)) == 0) {
			*p = (enum uspin_policy)i;
			return 0;
		}
	return EINVAL;
}

/* AUTO: spin where spinning can be informed, never on one CPU. */
static enum uspin_policy resolve_auto(void)
{
	if (caps.ncpus <= 1)
		return USPIN_POLICY_BLOCK;
	if (strcmp(caps.running_state, "none") != 0)
		return USPIN_POLICY_USER_ADAPTIVE;
	if (caps.futex_lock_adaptive)
		return USPIN_POLICY_KERNEL_ADAPTIVE;
	return USPIN_POLICY_SPIN_BOUNDED;
}

static void probe(void)
{
	const char *env = getenv("USPIN_POLICY");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	caps.ncpus = n > 0 ? (unsigned int)n : 1;
	caps.futex_lock = probe_futex_lock(0);
	caps.futex_lock_adaptive = caps.futex_lock && probe_futex_lock(1);
	caps.running_state = uspin_running_state_init();
	caps.auto_policy = resolve_auto();

	if (env && *env) {
		enum uspin_policy p;

		if (parse_policy(env, &p) != 0)
			fprintf(stderr,
				"uspin: USPIN_POLICY=%s is not one of auto|block|spin|kernel-adaptive|user-adaptive; using auto\n",
				env);
		else if (p != USPIN_POLICY_AUTO) {
			caps.auto_policy = p;
			caps.policy_overridden = 1;
		}
	}
}

const struct uspin_caps *uspin_caps(void)
{
	pthread_once(&caps_once, probe);
	return &caps;
}
