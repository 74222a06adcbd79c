// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_setup.c - what libuspin's setup (a constructor) learns from the
 * environment and the process: USPIN_POLICY, USPIN_WAIT,
 * USPIN_RS_PROVIDER, the affinity mask.  Setup runs before main, so every
 * case re-executes this binary (`test-uspin --info`) with the environment
 * or affinity under test and reads what it reports.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "policy.h"
#include "setup.h"
#include "test_util.h"

/* `test-uspin --info`: one key=value per line, for the cases below. */
int test_setup_info_main(void)
{
	static const char *const spin[] = { "none", "bounded", "owner-running",
					    "owner-learned", "capped" };
	static const char *const wait[] = { "futex-wait", "futex-lock",
					    "futex-lock-adaptive" };
	struct uspin_info info;
	struct uspin_spin_parameters sp;
	uspin_mutex_t m;
	int p;

	if (uspin_query(&info) != 0 || uspin_spin_parameters(&sp, sizeof(sp)) != 0)
		return 1;
	printf("spin_cap_ns=%llu\n", (unsigned long long)sp.cap_ns);
	printf("spin_cap_from_env=%d\n", sp.cap_from_env);
	printf("shadow=%d\n", sp.shadow);
	printf("auto_policy=%s\n", uspin_policy_name(info.auto_policy));
	printf("overridden=%d\n", info.policy_overridden);
	printf("provider=%s\n", info.running_state);
	printf("ncpus=%u\n", info.ncpus);
	printf("self_running=%d\n", uspin_tid_running((pid_t)sys_gettid()));
	for (p = 0; p < USPIN_POLICY_COUNT; p++) {
		struct uspin_plan plan;

		uspin_mutex_init(&m, (unsigned int)p);
		plan = uspin_plan_for(&m);
		printf("plan.%s=%s,%s\n", uspin_policy_name((enum uspin_policy)p),
		       spin[plan.spin], wait[plan.wait]);
	}
	return 0;
}

struct run {
	char out[4096];
	char err[4096];
	int status;
};

static void slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/*
 * Run `test-uspin --info` with @env added ("NAME=value" or "-NAME" to
 * remove), pinned to one CPU if @one_cpu.
 */
static void run_info(struct run *r, const char *const *env, int one_cpu)
{
	int out[2], err[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[] = { "test-uspin", "--info", NULL };

		dup2(out[1], 1);
		dup2(err[1], 2);
		for (; env && *env; env++) {
			if (**env == '-')
				unsetenv(*env + 1);
			else
				putenv((char *)*env);
		}
		if (one_cpu) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(sched_getcpu(), &set);
			if (sched_setaffinity(0, sizeof(set), &set) != 0)
				_exit(126);
		}
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	slurp(out[0], r->out, sizeof(r->out));
	slurp(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "test-uspin --info failed (status %d): %s", status, r->err);
}

static void assert_line(const struct run *r, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "%s\n", line);
	ck_assert_msg(strstr(r->out, want) != NULL, "expected '%s' in:\n%s",
		      line, r->out);
}

START_TEST(policy_env_overrides_auto)
{
	static const char *const env[] = { "USPIN_POLICY=block", NULL };
	struct run r;

	run_info(&r, env, 0);
	assert_line(&r, "auto_policy=block");
	assert_line(&r, "overridden=1");
	/* BLOCK's plan: no spinning, on whichever wait the kernel offers. */
	{
		const char *b = strstr(r.out, "plan.block=");
		char want[64];

		ck_assert_msg(b != NULL, "no plan.block line in:\n%s", r.out);
		ck_assert_msg(strncmp(b, "plan.block=none,", 16) == 0,
			      "BLOCK spins:\n%s", r.out);
		snprintf(want, sizeof(want), "plan.auto=%.*s", (int)strcspn(b + 11, "\n"),
			 b + 11);
		assert_line(&r, want);
	}
}
END_TEST

START_TEST(policy_env_bad_value_is_reported_and_ignored)
{
	static const char *const env[] = { "USPIN_POLICY=fastest-please", NULL };
	struct run r;

	run_info(&r, env, 0);
	assert_line(&r, "overridden=0");
	ck_assert_msg(strstr(r.err, "USPIN_POLICY=fastest-please") != NULL,
		      "no message on stderr: '%s'", r.err);
	ck_assert_msg(strstr(r.out, "auto_policy=auto\n") == NULL,
		      "AUTO left unresolved");
}
END_TEST

/* USPIN_SPIN_CAP_US: microseconds, 0 for none; anything else reported. */
START_TEST(spin_cap_env_sets_the_cap)
{
	static const char *const us500[] = { "USPIN_SPIN_CAP_US=500", NULL };
	static const char *const none[] = { "USPIN_SPIN_CAP_US=0", NULL };
	static const char *const bad[] = { "USPIN_SPIN_CAP_US=-5", NULL };
	static const char *const big[] = { "USPIN_SPIN_CAP_US=60000001", NULL };
	static const char *const unset[] = { "-USPIN_SPIN_CAP_US", NULL };
	const char *const *refused[] = { bad, big };
	struct run r;
	size_t i;

	run_info(&r, unset, 0);
	assert_line(&r, "spin_cap_ns=5000000");
	assert_line(&r, "spin_cap_from_env=0");
	run_info(&r, us500, 0);
	assert_line(&r, "spin_cap_ns=500000");
	assert_line(&r, "spin_cap_from_env=1");
	run_info(&r, none, 0);
	assert_line(&r, "spin_cap_ns=0");
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		run_info(&r, refused[i], 0);
		assert_line(&r, "spin_cap_ns=5000000");
		assert_line(&r, "spin_cap_from_env=0");
		ck_assert_msg(strstr(r.err, refused[i][0]) != NULL,
			      "no message for %s on stderr: '%s'", refused[i][0], r.err);
	}
}
END_TEST

