/* SPDX-License-Identifier: MIT */
/*
 * knob.h - write a number into a kernel knob (/proc/sys, debugfs), for the
 * guest tests that set the kernel up themselves.
 */
#ifndef USPIN_TESTS_KNOB_H
#define USPIN_TESTS_KNOB_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

#endif /* USPIN_TESTS_KNOB_H */
