// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apps-util - what bench/apps/apps.sh cannot do in a POSIX shell, on the
 * host and in the guest (busybox userland) alike:
 *
 *   apps-util run [-t SECONDS] [-o RUSAGE] [-O OUTPUT] [-p PIDFILE] -- CMD...
 *	Runs CMD in a process group of its own (stdout and stderr to OUTPUT),
 *	waits for it with wait4() and writes RUSAGE as key=value lines: wall
 *	time, user and system CPU and context switches of CMD and every
 *	descendant it reaped (the rusage of the application, wrapper or
 *	not), its exit status, whether it timed out, and the system-wide
 *	busy/steal ticks of /proc/stat over the same interval (the guard).
 *	SIGTERM and SIGINT are forwarded to the group (a server is stopped
 *	this way); after SECONDS (default 300) the group gets SIGTERM, then
 *	SIGKILL 5 s later.  Exits with CMD's status (128 + signal).  With
 *	APPS_LOCKCOUNT_SO set, CMD runs with that library preloaded and its
 *	lock-call counts land next to RUSAGE (X.ru -> X.locks).
 *   apps-util hogs N [-o FILE]
 *	Starts N background CPU hogs (bench/hogs.c: processes, nice 0, one
 *	pinned per allowed CPU, round robin), waits for SIGTERM or SIGINT,
 *	stops them and writes their CPU seconds and the wall time to FILE.
 *   apps-util gen BYTES SEED
 *	Writes BYTES of deterministic, compressible text (words from a
 *	vocabulary drawn from SEED) to stdout: pbzip2's input, the same on
 *	every machine.
 *   apps-util wait-port PORT SECONDS
 *	Waits until 127.0.0.1:PORT accepts a TCP connection.
 *   apps-util maps PATTERN
 *	Prints the objects mapped into this process whose path contains
 *	PATTERN; exits 1 if there are none.  Run under a wrapper, it tells
 *	whether the wrapper's LD_PRELOAD took effect (a dynamic program).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hogs.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec * 1e-6;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: apps-util run [-t SECONDS] [-o RUSAGE] [-O OUTPUT] [-p PIDFILE] -- CMD...\n"
		"       apps-util hogs N [-o FILE]\n"
		"       apps-util gen BYTES SEED\n"
		"       apps-util wait-port PORT SECONDS\n"
		"       apps-util maps PATTERN\n");
	return 2;
}

/* The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. */
struct cpustat {
	unsigned long long busy, steal, total;
};

static void read_cpustat(struct cpustat *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		s->busy = v[0] + v[1] + v[2] + v[5] + v[6];
		s->steal = v[7];
		s->total = s->busy + v[3] + v[4] + v[7];
	}
	fclose(f);
}

static volatile sig_atomic_t got_signal, timed_out;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_alarm(int sig)
{
	timed_out = 1;
}

/*
 * make bench-apps-lockcount: APPS_LOCKCOUNT_SO is preloaded into the
 * program, which writes its counts to APPS_LOCKCOUNT_DIR/<pid> at exit.
 */
static void lockcount_env(void)
{
	const char *so = getenv("APPS_LOCKCOUNT_SO"), *old = getenv("LD_PRELOAD");
	char buf[8192];

	if (!so)
		return;
	snprintf(buf, sizeof(buf), "%s%s%s", so, old ? " " : "", old ? old : "");
	setenv("LD_PRELOAD", buf, 1);
	if (!getenv("APPS_LOCKCOUNT_DIR"))
		setenv("APPS_LOCKCOUNT_DIR", "/tmp", 1);
}

/* The counts of process @pid, next to the rusage file: X.ru -> X.locks. */
static void lockcount_collect(pid_t pid, const char *ru_path)
{
	const char *dir = getenv("APPS_LOCKCOUNT_DIR");
	char from[4096], to[4096];
	size_t n;

	if (!getenv("APPS_LOCKCOUNT_SO") || !ru_path)
		return;
	snprintf(from, sizeof(from), "%s/%d", dir ? dir : "/tmp", (int)pid);
	snprintf(to, sizeof(to), "%s", ru_path);
	n = strlen(to);
	if (n > 3 && !strcmp(to + n - 3, ".ru"))
		to[n - 3] = 0;
	strncat(to, ".locks", sizeof(to) - strlen(to) - 1);
	if (rename(from, to) != 0 && errno != ENOENT)
		perror("apps-util run: lock counts");
}

