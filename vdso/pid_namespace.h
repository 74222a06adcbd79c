/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pid_namespace.h - whether this process's TIDs are the global ones.
 */
#ifndef USPIN_PID_NAMESPACE_H
#define USPIN_PID_NAMESPACE_H

/*
 * 1 if this process is in the initial pid namespace (its futex words hold
 * the same TIDs the kernel's global tables use), 0 if it is not or if that
 * cannot be established.
 */
int uspin_in_initial_pid_ns(void);

#endif
