// SPDX-License-Identifier: LGPL-2.1-or-later
/* guard.c - see guard.h. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "guard.h"

int bench_cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&set);
}

/* The aggregate "cpu" line: user nice system idle iowait irq softirq steal. */
static int read_stat(struct bench_guard_snap *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7)
		return -1;
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6];
	s->steal = v[7];
	s->total = s->busy + v[3] + v[4] + v[7];
	return 0;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static double own_cpu_s(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return tv_s(self.ru_utime) + tv_s(self.ru_stime) +
	       tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
}

static double load1(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

void bench_guard_begin(struct bench_guard_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->load1 = load1();
	s->allowed = bench_cpus_allowed();
	s->have_stat = read_stat(s) == 0;
	s->own_s = own_cpu_s();
	s->t = bench_now();
}

static void why(struct bench_result *r, const char *reason)
{
	size_t len = strlen(r->disturbed_why);

	snprintf(r->disturbed_why + len, sizeof(r->disturbed_why) - len,
		 "%s%s", len ? "+" : "", reason);
	r->disturbed = 1;
}

void bench_guard_end(const struct bench_guard_snap *b,
		     const struct bench_guard_limits *lim,
		     struct bench_result *r)
{
	struct bench_guard_snap e;
	double wall, hz = (double)sysconf(_SC_CLK_TCK), floor_cpus, steal_cpus;
	int allowed;

	e.t = bench_now();
	e.own_s = own_cpu_s();
	e.have_stat = read_stat(&e) == 0;
	allowed = bench_cpus_allowed();
	wall = e.t - b->t;

	r->load1 = b->load1;
	r->cpus_allowed = allowed < b->allowed ? allowed : b->allowed;
	if (r->cpus_allowed < lim->cpus_expected)
		why(r, "cpus");
	if (!b->have_stat || !e.have_stat || wall <= 0 ||
	    e.total <= b->total)
		return;
	r->steal_pct = 100.0 * (e.steal - b->steal) / (e.total - b->total);
	steal_cpus = (e.steal - b->steal) / hz / wall;
	r->busy_cpus = (e.busy - b->busy) / hz / wall;
	r->foreign_cpus = r->busy_cpus - (e.own_s - b->own_s) / wall;
	if (r->foreign_cpus < 0)
		r->foreign_cpus = 0;
	/* Two ticks per CPU of quantisation are not interference. */
	floor_cpus = 2.0 * lim->cpus_expected / (hz * wall);
	if (r->steal_pct > lim->steal_pct && steal_cpus > floor_cpus)
		why(r, "steal");
	if (r->foreign_cpus > lim->foreign_cpus &&
	    r->foreign_cpus > floor_cpus)
		why(r, "foreign");
}
