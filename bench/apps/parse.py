# SPDX-License-Identifier: LGPL-2.1-or-later
"""Parsers and correctness checks for the raw output of bench/apps/apps.sh.

One function per application directory (raw/<app>/<point>/<config>/r<rep>/):
it reads what the programs printed and their rusage (apps-util run), and
returns rows (one per measured workload: RocksDB and pbzip2 measure two
or three phases, each a process of its own) and checks.  A check is
(name, ok, detail); any failed check fails the run.

Every row has: ops (the workload's operation, WORKLOADS[...]["op"]),
ops_per_s (the application's own figure where it prints one), the
process's CPU (user + system, from wait4 of the application and what it
reaped), context switches, and latency percentiles where the application
reports them.
"""
import math
import os
import re

# name: what one operation is, where throughput and latency come from.
WORKLOADS = {
    "memcached": dict(
        app="memcached",
        summary="memcached -t N under the configuration; memcaslap (a thread per CPU, 16 connections, "
                "90 % get / 10 % set, 10 % of gets verified) over loopback for a fixed time",
        op="request (get or set)",
        throughput="memcaslap's TPS",
        cpu="the server's CPU (user + system) over its whole life / requests",
        latency="memcaslap's per-request latency, p50/p99 estimated from its log2 histogram "
                "(factor-2 buckets, geometric interpolation inside a bucket)"),
    "rocksdb-fillrandom": dict(
        app="rocksdb",
        summary="db_bench fillrandom into a fresh DB on tmpfs (256 kB memtables: flushes and "
                "compactions run), N writer threads, fixed total writes",
        op="put", throughput="db_bench's ops/sec", cpu="the process's CPU / puts",
        latency="db_bench's per-operation histogram (P50, P99)"),
    "rocksdb-readrandom": dict(
        app="rocksdb",
        summary="db_bench readrandom on that DB, N reader threads; every key read was written "
                "(same seed), so every read must find its key",
        op="get", throughput="db_bench's ops/sec", cpu="the process's CPU / gets",
        latency="db_bench's per-operation histogram (P50, P99)"),
    "rocksdb-readwhilewriting": dict(
        app="rocksdb",
        summary="db_bench readwhilewriting: N readers and one unthrottled writer on that DB",
        op="get (the writer's puts are not counted)", throughput="db_bench's ops/sec",
        cpu="the process's CPU (readers and writer) / gets",
        latency="db_bench's per-read histogram (P50, P99)"),
    "kyoto-cache": dict(
        app="kyoto-cache",
        summary="kccachetest order -th N: every thread sets, gets and removes its own records "
                "in the in-memory cache hash DB",
        op="set, get or remove", throughput="operations / the sum of the three phases' times",
        cpu="the process's CPU / operations", latency=""),
    "kyoto-poly": dict(
        app="kyoto-poly",
        summary="kcpolytest order -th N on a B+ tree file (.kct) on tmpfs",
        op="set, get or remove", throughput="operations / the sum of the three phases' times",
        cpu="the process's CPU / operations", latency=""),
    "sysbench-mutex": dict(
        app="sysbench-mutex",
        summary="sysbench mutex: every thread locks one of 16 mutexes at random, increments, "
                "unlocks, then 200 empty loop iterations; fixed total locks",
        op="lock/unlock pair", throughput="pairs / sysbench's total time",
        cpu="the process's CPU / pairs", latency=""),
    "sysbench-threads": dict(
        app="sysbench-threads",
        summary="sysbench threads: an event is 100 x (lock one of 4 mutexes, sched_yield() "
                "holding it, unlock); as many events as the threads do in 1 s",
        op="event (100 lock + yield + unlock)", throughput="events / sysbench's total time",
        cpu="the process's CPU / events",
        latency="sysbench's per-event latency (p50 from its histogram, its 99th percentile)"),
    "pbzip2-compress": dict(
        app="pbzip2",
        summary="pbzip2 -pN -b1 (100 kB blocks) of a fixed generated text",
        op="MiB of input", throughput="MiB / the process's wall time",
        cpu="the process's CPU / MiB", latency=""),
    "pbzip2-decompress": dict(
        app="pbzip2",
        summary="pbzip2 -d -pN of that file; the result must equal the input, and the compressed "
                "file must be the same under every configuration",
        op="MiB of output", throughput="MiB / the process's wall time",
        cpu="the process's CPU / MiB", latency=""),
}
ORDER = list(WORKLOADS)

