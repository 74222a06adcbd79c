// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_policy.c - what AUTO resolves to, the fallback matrix, the spin
 * budget rules, and the BLOCK behaviour before setup.  (What the
 * environment changes is in test_setup.c.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mutex_flags.h"
#include "policy.h"
#include "running_state.h"
#include "setup.h"
#include "spin_tuning.h"
#include "test_util.h"
#include "uspin_testing.h"

START_TEST(auto_is_the_best_on_offer)
{
	struct uspin_info info;

	unsetenv("USPIN_POLICY");
	ck_assert_int_eq(uspin_query(&info), 0);
	if (info.ncpus <= 1)
		ck_assert_int_eq(info.auto_policy, USPIN_POLICY_BLOCK);
	else if (strcmp(info.running_state, "none") != 0)
		ck_assert_int_eq(info.auto_policy, USPIN_POLICY_USER_ADAPTIVE);
	else if (info.futex_lock_adaptive)
		ck_assert_int_eq(info.auto_policy, USPIN_POLICY_KERNEL_ADAPTIVE);
	else
		ck_assert_int_eq(info.auto_policy, USPIN_POLICY_SPIN_BOUNDED);
	ck_assert(!info.futex_lock_adaptive || info.futex_lock);
}
END_TEST

/* The stock-kernel column of the fallback matrix (docs/design.md §5). */
START_TEST(stock_kernel_fallback_matrix)
{
	static const struct {
		enum uspin_policy policy;
		enum uspin_spin_kind spin;
	} want[] = {
		{ USPIN_POLICY_BLOCK, SPIN_NONE },
		{ USPIN_POLICY_SPIN_BOUNDED, SPIN_BOUNDED },
		{ USPIN_POLICY_KERNEL_ADAPTIVE, SPIN_BOUNDED },
		{ USPIN_POLICY_USER_ADAPTIVE, SPIN_OWNER_RUNNING },
		{ USPIN_POLICY_USER_ADAPTIVE_BOUNDED, SPIN_OWNER_LEARNED },
		{ USPIN_POLICY_SPIN_CAPPED, SPIN_CAPPED },
	};
	uspin_mutex_t m;
	unsigned int i;

	uspin_force_stock_kernel = 1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct uspin_plan plan;

		ck_assert_int_eq(uspin_mutex_init(&m, want[i].policy), 0);
		plan = uspin_plan_for(&m);
		ck_assert_int_eq(plan.wait, WAIT_FUTEX_WAIT);
		ck_assert_int_eq(plan.spin, uspin_setup()->ncpus > 1 ?
					    want[i].spin : SPIN_NONE);
	}
}
END_TEST

/* The column of the running kernel: FUTEX_LOCK is used where it exists. */
START_TEST(kernel_ops_used_when_present)
{
	const struct uspin_setup *c = uspin_setup();
	uspin_mutex_t m;

	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_BLOCK), 0);
	ck_assert_int_eq(uspin_plan_for(&m).wait,
			 c->futex_lock ? WAIT_FUTEX_LOCK : WAIT_FUTEX_WAIT);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_KERNEL_ADAPTIVE), 0);
	ck_assert_int_eq(uspin_plan_for(&m).wait,
			 c->futex_lock_adaptive ? WAIT_FUTEX_LOCK_ADAPTIVE :
			 c->futex_lock ? WAIT_FUTEX_LOCK : WAIT_FUTEX_WAIT);
}
END_TEST

