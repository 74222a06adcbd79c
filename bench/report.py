#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py - plots and summary.md from a uspin-bench results folder.

usage: bench/report.py RESULTS_DIR

RESULTS_DIR holds host/ and/or guest/, each written by `uspin-bench all`
(meta.json, repeats.csv, points.csv, kv.csv, micro.csv).  For each and for
each (period, duty): throughput and CPU time per iteration against threads,
one line per lock, error bars min..max over the repeats, in PNG and SVG.
summary.md: the metadata, the headline tables, the kv store, the micro
benchmarks and the skipped locks.  Standard library and gnuplot only.
"""
import csv
import json
import os
import statistics
import subprocess
import sys

ENVS = (("host", "host (stock kernel)"), ("guest", "guest (patched kernel, QEMU/TCG)"))
# The baseline every ratio is against: the mutex to beat (design.md §6).
BASELINE = "pthread_mutex_adaptive"


def read_csv(path):
    """Rows as dicts; lines a guest console mangled are dropped."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return []
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if len(r) == len(head)]


def spread(values):
    return statistics.median(values), min(values), max(values)


def load_env(path):
    meta_path = os.path.join(path, "meta.json")
    if not os.path.exists(meta_path):
        return None
    with open(meta_path) as f:
        meta = json.load(f)
    pts = {}
    for r in read_csv(os.path.join(path, "repeats.csv")):
        try:
            key = (r["lock"], int(r["period"]), int(r["duty"]), int(r["threads"]))
            cpu = float(r["user_us_per_iter"]) + float(r["sys_us_per_iter"])
            vals = {k: float(r[k]) for k in r if k not in ("lock",)}
        except (KeyError, ValueError):
            continue
        vals["cpu_us_per_iter"] = cpu
        pts.setdefault(key, []).append(vals)
    return {
        "meta": meta,
        "points": pts,
        "kv": read_csv(os.path.join(path, "kv.csv")),
        "micro": read_csv(os.path.join(path, "micro.csv")),
    }


def metric(env, key, name):
    return spread([v[name] for v in env["points"][key]])


def lock_order(env):
    seen = [l["label"] for l in env["meta"].get("locks", [])]
    for k in env["points"]:
        if k[0] not in seen:
            seen.append(k[0])
    return [l for l in seen if any(k[0] == l for k in env["points"])]