# The interference guard's thresholds (bench's defaults, docs/benchmarks.md).
GUARD_FOREIGN_CPUS = 0.25
GUARD_STEAL_PCT = 2.0


class Fail(Exception):
    pass


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        raise Fail("missing %s" % os.path.basename(path))


def read_kv(path):
    out = {}
    for line in read(path).splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def rusage(d, name):
    """The key=value file apps-util run wrote, numbers where they are."""
    kv = read_kv(os.path.join(d, name + ".ru"))
    ru = {k: (fnum(v) if k != "argv" else v) for k, v in kv.items()}
    ru["cpu_s"] = (ru.get("user_s") or 0) + (ru.get("sys_s") or 0)
    locks = os.path.join(d, name + ".locks")  # make bench-apps-lockcount
    if os.path.exists(locks):
        ru["locks"] = {}
        for line in read(locks).splitlines():  # one line per process
            for kv in line.split():
                k, _, v = kv.partition("=")
                ru["locks"][k] = ru["locks"].get(k, 0) + int(v or 0)
    return ru


def exit_check(ru, what):
    if ru.get("timeout"):
        return (what + " finished", False, "timed out after %.0f s" % (ru.get("wall_s") or 0))
    if ru.get("exit") != 0:
        sig = ru.get("signal") or 0
        return (what + " finished", False, "killed by signal %d" % sig if sig else
                "exit status %s" % ru.get("exit"))
    return (what + " finished", True, "")


def arg(ru, name, conv=int):
    """--name=value or -name value from the command line apps-util recorded."""
    argv = ru.get("argv", "").split()
    for i, a in enumerate(argv):
        if a.startswith(name + "="):
            return conv(a.split("=", 1)[1])
        if a == name and i + 1 < len(argv):
            return conv(argv[i + 1])
    return None


def percentile_hist(buckets, q):
    """buckets: [(lo, hi, count)] sorted; the q-quantile, interpolated geometrically."""
    total = sum(c for _, _, c in buckets)
    if total == 0:
        return None
    want = q * total
    acc = 0
    for lo, hi, c in buckets:
        if c and acc + c >= want:
            f = (want - acc) / c
            if lo <= 0:
                return lo + f * (hi - lo)
            return lo * math.exp(f * math.log(hi / lo))
        acc += c
    return buckets[-1][1]


def base_row(ru, ops, ops_per_s, hogs, window=None, extra_cpu=0.0):
    """The metrics every workload has, from the measured process's rusage.

    window: the rusage whose interval the guard judges (default ru);
    extra_cpu: CPU seconds of our other processes in that window (a client).
    """
    w = window or ru
    wall = w.get("wall_s") or 0
    row = {
        "ops": ops,
        "wall_s": ru.get("wall_s"),
        "ops_per_s": ops_per_s,
        "cpu_s": ru["cpu_s"],
        "cpu_us_per_op": ru["cpu_s"] / ops * 1e6 if ops else None,
        "user_us_per_op": (ru.get("user_s") or 0) / ops * 1e6 if ops else None,
        "sys_us_per_op": (ru.get("sys_s") or 0) / ops * 1e6 if ops else None,
        "cpus_busy": ru["cpu_s"] / ru["wall_s"] if ru.get("wall_s") else None,
        "vcsw_per_kop": ru.get("vcsw", 0) / ops * 1e3 if ops else None,
        "ivcsw_per_kop": ru.get("ivcsw", 0) / ops * 1e3 if ops else None,
        "maxrss_kb": ru.get("maxrss_kb"),
        "cpus_allowed": ru.get("cpus_allowed"),
    }
    for k, v in ru.get("locks", {}).items():
        row["lc_%s_per_op" % k] = v / ops if ops else None
    # The guard: busy CPUs system-wide (ticks of /proc/stat) minus ours.
    hog_cpus = 0.0
    if hogs:
        if hogs.get("hog_wall_s"):
            hog_cpus = (hogs.get("hog_cpu_s") or 0) / hogs["hog_wall_s"]
        row["hog_cpus"] = hog_cpus
    if wall > 0 and w.get("clk_tck"):
        busy = w.get("stat_busy_ticks", 0) / w["clk_tck"] / wall
        ours = (ru["cpu_s"] + extra_cpu) / wall + hog_cpus
        row["busy_cpus"] = busy
        row["foreign_cpus"] = busy - ours
        total = w.get("stat_total_ticks") or 0
        row["steal_pct"] = 100.0 * w.get("stat_steal_ticks", 0) / total if total else 0.0
        why = []
        if row["foreign_cpus"] > GUARD_FOREIGN_CPUS:
            why.append("foreign")
        if row["steal_pct"] > GUARD_STEAL_PCT:
            why.append("steal")
        row["disturbed"] = 1 if why else 0
        row["disturbed_why"] = "+".join(why)
    return row


