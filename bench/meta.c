// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * meta.c - meta.json: everything needed to read the numbers next to it —
 * which source (git revision, dirty), kernel, machine and clocks; what
 * libuspin found (ops, provider, its spin time base, whether its thread
 * counters work) and what a running-state query costs; the calibration;
 * the command line, the method and the environment that tunes the locks;
 * the workloads with their points; which locks ran (and in which process)
 * or were skipped and why.  Written at the start (a run cut short keeps
 * it) and again at the end with the tallies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../tests/sys_util.h"
#include "clock.h"
#include "locks/lock.h"
#include "meta.h"
#include "output.h"
#include "running_state.h"
#include "stats.h"
#include "thread_stats.h"
#include "uspin.h"
#include "workload.h"

/* JSON string: the few characters our values can carry, escaped. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void js_kv(FILE *f, const char *key, const char *val, int last)
{
	fprintf(f, "  \"%s\": ", key);
	js_str(f, val);
	fprintf(f, "%s\n", last ? "" : ",");
}

static void js_list(FILE *f, const char *key, const struct bench_list *l)
{
	int i;

	fprintf(f, "  \"%s\": [", key);
	for (i = 0; i < l->n; i++)
		fprintf(f, "%s%ld", i ? ", " : "", l->v[i]);
	fprintf(f, "],\n");
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

static void cpu_model(char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
}

/*
 * One running-state query as a spinner issues it (inline, a few loads),
 * on this process's provider, about the caller itself: it must read "on
 * CPU".  Median of 5 runs of 10^6 queries.
 */
/*
 * The owner's side: whether the kernel offers the rseq slice extension
 * (the _slice locks run only where it does), and its grant length where
 * debugfs shows it (5 us unless the run set it: BENCH_GUEST_SETUP).
 */
static void slice_meta(FILE *f)
{
	struct uspin_slice_info si;
	long nsec = -1;
	FILE *k;

	memset(&si, 0, sizeof(si));
	uspin_slice_extension(&si, sizeof(si));
	fprintf(f, "  \"slice_extension\": %d,\n", si.available);
	js_kv(f, "slice_extension_reason", si.reason ? si.reason : "", 0);
	k = fopen("/sys/kernel/debug/rseq/slice_ext_nsec", "r");
	if (k) {
		if (fscanf(k, "%ld", &nsec) != 1)
			nsec = -1;
		fclose(k);
	}
	fprintf(f, "  \"slice_ext_nsec\": %ld,\n", nsec);
}

static void rs_query_cost(double *ns, double *self_on_pct)
{
	uint32_t tid = sys_gettid();
	const long n = 1000000;
	double v[5];
	long i, on = 0;
	int r;

	uspin_running_state_init();
	/* Providers publish at context switches: have one first. */
	usleep(2000);
	for (r = 0; r < 5; r++) {
		uint64_t t0 = bench_ticks();

		on = 0;
		for (i = 0; i < n; i++)
			on += uspin_rs_query(tid) == USPIN_RS_ON;
		v[r] = (bench_ticks() - t0) * bench_ns_per_tick / n;
	}
	*ns = bench_median(v, 5);
	*self_on_pct = 100.0 * on / n;
}