def plot(env, envname, outdir, period, duty):
    """Two plots for one (period, duty): throughput and CPU per iteration."""
    meta = env["meta"]
    locks = lock_order(env)
    datdir = os.path.join(outdir, "plotdata")
    os.makedirs(datdir, exist_ok=True)
    files = []
    for lock in locks:
        fn = os.path.join(datdir, "p%d-d%d-%s.dat" % (period, duty, lock.replace("(", "_").replace(")", "")))
        rows = sorted(k[3] for k in env["points"] if k[:3] == (lock, period, duty))
        with open(fn, "w") as f:
            f.write("# threads tput_med tput_min tput_max cpu_med cpu_min cpu_max (kit/s, us/iter)\n")
            for t in rows:
                k = (lock, period, duty, t)
                tp = [x / 1e3 for x in metric(env, k, "iters_per_s")]
                cp = metric(env, k, "cpu_us_per_iter")
                f.write("%d %g %g %g %g %g %g\n" % ((t,) + tuple(tp) + tuple(cp)))
        files.append((lock, os.path.relpath(fn, outdir)))
    title = "period %d instructions, duty %d%% - %s, kernel %s, %s CPUs" % (
        period, duty, envname, meta.get("kernel", "?"), meta.get("cpus_online", "?"))
    made = []
    for kind, col, ylabel, logy in (
            ("throughput", 2, "throughput (thousand iterations / s)", True),
            ("cpu", 5, "CPU time per iteration (us, user + system)", True)):
        base = "%s-p%d-d%d" % (kind, period, duty)
        for term, ext in (("pngcairo size 1000,620 font ',10'", "png"), ("svg size 1000,620 dynamic", "svg")):
            gp = [
                "set terminal %s" % term,
                "set output '%s.%s'" % (base, ext),
                "set title \"%s\" noenhanced" % title,
                "set xlabel 'threads'",
                "set ylabel '%s'" % ylabel,
                "set logscale x 2",
                "set xtics (1,2,4,8,16,32,64,128,256)",
                "set grid",
                "set key outside right top noenhanced",
            ]
            if logy:
                gp.append("set logscale y 10")
            tmax = max(k[3] for k in env["points"])
            gp.append("set xrange [0.8:%g]" % (tmax * 1.25))
            # gnuplot cycles 8 colours: the next 8 locks get dashes too.
            plots = ["'%s' using 1:%d:%d:%d with yerrorlines lw 2 lt %d pt %d dt %d title '%s'" % (
                fn, col, col + 1, col + 2, i % 8 + 1, i + 1, 1 + i // 8, lock)
                for i, (lock, fn) in enumerate(files)]
            gp.append("plot " + ", \\\n  ".join(plots))
            script = os.path.join(datdir, "%s.%s.gp" % (base, ext))
            with open(script, "w") as f:
                f.write("\n".join(gp) + "\n")
            subprocess.run(["gnuplot", os.path.relpath(script, outdir)], cwd=outdir, check=True)
        made.append(base)
    return made


def fmt(x, digits=3):
    if x >= 100:
        return "%.0f" % x
    return "%.*g" % (digits, x)


def headline(env, out):
    """Throughput per lock at each (period, duty, threads), best in bold."""
    locks = lock_order(env)
    keys = sorted({k[1:] for k in env["points"]})
    threads = sorted({k[2] for k in keys})
    show = [t for t in threads if t >= 2] or threads
    if len(show) > 3:
        show = [show[0], show[len(show) // 2], show[-1]]
    out.append("Throughput, thousand iterations/s (median of %d repeats; **best**; "
               "last column: best uspin policy vs %s):\n" % (env["meta"].get("repeats", 0), BASELINE))
    out.append("| period | duty | threads | " + " | ".join(locks) + " | uspin best / %s |" % BASELINE)
    out.append("|---|---|---|" + "---|" * len(locks) + "---|")
    for (p, d, t) in keys:
        if t not in show:
            continue
        vals = {}
        for l in locks:
            k = (l, p, d, t)
            if k in env["points"]:
                vals[l] = metric(env, k, "iters_per_s")[0] / 1e3
        best = max(vals.values()) if vals else 0
        cells = []
        for l in locks:
            if l not in vals:
                cells.append("-")
            else:
                s = fmt(vals[l])
                cells.append("**%s**" % s if vals[l] == best else s)
        us = [v for l, v in vals.items() if l.startswith("uspin")]
        ratio = "%.2f" % (max(us) / vals[BASELINE]) if us and vals.get(BASELINE) else "-"
        out.append("| %d | %d %% | %d | %s | %s |" % (p, d, t, " | ".join(cells), ratio))
    out.append("")
    # Oversubscribed: where spinning on a descheduled owner would show.
    tmax = threads[-1]
    out.append("At %d threads (the most oversubscribed point): CPU us per iteration, "
               "voluntary / involuntary context switches per 1,000 iterations, "
               "acquisition latency p99 (us), fairness (Jain):\n" % tmax)
    out.append("| period | duty | lock | CPU us/it | vcsw/k | ivcsw/k | p50 us | p99 us | p99.9 us | Jain |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for (p, d, t) in keys:
        if t != tmax:
            continue
        for l in locks:
            k = (l, p, d, t)
            if k not in env["points"]:
                continue
            m = lambda n: metric(env, k, n)[0]
            out.append("| %d | %d %% | %s | %s | %s | %s | %s | %s | %s | %.3f |" % (
                p, d, l, fmt(m("cpu_us_per_iter")), fmt(m("vcsw_per_k")), fmt(m("ivcsw_per_k")),
                fmt(m("lat_p50_ns") / 1e3), fmt(m("lat_p99_ns") / 1e3),
                fmt(m("lat_p999_ns") / 1e3), m("jain")))
    out.append("")


def kv_table(env, out):
    if not env["kv"]:
        return
    out.append("Key-value store (rculfhash, %s readers under RCU, writers serialised by the lock; "
               "5 %% of writes hold it for a 32-key batch):\n" % env["kv"][0]["readers"])
    out.append("| writers | lock | kreads/s | kwrites/s (min..max) | writer latency p50 us | p99 us | p99.9 us | CPUs busy |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(env["kv"], key=lambda r: int(r["writers"])):
        f = lambda n: float(r[n])
        out.append("| %s | %s | %s | %s (%s..%s) | %s | %s | %s | %s |" % (
            r["writers"], r["lock"], fmt(f("reads_per_s_med") / 1e3), fmt(f("writes_per_s_med") / 1e3),
            fmt(f("writes_per_s_min") / 1e3), fmt(f("writes_per_s_max") / 1e3), fmt(f("wlat_p50_us_med")),
            fmt(f("wlat_p99_us_med")), fmt(f("wlat_p999_us_med")), fmt(f("cpus_busy_med"))))
    out.append("")


def micro_table(env, out):
    if not env["micro"]:
        return
    out.append("Microbenchmarks (uncontended lock+unlock through the harness's indirect call; "
               "running-state query):\n")
    out.append("| subject | ns (median) | min..max | vs cmpxchg pair | note |")
    out.append("|---|---|---|---|---|")
    for r in env["micro"]:
        out.append("| %s | %s | %s..%s | %s | %s |" % (r["subject"], r["ns_med"], r["ns_min"], r["ns_max"],
                                                   r["vs_cmpxchg_pair"], r["note"]))
    out.append("")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    top = sys.argv[1]
    out = ["# uspin benchmarks: %s" % os.path.basename(os.path.abspath(top)), ""]
    cmd = os.path.join(top, "command.txt")
    if os.path.exists(cmd):
        out.append("Command: `%s`\n" % open(cmd).read().strip())
    if os.path.exists(os.path.join(top, "WARNING-busy.txt")):
        out.append("**Warning: other heavy work ran during this run; see WARNING-busy.txt.**\n")
    found = 0
    for sub, envname in ENVS:
        env = load_env(os.path.join(top, sub))
        if env is None:
            out.append("## %s\n\nno results (run failed or not requested).\n" % envname)
            continue
        found += 1
        meta = env["meta"]
        cal = meta.get("calibration", {})
        out.append("## %s\n" % envname)
        out.append("- kernel: `%s` (%s), %s CPUs online" % (meta.get("kernel"), meta.get("kernel_version"),
                                                         meta.get("cpus_online")))
        out.append("- FUTEX_LOCK: %s, FUTEX_LOCK_ADAPTIVE: %s; running-state provider: **%s**; AUTO = %s" % (
            "yes" if meta.get("futex_lock") else "no", "yes" if meta.get("futex_lock_adaptive") else "no",
            meta.get("running_state_provider"), meta.get("auto_policy")))
        out.append("- calibration: 1 work round = %s instructions (%s), %.3f ns here; a period of 1,000 "
                   "is 1,000 instructions of work" % (cal.get("insn_per_round"), cal.get("source"),
                                                      cal.get("ns_per_round", 0)))
        out.append("- harness command: `%s`; %s repeats of %s s per point, locks interleaved; latency sampled "
                   "on 1 acquisition in %s" % (meta.get("command"), meta.get("repeats"), meta.get("seconds"),
                                               meta.get("latency_sample_one_in")))
        for l in meta.get("locks", []):
            if l.get("note"):
                out.append("- %s: %s" % (l["label"], l["note"]))
        for s in meta.get("skipped", []):
            out.append("- **skipped** %s: %s" % (s["name"], s["reason"]))
        out.append("")
        if env["points"]:
            headline(env, out)
            pds = sorted({k[1:3] for k in env["points"]})
            out.append("Plots (throughput and CPU per iteration against threads, one line per lock, "
                       "bars min..max):\n")
            for p, d in pds:
                made = plot(env, envname, os.path.join(top, sub), p, d)
                out.append("- period %d, duty %d %%: " % (p, d) + ", ".join(
                    "[%s](%s/%s.png) ([svg](%s/%s.svg))" % (m.split("-")[0], sub, m, sub, m) for m in made))
            out.append("")
        kv_table(env, out)
        micro_table(env, out)
    with open(os.path.join(top, "summary.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
