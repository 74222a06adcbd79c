/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.h - the plan a mutex follows when it must wait (policy.c).
 */
#ifndef USPIN_POLICY_H
#define USPIN_POLICY_H

#include "internal.h"

/* ---- policy.c: what a mutex does when it must wait ---- */
enum uspin_wait_kind {
	WAIT_FUTEX_WAIT,	/* stock kernel: FUTEX_WAIT/FUTEX_WAKE */
	WAIT_FUTEX_LOCK,	/* FUTEX_LOCK */
	WAIT_FUTEX_LOCK_ADAPTIVE,
};
enum uspin_spin_kind {
	SPIN_NONE,
	SPIN_BOUNDED,		/* blind, a learned budget (2-40 us) */
	SPIN_OWNER_RUNNING,	/* while the provider says ON, up to the cap */
	SPIN_OWNER_LEARNED,	/* the same within v2's learned budget */
	SPIN_CAPPED,		/* blind, up to the cap */
};
struct uspin_plan {
	enum uspin_spin_kind spin;
	enum uspin_wait_kind wait;
};
struct uspin_plan uspin_plan_for(const uspin_mutex_t *m) USPIN_HIDDEN;
enum uspin_policy uspin_effective_policy(enum uspin_policy p) USPIN_HIDDEN;

#endif