def hogs_of(d):
    p = os.path.join(d, "hogs.txt")
    if not os.path.exists(p):
        return None
    return {k: fnum(v) for k, v in read_kv(p).items()}


# --- memcached ----------------------------------------------------------------
def memcaslap_latency(text):
    """p50, p99 (ns) and avg (ns) of the last 'Total Statistics (N events)' block."""
    blocks = re.split(r"\n(?=\S)", text)
    blk = None
    for b in blocks:
        if re.match(r"Total Statistics \(\d+ events\)", b):
            blk = b
    if blk is None:
        return None, None, None
    avg = re.search(r"Avg:\s+([\d.]+)", blk)
    buckets = []
    on = False
    for line in blk.splitlines():
        if "Log2 Dist" in line:
            on = True
            continue
        m = re.match(r"\s+(\d+):\s+([\d\s]+)$", line)
        if on and m:
            k = int(m.group(1))
            for i, c in enumerate(m.group(2).split()):
                e = k + i
                buckets.append((2.0 ** e, 2.0 ** (e + 1), int(c)))
    buckets.sort()
    p50 = percentile_hist(buckets, 0.50)
    p99 = percentile_hist(buckets, 0.99)
    return (p50 * 1e3 if p50 else None, p99 * 1e3 if p99 else None,
            float(avg.group(1)) * 1e3 if avg else None)


def parse_memcached(d, ctx):
    checks = []
    server = rusage(d, "server")
    client = rusage(d, "client")
    checks.append(exit_check(client, "memcaslap"))
    # SIGTERM is how the harness stops the server: a clean exit is 0.
    checks.append(exit_check(server, "memcached"))
    out = read(os.path.join(d, "client.out"))
    m = re.search(r"Run time: ([\d.]+)s Ops: (\d+) TPS: (\d+)", out)
    if not m:
        raise Fail("memcaslap printed no 'Run time: ... Ops: ... TPS:' line")
    ops, tps = int(m.group(2)), float(m.group(3))
    checks.append(("memcaslap completed requests", ops > 0, "%d requests" % ops))
    for key in ("verify_failed", "verify_misses"):
        v = re.search(r"^%s: (\d+)" % key, out, re.M)
        checks.append(("memcaslap %s = 0" % key, bool(v) and int(v.group(1)) == 0,
                       "%s: %s" % (key, v.group(1) if v else "not printed")))
    v = re.search(r"^cmd_get: (\d+)", out, re.M)
    checks.append(("memcaslap verified gets", bool(v) and int(v.group(1)) > 0, ""))
    if ctx["expect_preload"]:
        maps = read(os.path.join(d, "server.maps")).strip()
        checks.append(("libuspin mapped into memcached", bool(maps),
                       maps.splitlines()[0] if maps else "not in /proc/PID/maps"))
    row = base_row(server, ops, tps, hogs_of(d), window=client, extra_cpu=client["cpu_s"])
    row["lat_p50_ns"], row["lat_p99_ns"], row["lat_avg_ns"] = memcaslap_latency(out)
    row["client_cpu_us_per_op"] = client["cpu_s"] / ops * 1e6 if ops else None
    return [("memcached", row)], checks


def parse_memcached_capable(d, ctx):
    ru = rusage(d, "capable")
    out = read(os.path.join(d, "capable.out"))
    fails = [l.strip() for l in out.splitlines() if "[FAIL]" in l]
    passes = sum(1 for l in out.splitlines() if "[pass]" in l)
    return [], [exit_check(ru, "memccapable"),
                ("memccapable: all tests passed", "All tests passed" in out and not fails and passes > 0,
                 "%d passed; failed: %s" % (passes, "; ".join(fails) if fails else "none"))]


