// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin-stated - publish which thread runs on which CPU (the running-state
 * BPF program) and hand the map to local processes that ask, so that
 * programs linked with libuspin get the running state without loading
 * anything into the kernel themselves.  Nothing is loaded unless an
 * administrator runs this.
 *
 * Design (docs/bpf-provider.md has the long form):
 *  - It cannot be stalled.  One thread, one epoll loop, every socket
 *    non-blocking: a client is answered when its request arrives, a
 *    client that says nothing is dropped after
 *    USPIN_STATED_SERVER_TIMEOUT_MS, and pending connections are capped
 *    per uid and in total (the oldest goes first), so any number of
 *    silent or slow peers costs the others nothing.
 *  - It cannot go stale.  The status page (a root-owned file every client
 *    maps read-only) holds a liveness word that this process owns as a
 *    robust futex: the kernel sets FUTEX_OWNER_DIED the moment it dies,
 *    SIGKILL included, and clients answer UNKNOWN from then on.
 *  - Restarts resume clients.  The map is pinned in bpffs and the status
 *    page is a file that outlives the helper: a new helper takes both
 *    over, resets every entry (switches went unseen meanwhile), attaches,
 *    and only then marks itself live.  Clients that attached to the old
 *    helper read correct entries again without doing anything.  Where the
 *    map cannot be reused, a new status file replaces the old one, whose
 *    clients keep reading "dead" (UNKNOWN) forever: never stale data.
 *  - It keeps no privilege.  After loading, pinning and creating its
 *    files it becomes --user (default nobody): no capabilities, not
 *    dumpable, no_new_privs.
 *  - It trusts no client.  It reads one fixed-size request, validates it,
 *    and never uses its content beyond that; it logs each client's
 *    credentials (SO_PEERCRED) and can restrict clients to one group.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/rs_layout.h"
#include "bpf/rs_load.h"
#include "stated/proto.h"

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS	83	/* Linux 6.16: refuse SCM_RIGHTS sent to us */
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC	0xcafe4a11
#endif

#define MAX_PENDING	4096	/* connections waiting for their request */
#define MAX_PENDING_UID	256	/* ... of which from one uid */
#define TOKEN_LISTEN	0
#define TOKEN_SIGNAL	1
#define TOKEN_CONN0	2
#define LOG_BURST	50	/* client log lines per second, then counted */

struct config {
	const char *socket;
	const char *status;
	const char *pin;	/* NULL: --no-pin */
	const char *user;
	const char *group;
	int foreground;
	int remove;
	gid_t gid;		/* --group's gid */
	uid_t run_uid;		/* --user's ids */
	gid_t run_gid;
};

struct conn {
	int fd;			/* -1: free slot */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int64_t deadline_ms;	/* CLOCK_MONOTONIC */
	int refused;		/* -EACCES: outside --group, refused on request */
	int prev, next;		/* pending FIFO (accept order = deadline order) */
};

static struct config cfg = {
	.socket = USPIN_STATED_SOCKET_DEFAULT,
	.status = USPIN_STATED_STATUS_DEFAULT,
	.pin = USPIN_STATED_PIN_DEFAULT,
	.user = "nobody",
};
static int use_syslog;
static struct conn conns[MAX_PENDING];
static int fifo_head = -1, fifo_tail = -1, free_head = -1, npending;
static int epfd = -1;

/* What each client gets. */
static struct uspin_bpf_rs rs;
static int status_ro_fd = -1;
static struct uspin_stated_status *status;	/* our read-write mapping */

