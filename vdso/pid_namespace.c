// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pid_namespace.c - the pid namespace of this process, by the inode number
 * of /proc/self/ns/pid.  The initial one has a fixed number
 * (PROC_PID_INIT_INO in include/linux/proc_ns.h).  Unlike the NSpid line of
 * /proc/self/status, this cannot be fooled by a container that mounts a
 * /proc of its own.
 */
#include <errno.h>
#include <sys/stat.h>

#include "pid_namespace.h"

#define PROC_PID_INIT_INO	0xEFFFFFFCu

int uspin_pid_ns_inode(uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == 0) {
		*ino = st.st_ino;
		return 0;
	}
	/* A kernel without pid namespaces has only the initial one. */
	if (stat("/proc/self/ns", &st) != 0 && stat("/proc/self", &st) == 0) {
		*ino = PROC_PID_INIT_INO;
		return 0;
	}
	return errno ? errno : ENOENT;
}

int uspin_in_initial_pid_ns(void)
{
	uint64_t ino;

	return uspin_pid_ns_inode(&ino) == 0 && ino == PROC_PID_INIT_INO;
}
