// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * policy.c - from a mutex's policy to what it does when it must wait:
 * which spin phase, then which kernel call.  The fallback matrix of
 * NOTES.md lives here and nowhere else.
 */
#include <errno.h>

#include "mutex_impl.h"
#include "robust_list.h"

int uspin_force_stock_kernel;

static const char *const policy_names[USPIN_POLICY_COUNT] = {
	[USPIN_POLICY_AUTO] = "auto",
	[USPIN_POLICY_BLOCK] = "block",
	[USPIN_POLICY_SPIN_BOUNDED] = "spin",
	[USPIN_POLICY_KERNEL_ADAPTIVE] = "kernel-adaptive",
	[USPIN_POLICY_USER_ADAPTIVE] = "user-adaptive",
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
	return p == USPIN_POLICY_AUTO ? uspin_caps()->auto_policy : p;
}

struct uspin_plan uspin_plan_for(const uspin_mutex_t *m)
{
	const struct uspin_caps *c = uspin_caps();
	enum uspin_policy p = uspin_effective_policy(
		(enum uspin_policy)(CMM_LOAD_SHARED(m->flags) & USPIN_POLICY_MASK));
	int has_lock = c->futex_lock && !uspin_force_stock_kernel;
	int has_adaptive = c->futex_lock_adaptive && !uspin_force_stock_kernel;
	struct uspin_plan plan = {
		.spin = SPIN_NONE,
		.wait = has_lock ? WAIT_FUTEX_LOCK : WAIT_FUTEX_WAIT,
	};

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
	case USPIN_POLICY_AUTO:	/* resolved above; never here */
	case USPIN_POLICY_BLOCK:
		break;
	}
	/* With one CPU the owner cannot run while we spin. */
	if (c->ncpus <= 1)
		plan.spin = SPIN_NONE;
	return plan;
}

int uspin_query(struct uspin_info *info)
{
	const struct uspin_caps *c;

	if (!info)
		return EINVAL;
	c = uspin_caps();
	info->futex_lock = c->futex_lock;
	info->futex_lock_adaptive = c->futex_lock_adaptive;
	info->robust_list = uspin_robust_list_available();
	info->running_state = c->running_state;
	info->auto_policy = c->auto_policy;
	info->policy_overridden = c->policy_overridden;
	info->ncpus = c->ncpus;
	return 0;
}