static void logv(int prio, const char *fmt, va_list ap)
{
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	fputs("uspin-stated: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

__attribute__((format(printf, 2, 3)))
static void logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	logv(prio, fmt, ap);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Client lines are rate-limited (a local user can make as many
 * connections as they like); the number left out is logged with the
 * next line that gets through.
 */
__attribute__((format(printf, 3, 4)))
static void client_log(int prio, const struct conn *c, const char *fmt, ...)
{
	static int64_t window;
	static unsigned int in_window, suppressed;
	int64_t t = now_ms() / 1000;
	char msg[200];
	va_list ap;

	if (t != window) {
		window = t;
		in_window = 0;
	}
	if (++in_window > LOG_BURST) {
		suppressed++;
		return;
	}
	if (suppressed) {
		logmsg(LOG_NOTICE, "%u client log lines suppressed", suppressed);
		suppressed = 0;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	logmsg(prio, "client pid %d uid %u gid %u: %s", (int)c->pid,
	       (unsigned int)c->uid, (unsigned int)c->gid, msg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uspin-stated [--socket PATH] [--status PATH] [--pin PATH | --no-pin]\n"
		"                    [--group GROUP] [--user USER] [--foreground]\n"
		"       uspin-stated --remove [--socket PATH] [--status PATH] [--pin PATH]\n"
		"Loads the uspin running-state BPF program and hands its read-only map,\n"
		"with a status page whose liveness word says whether it still publishes,\n"
		"to clients on the socket (default %s).\n"
		"  --status PATH  status page, kept across restarts (default %s)\n"
		"  --pin PATH     bpffs pin of the map, reused by the next helper so\n"
		"                 clients resume by themselves (default %s;\n"
		"                 bpffs is mounted on /sys/fs/bpf if it is not)\n"
		"  --group GROUP  serve only root and members of GROUP (socket 0660)\n"
		"  --user USER    run as USER once set up (default nobody)\n"
		"  --foreground   stay in the foreground and log to stderr\n"
		"  --remove       unpin the map and remove the status page and socket\n"
		"                 (no helper may be running); attached clients stay UNKNOWN\n",
		USPIN_STATED_SOCKET_DEFAULT, USPIN_STATED_STATUS_DEFAULT,
		USPIN_STATED_PIN_DEFAULT);
}

/* --- files ------------------------------------------------------------ */

static void dirname_of(const char *path, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
}

/*
 * The directory of a file we create must be root's and writable by root
 * alone, or another user could swap the file under us or under clients.
 * Created 0755 if missing (its parent must exist).
 */
static int safe_parent_dir(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	dirname_of(path, dir, sizeof(dir));
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		logmsg(LOG_ERR, "%s: must be a directory owned by root and writable only by root",
		       dir);
		return -EPERM;
	}
	return 0;
}

/* A root-owned regular file only root can write, with one name. */
static int check_own_file(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
	    st.st_nlink != 1) {
		logmsg(LOG_ERR, "%s: not a root-owned regular file writable only by root",
		       path);
		return -EPERM;
	}
	return 0;
}

/*
 * One helper per status page: an exclusive flock on "<status>.lock",
 * released by the kernel however the holder ends.  A helper still on its
 * way out gets a few seconds.
 */
static int take_lock(int wait_ms)
{
	char path[PATH_MAX];
	int fd, i;

	snprintf(path, sizeof(path), "%s.lock", cfg.status);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (check_own_file(fd, path) != 0) {
		close(fd);
		return -EPERM;
	}
	for (i = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; i += 50) {
		if (errno != EWOULDBLOCK || i >= wait_ms) {
			int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

			close(fd);
			return err;
		}
		usleep(50 * 1000);
	}
	return fd;	/* held until we exit: never closed */
}

static int is_bpffs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == BPF_FS_MAGIC;
}

/*
 * The pin's directory on a bpffs: created 0700 if its parent is one;
 * bpffs is mounted on /sys/fs/bpf if that is where the pin goes and
 * nothing is mounted there yet (systemd normally does it).
 */
static int prepare_pin_dir(const char *pin)
{
	char dir[PATH_MAX], parent[PATH_MAX];

	dirname_of(pin, dir, sizeof(dir));
	if (is_bpffs(dir))
		return 0;
	dirname_of(dir, parent, sizeof(parent));
	if (!is_bpffs(parent) && strcmp(parent, "/sys/fs/bpf") == 0) {
		if (mount("bpf", parent, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "mode=0700") != 0)
			return -errno;
		logmsg(LOG_NOTICE, "mounted bpffs on %s", parent);
	}
	if (!is_bpffs(parent))
		return -ENOTSUP;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	return is_bpffs(dir) ? 0 : -ENOTSUP;
}

