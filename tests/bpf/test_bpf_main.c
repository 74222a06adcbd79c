// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_bpf_main.c - runs the BPF provider's suites, leaving out (and
 * reporting as skipped) those whose preconditions this machine lacks; the
 * helpers every suite shares; and the client side of the tests that need
 * a fresh process (test-bpf client MODE).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "running_state_providers.h"
#include "stated_client.h"
#include "test_bpf.h"

static const char *runner_socket(void)
{
	return getenv(USPIN_STATED_SOCKET_ENV);
}

int silent_connect(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	if (!sock)
		sock = runner_socket();
	if (!sock)
		return -ENOENT;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int err = -errno;

		close(s);
		return err;
	}
	return s;
}

int helper_exchange_at(const char *sock, const void *req, size_t len,
		       struct uspin_stated_reply *rep, int fds[2])
{
	struct timeval tv = { .tv_sec = 5 };
	ssize_t n;
	int s;

	fds[0] = fds[1] = -1;
	memset(rep, 0, sizeof(*rep));
	s = silent_connect(sock);
	if (s < 0)
		return s;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(s, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		n = -errno;
	else	/* libuspin's own receive (vdso/provider_bpf.c) */
		n = uspin_stated_recv(s, MSG_CMSG_CLOEXEC, rep, fds, NULL);
	close(s);
	return (int)n;
}

int helper_exchange(const void *req, size_t len,
		    struct uspin_stated_reply *rep, int fds[2])
{
	return helper_exchange_at(NULL, req, len, rep, fds);
}

struct uspin_stated_req good_request(void)
{
	struct uspin_stated_req r = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
		.size = sizeof(r),
	};

	return r;
}

int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY_ID) || setuid(NOBODY_ID))
		return -errno;
	return 0;
}

/* --- helpers started by tests ----------------------------------------- */

void helper_paths(struct helper *h, const char *name)
{
	const char *dir = getenv("USPIN_BPF_TEST_DIR");
	const char *pin = getenv("USPIN_BPF_TEST_PIN");

	ck_assert_msg(dir && pin, "USPIN_BPF_TEST_DIR/PIN not set (run through make check-bpf)");
	memset(h, 0, sizeof(*h));
	snprintf(h->dir, sizeof(h->dir), "%s/%s", dir, name);
	mkdir(h->dir, 0755);
	snprintf(h->sock, sizeof(h->sock), "%s/stated.sock", h->dir);
	snprintf(h->status, sizeof(h->status), "%s/status", h->dir);
	snprintf(h->log, sizeof(h->log), "%s/helper.log", h->dir);
	snprintf(h->pin, sizeof(h->pin), "%s-%s/rs", pin, name);
}

const char *helper_log(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static void note_pid(pid_t pid)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pids", getenv("USPIN_BPF_TEST_DIR"));
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
}

