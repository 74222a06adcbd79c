// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_policy.c - USPIN_POLICY, what AUTO resolves to, the fallback matrix,
 * the running-state provider seam and the spin-budget rule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mutex_impl.h"
#include "running_state.h"
#include "spin_tuning.h"
#include "test_util.h"
#include "uspin_testing.h"

/* Each Check test runs in a fresh child, so the probe sees our setenv. */
START_TEST(env_overrides_auto)
{
	struct uspin_info info;

	setenv("USPIN_POLICY", "block", 1);
	ck_assert_int_eq(uspin_query(&info), 0);
	ck_assert_int_eq(info.auto_policy, USPIN_POLICY_BLOCK);
	ck_assert(info.policy_overridden);
}
END_TEST

START_TEST(env_bad_value_keeps_auto)
{
	struct uspin_info info;

	setenv("USPIN_POLICY", "fastest-please", 1);
	ck_assert_int_eq(uspin_query(&info), 0);
	ck_assert(!info.policy_overridden);
	ck_assert_int_ne(info.auto_policy, USPIN_POLICY_AUTO);
}
END_TEST

START_TEST(env_does_not_touch_explicit_policies)
{
	uspin_mutex_t m;

	setenv("USPIN_POLICY", "block", 1);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_SPIN_BOUNDED), 0);
	if (uspin_caps()->ncpus > 1)
		ck_assert_int_eq(uspin_plan_for(&m).spin, SPIN_BOUNDED);
	ck_assert_int_eq(uspin_mutex_init(&m, USPIN_POLICY_AUTO), 0);
	ck_assert_int_eq(uspin_plan_for(&m).spin, SPIN_NONE);
}
END_TEST

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

/* The stock-kernel column of the fallback matrix (NOTES.md). */
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
	};
	uspin_mutex_t m;
	unsigned int i;

	uspin_force_stock_kernel = 1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct uspin_plan plan;

		ck_assert_int_eq(uspin_mutex_init(&m, want[i].policy), 0);
		plan = uspin_plan_for(&m);
		ck_assert_int_eq(plan.wait, WAIT_FUTEX_WAIT);
		ck_assert_int_eq(plan.spin, uspin_caps()->ncpus > 1 ?
					    want[i].spin : SPIN_NONE);
	}
}
END_TEST

/* The column of the running kernel: FUTEX_LOCK is used where it exists. */
START_TEST(kernel_ops_used_when_present)
{
	const struct uspin_caps *c = uspin_caps();
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

START_TEST(provider_none_answers_unknown)
{
	setenv("USPIN_RS_PROVIDER", "none", 1);
	ck_assert_str_eq(uspin_running_state_init(), "none");
	ck_assert_int_eq(uspin_rs_query(test_gettid()), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(0), USPIN_RS_UNKNOWN);
	ck_assert_int_eq(uspin_rs_query(0xffffffffu), USPIN_RS_UNKNOWN);
}
END_TEST

START_TEST(provider_unknown_name_falls_back_to_none)
{
	setenv("USPIN_RS_PROVIDER", "crystal-ball", 1);
	ck_assert_str_eq(uspin_running_state_init(), "none");
}
END_TEST

START_TEST(spin_budget_rule)
{
	uint32_t est = 0;
	int i;

	ck_assert_uint_eq(spin_budget_ns(0), SPIN_MIN_NS);
	ck_assert_uint_eq(spin_budget_ns(UINT32_MAX), SPIN_MAX_NS);
	/* Learns a steady wait of 4 us ... */
	for (i = 0; i < 100; i++)
		est = spin_estimate_success(est, 4000);
	ck_assert_uint_ge(est, 3900);
	ck_assert_uint_le(est, 4000);
	ck_assert_uint_gt(spin_budget_ns(est), 4000);
	/* ... backs off geometrically when waits outlast the budget ... */
	for (i = 0; i < 20; i++)
		est = spin_estimate_failure(est);
	ck_assert_uint_eq(est, 0);
	ck_assert_uint_eq(spin_budget_ns(est), SPIN_MIN_NS);
	/* ... and never learns beyond the cap. */
	for (i = 0; i < 200; i++)
		est = spin_estimate_success(est, 10000000);
	ck_assert_uint_le(est, SPIN_MAX_NS);
	ck_assert_uint_eq(spin_backoff_next(SPIN_BACKOFF_MAX), SPIN_BACKOFF_MAX);
	ck_assert_uint_eq(spin_backoff_next(1), 2);
}
END_TEST

Suite *suite_policy(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("policy");

	tcase_add_test(tc, env_overrides_auto);
	tcase_add_test(tc, env_bad_value_keeps_auto);
	tcase_add_test(tc, env_does_not_touch_explicit_policies);
	tcase_add_test(tc, auto_is_the_best_on_offer);
	tcase_add_test(tc, stock_kernel_fallback_matrix);
	tcase_add_test(tc, kernel_ops_used_when_present);
	tcase_add_test(tc, provider_none_answers_unknown);
	tcase_add_test(tc, provider_unknown_name_falls_back_to_none);
	tcase_add_test(tc, spin_budget_rule);
	suite_add_tcase(s, tc);
	return s;
}