static struct uspin_stated_status *map_status(int fd)
{
	void *p = mmap(NULL, USPIN_STATED_STATUS_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Clients of this page answer UNKNOWN from now on. */
static void mark_dead(struct uspin_stated_status *st)
{
	__atomic_store_n(&st->alive, FUTEX_OWNER_DIED, __ATOMIC_RELEASE);
}

static int open_status_ro(const char *path)
{
	return open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * Open the existing status page, or NULL (and *fd -1) if there is none we
 * can use.  Whatever it says, nobody publishes for it now (we hold the
 * lock), so it is marked dead first.
 */
static struct uspin_stated_status *old_status(int *fd)
{
	struct uspin_stated_status *st;
	struct stat sb;

	*fd = open(cfg.status, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (check_own_file(*fd, cfg.status) != 0 || fstat(*fd, &sb) != 0 ||
	    sb.st_size < USPIN_STATED_STATUS_BYTES ||
	    !(st = map_status(*fd))) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	if (st->alive != FUTEX_OWNER_DIED)
		mark_dead(st);
	return st;
}

/*
 * A new status page replaces the old one under its name (rename), so
 * clients of the old page keep reading "dead" and never pick up a map
 * they were not given.
 */
static struct uspin_stated_status *new_status(int *fd)
{
	char tmp[PATH_MAX];
	struct uspin_stated_status *st;

	snprintf(tmp, sizeof(tmp), "%s.new", cfg.status);
	unlink(tmp);
	*fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (*fd < 0)
		return NULL;
	if (fchmod(*fd, 0644) != 0 ||
	    ftruncate(*fd, USPIN_STATED_STATUS_BYTES) != 0 ||
	    !(st = map_status(*fd))) {
		close(*fd);
		unlink(tmp);
		return NULL;
	}
	st->alive = FUTEX_OWNER_DIED;
	st->magic = USPIN_STATED_STATUS_MAGIC;
	st->version = USPIN_STATED_STATUS_VERSION;
	st->layout = USPIN_BPF_LAYOUT_VERSION;
	if (rename(tmp, cfg.status) != 0) {
		munmap(st, USPIN_STATED_STATUS_BYTES);
		close(*fd);
		unlink(tmp);
		return NULL;
	}
	return st;
}

/* --- liveness --------------------------------------------------------- */

static struct robust_list live_node;
static struct robust_list_head live_head;

/*
 * Own the liveness word as a robust futex.  The node is in our private
 * memory (clients must not see our addresses); futex_offset reaches from
 * it to the word in the shared page.  This replaces glibc's robust list
 * head of this (only) thread: the helper uses no robust pthread mutexes.
 * If we die before the store, the word does not hold our TID and the
 * kernel leaves it alone; after it, the kernel sets FUTEX_OWNER_DIED.
 */
static int go_live(struct uspin_stated_status *st)
{
	live_node.next = &live_head.list;
	live_head.list.next = &live_node;
	live_head.futex_offset = (long)((char *)&st->alive - (char *)&live_node);
	live_head.list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, &live_head, sizeof(live_head)) != 0)
		return -errno;
	__atomic_store_n(&st->alive, (uint32_t)gettid(), __ATOMIC_RELEASE);
	return 0;
}

/* --- setup ------------------------------------------------------------ */

/*
 * Take over the pinned map if it and the status page speak for each
 * other; else a new map (pinned unless --no-pin) and a new status page.
 * Then attach, reset a reused map, and go live.
 */
static int publish(void)
{
	struct uspin_stated_status *st;
	uint32_t chunks, id;
	int st_fd, pin_fd = -1, err, pin_ok = 0;

	if (cfg.pin) {
		err = prepare_pin_dir(cfg.pin);
		if (err)
			logmsg(LOG_WARNING, "%s: cannot pin there (%s): a restart will not resume clients",
			       cfg.pin, strerror(-err));
		else
			pin_ok = 1;
	}
	st = old_status(&st_fd);
	if (pin_ok)
		pin_fd = bpf_obj_get(cfg.pin);
	if (st && pin_fd >= 0 &&
	    uspin_bpf_rs_check_map(pin_fd, &chunks, &id) == 0 &&
	    st->magic == USPIN_STATED_STATUS_MAGIC &&
	    st->version == USPIN_STATED_STATUS_VERSION &&
	    st->layout == USPIN_BPF_LAYOUT_VERSION && st->map_id == id &&
	    st->nr_entries == (chunks - 1) * USPIN_BPF_CHUNK_TIDS) {
		err = uspin_bpf_rs_load_map(&rs, 1, pin_fd);
		/* New programs first, so no switch after the reset goes unseen. */
		if (!err)
			err = uspin_bpf_rs_attach(&rs);
		if (!err)
			err = uspin_bpf_rs_reset(&rs);
		if (!err) {
			close(pin_fd);
			logmsg(LOG_INFO, "took over map %u (%u TIDs) from %s, entries reset",
			       rs.map_id, rs.nr_entries, cfg.pin);
			goto live;
		}
		logmsg(LOG_WARNING, "cannot take over the pinned map (%s): starting afresh",
		       strerror(-err));
		uspin_bpf_rs_destroy(&rs);
	}
	if (pin_fd >= 0)
		close(pin_fd);
	if (st) {
		munmap(st, USPIN_STATED_STATUS_BYTES);
		close(st_fd);
	}
	if (pin_ok && unlink(cfg.pin) != 0 && errno != ENOENT)
		return -errno;
	err = uspin_bpf_rs_load_map(&rs, 1, -1);
	if (err)
		return err;
	if (pin_ok && bpf_obj_pin(rs.map_fd, cfg.pin) != 0) {
		logmsg(LOG_WARNING, "%s: cannot pin (%s): a restart will not resume clients",
		       cfg.pin, strerror(errno));
	}
	st = new_status(&st_fd);
	if (!st)
		return -errno;
	err = uspin_bpf_rs_attach(&rs);
	if (err)
		return err;
	logmsg(LOG_INFO, "new map %u (%u TIDs)%s%s", rs.map_id, rs.nr_entries,
	       pin_ok ? " pinned at " : "", pin_ok ? cfg.pin : "");
live:
	st->nr_entries = rs.nr_entries;
	st->map_id = rs.map_id;
	st->generation++;
	st->helper_pid = (uint32_t)getpid();
	status = st;
	status_ro_fd = open_status_ro(cfg.status);
	if (status_ro_fd < 0)
		return -errno;
	close(st_fd);	/* the mapping stays */
	return go_live(st);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, zero = 0, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	err = safe_parent_dir(path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* We hold the lock: whatever is at the path is a stale socket. */
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		goto fail;
	if (cfg.group) {
		if (chown(path, 0, cfg.gid) != 0 || chmod(path, 0660) != 0)
			goto fail;
	} else if (chmod(path, 0666) != 0) {
		goto fail;
	}
	/* Where the kernel can (6.16+), clients cannot send us fds at all. */
	setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &zero, sizeof(zero));
	if (listen(fd, SOMAXCONN) != 0)
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	unlink(path);
	return err;
}

/*
 * Become --user for good: no capabilities (a uid change from 0 clears
 * them), no supplementary groups, not dumpable (no ptrace, no
 * pidfd_getfd of our link fds by processes of the same uid), no new
 * privileges.  The fd limit is raised first: replies carry fds, and the
 * kernel charges fds in flight to the sender's RLIMIT_NOFILE.
 */
static int drop_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	struct rlimit rl = { 1 << 20, 1 << 20 };
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");
	unsigned long nr_open;

	if (f) {
		if (fscanf(f, "%lu", &nr_open) == 1 && nr_open < rl.rlim_max)
			rl.rlim_cur = rl.rlim_max = nr_open;
		fclose(f);
	}
	/* Without CAP_SYS_RESOURCE (containers): up to the hard limit. */
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 &&
	    (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	     (rl.rlim_cur = rl.rlim_max, setrlimit(RLIMIT_NOFILE, &rl) != 0)))
		logmsg(LOG_WARNING, "setrlimit(RLIMIT_NOFILE): %s", strerror(errno));
	if (setgroups(0, NULL) != 0 ||
	    setresgid(cfg.run_gid, cfg.run_gid, cfg.run_gid) != 0 ||
	    setresuid(cfg.run_uid, cfg.run_uid, cfg.run_uid) != 0)
		return -errno;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return -errno;
	if (data[0].effective | data[0].permitted | data[1].effective |
	    data[1].permitted)
		return -EPERM;
	return 0;
}

