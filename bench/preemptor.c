// SPDX-License-Identifier: LGPL-2.1-or-later
/* preemptor.c - see preemptor.h. */
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "../tests/sys_util.h"
#include "clock.h"
#include "preemptor.h"

enum { MODE_STARTING, MODE_FIFO, MODE_OTHER };

/* One per preemptor, on a line of its own (the holder writes @us). */
struct bench_preemptor_slot {
	uint32_t us;		/* futex word: 0 asleep, else the kick */
	uint32_t mode;
	unsigned long runs;
	uint64_t busy_ticks;
} __attribute__((aligned(128)));

/* In the child of a process that may have threads: syscalls only. */
static void __attribute__((noreturn)) preemptor_main(struct bench_preemptor_slot *s,
						     int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;
	uint32_t us;
	uint64_t t0, end;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0) {
		uatomic_set(&s->mode, MODE_FIFO);
	} else {
		if (setpriority(PRIO_PROCESS, 0, -20) != 0)
			setpriority(PRIO_PROCESS, 0, 0);
		uatomic_set(&s->mode, MODE_OTHER);
	}
	for (;;) {
		/* Not FUTEX_PRIVATE_FLAG: the word is in a MAP_SHARED mapping. */
		while ((us = uatomic_read(&s->us)) == 0)
			sys_futex(&s->us, FUTEX_WAIT, 0, NULL);
		t0 = bench_ticks();
		end = t0 + (uint64_t)(us * 1e3 / bench_ns_per_tick);
		while (bench_ticks() < end)
			caa_cpu_relax();
		s->busy_ticks += bench_ticks() - t0;
		s->runs++;
		uatomic_set(&s->us, 0);
	}
}

void bench_preemptors_start(struct bench_preemptors *p)
{
	size_t len = BENCH_MAX_PREEMPTORS * sizeof(struct bench_preemptor_slot);
	cpu_set_t set;
	int cpu, i;
	double deadline;

	memset(p, 0, sizeof(*p));
	memset(p->slot_of_cpu, 0xff, sizeof(p->slot_of_cpu));
	p->slots = mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->slots == MAP_FAILED || sched_getaffinity(0, sizeof(set), &set)) {
		perror("uspin-bench: preemptors");
		exit(1);
	}
	fflush(NULL);
	for (cpu = 0; cpu < BENCH_MAX_PREEMPTORS; cpu++) {
		pid_t pid;

		if (!CPU_ISSET(cpu, &set))
			continue;
		pid = fork();
		if (pid < 0) {
			perror("uspin-bench: preemptor");
			bench_preemptors_stop(p, NULL);
			exit(1);
		}
		if (pid == 0)
			preemptor_main(&p->slots[p->n], cpu);
		p->slot_of_cpu[cpu] = (int16_t)p->n;
		p->pid[p->n++] = pid;
	}
	/* Asleep and at their priority before the first kick. */
	deadline = bench_now() + 10;
	for (i = 0; i < p->n; i++) {
		while (uatomic_read(&p->slots[i].mode) == MODE_STARTING) {
			if (bench_now() > deadline) {
				fprintf(stderr, "uspin-bench: a preemptor did not start\n");
				bench_preemptors_stop(p, NULL);
				exit(1);
			}
			usleep(1000);
		}
	}
}

int bench_preemptor_kick(struct bench_preemptors *p, uint32_t us)
{
	int cpu = sched_getcpu();
	struct bench_preemptor_slot *s;

	if (cpu < 0 || cpu >= BENCH_MAX_PREEMPTORS || p->slot_of_cpu[cpu] < 0 || !us)
		return 0;
	s = &p->slots[p->slot_of_cpu[cpu]];
	if (uatomic_cmpxchg(&s->us, 0, us) != 0)
		return 0;
	sys_futex(&s->us, FUTEX_WAKE, 1, NULL);
	return 1;
}

void bench_preemptors_stop(struct bench_preemptors *p,
			   struct bench_preemptor_totals *t)
{
	int i, status;

	if (t) {
		memset(t, 0, sizeof(*t));
		t->rt = p->n > 0;
	}
	for (i = 0; i < p->n; i++)
		kill(p->pid[i], SIGKILL);
	for (i = 0; i < p->n; i++) {
		waitpid(p->pid[i], &status, 0);
		if (!t)
			continue;
		t->runs += p->slots[i].runs;
		t->busy_s += p->slots[i].busy_ticks * bench_ns_per_tick * 1e-9;
		t->rt &= p->slots[i].mode == MODE_FIFO;
	}
	if (p->slots && p->slots != MAP_FAILED)
		munmap(p->slots, BENCH_MAX_PREEMPTORS * sizeof(struct bench_preemptor_slot));
	p->slots = NULL;
	p->n = 0;
}
