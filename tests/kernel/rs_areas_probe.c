// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rs_areas_probe.c - says whether the calling process's main thread, and a
 * fork child of it, have a per-thread running-state area registered
 * (PR_SCHED_THREAD_STATE, kernel/patches/rseq/).  test-rs-areas-shim runs
 * it with and without LD_PRELOAD=librs-areas.so, which must register both.
 * Dynamically linked on purpose: LD_PRELOAD needs a dynamic program.
 *
 * Registration is read through PR_SCHED_TS_UNREGISTER: 0 means an area was
 * registered, ENOENT that none was.  Prints "main: registered|unregistered"
 * and "child: ..."; exits 1 on any other error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/prctl.h>

static int report(const char *who)
{
	if (prctl(PR_SCHED_THREAD_STATE, PR_SCHED_TS_UNREGISTER, 0UL, 0UL, 0UL) == 0) {
		printf("%s: registered\n", who);
	} else if (errno == ENOENT) {
		printf("%s: unregistered\n", who);
	} else {
		printf("%s: PR_SCHED_TS_UNREGISTER: %s\n", who, strerror(errno));
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(void)
{
	int status;
	pid_t pid;

	/* The child's answer first, while the parent's area is still in place. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("rs-areas-probe: fork");
		return 1;
	}
	if (pid == 0)
		_exit(report("child"));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "rs-areas-probe: the child failed\n");
		return 1;
	}
	return report("main");
}