/* --- clients ---------------------------------------------------------- */

static void fifo_unlink(int i)
{
	struct conn *c = &conns[i];

	if (c->prev >= 0)
		conns[c->prev].next = c->next;
	else
		fifo_head = c->next;
	if (c->next >= 0)
		conns[c->next].prev = c->prev;
	else
		fifo_tail = c->prev;
}

static void conn_close(int i)
{
	struct conn *c = &conns[i];

	fifo_unlink(i);
	close(c->fd);	/* also removes it from the epoll set */
	c->fd = -1;
	c->next = free_head;
	free_head = i;
	npending--;
}

/* Reply without ever waiting: a fresh connection's queue has room. */
static int send_reply(int fd, int32_t result)
{
	struct uspin_stated_reply rep = {
		.magic = USPIN_STATED_MAGIC,
		.version = USPIN_STATED_VERSION,
		.status = result,
	};
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fds[2] = { rs.map_fd, status_ro_fd };

	if (result == 0) {
		rep.layout = USPIN_BPF_LAYOUT_VERSION;
		rep.nr_entries = rs.nr_entries;
		rep.stride = 1;
		rep.map_bytes = rs.map_bytes;
		rep.status_bytes = USPIN_STATED_STATUS_BYTES;
		rep.nfds = 2;
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	}
	if (sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(rep))
		return -errno;
	return 0;
}

