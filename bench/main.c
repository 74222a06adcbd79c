// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * main.c - uspin-bench: the command line, and nothing else.  It fills a
 * struct bench_config, picks the locks and workloads, calibrates, and
 * hands each workload to the runner.  Dependencies only go down from
 * here: workloads -> engine (contention.c) -> locks, clock, work, stats;
 * runner -> guard, child, repeats; nothing calls back into main.c.
 *
 * usage: uspin-bench MODE [options]
 *   all | WORKLOAD[,WORKLOAD...]   run workloads (see `uspin-bench list`)
 *   list       the locks (and why any is skipped here) and the workloads
 *   calibrate  print the work-unit and clock calibration
 *   work -n N  run N rounds of the work unit (for bench/calibrate.sh)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "clock.h"
#include "config.h"
#include "locks/lock.h"
#include "meta.h"
#include "output.h"
#include "repeats.h"
#include "runner.h"
#include "workload.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: uspin-bench MODE [options]\n"
"modes: all, a comma-separated list of workloads, list, calibrate, work\n"
"  -l LOCKS     comma-separated lock names (default: every lock this kernel runs)\n"
"  -r REPEATS   rounds per point, every lock once per round (default 10)\n"
"  -s SECONDS   measured length of one repetition (default 0.25)\n"
"  -Q           quick: the reduced grid of every workload\n"
"  -X           isolate: every lock in a process of its own\n"
"  -o DIR       output directory (default .)\n"
"  -q           progress: a line per round, not per repetition\n"
"  -S SHIFT     closed loop: latency of 1 in 2^SHIFT acquisitions (default 6)\n"
"  --reruns N            rerun a disturbed round up to N times (default 1)\n"
"  --guard-foreign CPUS  disturbed above this foreign load (default 0.25)\n"
"  --guard-steal PCT     disturbed above this steal time (default 2)\n"
"  --stretch-us US       holder preempted: CS this late (default 50)\n"
"  --order-seed N        seeds the lock order, shuffled every round (default 20101)\n"
"sweep:  -p PERIODS instructions per iteration (1000,10000)\n"
"        -d DUTIES  percent of the period in the lock (1,8,32,64)\n"
"        -t THREADS thread counts (1,2,4,8,16,32)\n"
"kv:     -w WRITERS (1,2,4,8)  -R READERS (2)  -k KEYS (4096)\n"
"holdtime: --holds US (1,2,5,10,20,50,100,200,500,1000)  --hold-duties PCT (50)\n"
"        --hold-tpc TENTHS threads per CPU x 10 (10,20,40)  --hold-hogs N (0,CPUs)\n"
"        --hold-preempt-ppm PPM critical sections (per million) whose CPU a\n"
"          preemptor takes (0)  --hold-preempt-us US for this long (100)\n"
"        --hold-long-ppm PPM critical sections (per million) that last\n"
"          --hold-long-us US instead (0; 500): multi-modal holds\n"
"work:   -n ROUNDS (2000000)\n");
}

