// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kill.c - a robust process-shared pthread mutex under SIGKILL (issue 25),
 * with tests/scenarios/kill.c: workers killed anywhere, also inside the
 * critical section; every death there is reported by EOWNERDEAD exactly
 * once, the record is never seen torn without it, and the parent takes
 * the mutex at the end within a deadline.  The same on glibc (the
 * control) and under uspin-run with every policy.
 */
#include "../scenarios/kill.h"
#include "util.h"

START_TEST(robust_killed_anywhere)
{
	struct kill_config cfg = {
		.name = "robust",
		.robust = 1,
		.workers = 6,
		.run_ms = test_scaled(800),
	};
	struct kill_report r;

	if (expect_uspin() >= 0)
		ck_assert_int_eq(on_uspin(), expect_uspin());
	ck_assert_int_eq(kill_run(&cfg, &r), 0);
	kill_check(&cfg, &r, "dropin");
}
END_TEST

Suite *suite_kill(void)
{
	TCase *tc;
	Suite *s = check_suite_one("kill", 60, &tc);

	tcase_add_test(tc, robust_killed_anywhere);
	return s;
}