/* Validate a request: 0, or the -errno the reply carries. */
static int check_request(const struct uspin_stated_req *req, ssize_t n,
			 int msg_flags)
{
	if (msg_flags & MSG_CTRUNC)
		return -EINVAL;		/* sent us fds or credentials */
	if (n != (ssize_t)sizeof(*req) || (msg_flags & MSG_TRUNC) ||
	    req->magic != USPIN_STATED_MAGIC)
		return -EPROTO;
	if (req->version != USPIN_STATED_VERSION)
		return -EPROTONOSUPPORT;
	if (req->size != sizeof(*req) || req->flags != 0)
		return -EINVAL;
	return 0;
}

static const char *errname(int err)
{
	switch (err) {
	case -EPROTO: return "malformed request (EPROTO)";
	case -EPROTONOSUPPORT: return "unsupported version (EPROTONOSUPPORT)";
	case -EINVAL: return "invalid request (EINVAL)";
	case -EACCES: return "not in the allowed group (EACCES)";
	default: return strerror(-err);
	}
}

static void serve(int i)
{
	struct conn *c = &conns[i];
	union {
		struct uspin_stated_req req;
		char raw[sizeof(struct uspin_stated_req) + 1];
	} in;
	struct iovec iov = { .iov_base = &in, .iov_len = sizeof(in) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(c->fd, &msg, MSG_DONTWAIT);
	int result, err;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		client_log(LOG_INFO, c, "left without a request");
		conn_close(i);
		return;
	}
	/*
	 * n == 0 is an empty message or the peer's end of the connection
	 * (SOCK_SEQPACKET does not tell them apart): refuse it either way;
	 * a peer that left does not get the reply.
	 */
	result = c->refused ? c->refused : check_request(&in.req, n, msg.msg_flags);
	err = send_reply(c->fd, result);
	if (err && n == 0)
		client_log(LOG_INFO, c, "left without a request");
	else if (result)
		client_log(LOG_NOTICE, c, "refused: %s", errname(result));
	else if (err)
		client_log(LOG_NOTICE, c, "reply not delivered: %s", strerror(-err));
	else
		client_log(LOG_INFO, c, "served map %u (%u TIDs)", rs.map_id,
			   rs.nr_entries);
	conn_close(i);
}

static int in_group(int fd, gid_t gid, gid_t want)
{
	socklen_t len = 64 * sizeof(gid_t);
	gid_t *groups = NULL;
	int found = gid == want;
	size_t i;

	while (!found) {
		gid_t *g = realloc(groups, len);

		if (!g)
			break;
		groups = g;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0) {
			for (i = 0; i < len / sizeof(gid_t); i++)
				found |= groups[i] == want;
			break;
		}
		if (errno != ERANGE)
			break;
	}
	free(groups);
	return found;
}

/* The oldest pending connection of @uid (any uid if @any). */
static int oldest_of(uid_t uid, int any, int *count)
{
	int i, first = -1;

	*count = 0;
	for (i = fifo_head; i >= 0; i = conns[i].next) {
		if (any || conns[i].uid == uid) {
			if (first < 0)
				first = i;
			++*count;
		}
	}
	return first;
}