static int cmd_run(int argc, char **argv)
{
	const char *ru_path = NULL, *out_path = NULL, *pid_path = NULL;
	double timeout = 300, t0, t1;
	struct cpustat s0, s1;
	struct sigaction sa;
	struct rusage ru;
	int opt, status = 0, sent = 0, code;
	cpu_set_t set;
	pid_t pid, w;
	FILE *f;

	while ((opt = getopt(argc, argv, "+t:o:O:p:")) != -1) {
		switch (opt) {
		case 't': timeout = atof(optarg); break;
		case 'o': ru_path = optarg; break;
		case 'O': out_path = optarg; break;
		case 'p': pid_path = optarg; break;
		default: return usage();
		}
	}
	if (optind >= argc || timeout <= 0)
		return usage();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wait4 returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	fflush(NULL);
	read_cpustat(&s0);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("apps-util run: fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		if (out_path) {
			int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0) {
				perror(out_path);
				_exit(126);
			}
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		lockcount_env();
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "apps-util run: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* both sides: no race with the kill below */
	if (pid_path && (f = fopen(pid_path, "w"))) {
		fprintf(f, "%d\n", pid);
		fclose(f);
	}
	alarm((unsigned int)(timeout + 0.999));
	for (;;) {
		w = wait4(pid, &status, 0, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("apps-util run: wait4");
			return 1;
		}
		if (timed_out && sent < 2) {
			/* SIGTERM first (a server shuts down), SIGKILL 5 s on. */
			kill(-pid, sent ? SIGKILL : SIGTERM);
			sent++;
			timed_out = 0;
			alarm(5);
		} else if (got_signal) {
			kill(-pid, got_signal);
			got_signal = 0;
		}
	}
	t1 = now();
	read_cpustat(&s1);
	alarm(0);
	/* What the group left behind (a daemon's children) goes too. */
	kill(-pid, SIGKILL);

	lockcount_collect(pid, ru_path);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (ru_path) {
		f = fopen(ru_path, "w");
		if (!f) {
			perror(ru_path);
			return 1;
		}
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		fprintf(f, "wall_s=%.6f\nuser_s=%.6f\nsys_s=%.6f\nvcsw=%ld\nivcsw=%ld\n"
			"maxrss_kb=%ld\nexit=%d\nsignal=%d\ntimeout=%d\n"
			"stat_busy_ticks=%llu\nstat_steal_ticks=%llu\nstat_total_ticks=%llu\n"
			"clk_tck=%ld\nncpus=%ld\ncpus_allowed=%d\n",
			t1 - t0, tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_nvcsw, ru.ru_nivcsw,
			ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			WIFSIGNALED(status) ? WTERMSIG(status) : 0, sent > 0,
			s1.busy - s0.busy, s1.steal - s0.steal, s1.total - s0.total,
			sysconf(_SC_CLK_TCK), sysconf(_SC_NPROCESSORS_ONLN), CPU_COUNT(&set));
		fputs("argv=", f);
		for (int i = optind; i < argc; i++)
			fprintf(f, "%s%s", argv[i], i + 1 < argc ? " " : "\n");
		fclose(f);
	}
	return code;
}

static int cmd_hogs(int argc, char **argv)
{
	struct bench_hogs h;
	const char *path = NULL;
	double t0;
	sigset_t set;
	int n, sig;
	FILE *f;

	if (argc < 2)
		return usage();
	n = atoi(argv[1]);
	if (argc == 4 && !strcmp(argv[2], "-o"))
		path = argv[3];
	else if (argc != 2)
		return usage();
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	t0 = now();
	bench_hogs_start(&h, n);	/* the children unblock nothing: they never stop on their own */
	sigwait(&set, &sig);
	bench_hogs_stop(&h);
	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "hogs=%d\nhog_cpu_s=%.6f\nhog_wall_s=%.6f\n", n, h.cpu_s, now() - t0);
		fclose(f);
	}
	return 0;
}

/* xorshift64*: the same stream on every machine. */
static unsigned long long rng_next(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int cmd_gen(int argc, char **argv)
{
	enum { NWORDS = 4096 };
	static char words[NWORDS][12];
	unsigned long long s, left;
	char buf[1 << 16];
	size_t n = 0;
	int i, j, len, col = 0;

	if (argc != 3)
		return usage();
	left = strtoull(argv[1], NULL, 0);
	s = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	for (i = 0; i < NWORDS; i++) {
		len = 2 + rng_next(&s) % 9;
		for (j = 0; j < len; j++)
			words[i][j] = 'a' + rng_next(&s) % 26;
		words[i][len] = 0;
	}
	while (left > 0) {
		/* Zipf-ish: low word numbers are more frequent. */
		unsigned long long r = rng_next(&s);
		const char *w = words[(r % NWORDS) * ((r >> 32) % NWORDS) / NWORDS];

		len = strlen(w);
		for (j = 0; j <= len && left > 0; j++, left--) {
			char c = j < len ? w[j] : (++col % 12 ? ' ' : '\n');

			buf[n++] = c;
			if (n == sizeof(buf)) {
				if (fwrite(buf, 1, n, stdout) != n)
					return 1;
				n = 0;
			}
		}
	}
	if (fwrite(buf, 1, n, stdout) != n || fflush(stdout))
		return 1;
	return 0;
}

static int cmd_wait_port(int argc, char **argv)
{
	struct sockaddr_in a;
	double deadline;
	int fd;

	if (argc != 3)
		return usage();
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	deadline = now() + atof(argv[2]);
	do {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0) {
			perror("apps-util wait-port: socket");
			return 1;
		}
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(fd);
			return 0;
		}
		close(fd);
		usleep(20000);
	} while (now() < deadline);
	fprintf(stderr, "apps-util wait-port: nothing listens on 127.0.0.1:%s after %s s\n",
		argv[1], argv[2]);
	return 1;
}

static int cmd_maps(int argc, char **argv)
{
	char line[4096], *path;
	int found = 0;
	FILE *f;

	if (argc != 2)
		return usage();
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		perror("/proc/self/maps");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		path = strchr(line, '/');
		if (path && strstr(path, argv[1])) {
			if (!found)
				fputs(path, stdout);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hogs"))
		return cmd_hogs(argc - 1, argv + 1);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 1, argv + 1);
	if (!strcmp(argv[1], "wait-port"))
		return cmd_wait_port(argc - 1, argv + 1);
	if (!strcmp(argv[1], "maps"))
		return cmd_maps(argc - 1, argv + 1);
	return usage();
}
