/* SPDX-License-Identifier: MIT */
/*
 * guest_util.h - what the guest suites read from /proc and write into the
 * kernel's knobs (/proc/sys, debugfs).
 */
#ifndef USPIN_TESTS_GUEST_UTIL_H
#define USPIN_TESTS_GUEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Write @v to @path; 0 or the errno of the failure. */
static inline int write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY), n, err = 0;

	if (fd < 0)
		return errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", v);
	if (write(fd, buf, n) != n)
		err = errno;
	close(fd);
	return err;
}

/* Scheduler state letter of a task ('R', 'S', ...) from /proc, or 0. */
static inline char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

#endif /* USPIN_TESTS_GUEST_UTIL_H */
