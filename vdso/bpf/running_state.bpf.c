// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * running_state.bpf.c - keep the per-TID running-state array of
 * running_state.h up to date from the sched_switch tracepoint.
 *
 * Entry of TID t, encoding 2: 0 (unknown) until t is first switched after
 * the map was created or reset, then 1 while t is off CPU and cpu + 2
 * while it runs there.  pids are global: providers refuse to attach in a
 * child pid namespace.  The idle tasks (pid 0) are not threads and are
 * skipped.  After the TIDs, each CPU's count of runnable tasks
 * (rs_layout.h), at every switch and wake-up.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rs_layout.h"

struct rs_chunk {
	__u32 e[USPIN_BPF_CHUNK_TIDS];
};

/*
 * max_entries is set by the loader from pid_max before load (one chunk more
 * for the run queues, rs_layout.h), or taken from the pinned map the helper
 * reuses across restarts.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rs_chunk);
	__uint(max_entries, 1);
} uspin_rs SEC(".maps");

/*
 * The TID last published as running on this CPU (0: none or an idle task).
 * Lets the sched_exit_tp program below retire an entry whose switch-out
 * was never seen (see there).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} uspin_rs_cur SEC(".maps");

/* The run-queue chunk: the one after the TIDs' (set by the loader). */
const volatile __u32 uspin_rq_chunk = 0;

/*
 * Publish how many tasks are runnable on the CPU task @p is on
 * (rq->nr_running, the running one included).  The run queue is reached
 * through @p's CFS queue (CONFIG_FAIR_GROUP_SCHED: distribution kernels;
 * the per-CPU runqueues symbol needs KALLSYMS_ALL, which they often lack);
 * without it nothing is published and spinners fall back to their gap.
 * Read without the run queue's lock: readers want a hint, and the next
 * switch or wake-up there publishes again.
 */
static __always_inline void publish_rq(struct task_struct *p)
{
	__u32 key = uspin_rq_chunk, cpu, n;
	struct rs_chunk *c;
	struct cfs_rq *cfs;

	if (!bpf_core_field_exists(struct cfs_rq, rq))
		return;
	cpu = BPF_CORE_READ(p, thread_info.cpu);
	cfs = BPF_CORE_READ(p, se.cfs_rq);
	if (cpu >= USPIN_BPF_MAX_CPUS || !cfs)
		return;
	n = BPF_CORE_READ(cfs, rq, nr_running);
	c = bpf_map_lookup_elem(&uspin_rs, &key);
	if (c && c->e[cpu & (USPIN_BPF_MAX_CPUS - 1)] != n)
		c->e[cpu & (USPIN_BPF_MAX_CPUS - 1)] = n;
}

static __always_inline __u32 *entry_of(pid_t pid)
{
	__u32 key = (__u32)pid / USPIN_BPF_CHUNK_TIDS;
	struct rs_chunk *c;

	if (pid <= 0)
		return 0;
	c = bpf_map_lookup_elem(&uspin_rs, &key);
	if (!c)		/* beyond the map: user space answers UNKNOWN */
		return 0;
	return &c->e[(__u32)pid & (USPIN_BPF_CHUNK_TIDS - 1)];
}

/* One aligned 32-bit store: readers never see a torn entry. */
static __always_inline void set_entry(pid_t pid, __u32 val)
{
	__u32 *e = entry_of(pid);

	if (e && *e != val)	/* skip the store (and the dirty line) */
		*e = val;
}

/* @pid now runs on this CPU: publish it, remember it as this CPU's. */
static __always_inline void set_running(pid_t pid, __u32 cpu)
{
	__u32 zero = 0, *cur = bpf_map_lookup_elem(&uspin_rs_cur, &zero);

	set_entry(pid, cpu + USPIN_BPF_ENTRY_CPU0);
	if (cur)
		*cur = pid > 0 ? (__u32)pid : 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(uspin_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	/*
	 * prev first.  A plain store is safe: prev cannot run elsewhere
	 * before this CPU clears prev->on_cpu in finish_task_switch (the
	 * waker and the load balancer wait for that, with acquire), so this
	 * store is ordered before any switch-in of prev on another CPU.
	 * An exiting task's final switch-out stores OFF too (the kernel's
	 * array clears the entry to 0 at exit instead): an exited TID
	 * reads OFF until it is reused.
	 */
	__u32 cpu = bpf_get_smp_processor_id();

	set_entry(prev->pid, USPIN_BPF_ENTRY_OFF);
	set_running(next->pid, cpu);
	publish_rq(prev);
	return 0;
}

/* A task woken onto a CPU (enqueued already): that run queue grew. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(uspin_sched_wakeup, struct task_struct *p)
{
	publish_rq(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(uspin_sched_wakeup_new, struct task_struct *p)
{
	publish_rq(p);
	return 0;
}

/*
 * End of __schedule() and of schedule_tail() (a new task's first run), in
 * the context of the task that now runs: repair a missed sched_switch.
 * Some kernels drop trace events raised in the context of particular
 * tasks (this project's PVM guest does so for its agent's threads:
 * neither ftrace nor BPF sees a sched_switch whose prev is one of them),
 * so the switch-in of whatever runs next would be lost and that task read
 * OFF while it runs, until its next traced switch.  Here we (1) retire the
 * task last published on this CPU if it is not the one running now --
 * compare-and-swap, so that an entry already rewritten by that task's
 * switch-in on another CPU is left alone -- and (2) publish current.
 * Optional: absent before the sched_exit_tp tracepoint (Linux 6.16); the
 * loader then leaves it out.
 */
SEC("tp_btf/sched_exit_tp")
int uspin_sched_exit(void *ctx)
{
	__u32 zero = 0, *cur = bpf_map_lookup_elem(&uspin_rs_cur, &zero);
	__u32 cpu = bpf_get_smp_processor_id();
	pid_t pid = (pid_t)bpf_get_current_pid_tgid();	/* TID, 0 if idle */

	if (cur && *cur != (__u32)pid) {
		__u32 *e = entry_of((pid_t)*cur);

		if (e)
			__sync_val_compare_and_swap(e, cpu + USPIN_BPF_ENTRY_CPU0,
						    USPIN_BPF_ENTRY_OFF);
	}
	set_running(pid, cpu);
	return 0;
}

/* Number of chunks uspin_reset cleared (its return value). */
static long reset_chunk(__u32 idx, void *data)
{
	struct rs_chunk *c = bpf_map_lookup_elem(&uspin_rs, &idx);
	volatile __u64 *q;	/* volatile: no memset, which BPF lacks */
	__u32 i;

	if (!c)
		return 1;	/* past the last chunk: stop */
	q = (volatile __u64 *)c->e;
	for (i = 0; i < USPIN_BPF_CHUNK_TIDS / 2; i++)
		q[i] = 0;	/* two entries, both UNKNOWN (0) */
	(*(__u32 *)data)++;
	return 0;
}

/*
 * Run once by uspin-stated (BPF_PROG_TEST_RUN) when it takes over a map a
 * previous helper left pinned: every entry back to unknown, since switches
 * went unseen while no helper ran.  User space cannot write the map itself
 * (it is frozen: clients get only read-only mappings of it); programs can.
 * Returns the number of chunks cleared.
 */
SEC("syscall")
int uspin_reset(void *ctx)
{
	__u32 n = 0;

	bpf_loop(USPIN_BPF_MAX_CHUNKS, reset_chunk, &n, 0);
	return n;
}

/*
 * Tracing programs must carry a GPL-compatible license string; LGPL-2.1
 * section 3 lets this file be used under the GPL.
 */
char LICENSE[] SEC("license") = "GPL";