static void add_conn(int fd)
{
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct conn probe = { 0 }, *c;
	int i, n, victim;

	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len);
	probe.pid = cr.pid;
	probe.uid = cr.uid;
	probe.gid = cr.gid;
	/* One request, one reply, for everyone: refused ones too. */
	probe.refused = cfg.group && cr.uid != 0 &&
			!in_group(fd, cr.gid, cfg.gid) ? -EACCES : 0;
	victim = oldest_of(cr.uid, 0, &n);
	if (n < MAX_PENDING_UID)
		victim = npending < MAX_PENDING ? -1 : oldest_of(0, 1, &n);
	if (victim >= 0) {
		client_log(LOG_NOTICE, &conns[victim],
			   "dropped: too many connections waiting");
		conn_close(victim);
	}
	i = free_head;
	c = &conns[i];
	free_head = c->next;
	*c = probe;
	c->fd = fd;
	c->deadline_ms = now_ms() + USPIN_STATED_SERVER_TIMEOUT_MS;
	c->next = -1;
	c->prev = fifo_tail;
	if (fifo_tail >= 0)
		conns[fifo_tail].next = i;
	else
		fifo_head = i;
	fifo_tail = i;
	npending++;
	ev.data.u32 = TOKEN_CONN0 + i;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		client_log(LOG_ERR, c, "epoll_ctl: %s", strerror(errno));
		conn_close(i);
	}
}

/* Accept until the backlog is empty.  -1: stop listening for a while. */
static int accept_all(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			add_conn(fd);
			continue;
		}
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return 0;
		logmsg(LOG_WARNING, "accept: %s", strerror(errno));
		return -1;	/* EMFILE, ENFILE, ENOMEM: back off */
	}
}

static int serve_forever(int lfd, int sfd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct epoll_event evs[64];
	int64_t paused_until = 0;
	int i, n, timeout;

	for (i = 0; i < MAX_PENDING; i++) {
		conns[i].fd = -1;
		conns[i].next = i + 1 < MAX_PENDING ? i + 1 : -1;
	}
	free_head = 0;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -errno;
	ev.data.u32 = TOKEN_LISTEN;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev) != 0)
		return -errno;
	ev.data.u32 = TOKEN_SIGNAL;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev) != 0)
		return -errno;
	for (;;) {
		int64_t t = now_ms();

		while (fifo_head >= 0 && conns[fifo_head].deadline_ms <= t) {
			client_log(LOG_NOTICE, &conns[fifo_head],
				   "dropped: no request within %d ms",
				   USPIN_STATED_SERVER_TIMEOUT_MS);
			conn_close(fifo_head);
		}
		if (paused_until && t >= paused_until) {
			ev.data.u32 = TOKEN_LISTEN;
			epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
			paused_until = 0;
		}
		timeout = fifo_head >= 0 ? (int)(conns[fifo_head].deadline_ms - t) : -1;
		if (paused_until && (timeout < 0 || paused_until - t < timeout))
			timeout = (int)(paused_until - t);
		n = epoll_wait(epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			uint32_t tok = evs[i].data.u32;

			if (tok == TOKEN_SIGNAL) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si) &&
				    si.ssi_signo != SIGHUP) {
					logmsg(LOG_INFO, "signal %u: stopping", si.ssi_signo);
					return 0;
				}
			} else if (tok == TOKEN_LISTEN) {
				if (accept_all(lfd) < 0) {
					epoll_ctl(epfd, EPOLL_CTL_DEL, lfd, NULL);
					paused_until = now_ms() + 100;
				}
			} else if (tok - TOKEN_CONN0 < MAX_PENDING &&
				   conns[tok - TOKEN_CONN0].fd >= 0) {
				serve((int)(tok - TOKEN_CONN0));
			}
		}
	}
}

/* --- main ------------------------------------------------------------- */

static int resolve_ids(void)
{
	struct passwd *pw;
	struct group *gr;

	if (cfg.group) {
		gr = getgrnam(cfg.group);
		if (!gr) {
			logmsg(LOG_ERR, "--group %s: no such group", cfg.group);
			return -1;
		}
		cfg.gid = gr->gr_gid;
	}
	pw = getpwnam(cfg.user);
	if (!pw) {
		logmsg(LOG_ERR, "--user %s: no such user", cfg.user);
		return -1;
	}
	if (pw->pw_uid == 0) {
		logmsg(LOG_ERR, "--user %s: must not be root", cfg.user);
		return -1;
	}
	cfg.run_uid = pw->pw_uid;
	cfg.run_gid = pw->pw_gid;
	return 0;
}

