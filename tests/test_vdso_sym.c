// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_vdso_sym.c - the vDSO symbol lookup the vdso provider relies on,
 * checked against symbols every x86-64 kernel exports.
 */
#include <string.h>
#include <sys/prctl.h>

#include "pid_namespace.h"
#include "running_state.h"
#include "running_state_abi.h"
#include "test_util.h"
#include "vdso_sym.h"

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

START_TEST(finds_clock_gettime_and_it_works)
{
	clock_gettime_fn fn = (clock_gettime_fn)uspin_vdso_sym(
		"LINUX_2.6", "__vdso_clock_gettime");
	struct timespec a, b;

	ck_assert_ptr_nonnull(fn);
	ck_assert_int_eq(fn(CLOCK_MONOTONIC, &a), 0);
	ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &b), 0);
	ck_assert_int_le(ts_ns(&a), ts_ns(&b));
	ck_assert_int_lt(ts_ns(&b) - ts_ns(&a), NSEC_PER_SEC);
	/* Unversioned lookup finds the same function. */
	ck_assert_ptr_eq(uspin_vdso_sym(NULL, "__vdso_clock_gettime"),
			 (void *)fn);
}
END_TEST

START_TEST(wrong_version_or_name_is_null)
{
	ck_assert_ptr_null(uspin_vdso_sym("LINUX_9.9", "__vdso_clock_gettime"));
	ck_assert_ptr_null(uspin_vdso_sym("LINUX_2.6", "__vdso_no_such_thing"));
	ck_assert_ptr_null(uspin_vdso_sym(NULL, ""));
}
END_TEST

/*
 * On a kernel without the series, or with publication off, the vdso
 * provider must decline; where the kernel publishes, it must attach (in
 * any pid namespace).
 */
START_TEST(vdso_provider_matches_the_kernel)
{
	struct uspin_kernel_rs rs;
	const char *p;
	int publishing;

	memset(&rs, 0, sizeof(rs));
	publishing = prctl(USPIN_PR_SCHED_RUNNING_STATE, USPIN_PR_SCHED_RS_GET,
			   (unsigned long)&rs, (unsigned long)sizeof(rs), 0UL) == 0 &&
		     (rs.flags & USPIN_RS_FLAG_PUBLISHING);
	setenv("USPIN_RS_PROVIDER", "vdso", 1);
	p = uspin_running_state_init();
	ck_assert_str_eq(p, publishing ? "vdso" : "none");
}
END_TEST

START_TEST(initial_pid_namespace_detected)
{
	/* The test runners (host CI, guest init) run in the initial one. */
	ck_assert_int_eq(uspin_in_initial_pid_ns(), 1);
}
END_TEST

Suite *suite_vdso_sym(void)
{
	TCase *tc;
	Suite *s = check_suite_one("vdso-sym", 0, &tc);

	tcase_add_test(tc, finds_clock_gettime_and_it_works);
	tcase_add_test(tc, wrong_version_or_name_is_null);
	tcase_add_test(tc, vdso_provider_matches_the_kernel);
	tcase_add_test(tc, initial_pid_namespace_detected);
	return s;
}