/* The rules of spin_tuning.h, in cycles (2 GHz-ish numbers). */
START_TEST(spin_budget_rule)
{
	const uint64_t unit = USPIN_ESTIMATE_UNIT, min = 4000, max = 80000;
	const uint64_t user_max = 400000;
	uint32_t est = 0;
	int i;

	ck_assert_uint_eq(spin_budget(0, unit, min, max, 3), min);
	ck_assert_uint_eq(spin_budget(SPIN_ESTIMATE_MAX, unit, min, max, 3), max);
	ck_assert_uint_eq(spin_budget(SPIN_ESTIMATE_MAX, unit, min, user_max, 4),
			  user_max);
	/* Learns a steady wait of 8,000 cycles ... */
	for (i = 0; i < 100; i++)
		est = spin_estimate_success(est, 8000, unit);
	ck_assert_uint_ge(est * unit, 7000);
	ck_assert_uint_le(est * unit, 8000);
	ck_assert_uint_gt(spin_budget(est, unit, min, max, 3), 8000);
	/* ... an informed spin allows more for the same estimate ... */
	ck_assert_uint_gt(spin_budget(est, unit, min, user_max, 4),
			  spin_budget(est, unit, min, max, 3));
	/* ... backs off geometrically when waits outlast the budget ... */
	for (i = 0; i < 20; i++)
		est = spin_estimate_failure(est);
	ck_assert_uint_eq(est, 0);
	ck_assert_uint_eq(spin_budget(est, unit, min, max, 3), min);
	/* ... and never learns beyond what 16 bits hold. */
	for (i = 0; i < 200; i++)
		est = spin_estimate_success(est, 1ull << 40, unit);
	ck_assert_uint_le(est, SPIN_ESTIMATE_MAX);
	ck_assert_uint_eq(spin_backoff_next(SPIN_BACKOFF_MAX), SPIN_BACKOFF_MAX);
	ck_assert_uint_eq(spin_backoff_next(1), 2);
}
END_TEST

/*
 * The typical contended hold (spin_tuning.h): a log scale from 256 cycles
 * up, a step of 2^(1/16); a streaming median that rare long holds (2 % of
 * 1000 x the rest, the multi-modal case) do not move, and that follows a
 * steady long hold.
 */
START_TEST(hold_median_rule)
{
	uint32_t v = 0, i;

	ck_assert_uint_eq(spin_hold_cycles(0), SPIN_HOLD_UNIT);
	ck_assert_uint_eq(spin_hold_cycles(16), 2 * SPIN_HOLD_UNIT);
	for (i = 1; i <= SPIN_HOLD_MAX; i++) {
		ck_assert_uint_gt(spin_hold_cycles(i), spin_hold_cycles(i - 1));
		ck_assert_uint_le(spin_hold_cycles(i) * 100,
				  spin_hold_cycles(i - 1) * 105);
	}
	for (i = 0; i < 5000; i++)
		v = spin_hold_update(v, i % 50 == 0 ? 2600000 : 2600);
	ck_assert_uint_ge(spin_hold_cycles(v), 2600 * 90 / 100);
	ck_assert_uint_le(spin_hold_cycles(v), 2600 * 110 / 100);
	for (i = 0; i < 500; i++)
		v = spin_hold_update(v, 520000);
	ck_assert_uint_ge(spin_hold_cycles(v), 520000 * 90 / 100);
	ck_assert_uint_le(spin_hold_cycles(v), 520000 * 110 / 100);
	/* Bounded both ways. */
	for (i = 0; i < 1000; i++)
		v = spin_hold_update(v, UINT64_MAX);
	ck_assert_uint_eq(v, SPIN_HOLD_MAX);
	for (i = 0; i < 1000; i++)
		v = spin_hold_update(v, 0);
	ck_assert_uint_eq(v, 0);
}
END_TEST

/* Before setup (a static binary locking from its own constructor). */
START_TEST(before_setup_every_mutex_blocks)
{
	uspin_mutex_t m;
	int p;

	uspin_setup_state.done = 0;
	for (p = 0; p < USPIN_POLICY_COUNT; p++) {
		struct uspin_plan plan;

		ck_assert_int_eq(uspin_mutex_init(&m, (unsigned int)p), 0);
		plan = uspin_plan_for(&m);
		ck_assert_int_eq(plan.spin, SPIN_NONE);
		ck_assert_int_eq(plan.wait, WAIT_FUTEX_WAIT);
		ck_assert_int_eq(uspin_mutex_lock(&m), 0);
		ck_assert_int_eq(uspin_mutex_unlock(&m), 0);
	}
	uspin_setup_state.done = 1;
}
END_TEST

Suite *suite_policy(void)
{
	TCase *tc;
	Suite *s = check_suite_one("policy", 0, &tc);

	tcase_add_test(tc, auto_is_the_best_on_offer);
	tcase_add_test(tc, stock_kernel_fallback_matrix);
	tcase_add_test(tc, kernel_ops_used_when_present);
	tcase_add_test(tc, spin_budget_rule);
	tcase_add_test(tc, hold_median_rule);
	tcase_add_test(tc, before_setup_every_mutex_blocks);
	return s;
}
