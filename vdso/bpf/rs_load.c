// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rs_load.c - size, load, freeze and attach the running-state program.
 *
 * Entries use encoding 2 (0 = unknown), so a new map needs no fill: it is
 * frozen right after the load, which makes every user-space write path
 * (mmap PROT_WRITE, mprotect, BPF_MAP_UPDATE_ELEM) fail while the programs
 * keep writing.  A frozen map's fd is what the helper hands out: a
 * BPF_F_RDONLY fd cannot be mmapped at all (the kernel drops VM_SHARED
 * from read-only file mappings, and bpf_map_mmap requires it).  For the
 * same reason a map taken over from an earlier helper can only be reset
 * from BPF: the uspin_reset program (BPF_PROG_TYPE_SYSCALL) does it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rs_layout.h"
#include "rs_load.h"
#include "running_state.skel.h"

/*
 * Cover pid_max as it is now (a later increase reads UNKNOWN above it),
 * and one chunk more for the run queues.
 */
static uint32_t map_chunks(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	if (v == 0 ||
	    v > (unsigned long)USPIN_BPF_MAX_TID_CHUNKS * USPIN_BPF_CHUNK_TIDS)
		v = (unsigned long)USPIN_BPF_MAX_TID_CHUNKS * USPIN_BPF_CHUNK_TIDS;
	return (uint32_t)((v + USPIN_BPF_CHUNK_TIDS - 1) / USPIN_BPF_CHUNK_TIDS) + 1;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	return 0;
}

/**
 * uspin_bpf_rs_check_map() - whether @fd is a running-state map of this
 * layout (array of page-sized chunks, mmapable, named uspin_rs).
 * @chunks: its number of chunks, the run queues' included.
 * @id: its kernel id.
 *
 * Return: 0, -EINVAL if it is some other map, or the bpf() error.
 */
int uspin_bpf_rs_check_map(int fd, uint32_t *chunks, uint32_t *id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
	    info.value_size != USPIN_BPF_CHUNK_BYTES ||
	    info.map_flags != USPIN_BPF_MAP_FLAGS || info.max_entries < 2 ||
	    info.max_entries > USPIN_BPF_MAX_CHUNKS ||
	    strcmp(info.name, "uspin_rs") != 0)
		return -EINVAL;
	*chunks = info.max_entries;
	*id = info.id;
	return 0;
}

/**
 * uspin_bpf_rs_load_map() - open, size and load the programs; freeze the map.
 * @rs: filled on success.
 * @verbose: let libbpf print its diagnostics (the helper); else silent.
 * @reuse_fd: a map to adopt (checked with uspin_bpf_rs_check_map(); it
 *	keeps its size), or -1 for a new map sized for pid_max.
 *
 * Not attached yet.  The reset program is loaded only with a reused map.
 * Return: 0 or a negative errno.
 */
int uspin_bpf_rs_load_map(struct uspin_bpf_rs *rs, int verbose, int reuse_fd)
{
	libbpf_print_fn_t old = NULL;
	struct running_state_bpf *skel;
	uint32_t chunks = map_chunks(), id = 0;
	int err;

	memset(rs, 0, sizeof(*rs));
	rs->map_fd = -1;
	if (reuse_fd >= 0) {
		err = uspin_bpf_rs_check_map(reuse_fd, &chunks, &id);
		if (err)
			return err;
	}
	if (!verbose)
		old = libbpf_set_print(quiet_print);
	skel = running_state_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	skel->rodata->uspin_rq_chunk = chunks - 1;
	err = bpf_map__set_max_entries(skel->maps.uspin_rs, chunks);
	if (!err && reuse_fd >= 0)
		err = bpf_map__reuse_fd(skel->maps.uspin_rs, reuse_fd);
	/* The repair program needs sched_exit_tp (Linux 6.16+). */
	if (!err && libbpf_find_vmlinux_btf_id("sched_exit_tp",
						BPF_TRACE_RAW_TP) < 0)
		err = bpf_program__set_autoload(skel->progs.uspin_sched_exit,
						false);
	if (!err && reuse_fd < 0)
		err = bpf_program__set_autoload(skel->progs.uspin_reset, false);
	if (!err)
		err = running_state_bpf__load(skel);
	if (err)
		goto out_destroy;
	rs->map_fd = bpf_map__fd(skel->maps.uspin_rs);
	if (reuse_fd < 0) {
		/* A new map is zero: every entry unknown, no fill needed. */
		if (bpf_map_freeze(rs->map_fd) != 0) {
			err = -errno;
			goto out_destroy;
		}
		err = uspin_bpf_rs_check_map(rs->map_fd, &chunks, &id);
		if (err)
			goto out_destroy;
	}
	rs->skel = skel;
	rs->map_id = id;
	rs->reused = reuse_fd >= 0;
	rs->nr_entries = (chunks - 1) * USPIN_BPF_CHUNK_TIDS;
	rs->map_bytes = (size_t)chunks * USPIN_BPF_CHUNK_BYTES;
	goto out;

out_destroy:
	running_state_bpf__destroy(skel);
	rs->map_fd = -1;
out:
	if (!verbose)
		libbpf_set_print(old);
	return err < 0 ? err : -err;
}