# --- RocksDB --------------------------------------------------------------------
def db_bench(d, name, bench, ctx, hogs):
    ru = rusage(d, name)
    checks = [exit_check(ru, "db_bench " + bench)]
    out = read(os.path.join(d, name + ".out"))
    m = re.search(r"^%s\s*:\s*([\d.]+) micros/op (\d+) ops/sec ([\d.]+) seconds (\d+) operations;(.*)$"
                  % bench, out, re.M)
    if not m:
        raise Fail("db_bench printed no '%s : ... ops/sec' line" % bench)
    ops = int(m.group(4))
    threads = arg(ru, "--threads") or 1
    per = arg(ru, "--writes" if bench == "fillrandom" else "--reads")
    if per is not None:
        checks.append(("db_bench %s: every operation done" % bench, ops == per * threads,
                       "%d operations, expected %d" % (ops, per * threads)))
    found = re.search(r"\(\s*(\d+) of (\d+) found\)", m.group(5))
    if bench != "fillrandom":
        # Readers draw the keys the writers of the same seed wrote: all there.
        checks.append(("db_bench %s: every key found" % bench,
                       bool(found) and found.group(1) == found.group(2) and int(found.group(2)) > 0,
                       found.group(0) if found else "no '(N of M found)'"))
    row = base_row(ru, ops, float(m.group(2)), hogs)
    p = re.search(r"Percentiles: P50: ([\d.]+) P75: [\d.]+ P99: ([\d.]+)", out[m.end():] or out)
    if p:
        row["lat_p50_ns"] = float(p.group(1)) * 1e3
        row["lat_p99_ns"] = float(p.group(2)) * 1e3
    avg = re.search(r"^Count: \d+ Average: ([\d.]+)", out[m.end():], re.M)
    if avg:
        row["lat_avg_ns"] = float(avg.group(1)) * 1e3
    return row, checks


def parse_rocksdb(d, ctx):
    hogs = hogs_of(d)
    rows, checks = [], []
    for name, bench, wl in (("fill", "fillrandom", "rocksdb-fillrandom"),
                            ("read", "readrandom", "rocksdb-readrandom"),
                            ("rww", "readwhilewriting", "rocksdb-readwhilewriting")):
        row, c = db_bench(d, name, bench, ctx, hogs)
        rows.append((wl, row))
        checks += c
    ru = rusage(d, "verify")
    out = read(os.path.join(d, "verify.out"))
    checks.append(exit_check(ru, "db_bench verifychecksum"))
    checks.append(("db_bench verifychecksum: no corruption",
                   re.search(r"^verifychecksum\s*:", out, re.M) is not None and "Corruption" not in out,
                   ""))
    return rows, checks


# --- Kyoto Cabinet --------------------------------------------------------------
def parse_kyoto(d, ctx, wl):
    ru = rusage(d, "kc")
    checks = [exit_check(ru, wl)]
    out = read(os.path.join(d, "kc.out"))
    hdr = re.search(r"rnum=(\d+)\s+thnum=(\d+)", out)
    if not hdr:
        raise Fail("no 'rnum=... thnum=...' header")
    rnum, th = int(hdr.group(1)), int(hdr.group(2))
    phases = {}
    for name in ("setting records", "getting records", "removing records"):
        # Progress dots precede the count, without a newline when few.
        m = re.search(r"^%s:\n[\s\S]*?count: (\d+)[\s\S]*?\ntime: ([\d.]+)" % name, out, re.M)
        if not m:
            raise Fail("no '%s:' phase with count and time" % name)
        phases[name] = (int(m.group(1)), float(m.group(2)))
    want = rnum * th
    checks.append(("%s: every record set" % wl, phases["setting records"][0] == want,
                   "count %d after setting, expected %d" % (phases["setting records"][0], want)))
    checks.append(("%s: every record removed" % wl, phases["removing records"][0] == 0,
                   "count %d after removing" % phases["removing records"][0]))
    last = [l for l in out.splitlines() if l.strip()]
    checks.append(("%s: the test's own verdict is ok" % wl, bool(last) and last[-1].strip() == "ok",
                   last[-1].strip() if last else "no output"))
    ops = 3 * want
    t = sum(v[1] for v in phases.values())
    row = base_row(ru, ops, ops / t if t > 0 else None, hogs_of(d))
    return [(wl, row)], checks


# --- sysbench ---------------------------------------------------------------------
def sysbench_common(d, ru, wl):
    checks = [exit_check(ru, wl)]
    out = read(os.path.join(d, "sb.out"))
    t = re.search(r"total time:\s+([\d.]+)s", out)
    e = re.search(r"total number of events:\s+(\d+)", out)
    if not t or not e:
        raise Fail("sysbench printed no total time / number of events")
    return out, float(t.group(1)), int(e.group(1)), checks


