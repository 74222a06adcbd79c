// SPDX-License-Identifier: LGPL-2.1-or-later
/* child.c - see child.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "locks/lock.h"
#include "workload.h"

#define CHILD_ENV	"USPIN_BENCH_CHILD"
#define CAL_ENV		"USPIN_BENCH_CALIBRATION"

static char **saved_argv;

void bench_child_set_argv(char **argv)
{
	saved_argv = argv;
}

extern char **environ;

/* Is @var ("NAME=...") setting the variable @def ("NAME=...") sets? */
static int same_name(const char *var, const char *def)
{
	size_t n = strcspn(def, "=");

	return strncmp(var, def, n) == 0 && var[n] == '=';
}

/*
 * The child's environment, built before fork(): ours, minus any variable
 * the lock or the protocol sets, plus those.  Returns a malloc'ed array.
 */
static char **child_env(const struct bench_config *cfg,
			const struct bench_workload *wl, int point_index,
			const struct bench_point *pt, int round,
			const struct bench_lock *l, int fd)
{
	static char child[512], cal[256];
	const char *const *e;
	size_t n = 0, k = 0, i;
	char **env;

	/* The runner's offered rate travels along: the child has no other. */
	snprintf(child, sizeof(child), CHILD_ENV "=%s:%d:%s:%d:%s:%d:%a",
		 wl->name, point_index, pt->id, round, l->name, fd,
		 pt->arrivals_per_s);
	/* Hex floats: the child's work and clock are the parent's, exactly. */
	snprintf(cal, sizeof(cal), CAL_ENV "=%a:%a:%a:%s", bench_ns_per_tick,
		 cfg->cal.insn_per_round, cfg->cal.ns_per_round,
		 cfg->cal.source);
	while (environ[n])
		n++;
	for (e = l->env; e && *e; e++)
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env) {
		perror("uspin-bench");
		exit(1);
	}
	for (i = 0; environ[i]; i++) {
		int drop = same_name(environ[i], child) ||
			   same_name(environ[i], cal);

		for (e = l->env; !drop && e && *e; e++)
			drop = same_name(environ[i], *e);
		if (!drop)
			env[k++] = environ[i];
	}
	for (e = l->env; e && *e; e++)
		env[k++] = (char *)*e;
	env[k++] = child;
	env[k++] = cal;
	env[k] = NULL;
	return env;
}

int bench_child_run(const struct bench_config *cfg,
		    const struct bench_workload *wl, int point_index,
		    const struct bench_point *pt, int round,
		    const struct bench_lock *l, struct bench_result *res)
{
	struct bench_result got;
	size_t have = 0;
	int fds[2], status;
	char **env;
	pid_t pid;
	ssize_t n;

	if (pipe(fds)) {
		perror("uspin-bench: pipe");
		exit(1);
	}
	env = child_env(cfg, wl, point_index, pt, round, l, fds[1]);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("uspin-bench: fork");
		exit(1);
	}
	if (pid == 0) {
		/* Only async-signal-safe calls between fork and exec. */
		close(fds[0]);
		execve("/proc/self/exe", saved_argv, env);
		_exit(127);
	}
	free(env);
	close(fds[1]);
	while (have < sizeof(got)) {
		n = read(fds[0], (char *)&got + have, sizeof(got) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (have != sizeof(got) || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1) {
		fprintf(stderr, "uspin-bench: %s at %s/%s: the child process failed (%s %d)\n",
			l->name, wl->name, pt->id,
			WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		res->broken = 1;
		return -1;
	}
	*res = got;
	return res->broken ? -1 : 0;
}

static int child_calibration(struct bench_config *cfg)
{
	static char source[32];
	const char *s = getenv(CAL_ENV);
	double tick, insn, ns;

	if (!s || sscanf(s, "%la:%la:%la:%31s", &tick, &insn, &ns, source) != 4)
		return -1;
	bench_clock_set(tick);
	cfg->cal.insn_per_round = insn;
	cfg->cal.ns_per_round = ns;
	cfg->cal.source = source;
	return 0;
}

int bench_child_main(struct bench_config *cfg)
{
	const char *s = getenv(CHILD_ENV);
	char wname[64], id[BENCH_POINT_ID_LEN], lname[64];
	const struct bench_workload *wl;
	const struct bench_lock *l;
	struct bench_point pts[BENCH_MAX_POINTS];
	struct bench_result res;
	int idx, round, fd, npts, rc;
	double arrivals;

	if (!s)
		return -1;
	if (sscanf(s, "%63[^:]:%d:%47[^:]:%d:%63[^:]:%d:%la", wname, &idx, id,
		   &round, lname, &fd, &arrivals) != 7 ||
	    child_calibration(cfg)) {
		fprintf(stderr, "uspin-bench: bad %s=%s\n", CHILD_ENV, s);
		return 2;
	}
	unsetenv(CHILD_ENV);
	unsetenv(CAL_ENV);
	wl = bench_workload_find(wname);
	l = bench_lock_find(lname);
	npts = wl ? wl->points(cfg, pts, BENCH_MAX_POINTS) : 0;
	if (!wl || !l || idx < 0 || idx >= npts || strcmp(pts[idx].id, id)) {
		fprintf(stderr, "uspin-bench: child: no %s point %d (%s) for %s\n",
			wname, idx, id, lname);
		return 2;
	}
	pts[idx].arrivals_per_s = arrivals;
	if (wl->setup && wl->setup(cfg))
		return 2;
	bench_result_init(&res);
	rc = wl->run(cfg, &pts[idx], round, l, &res) ? 1 : 0;
	if (wl->teardown)
		wl->teardown();
	if (write(fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		return 2;
	close(fd);
	return rc;
}