/**
 * uspin_bpf_rs_load() - load with a new map (measurement tools).
 * @rs: filled on success.
 * @verbose: let libbpf print its diagnostics.
 *
 * Return: 0 or a negative errno.
 */
int uspin_bpf_rs_load(struct uspin_bpf_rs *rs, int verbose)
{
	return uspin_bpf_rs_load_map(rs, verbose, -1);
}

/* Attach @prog into @link, unless it was not loaded (an absent hook). */
static int attach_one(struct bpf_program *prog, struct bpf_link **link)
{
	int err;

	if (!bpf_program__autoload(prog))
		return 0;
	*link = bpf_program__attach(prog);
	err = -libbpf_get_error(*link);
	if (err)
		*link = NULL;
	return err;
}

/** uspin_bpf_rs_attach() - start tracking switches.  0 or negative errno. */
int uspin_bpf_rs_attach(struct uspin_bpf_rs *rs)
{
	struct running_state_bpf *skel = rs->skel;
	/*
	 * Every tracing program: sched_switch, the wake-ups that grow a run
	 * queue (without them the run queues are published at switches
	 * only), and where present the repair.  The syscall program has no
	 * attach point.
	 */
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} hooks[] = {
		{ skel->progs.uspin_sched_switch, &skel->links.uspin_sched_switch },
		{ skel->progs.uspin_sched_wakeup, &skel->links.uspin_sched_wakeup },
		{ skel->progs.uspin_sched_wakeup_new,
		  &skel->links.uspin_sched_wakeup_new },
		{ skel->progs.uspin_sched_exit, &skel->links.uspin_sched_exit },
	};
	size_t i;
	int err;

	if (rs->link)
		return 0;
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		err = attach_one(hooks[i].prog, hooks[i].link);
		if (err) {
			running_state_bpf__detach(skel);
			return err;
		}
	}
	rs->link = skel;	/* the links live in skel->links */
	return 0;
}

/**
 * uspin_bpf_rs_detach() - stop tracking.  Entries keep their last value,
 * so only a measurement tool or a helper that has marked itself dead may
 * detach.
 */
void uspin_bpf_rs_detach(struct uspin_bpf_rs *rs)
{
	if (!rs->link)
		return;
	running_state_bpf__detach(rs->skel);
	rs->link = NULL;
}

/**
 * uspin_bpf_rs_reset() - set every entry of a reused map to unknown.
 * @rs: loaded with a reused map.
 *
 * Return: 0, or a negative errno (-ENOENT: not loaded with a reused map).
 */
int uspin_bpf_rs_reset(struct uspin_bpf_rs *rs)
{
	const struct running_state_bpf *skel = rs->skel;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd;

	if (!skel || !rs->reused)
		return -ENOENT;
	fd = bpf_program__fd(skel->progs.uspin_reset);
	if (fd < 0)
		return -ENOENT;
	if (bpf_prog_test_run_opts(fd, &opts) != 0)
		return -errno;
	/* It returns the chunks it cleared: all of them, or it failed. */
	return opts.retval * USPIN_BPF_CHUNK_TIDS ==
	       rs->nr_entries + USPIN_BPF_CHUNK_TIDS ? 0 : -EIO;
}

/* For measurements: the program's fd (run_time_ns, run_cnt). */
int uspin_bpf_rs_prog_fd(const struct uspin_bpf_rs *rs)
{
	const struct running_state_bpf *skel = rs->skel;

	return bpf_program__fd(skel->progs.uspin_sched_switch);
}

int uspin_bpf_rs_repair_prog_fd(const struct uspin_bpf_rs *rs)
{
	const struct running_state_bpf *skel = rs->skel;

	return bpf_program__fd(skel->progs.uspin_sched_exit);
}

void uspin_bpf_rs_destroy(struct uspin_bpf_rs *rs)
{
	uspin_bpf_rs_detach(rs);
	if (rs->skel)
		running_state_bpf__destroy(rs->skel);
	memset(rs, 0, sizeof(*rs));
	rs->map_fd = -1;
}
