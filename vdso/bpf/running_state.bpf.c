// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * running_state.bpf.c - keep the per-TID running-state array of
 * running_state.h up to date from the sched_switch tracepoint.
 *
 * Entry of TID t: 0 while t is off CPU, cpu + 1 while it runs there,
 * 0xffffffff (user space's initial fill) until t is first switched after
 * the load.  pids are global: the loader refuses callers in a child pid
 * namespace.  The idle tasks (pid 0) are not threads and are skipped.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rs_layout.h"

struct rs_chunk {
	__u32 e[USPIN_BPF_CHUNK_TIDS];
};

/* max_entries is set by the loader from pid_max before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rs_chunk);
	__uint(max_entries, 1);
} uspin_rs SEC(".maps");

static __always_inline void set_entry(pid_t pid, __u32 val)
{
	__u32 key = (__u32)pid / USPIN_BPF_CHUNK_TIDS;
	struct rs_chunk *c;

	if (pid <= 0)
		return;
	c = bpf_map_lookup_elem(&uspin_rs, &key);
	if (!c)		/* beyond the map: user space answers UNKNOWN */
		return;
	/* One aligned 32-bit store: readers never see a torn entry. */
	c->e[(__u32)pid & (USPIN_BPF_CHUNK_TIDS - 1)] = val;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(uspin_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	/* prev first: a switch to itself must end "on". */
	set_entry(prev->pid, 0);
	set_entry(next->pid, bpf_get_smp_processor_id() + 1);
	return 0;
}

/*
 * Tracing programs must carry a GPL-compatible license string; LGPL-2.1
 * section 3 lets this file be used under the GPL.
 */
char LICENSE[] SEC("license") = "GPL";