void bench_write_meta(const struct bench_config *cfg, const char *mode,
		      const struct bench_meta_tally *tally)
{
	FILE *f = bench_open_out(cfg->outdir, "meta.json");
	static double rs_ns = -1, rs_self;
	static char date[64];
	extern char **environ;
	struct uspin_info info;
	struct utsname u;
	char model[128];
	time_t now = time(NULL);
	int i, first;
	size_t w;

	if (rs_ns < 0) {
		rs_query_cost(&rs_ns, &rs_self);
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		if (strcmp(uspin_running_state_provider(), "none") && rs_self < 99)
			fprintf(stderr, "uspin-bench: WARNING: the %s running-state provider reads this running thread as on a CPU in %.0f %% of queries: the proposal will not know when owners run\n",
				uspin_running_state_provider(), rs_self);
	}
	uname(&u);
	memset(&info, 0, sizeof(info));
	uspin_query(&info);
	cpu_model(model, sizeof(model));
	fprintf(f, "{\n");
	js_kv(f, "mode", mode, 0);
	js_kv(f, "command", cfg->cmdline, 0);
	js_kv(f, "date", date, 0);
	js_kv(f, "side", env_or("USPIN_BENCH_SIDE", "unknown"), 0);
	js_kv(f, "git_revision", env_or("USPIN_BENCH_GIT_REV", "unknown"), 0);
	js_kv(f, "git_dirty", env_or("USPIN_BENCH_GIT_DIRTY", "unknown"), 0);
	js_kv(f, "host_cpu_model", env_or("USPIN_BENCH_HOST_CPU", model), 0);
	js_kv(f, "cpu_model", model, 0);
	js_kv(f, "kernel", u.release, 0);
	js_kv(f, "kernel_version", u.version, 0);
	js_kv(f, "machine", u.machine, 0);
	fprintf(f, "  \"cpus_online\": %ld,\n  \"cpus_allowed\": %d,\n",
		sysconf(_SC_NPROCESSORS_ONLN), cfg->ncpus);
	js_kv(f, "timestamps", bench_clock_name(), 0);
	js_kv(f, "clocksource", bench_clocksource(), 0);
	fprintf(f, "  \"futex_lock\": %d,\n  \"futex_lock_adaptive\": %d,\n  \"futex_unlock\": %d,\n",
		info.futex_lock, info.futex_lock_adaptive, info.futex_unlock);
	js_kv(f, "running_state_provider", info.running_state, 0);
	/* what the run asked for (bench/run forwards it to the guest) */
	js_kv(f, "running_state_provider_requested", env_or("USPIN_RS_PROVIDER", ""), 0);
	js_kv(f, "running_state_detail", info.running_state_detail, 0);
	fprintf(f, "  \"rs_entries\": %u,\n  \"pid_max\": %u,\n",
		info.rs_entries, info.pid_max);
	fprintf(f, "  \"rs_query_ns\": %.3f,\n  \"rs_query_self_on_cpu_pct\": %.1f,\n",
		rs_ns, rs_self);
	js_kv(f, "auto_policy", uspin_policy_name(info.auto_policy), 0);
	fprintf(f, "  \"uspin_setup_done\": %d,\n  \"uspin_ncpus\": %u,\n  \"uspin_cycles_per_us\": %llu,\n  \"uspin_cycles_calibrated\": %d,\n",
		info.setup_done, info.ncpus,
		(unsigned long long)info.cycles_per_us,
		info.cycles_calibrated);
	js_kv(f, "uspin_thread_stats", bench_thread_stats_status(), 0);
	slice_meta(f);
	fprintf(f, "  \"calibration\": {\"insn_per_round\": %.3f, \"source\": \"%s\", \"ns_per_round\": %.4f, \"ns_per_tick\": %.6f},\n",
		cfg->cal.insn_per_round, cfg->cal.source,
		cfg->cal.ns_per_round, bench_ns_per_tick);
	/* What tunes the locks from outside: recorded as found. */
	fprintf(f, "  \"environment\": {");
	first = 1;
	for (i = 0; environ[i]; i++) {
		const char *e = environ[i];

		if (strncmp(e, "USPIN_", 6) && strncmp(e, "GLIBC_TUNABLES=", 15))
			continue;
		/* The build's and the VM's variables tune no lock. */
		if (!strncmp(e, "USPIN_BENCH_", 12) ||
		    !strncmp(e, "USPIN_GUEST_BINS=", 17) ||
		    !strncmp(e, "USPIN_CACHE=", 12) ||
		    !strncmp(e, "USPIN_VM", 8) || !strncmp(e, "USPIN_BUSYBOX=", 14))
			continue;
		w = strcspn(e, "=");
		fprintf(f, "%s\"%.*s\": ", first ? "" : ", ", (int)w, e);
		js_str(f, e + w + 1);
		first = 0;
	}
	fprintf(f, "},\n");
	fprintf(f, "  \"method\": {\"repeats\": %d, \"seconds\": %.3f, \"latency_sample_one_in\": %d, \"reruns\": %d, \"guard_foreign_cpus\": %.3f, \"guard_steal_pct\": %.3f, \"holder_stretch_us\": %.1f, \"isolate\": %d, \"quick\": %d, \"bootstrap_resamples\": %d, \"bootstrap_seed\": %d, \"lock_order\": \"shuffled per round\", \"order_seed\": %lu},\n",
		cfg->repeats, cfg->seconds, 1 << cfg->sample_shift,
		cfg->reruns, cfg->guard_foreign_cpus, cfg->guard_steal_pct,
		cfg->stretch_us, cfg->isolate, cfg->quick,
		BENCH_BOOTSTRAP_RESAMPLES, BENCH_BOOTSTRAP_SEED,
		cfg->order_seed);
	js_list(f, "periods", &cfg->periods);
	js_list(f, "duties", &cfg->duties);
	js_list(f, "threads", &cfg->threads);
	js_list(f, "kv_writers", &cfg->writers);
	fprintf(f, "  \"kv_readers\": %d,\n  \"kv_keys\": %ld,\n",
		cfg->readers, cfg->keys);
	fprintf(f, "  \"workloads\": [");
	for (i = 0; i < cfg->nr_workloads; i++) {
		const struct bench_workload *wl = cfg->workloads[i];
		static struct bench_point pts[BENCH_MAX_POINTS];
		int n = wl->points(cfg, pts, BENCH_MAX_POINTS), p;

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		js_str(f, wl->name);
		fprintf(f, ", \"summary\": ");
		js_str(f, wl->summary);
		fprintf(f, ", \"x_axis\": ");
		js_str(f, wl->x_axis);
		fprintf(f, ", \"latency\": ");
		js_str(f, wl->latency);
		fprintf(f, ", \"points\": [");
		for (p = 0; p < n; p++) {
			fprintf(f, "%s", p ? ", " : "");
			js_str(f, pts[p].id);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ],\n  \"locks\": [");
	for (i = 0; i < cfg->nr_locks; i++) {
		const struct bench_lock *l = cfg->locks[i];
		const char *const *e;

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		js_str(f, l->name);
		fprintf(f, ", \"note\": ");
		js_str(f, l->describe ? l->describe() : "");
		fprintf(f, ", \"process\": \"%s\", \"thread_stats\": %d, \"env\": [",
			cfg->isolate || l->env ? "own" : "harness",
			l->thread_stats);
		for (e = l->env; e && *e; e++) {
			fprintf(f, "%s", e == l->env ? "" : ", ");
			js_str(f, *e);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ],\n  \"skipped\": [");
	for (i = 0; i < bench_nr_skipped; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		js_str(f, bench_skipped[i].lock->name);
		fprintf(f, ", \"reason\": ");
		js_str(f, bench_skipped[i].why);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n");
	if (tally)
		fprintf(f, "  \"finished\": true, \"rows\": %d, \"disturbed\": %d, \"reruns\": %d, \"broken\": %d\n}\n",
			tally->rows, tally->disturbed, tally->reruns,
			tally->broken);
	else
		fprintf(f, "  \"finished\": false\n}\n");
	fclose(f);
}
