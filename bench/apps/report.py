#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/apps/report.py - the real applications' results, from raw output.

usage: bench/apps/report.py APPS_DIR [--allow-no-preload]

APPS_DIR (results/<ts>/apps) holds one folder per side (host/, guest/)
as bench/apps/apps.sh left it: env.txt, configs/, raw/.  For each side:
- parses every run (bench/apps/parse.py) and applies its correctness
  checks; a failed check, a missing run, or a uspin configuration whose
  wrapper did not put libuspin into the applications makes this script
  exit 1 (--allow-no-preload: testing a harness with a stub wrapper);
- writes repeats.csv (one row per workload x point x configuration x
  round; rows of failed runs are kept = 0), meta.json and points.csv
  (every metric's median and 95 % bootstrap interval, descriptive; the
  geometric mean of the per-round ratios to glibc with its 95 % t
  interval, p, q and the call of the one verdict rule,
  bench/benchlib/verdict.py);
then plots/ (one bar chart per workload and metric: ratio to glibc with
interval whiskers, host and guest side by side, PNG + SVG) and
summary.md.  The statistics are bench/benchlib's (docs/benchmarks.md,
"Method"); docs/apps.md describes the workloads.
"""
import argparse
import csv
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
sys.path.insert(0, here)

from benchlib import colours, gnuplot, stats, summary, verdict  # noqa: E402
from benchlib.data import Side  # noqa: E402
from benchlib.stats import fmt_num  # noqa: E402
from benchlib.summary import md_table  # noqa: E402

import parse  # noqa: E402

BASELINE = "glibc"
SIDES = (("host", "host (running kernel)"), ("guest", "guest (patched kernel, QEMU)"))
# Metrics compared against glibc: (column, label, unit, scale, higher is better).
METRICS = [("ops_per_s", "throughput", "", 1, True),
           ("cpu_us_per_op", "CPU/op", "us", 1, False),
           ("lat_p50_ns", "p50", "us", 1e-3, False),
           ("lat_p99_ns", "p99", "us", 1e-3, False),
           ("vcsw_per_kop", "vcsw/kop", "", 1, False),
           ("ivcsw_per_kop", "ivcsw/kop", "", 1, False)]
ID = ["workload", "point", "lock", "rep", "kept", "check", "threads", "hogs"]
COLUMNS = ["ops", "wall_s", "ops_per_s", "cpu_s", "cpu_us_per_op", "user_us_per_op",
           "sys_us_per_op", "cpus_busy", "vcsw_per_kop", "ivcsw_per_kop", "lat_p50_ns",
           "lat_p99_ns", "lat_avg_ns", "client_cpu_us_per_op", "maxrss_kb", "hog_cpus",
           "busy_cpus", "foreign_cpus", "steal_pct", "cpus_allowed", "disturbed", "disturbed_why"]


def read_kv(path):
    try:
        return parse.read_kv(path)
    except parse.Fail:
        return {}


def order_locks(locks):
    """glibc first, then the table's order (bench/benchlib/colours.py)."""
    return [l for l in locks if l == BASELINE] + colours.order([l for l in locks if l != BASELINE])


def point_label(point):
    t, h = point.split("-h")
    return "%s threads%s" % (t[1:], ", %s hogs" % h if h != "0" else "")


def info_field(info_text, field):
    """A line of uspin-info's output ("running-state:", "auto policy:")."""
    for line in info_text.splitlines():
        if line.startswith(field + ":"):
            return line.split(":", 1)[1].strip()
    return "?"


def provider_of(info_text):
    return info_field(info_text, "running-state")