void helper_start(struct helper *h, const char *const *extra)
{
	const char *bin = getenv("USPIN_STATED_BIN");
	const char *argv[24];
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	int i = 0, fds[2], st, t;

	ck_assert_msg(bin != NULL, "USPIN_STATED_BIN not set");
	argv[i++] = bin;
	argv[i++] = "--foreground";
	argv[i++] = "--socket";
	argv[i++] = h->sock;
	argv[i++] = "--status";
	argv[i++] = h->status;
	argv[i++] = "--pin";
	argv[i++] = h->pin;
	while (extra && *extra && i < 22)
		argv[i++] = *extra++;
	argv[i] = NULL;
	h->pid = fork();
	ck_assert_int_ge(h->pid, 0);
	if (h->pid == 0) {
		int fd = open(h->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	note_pid(h->pid);
	/* Ready when it serves: loading and attaching take ~0.1-1 s. */
	for (t = 0; t < 20000; t += 10) {
		if (helper_exchange_at(h->sock, &req, sizeof(req), &rep, fds) ==
		    (int)sizeof(rep) && rep.status == 0) {
			close(fds[0]);
			close(fds[1]);
			return;
		}
		if (waitpid(h->pid, &st, WNOHANG) == h->pid)
			ck_abort_msg("uspin-stated exited (status %#x):\n%s", st,
				     helper_log(h->log));
		usleep(10000);
	}
	ck_abort_msg("uspin-stated does not serve after 20 s:\n%s", helper_log(h->log));
}

int helper_stop(struct helper *h, int sig)
{
	int st = -1;

	if (h->pid <= 0)
		return -1;
	kill(h->pid, sig);
	waitpid(h->pid, &st, 0);
	h->pid = 0;
	return st;
}

void helper_remove(struct helper *h)
{
	const char *bin = getenv("USPIN_STATED_BIN");
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execl(bin, bin, "--remove", "--socket", h->sock, "--status",
		      h->status, "--pin", h->pin, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
}

/* --- views ------------------------------------------------------------ */


int next_prog_using_map(uint32_t map_id, uint32_t *id,
			struct bpf_prog_info *info)
{
	uint32_t maps[8];

	while (bpf_prog_get_next_id(*id, id) == 0) {
		__u32 len = sizeof(*info), i;
		int fd = bpf_prog_get_fd_by_id(*id);

		if (fd < 0)
			continue;
		memset(info, 0, sizeof(*info));
		info->nr_map_ids = 8;
		info->map_ids = (uint64_t)(uintptr_t)maps;
		if (bpf_obj_get_info_by_fd(fd, info, &len) == 0)
			for (i = 0; i < info->nr_map_ids && i < 8; i++)
				if (maps[i] == map_id)
					return fd;
		close(fd);
	}
	return -1;
}

int view_attach(struct uspin_rs_view *v)
{
	memset(v, 0, sizeof(*v));
	return uspin_rs_provider_bpf.attach(v);
}

enum uspin_rs_answer view_query(const struct uspin_rs_view *v, uint32_t tid)
{
	uint32_t e;

	if (tid >= v->nr_entries || !uspin_rs_alive_word(*v->alive))
		return USPIN_RS_UNKNOWN;
	e = v->base[(uintptr_t)tid * v->stride];
	return uspin_rs_answer_of(e);
}

const char *answer_name(enum uspin_rs_answer a)
{
	return a == USPIN_RS_ON ? "ON" : a == USPIN_RS_OFF ? "OFF" : "UNKNOWN";
}

int uspin_prog_ids(uint32_t *ids, int max)
{
	uint32_t id = 0;
	int n = 0;

	while (n < max && bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strncmp(info.name, "uspin_", 6) == 0)
			ids[n++] = id;
		close(fd);
	}
	return n;
}

/* --- clients in their own process -------------------------------------- */

void client_start(struct client *c, const char *mode, const char *const *env)
{
	int in[2], out[2];

	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		while (env && *env)
			putenv((char *)*env++);
		execl("/proc/self/exe", "test-bpf", "client", mode, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
}

int client_expect(struct client *c, const char *prefix, char *line,
		  size_t len, int timeout_ms)
{
	int64_t end = now_on(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
	size_t got = 0;

	for (;;) {
		struct pollfd p = { .fd = c->out, .events = POLLIN };
		int64_t left = (end - now_on(CLOCK_MONOTONIC)) / 1000000;
		char ch;

		if (left < 0 || poll(&p, 1, (int)left) <= 0)
			return 0;
		if (read(c->out, &ch, 1) != 1)
			return 0;
		if (ch != '\n') {
			if (got < len - 1)
				line[got++] = ch;
			continue;
		}
		line[got] = '\0';
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			return 1;
		got = 0;
	}
}

void client_stop(struct client *c)
{
	int st;

	if (c->pid <= 0)
		return;
	close(c->in);
	close(c->out);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &st, 0);
	c->pid = 0;
}

static void *sleeper(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	*(volatile uint32_t *)arg = sys_gettid();
	for (;;)
		nanosleep(&ms, NULL);
	return NULL;
}

/* Open BPF objects among our fds ("anon_inode:bpf-prog" and the like). */
static int bpf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[300];
	int n = 0;
	ssize_t k;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		k = readlink(path, target, sizeof(target) - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		if (strncmp(target, "anon_inode:bpf", 14) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static int stdin_closed(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * test-bpf client watch: attach through libuspin, then print
 * "state SELF SLEEPER T" (T: CLOCK_MONOTONIC ns) every time the answer
 * for this thread or for a thread sleeping in 1 ms steps changes, until
 * stdin closes.
 * test-bpf client probe: attach through libuspin, print "provider NAME",
 * "describe LINE" and "bpf-fds N", wait for stdin to close.
 */
int client_main(const char *mode)
{
	const char *p = uspin_running_state_init();
	const struct uspin_rs_provider *bpf = &uspin_rs_provider_bpf;
	volatile uint32_t stid = 0;
	uint32_t self = sys_gettid();
	struct timespec tick = { 0, 100000 };
	pthread_t t;
	int prev = -1, cur;
	char dummy;

	printf("provider %s\n", p);
	fflush(stdout);
	if (strcmp(mode, "probe") == 0) {
		printf("describe %s\n", bpf->describe ? bpf->describe() : "(none)");
		printf("bpf-fds %d\n", bpf_fds());
		fflush(stdout);
		while (read(0, &dummy, 1) > 0)
			;
		return 0;
	}
	if (strcmp(mode, "watch") != 0)
		return 2;
	pthread_create(&t, NULL, sleeper, (void *)&stid);
	while (!stid)
		sched_yield();
	while (!stdin_closed()) {
		enum uspin_rs_answer a = uspin_rs_query(self);
		enum uspin_rs_answer b = uspin_rs_query(stid);

		cur = (int)a * 3 + (int)b;
		if (cur != prev) {
			printf("state %s %s %lld\n", answer_name(a), answer_name(b),
			       (long long)now_on(CLOCK_MONOTONIC));
			fflush(stdout);
			prev = cur;
		}
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* --- the suites --------------------------------------------------------- */

/* Why the runner's helper cannot be used, or NULL when it answers. */
static const char *helper_missing(void)
{
	static char why[200];
	struct uspin_stated_req req = good_request();
	struct uspin_stated_reply rep;
	int fds[2], n;

	if (!runner_socket())
		return "USPIN_STATED_SOCKET not set (run through make check-bpf)";
	n = helper_exchange(&req, sizeof(req), &rep, fds);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (n == (int)sizeof(rep) && rep.status == 0 && fds[1] >= 0)
		return NULL;
	snprintf(why, sizeof(why), "uspin-stated at %s does not answer (%s)",
		 runner_socket(), n < 0 ? strerror(-n) : "bad reply");
	return why;
}

static const char *group_missing(void)
{
	return getgrnam("users") ? NULL : "no group 'users' to restrict clients to";
}

int main(int argc, char **argv)
{
	const char *no_helper, *no_root;
	const struct {
		const char *name;
		TCase *(*make)(void);
		int needs_helper, needs_root;
		const char *(*missing)(void);
	} cases[] = {
		{ "helper-protocol", tcase_helper_protocol, 1, 0, NULL },
		{ "unprivileged", tcase_unprivileged, 1, 1, NULL },
		{ "group", tcase_group, 1, 1, group_missing },
		{ "liveness", tcase_liveness, 1, 1, NULL },
		{ "provider", tcase_provider, 1, 0, NULL },
		{ "root-only", tcase_root_only, 1, 1, NULL },
		{ "uspin-info", tcase_uspin_info, 1, 1, NULL },
	};
	Suite *s;
	SRunner *sr;
	size_t i;
	int run, failed, skipped = 0;

	if (argc == 3 && strcmp(argv[1], "client") == 0)
		return client_main(argv[2]);
	if (argc == 2 && strcmp(argv[1], "measure") == 0)
		return measure_main();
	if (argc != 1) {
		fprintf(stderr, "usage: test-bpf [measure | client watch|probe]\n");
		return 2;
	}
	no_helper = helper_missing();
	no_root = geteuid() == 0 ? NULL :
		"not root: starting helpers and switching to uid 65534 need root";
	s = suite_create("bpf");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = cases[i].needs_helper && no_helper ? no_helper :
				  cases[i].needs_root && no_root ? no_root :
				  cases[i].missing ? cases[i].missing() : NULL;

		if (why) {
			printf("SKIP: bpf/%s: %s\n", cases[i].name, why);
			skipped++;
			continue;
		}
		suite_add_tcase(s, cases[i].make());
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("test-bpf: %d tests run, %d failed, %d test cases skipped\n",
	       run, failed, skipped);
	return failed ? 1 : 0;
}
