// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rs_load.c - size, load, initialise, freeze and attach the running-state
 * program.
 *
 * Order matters: the map is filled with UNKNOWN through a writable mapping
 * before the program is attached (threads not switched since the load must
 * not read "off"), then frozen, which makes every user-space write path
 * (mmap PROT_WRITE, mprotect, BPF_MAP_UPDATE_ELEM) fail while the program
 * keeps writing.  A frozen map's fd is what the helper hands out: a
 * BPF_F_RDONLY fd cannot be mmapped at all (the kernel drops VM_SHARED from
 * read-only file mappings, and bpf_map_mmap requires it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rs_layout.h"
#include "rs_load.h"
#include "running_state.skel.h"

#define CHUNK_BYTES	(USPIN_BPF_CHUNK_TIDS * sizeof(uint32_t))
#define PID_MAX_LIMIT	(4u * 1024 * 1024)	/* the kernel's hard cap */

/* Cover pid_max as it is now; a later increase reads UNKNOWN above it. */
static uint32_t pid_max_now(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	if (v == 0 || v > PID_MAX_LIMIT)
		v = PID_MAX_LIMIT;
	return (uint32_t)v;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	return 0;
}

static int fill_unknown(struct uspin_bpf_rs *rs)
{
	void *p = mmap(NULL, rs->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		       rs->map_fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	memset(p, 0xff, rs->map_bytes);
	/* freeze refuses while a writable mapping exists */
	munmap(p, rs->map_bytes);
	return bpf_map_freeze(rs->map_fd) ? -errno : 0;
}

/**
 * uspin_bpf_rs_load() - open, size and load the program; fill and freeze
 * the map.  Not attached yet.  Returns 0 or a negative errno.
 * @verbose: let libbpf print its diagnostics (the helper); else silent.
 */
int uspin_bpf_rs_load(struct uspin_bpf_rs *rs, int verbose)
{
	libbpf_print_fn_t old = NULL;
	struct running_state_bpf *skel;
	uint32_t chunks = (pid_max_now() + USPIN_BPF_CHUNK_TIDS - 1) /
			  USPIN_BPF_CHUNK_TIDS;
	int err;

	memset(rs, 0, sizeof(*rs));
	rs->map_fd = -1;
	if (!verbose)
		old = libbpf_set_print(quiet_print);
	skel = running_state_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	err = bpf_map__set_max_entries(skel->maps.uspin_rs, chunks);
	/* The repair program needs sched_exit_tp (Linux 6.16+). */
	if (!err && libbpf_find_vmlinux_btf_id("sched_exit_tp",
						BPF_TRACE_RAW_TP) < 0)
		err = bpf_program__set_autoload(skel->progs.uspin_sched_exit,
						false);
	if (!err)
		err = running_state_bpf__load(skel);
	if (err)
		goto out_destroy;
	rs->skel = skel;
	rs->map_fd = bpf_map__fd(skel->maps.uspin_rs);
	rs->nr_entries = chunks * USPIN_BPF_CHUNK_TIDS;
	rs->map_bytes = (size_t)chunks * CHUNK_BYTES;
	err = fill_unknown(rs);
	if (err) {
		rs->skel = NULL;
		goto out_destroy;
	}
	goto out;

out_destroy:
	running_state_bpf__destroy(skel);
	rs->map_fd = -1;
out:
	if (!verbose)
		libbpf_set_print(old);
	return err < 0 ? err : -err;
}

/** uspin_bpf_rs_attach() - start tracking switches.  0 or negative errno. */
int uspin_bpf_rs_attach(struct uspin_bpf_rs *rs)
{
	struct running_state_bpf *skel = rs->skel;
	int err;

	if (rs->link)
		return 0;
	/* Every loaded program: sched_switch and, where present, the repair. */
	err = running_state_bpf__attach(skel);
	if (err) {
		running_state_bpf__detach(skel);
		return err < 0 ? err : -err;
	}
	rs->link = skel;	/* the links live in skel->links */
	return 0;
}

/**
 * uspin_bpf_rs_detach() - stop tracking.  Entries keep their last value,
 * so only a measurement tool (never a provider) may detach.
 */
void uspin_bpf_rs_detach(struct uspin_bpf_rs *rs)
{
	if (!rs->link)
		return;
	running_state_bpf__detach(rs->skel);
	rs->link = NULL;
}

/* For measurements: the program's fd (run_time_ns, run_cnt). */
int uspin_bpf_rs_prog_fd(const struct uspin_bpf_rs *rs)
{
	const struct running_state_bpf *skel = rs->skel;

	return bpf_program__fd(skel->progs.uspin_sched_switch);
}

void uspin_bpf_rs_destroy(struct uspin_bpf_rs *rs)
{
	uspin_bpf_rs_detach(rs);
	if (rs->skel)
		running_state_bpf__destroy(rs->skel);
	memset(rs, 0, sizeof(*rs));
	rs->map_fd = -1;
}

/**
 * uspin_bpf_self_load() - load and attach a private copy for this process
 * and map it read-only into @view.
 *
 * Only for privileged processes when no helper answers (provider_bpf.c
 * checks both).  The program stays attached, and its fds open, for the
 * life of the process: the view points into the map.
 */
int uspin_bpf_self_load(struct uspin_rs_view *view)
{
	static struct uspin_bpf_rs rs;
	void *p;
	int err;

	err = uspin_bpf_rs_load(&rs, 0);
	if (err)
		return -err;
	p = mmap(NULL, rs.map_bytes, PROT_READ, MAP_SHARED, rs.map_fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		goto fail;
	}
	err = -uspin_bpf_rs_attach(&rs);
	if (err) {
		munmap(p, rs.map_bytes);
		goto fail;
	}
	view->base = p;
	view->stride = 1;
	view->nr_entries = rs.nr_entries;
	return 0;
fail:
	uspin_bpf_rs_destroy(&rs);
	return err;
}
