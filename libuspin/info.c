// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * info.c - what the library tells its user: uspin_query() (what setup
 * found) and uspin_tid_running() (what the running-state provider says).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robust_list.h"
#include "running_state.h"
#include "setup.h"

/* kernel.pid_max as it is now (it can be raised after boot), or 0. */
static uint32_t read_pid_max(void)
{
	char buf[32];
	ssize_t n;
	int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (uint32_t)strtoul(buf, NULL, 10);
}

int uspin_query(struct uspin_info *info)
{
	const struct uspin_setup *s;
	const char *detail;

	if (!info)
		return EINVAL;
	uspin_setup_run();
	s = uspin_setup();
	detail = uspin_running_state_describe();
	info->futex_lock = s->futex_lock;
	info->futex_lock_adaptive = s->futex_lock_adaptive;
	info->futex_unlock = s->futex_unlock;
	info->blocks_in_futex_lock = s->futex_lock && !uspin_force_stock_kernel;
	info->robust_list = uspin_robust_list_available();
	info->running_state = uspin_running_state_provider();
	info->running_state_detail = detail ? detail : "";
	info->rs_entries = CMM_LOAD_SHARED(uspin_rs_view.nr_entries);
	info->pid_max = read_pid_max();
	info->auto_policy = s->auto_policy;
	info->policy_overridden = s->policy_overridden;
	info->ncpus = s->ncpus;
	info->cycles_per_us = s->cycles_per_us;
	info->cycles_calibrated = s->cycles_quality == CYCLES_MEASURED;
	info->setup_done = uspin_setup_done();
	return 0;
}

int uspin_tid_running(pid_t tid)
{
	if (tid <= 0)
		return -1;
	switch (uspin_rs_query((uint32_t)tid)) {
	case USPIN_RS_ON:
		return 1;
	case USPIN_RS_OFF:
		return 0;
	case USPIN_RS_UNKNOWN:
		break;
	}
	return -1;
}

int uspin_spin_parameters(struct uspin_spin_parameters *p, size_t size)
{
	const struct uspin_setup *s;
	struct uspin_spin_parameters out;

	if (!p || size == 0)
		return EINVAL;
	uspin_setup_run();
	s = uspin_setup();
	memset(&out, 0, sizeof(out));
	out.cap_ns = uspin_cycles_to_ns(s->spin_cap);
	out.cap_from_env = s->spin_cap_from_env;
	out.max_spinners = s->max_spinners;
	out.preempt_gap_ns = uspin_cycles_to_ns(s->preempt_gap);
	out.blind_min_ns = uspin_cycles_to_ns(s->spin_min);
	out.blind_max_ns = uspin_cycles_to_ns(s->spin_max);
	out.learned_max_ns = uspin_cycles_to_ns(s->user_spin_max);
	out.handoff_after_ns = uspin_cycles_to_ns(s->handoff_after);
	out.shadow = s->shadow;
	out.shared_max_ns = uspin_cycles_to_ns(s->shared_spin_max);
	memcpy(p, &out, size < sizeof(out) ? size : sizeof(out));
	if (size > sizeof(out))
		memset((char *)p + sizeof(out), 0, size - sizeof(out));
	return 0;
}
