// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * policy.c - from a mutex's policy to what it does when it must wait:
 * which spin phase, then which kernel call.  The fallback matrix of
 * docs/design.md lives here and nowhere else.
 */
#include "policy.h"
#include "setup.h"

/*
 * The one table of policy names.  The build reads it too, one
 * initializer a line (USPIN_POLICIES in libuspin/build.mk: uspin-run's
 * names, the policies the NPTL tests run under); "control" marks the
 * controls for measuring user-adaptive, which those runs leave out.
 */
static const char *const policy_names[USPIN_POLICY_COUNT] = {
	[USPIN_POLICY_AUTO] = "auto",
	[USPIN_POLICY_BLOCK] = "block",
	[USPIN_POLICY_SPIN_BOUNDED] = "spin",
	[USPIN_POLICY_KERNEL_ADAPTIVE] = "kernel-adaptive",
	[USPIN_POLICY_USER_ADAPTIVE] = "user-adaptive",
	[USPIN_POLICY_USER_ADAPTIVE_BOUNDED] = "user-adaptive-bounded", /* control */
	[USPIN_POLICY_SPIN_CAPPED] = "spin-capped", /* control */
};

const char *uspin_policy_name(enum uspin_policy policy)
{
	if ((unsigned int)policy >= USPIN_POLICY_COUNT)
		return NULL;
	return policy_names[policy];
}

/* AUTO resolved (USPIN_POLICY applies to AUTO mutexes only). */
enum uspin_policy uspin_effective_policy(enum uspin_policy p)
{
	return p == USPIN_POLICY_AUTO ? uspin_setup()->auto_policy : p;
}

struct uspin_plan uspin_plan_for(const uspin_mutex_t *m)
{
	const struct uspin_setup *s = uspin_setup();
	struct uspin_plan plan = { .spin = SPIN_NONE, .wait = WAIT_FUTEX_WAIT };
	enum uspin_policy p;
	int has_lock, has_adaptive;

	/* Before setup: BLOCK on the protocol every kernel has. */
	if (caa_unlikely(!uspin_setup_done()))
		return plan;
	p = uspin_effective_policy(
		(enum uspin_policy)(mutex_flags(m) & USPIN_POLICY_MASK));
	/*
	 * The kernel ops store the caller's TID unmarked: not in the words
	 * of shared mutexes that are not robust (owner.c).
	 */
	has_lock = s->futex_lock && !uspin_force_stock_kernel &&
		   (mutex_flags(m) & USPIN_SLOW_FLAGS) != USPIN_PROCESS_SHARED;
	has_adaptive = has_lock && s->futex_lock_adaptive;
	if (has_lock)
		plan.wait = WAIT_FUTEX_LOCK;

	switch (p) {
	case USPIN_POLICY_KERNEL_ADAPTIVE:
		if (has_adaptive) {
			plan.wait = WAIT_FUTEX_LOCK_ADAPTIVE;
			break;
		}
		/* No kernel spin to ask for: spin a bounded while here. */
		plan.spin = SPIN_BOUNDED;
		break;
	case USPIN_POLICY_SPIN_BOUNDED:
		plan.spin = SPIN_BOUNDED;
		break;
	case USPIN_POLICY_USER_ADAPTIVE:
		plan.spin = SPIN_OWNER_RUNNING;
		break;
	case USPIN_POLICY_USER_ADAPTIVE_BOUNDED:
		plan.spin = SPIN_OWNER_LEARNED;
		break;
	case USPIN_POLICY_SPIN_CAPPED:
		plan.spin = SPIN_CAPPED;
		break;
	case USPIN_POLICY_AUTO:	/* resolved above; never here */
	case USPIN_POLICY_BLOCK:
		break;
	}
	/* With one CPU the owner cannot run while we spin. */
	if (s->ncpus <= 1)
		plan.spin = SPIN_NONE;
	return plan;
}