/* --remove: for uninstalls and tests; refuses while a helper runs. */
static int remove_all(void)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct uspin_stated_status *st;
	int lock = take_lock(0), fd;

	/*
	 * No lock file: no helper runs on these paths (systemd removes
	 * RuntimeDirectory= when the service stops), but the bpffs pin
	 * outlives it and is still ours to remove.
	 */
	if (lock < 0 && lock != -ENOENT) {
		logmsg(LOG_ERR, "%s.lock: %s", cfg.status,
		       lock == -EBUSY ? "a helper is running" : strerror(-lock));
		return 1;
	}
	st = old_status(&fd);	/* marks it dead */
	if (st)
		close(fd);
	if (cfg.pin) {
		unlink(cfg.pin);
		/* Also after a helper that failed between mkdir and pin. */
		dirname_of(cfg.pin, dir, sizeof(dir));
		rmdir(dir);	/* only if empty */
	}
	unlink(cfg.socket);
	unlink(cfg.status);
	snprintf(path, sizeof(path), "%s.lock", cfg.status);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "status", required_argument, NULL, 'S' },
		{ "pin", required_argument, NULL, 'P' },
		{ "no-pin", no_argument, NULL, 'N' },
		{ "group", required_argument, NULL, 'g' },
		{ "user", required_argument, NULL, 'u' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "remove", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	sigset_t sigs;
	int lock, lfd, sfd, err, o, ready[2] = { -1, -1 };
	char ok = 0;

	while ((o = getopt_long(argc, argv, "s:fh", opts, NULL)) != -1) {
		switch (o) {
		case 's': cfg.socket = optarg; break;
		case 'S': cfg.status = optarg; break;
		case 'P': cfg.pin = optarg; break;
		case 'N': cfg.pin = NULL; break;
		case 'g': cfg.group = optarg; break;
		case 'u': cfg.user = optarg; break;
		case 'f': cfg.foreground = 1; break;
		case 'R': cfg.remove = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (geteuid() != 0) {
		logmsg(LOG_ERR, "must run as root (loads BPF, pins, then drops to --user)");
		return 1;
	}
	umask(022);
	if (cfg.remove)
		return remove_all();
	if (resolve_ids() != 0)
		return 2;

	/*
	 * In the background, the child does everything and tells the
	 * parent when it is live: the command returns 0 only then, and
	 * errors still reach the terminal.
	 */
	if (!cfg.foreground) {
		pid_t pid;

		if (pipe2(ready, O_CLOEXEC) != 0) {
			perror("uspin-stated: pipe");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("uspin-stated: fork");
			return 1;
		}
		if (pid > 0) {
			close(ready[1]);
			return read(ready[0], &ok, 1) == 1 && ok == 1 ? 0 : 1;
		}
		close(ready[0]);
		setsid();
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		logmsg(LOG_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}

	err = safe_parent_dir(cfg.status);
	if (err)
		return 1;
	lock = take_lock(3000);
	if (lock < 0) {
		logmsg(LOG_ERR, "%s.lock: %s", cfg.status,
		       lock == -EBUSY ? "another uspin-stated is running" :
		       strerror(-lock));
		return 1;
	}
	err = publish();
	if (err) {
		logmsg(LOG_ERR, "cannot publish: %s", strerror(-err));
		if (status)
			mark_dead(status);
		return 1;
	}
	lfd = listen_on(cfg.socket);
	if (lfd < 0) {
		logmsg(LOG_ERR, "%s: %s", cfg.socket, strerror(-lfd));
		mark_dead(status);
		return 1;
	}
	err = drop_privileges();
	if (err) {
		logmsg(LOG_ERR, "cannot drop privileges to %s: %s", cfg.user,
		       strerror(-err));
		mark_dead(status);
		return 1;
	}
	logmsg(LOG_INFO, "live: pid %d, generation %u, socket %s%s%s, running as %s",
	       (int)getpid(), status->generation, cfg.socket,
	       cfg.group ? ", group " : "", cfg.group ? cfg.group : "", cfg.user);
	if (!cfg.foreground) {
		int null = open("/dev/null", O_RDWR);

		openlog("uspin-stated", LOG_PID, LOG_DAEMON);
		use_syslog = 1;
		ok = 1;
		if (write(ready[1], &ok, 1) != 1)
			return 1;
		close(ready[1]);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
	}
	err = serve_forever(lfd, sfd);
	/* Dead first, then stop publishing: clients never read a frozen map. */
	mark_dead(status);
	uspin_bpf_rs_destroy(&rs);
	if (err) {
		logmsg(LOG_ERR, "event loop: %s", strerror(-err));
		return 1;
	}
	return 0;
}
