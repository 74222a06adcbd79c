/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pid_namespace.h - which pid namespace this process's TIDs belong to.
 */
#ifndef USPIN_PID_NAMESPACE_H
#define USPIN_PID_NAMESPACE_H

#include <stdint.h>

/*
 * The inode number of this process's pid namespace (st_ino of
 * /proc/self/ns/pid, the namespace whose TIDs its futex words hold) in
 * *@ino: 0, or an errno value (ENOENT: no /proc; a kernel without pid
 * namespaces has only the initial one, reported as such).
 */
int uspin_pid_ns_inode(uint64_t *ino);

/*
 * 1 if this process is in the initial pid namespace (its futex words hold
 * the same TIDs the kernel's global tables use), 0 if it is not or if that
 * cannot be established.
 */
int uspin_in_initial_pid_ns(void);

#endif
