// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pid_namespace.c - the initial pid namespace has a fixed inode number
 * (PROC_PID_INIT_INO in include/linux/proc_ns.h).  Unlike the NSpid line
 * of /proc/self/status, this cannot be fooled by a container that mounts a
 * /proc of its own.
 */
#include <sys/stat.h>

#include "pid_namespace.h"

#define PROC_PID_INIT_INO	0xEFFFFFFCu

int uspin_in_initial_pid_ns(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == 0)
		return st.st_ino == PROC_PID_INIT_INO;
	/* A kernel without pid namespaces has only the initial one. */
	return stat("/proc/self/ns", &st) != 0 && stat("/proc/self", &st) == 0;
}