static int parse_list(const char *arg, struct bench_list *list, long lo,
		      long hi)
{
	char *end;

	list->n = 0;
	while (*arg) {
		if (list->n == BENCH_MAX_LIST)
			return -1;
		list->v[list->n] = strtol(arg, &end, 10);
		if (end == arg || list->v[list->n] < lo || list->v[list->n] > hi)
			return -1;
		list->n++;
		arg = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return list->n ? 0 : -1;
}

static int parse_double(const char *arg, double *v, double lo, double hi)
{
	char *end;

	*v = strtod(arg, &end);
	return end == arg || *end || !(*v >= lo && *v <= hi) ? -1 : 0;
}

static int select_workloads(struct bench_config *cfg, const char *mode)
{
	char buf[512], *tok, *save;
	size_t i;

	if (strcmp(mode, "all") == 0) {
		for (i = 0; i < bench_nr_workloads; i++)
			cfg->workloads[cfg->nr_workloads++] = bench_workloads[i];
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", mode);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct bench_workload *wl = bench_workload_find(tok);

		if (!wl || cfg->nr_workloads == BENCH_MAX_WORKLOADS) {
			fprintf(stderr, "uspin-bench: no workload or mode named %s (see `uspin-bench list`)\n",
				tok);
			return -1;
		}
		cfg->workloads[cfg->nr_workloads++] = wl;
	}
	return 0;
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		exit(1);
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

static void print_calibration(const struct bench_config *cfg)
{
	fprintf(stderr, "calibration: 1 round = %.2f instructions (%s), %.3f ns here; period 1000 = %lu rounds = %.0f ns of work\n",
		cfg->cal.insn_per_round, cfg->cal.source,
		cfg->cal.ns_per_round, bench_rounds(&cfg->cal, 1000),
		bench_rounds(&cfg->cal, 1000) * cfg->cal.ns_per_round);
	fprintf(stderr, "timestamps: %s; kernel clocksource %s; %d CPUs allowed\n",
		bench_clock_name(), bench_clocksource(), cfg->ncpus);
}

static void list(const struct bench_config *cfg)
{
	int i;
	size_t w;

	for (i = 0; i < cfg->nr_locks; i++)
		printf("lock     %-32s runs   %s%s\n", cfg->locks[i]->name,
		       cfg->locks[i]->env ? "[own process] " : "",
		       cfg->locks[i]->describe ? cfg->locks[i]->describe() : "");
	for (i = 0; i < bench_nr_skipped; i++)
		printf("lock     %-32s skips  %s\n", bench_skipped[i].lock->name,
		       bench_skipped[i].why);
	for (w = 0; w < bench_nr_workloads; w++)
		printf("workload %-32s %s\n", bench_workloads[w]->name,
		       bench_workloads[w]->summary);
}

enum { OPT_RERUNS = 256, OPT_FOREIGN, OPT_STEAL, OPT_STRETCH, OPT_HOLDS,
       OPT_HOLD_DUTIES, OPT_HOLD_TPC, OPT_HOLD_HOGS, OPT_ORDER_SEED,
       OPT_HOLD_PREEMPT_PPM, OPT_HOLD_PREEMPT_US, OPT_HOLD_LONG_PPM,
       OPT_HOLD_LONG_US };

static const struct option long_opts[] = {
	{ "reruns", required_argument, NULL, OPT_RERUNS },
	{ "guard-foreign", required_argument, NULL, OPT_FOREIGN },
	{ "guard-steal", required_argument, NULL, OPT_STEAL },
	{ "stretch-us", required_argument, NULL, OPT_STRETCH },
	{ "holds", required_argument, NULL, OPT_HOLDS },
	{ "order-seed", required_argument, NULL, OPT_ORDER_SEED },
	{ "hold-duties", required_argument, NULL, OPT_HOLD_DUTIES },
	{ "hold-tpc", required_argument, NULL, OPT_HOLD_TPC },
	{ "hold-hogs", required_argument, NULL, OPT_HOLD_HOGS },
	{ "hold-preempt-ppm", required_argument, NULL, OPT_HOLD_PREEMPT_PPM },
	{ "hold-preempt-us", required_argument, NULL, OPT_HOLD_PREEMPT_US },
	{ "hold-long-ppm", required_argument, NULL, OPT_HOLD_LONG_PPM },
	{ "hold-long-us", required_argument, NULL, OPT_HOLD_LONG_US },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	static struct bench_config cfg = {
		.readers = 2, .keys = 4096, .repeats = 10, .seconds = 0.25,
		.sample_shift = 6, .outdir = ".", .reruns = 1,
		.guard_foreign_cpus = 0.25, .guard_steal_pct = 2,
		.stretch_us = 50, .order_seed = 20101,
	};
	struct bench_runner runner = { .cfg = &cfg };
	struct bench_meta_tally tally;
	const char *mode, *locks = NULL;
	int opt, rc = 0, i;

	bench_child_set_argv(argv);
	cfg.cmdline = join_args(argc, argv);
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	mode = argv[1];
	optind = 2;
	while ((opt = getopt_long(argc, argv, "l:p:d:t:w:R:k:r:s:S:n:o:qQXh",
				  long_opts, NULL)) != -1) {
		int bad = 0;

		switch (opt) {
		case 'l': locks = optarg; break;
		case 'p': bad = parse_list(optarg, &cfg.periods, 1, 100000000); break;
		case 'd': bad = parse_list(optarg, &cfg.duties, 0, 100); break;
		case 't': bad = parse_list(optarg, &cfg.threads, 1, BENCH_MAX_THREADS); break;
		case 'w': bad = parse_list(optarg, &cfg.writers, 1, BENCH_MAX_THREADS); break;
		case 'R': cfg.readers = atoi(optarg); bad = cfg.readers < 0 || cfg.readers > 64; break;
		case 'k': cfg.keys = atol(optarg); bad = cfg.keys < 64; break;
		case 'r': cfg.repeats = atoi(optarg); bad = cfg.repeats < 1 || cfg.repeats > BENCH_MAX_REPEATS; break;
		case 's': bad = parse_double(optarg, &cfg.seconds, 0.001, 3600); break;
		case 'S': cfg.sample_shift = atoi(optarg); bad = cfg.sample_shift < 0 || cfg.sample_shift > 20; break;
		case 'n': cfg.pairs = atol(optarg); bad = cfg.pairs < 1; break;
		case 'o': cfg.outdir = optarg; break;
		case 'q': cfg.quiet = 1; break;
		case 'Q': cfg.quick = 1; break;
		case 'X': cfg.isolate = 1; break;
		case OPT_RERUNS: cfg.reruns = atoi(optarg); bad = cfg.reruns < 0 || cfg.reruns > 10; break;
		case OPT_FOREIGN: bad = parse_double(optarg, &cfg.guard_foreign_cpus, 0, 4096); break;
		case OPT_STEAL: bad = parse_double(optarg, &cfg.guard_steal_pct, 0, 100); break;
		case OPT_STRETCH: bad = parse_double(optarg, &cfg.stretch_us, 0.1, 1e7); break;
		case OPT_HOLDS: bad = parse_list(optarg, &cfg.holds, 1, 100000); break;
		case OPT_ORDER_SEED: {
			char *end;

			errno = 0;
			cfg.order_seed = strtoul(optarg, &end, 10);
			bad = errno || *end || !*optarg || optarg[0] == '-';
			break;
		}
		case OPT_HOLD_DUTIES: bad = parse_list(optarg, &cfg.hold_duties, 1, 99); break;
		case OPT_HOLD_TPC: bad = parse_list(optarg, &cfg.hold_tpc, 1, 160); break;
		case OPT_HOLD_HOGS: bad = parse_list(optarg, &cfg.hold_hogs, 0, 256); break;
		case OPT_HOLD_PREEMPT_PPM:
			bad = parse_list(optarg, &cfg.hold_preempt_ppm, 0, 1000000); break;
		case OPT_HOLD_PREEMPT_US:
			bad = parse_list(optarg, &cfg.hold_preempt_us, 1, 100000); break;
		case OPT_HOLD_LONG_PPM:
			bad = parse_list(optarg, &cfg.hold_long_ppm, 0, 1000000); break;
		case OPT_HOLD_LONG_US:
			bad = parse_list(optarg, &cfg.hold_long_us, 1, 100000); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			const struct option *o = long_opts;

			while (o->name && o->val != opt)
				o++;
			if (opt < 256)
				fprintf(stderr, "uspin-bench: bad value for -%c: %s\n",
					opt, optarg);
			else
				fprintf(stderr, "uspin-bench: bad value for --%s: %s\n",
					o->name, optarg);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	cfg.ncpus = bench_cpus_allowed();

	/* A repetition the parent asked this process to run? */
	rc = bench_child_main(&cfg);
	if (rc >= 0)
		return rc;
	rc = 0;

	if (strcmp(mode, "work") == 0) {
		volatile unsigned long sink =
			bench_work(cfg.pairs ? cfg.pairs : 2000000, 1);

		(void)sink;
		return 0;
	}
	cfg.nr_locks = bench_lock_select(locks, cfg.locks, 0, BENCH_MAX_LOCKS);
	if (cfg.nr_locks < 0)
		return 2;
	for (i = 0; i < bench_nr_skipped; i++)
		fprintf(stderr, "skipped: %s: %s\n", bench_skipped[i].lock->name,
			bench_skipped[i].why);
	if (strcmp(mode, "list") == 0) {
		list(&cfg);
		return 0;
	}
	if (strcmp(mode, "calibrate") && select_workloads(&cfg, mode))
		return 2;
	if (cfg.nr_locks == 0) {
		fprintf(stderr, "uspin-bench: no lock can run\n");
		return 2;
	}
	/* 0.2 s: a 4 ms jiffies clocksource is then 2 % off at worst. */
	bench_clock_init(0.2);
	/* After the clock: its timing must not depend on a coarse clocksource. */
	bench_calibrate(&cfg.cal);
	print_calibration(&cfg);
	if (strcmp(mode, "calibrate") == 0)
		return 0;
	if (bench_output_dir(cfg.outdir))
		return 1;
	bench_write_meta(&cfg, mode, NULL);
	runner.repeats = bench_open_out(cfg.outdir, "repeats.csv");
	bench_repeats_header(runner.repeats);
	runner.limits = (struct bench_guard_limits){
		.cpus_expected = cfg.ncpus,
		.foreign_cpus = cfg.guard_foreign_cpus,
		.steal_pct = cfg.guard_steal_pct,
	};
	for (i = 0; i < cfg.nr_workloads; i++)
		rc |= bench_runner_workload(&runner, cfg.workloads[i]);
	fclose(runner.repeats);
	tally = (struct bench_meta_tally){ runner.rows, runner.disturbed,
					   runner.reruns, rc };
	bench_write_meta(&cfg, mode, &tally);
	fprintf(stderr, "uspin-bench: %s done: %d repetitions (%d disturbed, %d rounds rerun), results in %s%s\n",
		mode, runner.rows, runner.disturbed, runner.reruns, cfg.outdir,
		rc ? " (A LOCK BROKE MUTUAL EXCLUSION)" : "");
	return rc;
}