/* USPIN_SHADOW: 1 on, 0 or unset off; anything else reported, off. */
START_TEST(shadow_env_sets_shadow_mode)
{
	static const char *const on[] = { "USPIN_SHADOW=1", NULL };
	static const char *const off[] = { "USPIN_SHADOW=0", NULL };
	static const char *const unset[] = { "-USPIN_SHADOW", NULL };
	static const char *const bad[] = { "USPIN_SHADOW=yes", NULL };
	struct run r;

	run_info(&r, unset, 0);
	assert_line(&r, "shadow=0");
	run_info(&r, on, 0);
	assert_line(&r, "shadow=1");
	run_info(&r, off, 0);
	assert_line(&r, "shadow=0");
	run_info(&r, bad, 0);
	assert_line(&r, "shadow=0");
	ck_assert_msg(strstr(r.err, "USPIN_SHADOW=yes") != NULL,
		      "no message for USPIN_SHADOW=yes on stderr: '%s'", r.err);
}
END_TEST

START_TEST(policy_env_leaves_explicit_policies_alone)
{
	static const char *const env[] = { "USPIN_POLICY=block", NULL };
	struct run r;

	run_info(&r, env, 0);
	if (uspin_setup()->ncpus > 1)
		ck_assert_msg(strstr(r.out, "plan.spin=bounded,") != NULL,
			      "explicit SPIN_BOUNDED changed:\n%s", r.out);
}
END_TEST

START_TEST(wait_env_keeps_kernel_ops_out)
{
	static const char *const env[] = { "USPIN_WAIT=futex-wait",
					   "USPIN_POLICY=kernel-adaptive", NULL };
	static const char *const bad[] = { "USPIN_WAIT=telepathy", NULL };
	struct run r;

	run_info(&r, env, 0);
	assert_line(&r, "plan.block=none,futex-wait");
	ck_assert_msg(strstr(r.out, "futex-lock") == NULL,
		      "a FUTEX_LOCK op used under USPIN_WAIT=futex-wait:\n%s",
		      r.out);
	run_info(&r, bad, 0);
	ck_assert(strstr(r.err, "USPIN_WAIT=telepathy") != NULL);
}
END_TEST

START_TEST(provider_none_answers_unknown)
{
	static const char *const env[] = { "USPIN_RS_PROVIDER=none", NULL };
	struct run r;

	run_info(&r, env, 0);
	assert_line(&r, "provider=none");
	assert_line(&r, "self_running=-1");
	ck_assert_int_eq(uspin_tid_running(0), -1);
	ck_assert_int_eq(uspin_tid_running(-5), -1);
}
END_TEST

START_TEST(provider_unknown_name_falls_back_to_none)
{
	static const char *const env[] = { "USPIN_RS_PROVIDER=crystal-ball", NULL };
	struct run r;

	run_info(&r, env, 0);
	assert_line(&r, "provider=none");
	ck_assert(strstr(r.err, "crystal-ball") != NULL);
}
END_TEST

/* taskset -c N: one usable CPU, whatever the machine has: never spin. */
START_TEST(one_cpu_in_the_affinity_mask_never_spins)
{
	static const char *const env[] = { "-USPIN_POLICY", NULL };
	struct run r;
	int p;

	run_info(&r, env, 1);
	assert_line(&r, "ncpus=1");
	assert_line(&r, "auto_policy=block");
	for (p = 0; p < USPIN_POLICY_COUNT; p++) {
		char key[64];

		snprintf(key, sizeof(key), "plan.%s=none,",
			 uspin_policy_name((enum uspin_policy)p));
		ck_assert_msg(strstr(r.out, key) != NULL, "%s spins:\n%s",
			      uspin_policy_name((enum uspin_policy)p), r.out);
	}
}
END_TEST

START_TEST(ncpus_is_the_affinity_mask)
{
	cpu_set_t set;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	ck_assert_uint_eq(uspin_setup()->ncpus, (unsigned int)CPU_COUNT(&set));
}
END_TEST

Suite *suite_setup(void)
{
	TCase *tc;
	Suite *s = check_suite_one("setup", 0, &tc);

	tcase_add_test(tc, policy_env_overrides_auto);
	tcase_add_test(tc, policy_env_bad_value_is_reported_and_ignored);
	tcase_add_test(tc, policy_env_leaves_explicit_policies_alone);
	tcase_add_test(tc, spin_cap_env_sets_the_cap);
	tcase_add_test(tc, shadow_env_sets_shadow_mode);
	tcase_add_test(tc, wait_env_keeps_kernel_ops_out);
	tcase_add_test(tc, provider_none_answers_unknown);
	tcase_add_test(tc, provider_unknown_name_falls_back_to_none);
	tcase_add_test(tc, one_cpu_in_the_affinity_mask_never_spins);
	tcase_add_test(tc, ncpus_is_the_affinity_mask);
	return s;
}