def parse_sysbench_mutex(d, ctx):
    ru = rusage(d, "sb")
    out, t, events, checks = sysbench_common(d, ru, "sysbench-mutex")
    threads = arg(ru, "--threads")
    locks = arg(ru, "--mutex-locks")
    # One event per thread: its whole run of --mutex-locks locks.
    checks.append(("sysbench mutex: every thread finished", events == threads,
                   "%d events, %s threads" % (events, threads)))
    ops = (threads or 0) * (locks or 0)
    return [("sysbench-mutex", base_row(ru, ops, ops / t if t > 0 else None, hogs_of(d)))], checks


def parse_sysbench_threads(d, ctx):
    ru = rusage(d, "sb")
    out, t, events, checks = sysbench_common(d, ru, "sysbench-threads")
    # A fixed time: the events are what the threads got done in it, and
    # the per-thread counts (fairness line) must add up to them.
    fair = re.search(r"events \(avg/stddev\):\s+([\d.]+)/", out)
    threads = arg(ru, "--threads") or 0
    checks.append(("sysbench threads: events done and accounted per thread",
                   events > 0 and bool(fair) and abs(float(fair.group(1)) * threads - events) < 0.5 + 1e-3 * events,
                   "%d events, %s per thread x %d threads" % (events, fair.group(1) if fair else "?", threads)))
    row = base_row(ru, events, events / t if t > 0 else None, hogs_of(d))
    hist = []
    for m in re.finditer(r"^\s+([\d.]+) \|\**\s+(\d+)$", out, re.M):
        hist.append((float(m.group(1)), int(m.group(2))))
    if hist:
        # sysbench's histogram: a count per value (ms); no interpolation.
        total = sum(c for _, c in hist)
        acc = 0
        for v, c in hist:
            acc += c
            if acc >= 0.5 * total:
                row["lat_p50_ns"] = v * 1e6
                break
    p99 = re.search(r"99th percentile:\s+([\d.]+)", out)
    if p99:
        row["lat_p99_ns"] = float(p99.group(1)) * 1e6
    avg = re.search(r"avg:\s+([\d.]+)", out)
    if avg:
        row["lat_avg_ns"] = float(avg.group(1)) * 1e6
    return [("sysbench-threads", row)], checks


# --- pbzip2 -------------------------------------------------------------------------
def parse_pbzip2(d, ctx):
    hogs = hogs_of(d)
    rows, checks = [], []
    size = int(read(os.path.join(d, "input.bytes")).strip())
    mib = size / 1048576.0
    for name, wl in (("compress", "pbzip2-compress"), ("decompress", "pbzip2-decompress")):
        ru = rusage(d, name)
        checks.append(exit_check(ru, "pbzip2 " + name))
        rows.append((wl, base_row(ru, mib, mib / ru["wall_s"] if ru.get("wall_s") else None, hogs)))
    rt = read(os.path.join(d, "roundtrip.txt")).strip()
    checks.append(("pbzip2: decompressed = input", rt == "same", rt))
    md5 = read(os.path.join(d, "compressed.md5")).strip()
    ctx.setdefault("pbzip2_md5", {}).setdefault((size, md5), []).append(d)
    return rows, checks


PARSERS = {
    "memcached": parse_memcached,
    "memcached-capable": parse_memcached_capable,
    "rocksdb": parse_rocksdb,
    "kyoto-cache": lambda d, ctx: parse_kyoto(d, ctx, "kyoto-cache"),
    "kyoto-poly": lambda d, ctx: parse_kyoto(d, ctx, "kyoto-poly"),
    "sysbench-mutex": parse_sysbench_mutex,
    "sysbench-threads": parse_sysbench_threads,
    "pbzip2": parse_pbzip2,
}


def cross_checks(ctx):
    """Checks across runs: pbzip2 writes the same file under every configuration."""
    checks = []
    by_size = {}
    for (size, md5), dirs in ctx.get("pbzip2_md5", {}).items():
        by_size.setdefault(size, []).append((md5, dirs))
    for size, variants in by_size.items():
        if len(variants) == 1:
            checks.append(("pbzip2: the same compressed file in every run", True,
                           "%d runs, md5 %s" % (len(variants[0][1]), variants[0][0])))
        else:
            variants.sort(key=lambda v: -len(v[1]))
            odd = ["%s (%d runs, e.g. %s)" % (m, len(ds), ds[0]) for m, ds in variants[1:]]
            checks.append(("pbzip2: the same compressed file in every run", False,
                           "most runs %s; different: %s" % (variants[0][0], "; ".join(odd))))
    return checks