def parse_side(path, name, run, allow_no_preload):
    """Parses raw/, writes repeats.csv and meta.json; returns the failed checks."""
    env = read_kv(os.path.join(path, "env.txt"))
    configs = env.get("configs", "").split()
    reps = int(env.get("reps", "0") or 0)
    raw = os.path.join(path, "raw")
    failures, passed = [], {}
    rows = []
    conf_meta = []
    preload = {}
    for c in configs:
        kv = read_kv(os.path.join(path, "configs", c + ".txt"))
        info = ""
        p = os.path.join(path, "configs", c + ".info")
        if os.path.exists(p):
            info = open(p, errors="replace").read()
        preload[c] = kv.get("preload") == "yes"
        conf_meta.append({"name": c, "wrapper": kv.get("wrapper", ""),
                          "preload": kv.get("preload", "?"), "preload_path": kv.get("preload_path", ""),
                          "running_state_provider": provider_of(info) if info else "?",
                          "policy": info_field(info, "auto policy") if info else "?",
                          "uspin_info": info.strip().splitlines()})
        if c != BASELINE and not preload[c] and not allow_no_preload:
            failures.append((name, "-", c, "-", "the wrapper preloads libuspin", kv.get("wrapper", "?")))

    def record(wl, point, c, rep, check):
        what, ok, detail = check
        key = (wl, what)
        if ok:
            passed[key] = passed.get(key, 0) + 1
        else:
            failures.append((name, wl, c, "%s r%d" % (point, rep), what, detail))
            passed.setdefault(key, 0)
        return ok

    ctx = {}
    apps = sorted(os.listdir(raw)) if os.path.isdir(raw) else []
    for app in apps:
        if app not in parse.PARSERS:
            continue
        for point in sorted(os.listdir(os.path.join(raw, app))):
            for c in configs:
                ctx["expect_preload"] = c != BASELINE and not allow_no_preload
                for rep in range(1, (1 if app == "memcached-capable" else reps) + 1):
                    d = os.path.join(raw, app, point, c, "r%d" % rep)
                    try:
                        got, checks = parse.PARSERS[app](d, ctx)
                    except parse.Fail as e:
                        got, checks = [], [("%s: output complete" % app, False, "%s (%s)" % (e, d))]
                    ok = all([record(app, point, c, rep, ch) for ch in checks])
                    if app == "memcached-capable":
                        continue
                    t, h = point.split("-h")
                    for wl, r in got:
                        r.update(workload=wl, point=point, lock=c, rep=rep, kept=1 if ok else 0,
                                 check="pass" if ok else "fail", threads=t[1:], hogs=h)
                        rows.append(r)
    for ch in parse.cross_checks(ctx):
        record("pbzip2", "all", "all", 0, ch)
    if not rows:
        failures.append((name, "-", "-", "-", "runs", "no runs found under %s" % raw))

    cols = COLUMNS + sorted({k for r in rows for k in r if k.startswith("lc_")})
    with open(os.path.join(path, "repeats.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ID + cols)
        for r in rows:
            w.writerow([r.get(k, "") for k in ID] +
                       ["%.6g" % r[k] if isinstance(r.get(k), float) else r.get(k, "")
                        for k in cols])

    seen = {}
    for r in rows:
        seen.setdefault(r["workload"], [])
        if r["point"] not in seen[r["workload"]]:
            seen[r["workload"]].append(r["point"])
    walls = sorted(r["wall_s"] for r in rows if r.get("wall_s"))
    ua = [m for m in conf_meta if m["name"] == "uspin-user-adaptive"]
    uinfo = ""
    if os.path.exists(os.path.join(path, "uspin-info.txt")):
        uinfo = open(os.path.join(path, "uspin-info.txt"), errors="replace").read()
    meta = {
        "mode": "apps", "side": name,
        "git_revision": run.get("git_revision", "unknown"), "git_dirty": run.get("git_dirty", "?"),
        "command": run.get("command", ""), "host_cpu_model": run.get("host_cpu_model", ""),
        "cpu_model": env.get("cpu_model", ""), "kernel": env.get("kernel", "?"),
        "machine": env.get("machine", ""), "cpus_allowed": env.get("ncpus", "?"),
        "clocksource": env.get("clocksource", "?"), "date": env.get("date", "?"),
        "running_state_provider": (ua[0]["running_state_provider"] if ua else provider_of(uinfo)),
        "futex_lock_adaptive": env.get("futex_lock_adaptive", "?"),
        "uspin_info": uinfo.strip().splitlines(),
        "versions": {k[8:]: v for k, v in run.items() if k.startswith("version_")},
        "method": {"repeats": reps, "seconds": "%.2g" % stats.median(walls) if walls else "?",
                   "quick": env.get("quick"), "scale_pct": env.get("scale"), "hogs": env.get("hogs"),
                   "order": "rounds; in each, every point under every configuration, rotated by the round",
                   "guard_foreign_cpus": parse.GUARD_FOREIGN_CPUS, "guard_steal_pct": parse.GUARD_STEAL_PCT,
                   "bootstrap_resamples": stats.RESAMPLES, "bootstrap_seed": stats.SEED},
        "workloads": [dict(name=wl, x_axis="threads", points=seen[wl], **parse.WORKLOADS[wl])
                      for wl in parse.ORDER if wl in seen],
        "locks": conf_meta,
        "checks": {"passed": sum(passed.values()), "failed": len(failures),
                   "by_check": ["%s: %s: %d passed" % (wl, what, n) for (wl, what), n in sorted(passed.items())]},
    }
    with open(os.path.join(path, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return failures, passed


def comparisons(side):
    """{(wl, point, lock, metric): Comparison} against glibc."""
    out = {}
    for wl in side.workloads():
        for point in side.point_ids(wl):
            for lock in side.locks():
                for metric, *_ in METRICS:
                    c = summary.compare_pair(side, wl, point, lock, BASELINE, metric)
                    if c:
                        hib = dict((m[0], m[4]) for m in METRICS)[metric]
                        c.verdict = verdict.verdict(c.paired, hib)
                        out[(wl, point, lock, metric)] = c
    return out


def write_points_csv(side, comps):
    with open(os.path.join(side.path, "points.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "point", "lock", "metric", "n", "median", "lo", "hi", "baseline",
                    "base_median", "base_lo", "base_hi", "ratio", "ratio_lo", "ratio_hi", "p", "q",
                    "verdict"])
        for (wl, point, lock, metric), c in comps.items():
            v, b, r = c.value, c.base, c.paired
            w.writerow([wl, point, lock, metric, r.n] +
                       ["%.6g" % x for x in (v.median, v.lo, v.hi)] + [BASELINE] +
                       ["%.6g" % x for x in (b.median, b.lo, b.hi, r.ratio, r.lo, r.hi, r.p, r.q)] +
                       [c.verdict])


def plots(top, sides, comps):
    """One chart per workload and metric: bars per configuration, host and guest side by side."""
    made = {}
    plotdir = os.path.join(top, "plots")
    captions = [summary.caption(s) for s in sides]
    wls = [wl for wl in parse.ORDER if any(wl in s.workloads() for s in sides)]
    for wl in wls:
        for metric, label, better in (("ops_per_s", "throughput", "higher is better"),
                                      ("cpu_us_per_op", "CPU per operation", "lower is better")):
            cats, series = [], {}
            for s in sides:
                if wl not in s.workloads():
                    continue
                for point in s.point_ids(wl):
                    cat = "%s: %s" % (s.name, point_label(point))
                    cats.append(cat)
                    for lock in s.locks():
                        c = comps[s.name].get((wl, point, lock, metric))
                        if lock == BASELINE or not c:
                            continue
                        series.setdefault(lock, {})[cat] = (c.paired.ratio, c.paired.lo, c.paired.hi)
            if not series:
                continue
            ordered = [(l, series[l]) for l in colours.order(list(series))]
            base = os.path.join(plotdir, "%s-%s" % (wl, "throughput" if metric == "ops_per_s" else "cpu"))
            # One caption line per side, host on top (gnuplot.py draws the
            # caption at the bottom and footnote lines above it).
            gnuplot.ratio_bars(base, "%s: %s relative to glibc (%s)" % (wl, label, better),
                               captions[-1], "%s / glibc's (per-round ratio, 95 %% interval)" % label,
                               BASELINE, cats, ordered, footnote=captions[:-1])
            made.setdefault(wl, []).append((label, os.path.relpath(base, top)))
    return made


def fmt_val(c, scale=1):
    return "%s [%s, %s]" % (fmt_num(c.value.median * scale), fmt_num(c.value.lo * scale),
                            fmt_num(c.value.hi * scale))


LOCKCOUNT = (("mutex_lock", "mutex lock"), ("mutex_trylock", "trylock"), ("cond_wait", "cond wait"),
             ("cond_timedwait", "cond timedwait"), ("cond_signal", "signal"),
             ("cond_broadcast", "broadcast"), ("rwlock_rdlock", "rwlock rd"),
             ("rwlock_wrlock", "rwlock wr"), ("spin_lock", "spin lock"), ("sched_yield", "sched_yield"))


def lockcount_medians(side, keys):
    """(workload, point, configuration, medians over runs of each key's count per operation)."""
    for wl in side.workloads():
        for point in side.point_ids(wl):
            for lock in order_locks(side.locks()):
                meds = []
                for k, _ in keys:
                    v = side.values(wl, point, lock, "lc_%s_per_op" % k)
                    meds.append(stats.median(list(v.values())) if v else None)
                yield wl, point, lock, meds


def lockcount_section(side, out):
    """make bench-apps-lockcount: lock calls per operation (medians over runs)."""
    if not any(k.startswith("lc_") for r in side.rows for k in r if r.get(k)):
        return
    rows = []
    for wl, point, lock, meds in lockcount_medians(side, LOCKCOUNT):
        cells = ["-" if m is None else "0" if m == 0 else "<0.001" if m < 0.001 else fmt_num(m)
                 for m in meds]
        if any(c != "-" for c in cells):
            rows.append([wl, point_label(point), lock] + cells)
    out.append("Lock calls per operation (an LD_PRELOAD counter, `make bench-apps-lockcount`; the "
               "drop-in replaces the mutex and condvar calls, rwlocks, spin locks and sched_yield stay "
               "glibc's):\n")
    out.append(md_table(["workload", "point", "configuration"] + [l for _, l in LOCKCOUNT], rows))
    holds_table(side, out)


HOLDS = (("hold_lt1us", "< 1 us"), ("hold_1us", "1-10 us"), ("hold_10us", "10-100 us"),
         ("hold_100us", "0.1-1 ms"), ("hold_1ms", ">= 1 ms"))


def holds_table(side, out):
    """The same counter's mutex hold times: the share of holds per decade."""
    rows = []
    for wl, point, lock, per_op in lockcount_medians(side, HOLDS):
        total = sum(x for x in per_op if x)
        if None not in per_op and total:
            rows.append([wl, point_label(point), lock] +
                        ["%.1f %%" % (100 * x / total) for x in per_op] + [fmt_num(total)])
    if rows:
        out.append("\nMutex hold times, lock (or a condvar wait's return) to unlock (or the wait), "
                   "as shares of all holds; the owner's running state can only matter in sections "
                   "longer than a futex sleep and wake-up (a few us):\n")
        out.append(md_table(["workload", "point", "configuration"] + [l for _, l in HOLDS] +
                            ["holds per op"], rows))


def side_section(side, label, comps, failures, out):
    m = side.meta
    out.append("## %s\n" % label)
    out.append("_%s_\n" % summary.caption(side))
    out.append("Kernel %s, %s CPUs, clocksource %s; FUTEX_LOCK_ADAPTIVE %s. Each configuration's "
               "wrapper, whether libuspin was mapped into a dynamic program started through it, and "
               "the policy and running-state provider libuspin reports under it (uspin-info):\n" % (
                   m.get("kernel"), m.get("cpus_allowed"), m.get("clocksource"),
                   "present" if m.get("futex_lock_adaptive") == "1" else "absent"))
    out.append(md_table(["configuration", "wrapper", "libuspin preloaded", "policy",
                         "running-state provider"],
                        [[l["name"], "`%s`" % l["wrapper"] if l["wrapper"] else "(none)",
                          l["preload"] + (" (%s)" % l["preload_path"] if l["preload_path"] else ""),
                          l.get("policy", "?") if l["name"] != BASELINE else "-",
                          l["running_state_provider"] if l["name"] != BASELINE else "-"]
                         for l in m.get("locks", [])]))
    if "jiffies" in str(m.get("clocksource", "")):
        out.append("**Warning: the clocksource is %s: under load this guest loses timer ticks (a 30 s "
                   "sleep with two hogs took 39-55 s of host time), so its rates are inflated, more "
                   "with hogs; boot it with tsc=reliable (bench/apps/run does when kernel/vm-run has "
                   "--append).**\n" % m.get("clocksource"))
    for l in m.get("locks", []):
        if not l["name"].startswith("uspin-"):
            continue
        want, _, want_provider = l["name"][len("uspin-"):].partition("@")
        provider = l["running_state_provider"]
        if l.get("policy", "?") != "?" and not l["policy"].startswith(want):
            out.append("**Warning: %s: libuspin reports policy '%s' under its wrapper.**\n" % (
                l["name"], l["policy"]))
        if want_provider and not provider.startswith(want_provider):
            out.append("**Warning: %s: libuspin reports running-state provider '%s' under its "
                       "wrapper.**\n" % (l["name"], provider))
        # The proposal in the guest is the kernel's array; anything else
        # means kernel.sched_running_state was left at 0.
        if (side.name == "guest" and want == "user-adaptive" and not want_provider
                and provider != "?" and not provider.startswith("vdso")):
            out.append("**Warning: %s ran on the %s provider, not the kernel's array (vdso): "
                       "kernel.sched_running_state was not enabled; these are not the proposal's "
                       "numbers.**\n" % (l["name"], provider))
        if want == "user-adaptive" and l["running_state_provider"].startswith("none"):
            out.append("**Warning: uspin-user-adaptive ran without a running-state provider (a bounded "
                       "spin, not the proposal): on the host, run as root so that uspin-stated is "
                       "started.**\n")
    out.append("Versions: %s.\n" % ", ".join("%s %s" % kv for kv in sorted(m.get("versions", {}).items())))
    dist = side.disturbed()
    out.append("Guard: %d of %d runs disturbed (foreign load > %.2f CPUs or steal > %g %%; marked †, not "
               "rerun).\n" % (len(dist), len(side.rows), parse.GUARD_FOREIGN_CPUS, parse.GUARD_STEAL_PCT))
    # The calls against glibc, over every workload and point.
    tal = []
    for lock in colours.order([l for l in side.locks() if l != BASELINE]):
        cells = [lock + (" (proposal)" if colours.is_proposal(lock) else "")]
        for metric in ("ops_per_s", "cpu_us_per_op", "lat_p99_ns"):
            t = summary.tally([c for (wl, p, l, mm), c in comps.items() if l == lock and mm == metric])
            cells.append(summary.beiw(t.get(lock, {})))
        tal.append(cells)
    if tal:
        out.append("Against glibc, over every workload and point (better / equivalent / inconclusive / "
                   "worse):\n")
        out.append(md_table(["configuration", "throughput", "CPU/op", "p99"], tal))
    lockcount_section(side, out)
    for wl in side.workloads():
        w = side.workload_meta(wl)
        out.append("### %s: %s\n" % (label.split(" ")[0], wl))
        out.append("%s. One operation: %s; throughput: %s; CPU: %s%s.\n" % (
            w.get("summary", ""), w.get("op", ""), w.get("throughput", ""), w.get("cpu", ""),
            "; latency: " + w["latency"] if w.get("latency") else ""))
        has_lat = any(side.values(wl, p, l, "lat_p99_ns") for p in side.point_ids(wl) for l in side.locks())
        head = ["point", "configuration", "throughput [95 % CI]", "ratio to glibc", "CPU/op us [CI]",
                "ratio"]
        if has_lat:
            head += ["p50 us", "p99 us [CI]", "p99 ratio"]
        head += ["vcsw/kop", "ivcsw/kop"]
        rows = []
        for point in side.point_ids(wl):
            for lock in order_locks(side.locks()):
                c = comps.get((wl, point, lock, "ops_per_s"))
                if lock == BASELINE:
                    c = summary.compare_pair(side, wl, point, lock, BASELINE, "ops_per_s")
                if not c:
                    continue
                mark = " †" if any(r.get("disturbed") == "1" for r in
                                   side.points.get((wl, point), {}).get(lock, {}).values()) else ""
                cpu = summary.compare_pair(side, wl, point, lock, BASELINE, "cpu_us_per_op")
                cpu_c = comps.get((wl, point, lock, "cpu_us_per_op"))
                name = "**%s**" % lock if colours.is_proposal(lock) else lock
                r = [point_label(point), name + mark, fmt_val(c),
                     summary.cell(c) if lock != BASELINE else "1",
                     fmt_val(cpu) if cpu else "-",
                     summary.cell(cpu_c) if cpu_c and lock != BASELINE else ("1" if cpu else "-")]
                if has_lat:
                    p50 = summary.compare_pair(side, wl, point, lock, BASELINE, "lat_p50_ns")
                    p99 = summary.compare_pair(side, wl, point, lock, BASELINE, "lat_p99_ns")
                    p99_c = comps.get((wl, point, lock, "lat_p99_ns"))
                    r += [fmt_num(p50.value.median * 1e-3) if p50 else "-",
                          fmt_val(p99, 1e-3) if p99 else "-",
                          summary.cell(p99_c) if p99_c and lock != BASELINE else ("1" if p99 else "-")]
                for metric in ("vcsw_per_kop", "ivcsw_per_kop"):
                    v = side.values(wl, point, lock, metric)
                    r.append(fmt_num(stats.median(list(v.values()))) if v else "-")
                rows.append(r)
        out.append(md_table(head, rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("apps_dir")
    ap.add_argument("--allow-no-preload", action="store_true",
                    help="do not fail when a uspin configuration's wrapper did not preload libuspin")
    ap.add_argument("--no-plots", action="store_true", help="tables only (bench/apps/check.sh)")
    args = ap.parse_args()
    top = args.apps_dir
    run = read_kv(os.path.join(top, "run.txt"))
    failures, passed = [], {}
    sides = []
    invocations = []   # the distinct run.txt behind the sides, for the header
    for name, label in SIDES:
        path = os.path.join(top, name)
        if not os.path.isdir(os.path.join(path, "raw")):
            continue
        # The side's own run.txt (bench/apps/run copies it there); older
        # result folders have only the top-level one.
        side_run = read_kv(os.path.join(path, "run.txt")) or run
        if side_run not in invocations:
            invocations.append(side_run)
        f, p = parse_side(path, name, side_run, args.allow_no_preload)
        failures += f
        for k, v in p.items():
            passed[(name,) + k] = v
        sides.append((Side(path, name), label))
    comps = {}
    for side, _ in sides:
        comps[side.name] = comparisons(side)
        write_points_csv(side, comps[side.name])
    made = plots(top, [s for s, _ in sides], comps) if sides and not args.no_plots else {}

    out = ["# uspin real applications: %s\n" % os.path.basename(os.path.dirname(os.path.abspath(top)))]
    for srun in [r for r in invocations or [run] if r.get("command")]:
        out.append("Command: `%s` (rev %s%s).\n" % (srun["command"], srun.get("git_revision", "?"),
                                                      "+dirty" if srun.get("git_dirty") == "1" else ""))
    if os.path.exists(os.path.join(top, "WARNING-busy.txt")):
        out.append("**Warning: other heavy work ran during this run; see WARNING-busy.txt.**\n")
    out.append("How to read: unmodified Debian applications, run under glibc as it is and under "
               "`uspin-run --policy P` (the pthread drop-in). Every number is the median over rounds (each "
               "round runs every point under every configuration, in rotated order); ratios to glibc are "
               "taken per round (geometric mean, 95 %% t interval) and each point gets one call, better, "
               "worse (▲ / ▼: the ratio above / below 1), equivalent (=) or inconclusive (·): %s. Medians' intervals: percentile bootstrap, %d resamples, seed %d, "
               "descriptive. docs/apps.md says what each workload measures and what TCG distorts.\n"
               % (verdict.rule_line(), stats.RESAMPLES, stats.SEED))
    if args.allow_no_preload:
        out.append("**Testing only: the uspin configurations were not required to preload libuspin "
                   "(--allow-no-preload); they may have run on glibc.**\n")
    out.append("## Correctness checks\n")
    if failures:
        out.append("**FAILED: %d check(s) failed; the run fails.**\n" % len(failures))
        out.append(md_table(["side", "workload", "configuration", "run", "check", "detail"],
                            [list(f) for f in failures[:200]]))
    npass = sum(passed.values())
    out.append("%s %d checks passed (per side and application: the checks, and how many runs "
               "passed each):\n" % ("Besides," if failures else "Every check passed:", npass))
    per = {}
    for (sname, app, what), n in sorted(passed.items()):
        per.setdefault((sname, app), []).append("%s (%d)" % (what, n))
    out.append(md_table(["side", "application", "checks (runs passed)"],
                        [[k[0], k[1], "; ".join(v)] for k, v in per.items()]))
    if not sides:
        out.append("No results (no side has a raw/ folder).\n")
    have = {s.name for s, _ in sides}
    for name, label in SIDES:
        if name not in have:
            out.append("## %s\n\nno results (run failed or not requested).\n" % label)
    if made:
        out.append("## Plots\n")
        out.append("One chart per workload and metric: each configuration's per-round ratio to glibc "
                   "(geometric mean, 95 % interval as whiskers), host and guest side by side; the proposal "
                   "(uspin-user-adaptive) has the black border.\n")
        for wl in parse.ORDER:
            for label, rel in made.get(wl, []):
                out.append("- %s, %s: ![%s %s](%s.png) ([svg](%s.svg))" % (wl, label, wl, label, rel, rel))
        out.append("")
    for side, label in sides:
        side_section(side, label, comps[side.name], failures, out)
    with open(os.path.join(top, "summary.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    for f in failures:
        print("bench/apps/report.py: FAILED: %s" % " | ".join(str(x) for x in f), file=sys.stderr)
    print("bench/apps/report.py: %d checks passed, %d failed; %s" % (
        npass, len(failures), os.path.join(top, "summary.md")))
    return 1 if failures or not sides else 0


if __name__ == "__main__":
    sys.exit(main())
