// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pid_namespace.c - the pid namespace of this process, by the inode number
 * of /proc/self/ns/pid (or, without /proc, of the namespace a pidfd of
 * ourselves names, Linux 6.11).  The initial one has a fixed number
 * (PROC_PID_INIT_INO in include/linux/proc_ns.h).  Unlike the NSpid line of
 * /proc/self/status, this cannot be fooled by a container that mounts a
 * /proc of its own.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pid_namespace.h"

#define PROC_PID_INIT_INO	0xEFFFFFFCu
/* <linux/pidfd.h> of Linux 6.11, newer than Debian 12's headers. */
#define PIDFD_GET_PID_NAMESPACE	_IO(0xFF, 5)

/* Without /proc: the namespace through a pidfd of ourselves (Linux 6.11). */
static int pid_ns_inode_by_pidfd(uint64_t *ino)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), nsfd;
	struct stat st;

	if (pidfd < 0)
		return -1;
	nsfd = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
	close(pidfd);
	if (nsfd < 0)
		return -1;
	if (fstat(nsfd, &st) != 0) {
		close(nsfd);
		return -1;
	}
	close(nsfd);
	*ino = st.st_ino;
	return 0;
}

int uspin_pid_ns_inode(uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == 0) {
		*ino = st.st_ino;
		return 0;
	}
	if (pid_ns_inode_by_pidfd(ino) == 0)
		return 0;
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
