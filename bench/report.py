#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py - plots, points.csv and summary.md for a results folder.

usage: bench/report.py RESULTS_DIR [--baseline SIDE=LOCK ...]

RESULTS_DIR holds one folder per side (host/, guest/, or any other with a
meta.json and a repeats.csv in the uspin-bench format).  For each side:
- the baseline: futex_lock_adaptive in the guest (the in-kernel spinner),
  glibc's adaptive mutex elsewhere (override with --baseline guest=LOCK);
- points.csv: per workload, point, lock and metric, the median and its
  95 % bootstrap interval (descriptive), the geometric mean of the
  per-round ratios to the baseline with its 95 % t interval, p, the
  Benjamini-Hochberg q, and the call of the one verdict rule
  (bench/benchlib/verdict.py: better / equivalent / inconclusive / worse);
- plots/: per workload and facet, the ratio to the baseline against the
  workload's axis, PNG + SVG (bench/benchlib/gnuplot.py);
and summary.md at the top: what was run, the guard's findings, the
calls counted per contender, tables per workload.  See docs/benchmarks.md.
"""
import argparse
import csv
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib import colours, gnuplot, stats, summary, verdict  # noqa: E402
from benchlib.data import Side  # noqa: E402
from benchlib.stats import fmt_num  # noqa: E402
from benchlib.summary import METRICS, md_table  # noqa: E402

SIDES = (("host", "host (running kernel)"), ("guest", "guest (patched kernel, QEMU)"))
# ("glibc": what the applications harness calls glibc as it is.)
BASELINES = {"guest": ["futex_lock_adaptive", "pthread_mutex_adaptive", "glibc"],
             None: ["pthread_mutex_adaptive", "pthread_mutex", "glibc"]}
# What each workload's tables and plots compare, first one headlines.
WORKLOAD_METRICS = {
    "micro": ["ns_per_op"],
    "sweep": ["ops_per_s", "cpu_us_per_op"],
    "open_loop": ["lat_p99_ns", "lat_p50_ns", "cpu_us_per_op"],
    "kv": ["ops_per_s", "lat_p99_ns", "cpu_us_per_op"],
}
DEFAULT_METRICS = ["ops_per_s", "cpu_us_per_op", "lat_p99_ns"]
VERDICT_METRICS = ["ops_per_s", "cpu_us_per_op", "lat_p99_ns"]
# Per-lock costs shown next to the verdicts for the workloads built for them.
COST_COLUMNS = (("spin_wasted_us_per_op", "wasted spin us/op"),
                ("spin_acquired_us_per_op", "useful spin us/op"),
                ("spin_owner_off_per_kop", "owner-off stops /kop"),
                ("spin_preempted_per_kop", "self-preempted stops /kop"),
                ("passed_to_spinner_per_kop", "passed to a spinner /kop"),
                ("blocks_per_kop", "blocks /kop"),
                ("holder_preempted_per_kop", "holders preempted /kop"),
                ("slice_granted_per_kop", "slice grants /kop"),
                ("cpus_busy", "CPUs busy"))
# Axes that are functions of others (not facets).
DERIVED = {"cs_insn", "out_insn", "readers", "tpc10"}


def metrics_of(wl):
    return WORKLOAD_METRICS.get(wl, DEFAULT_METRICS)


def facets(side, wl):
    """{facet key: [point ids]}, the facet being every varying axis but x."""
    x = side.workload_meta(wl).get("x_axis", "threads")
    ids = side.point_ids(wl)
    axes = {p: side.axes(wl, p) for p in ids}

    def splits(k):
        """k takes two values at one x: a facet (else it follows x)."""
        seen = {}
        for a in axes.values():
            if seen.setdefault(a.get(x), a.get(k)) != a.get(k):
                return True
        return False

    varying = sorted({k for a in axes.values() for k in a
                      if k != x and k not in DERIVED and splits(k)})
    fixed = sorted({k for a in axes.values() for k in a
                    if k != x and k not in DERIVED and k not in varying})
    out = {}
    for p in ids:
        key = tuple((k, axes[p].get(k)) for k in varying)
        out.setdefault(key, []).append(p)
    const = tuple((k, axes[ids[0]].get(k)) for k in fixed) if ids else ()
    return x, out, const


def facet_name(key):
    return ", ".join("%s %s" % (k, fmt_num(v)) for k, v in key if v) or "all points"


def facet_slug(key):
    """A file name: the values without fmt_num's thousands separators."""
    def plain(v):
        return str(int(v)) if float(v).is_integer() else "%g" % v
    return "-".join("%s%s" % (k, plain(v)) for k, v in key if v) or "all"


def write_points_csv(side, base, comps_by_metric):
    path = os.path.join(side.path, "points.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "point", "lock", "metric", "n", "median", "lo", "hi", "baseline",
                    "base_median", "base_lo", "base_hi", "ratio", "ratio_lo", "ratio_hi", "p", "q",
                    "verdict"])
        for metric, comps in comps_by_metric.items():
            for c in comps:
                v, b, r = c.value, c.base, c.paired
                w.writerow([c.workload, c.point, c.lock, metric, r.n] +
                           ["%.6g" % x for x in (v.median, v.lo, v.hi)] + [base] +
                           ["%.6g" % x for x in (b.median, b.lo, b.hi, r.ratio, r.lo, r.hi, r.p, r.q)] +
                           [c.verdict])
    return path


def disturbed_cell(side, wl, point, lock):
    reps = side.points.get((wl, point), {}).get(lock, {})
    return any(r.get("disturbed") == "1" for r in reps.values())


def plots_for(side, base, wl, caption):
    """Ratio plots of one workload; returns [(title, relative path base)]."""
    made = []
    x, fs, const = facets(side, wl)
    plotdir = os.path.join(side.path, "plots")
    for metric in metrics_of(wl):
        m = METRICS[metric]
        for key, ids in fs.items():
            series, foot = {}, {}
            for p in ids:
                xv = side.axes(wl, p).get(x)
                if xv is None:
                    continue
                for lock in side.locks():
                    if lock == base:
                        continue
                    c = summary.compare_pair(side, wl, p, lock, base, metric)
                    if not c:
                        continue
                    pt = (xv, c.paired.ratio, c.paired.lo, c.paired.hi)
                    (foot if colours.is_footnote(lock) else series).setdefault(lock, []).append(pt)
            if not series:
                continue
            footnote = ["off scale, ratio to %s: %s: %s" % (
                base, lock, ", ".join("%s %s: %s" % (x, fmt_num(px), fmt_num(pm)) for px, pm, _, _ in sorted(pts)))
                for lock, pts in foot.items()]
            name = "%s-%s-%s" % (wl, metric, facet_slug(key))
            title = "%s (%s): %s relative to %s (%s is better)" % (
                wl, facet_name(key + const), m.label, base, "higher" if m.higher_is_better else "lower")
            ylabel = "%s / %s's (geometric mean of per-round ratios, 95%% band)" % (m.label, base)
            if gnuplot.ratio_plot(os.path.join(plotdir, name), title, caption, x, ylabel, base,
                                  [(l, series[l]) for l in colours.order(series)], footnote):
                made.append((name, "%s/plots/%s" % (side.name, name)))
    return made


def micro_section(side, base, out):
    rows = []
    for lock in colours.order(side.locks()):
        vals = side.values("micro", "uncontended", lock, "ns_per_op")
        if not vals:
            continue
        v = stats.bootstrap_median(list(vals.values()))
        c = summary.compare_pair(side, "micro", "uncontended", lock, base, "ns_per_op") if lock != base else None
        rows.append([lock, v.fmt(), summary.cell(c) if c else "(baseline)", c.verdict if c else ""])
    if rows:
        out.append("Uncontended lock+unlock through the harness's indirect call, one idle thread alive "
                   "(ns; lower is better; ratio per round to %s):\n" % base)
        out.append(md_table(["lock", "ns [95 % interval]", "ratio [interval]", "verdict"], rows))


def workload_section(side, base, wl, caption, out, top):
    meta = side.workload_meta(wl)
    out.append("### %s\n" % wl)
    out.append("%s. Latency: %s.\n" % (meta.get("summary", ""), meta.get("latency", "")))
    if wl == "micro":
        micro_section(side, base, out)
        series = []
        for lock in colours.order(side.locks()):
            c = summary.compare_pair(side, wl, "uncontended", lock, base, "ns_per_op") if lock != base else None
            if c:
                series.append((lock, {"uncontended": (c.paired.ratio, c.paired.lo, c.paired.hi)}))
        name = "micro-ns_per_op"
        if gnuplot.ratio_bars(os.path.join(side.path, "plots", name),
                              "micro: uncontended lock+unlock relative to %s (lower is better)" % base,
                              caption, "ns per pair / %s's (geometric mean of per-round ratios, 95%% interval)" % base,
                              base, ["uncontended"], series):
            p = "%s/plots/%s" % (side.name, name)
            out.append("Plot: [%s](%s.png) ([svg](%s.svg))\n" % (name, p, p))
        return
    ids = side.point_ids(wl)
    locks = [l for l in colours.order(side.locks()) if l != base]
    main = [l for l in locks if not colours.is_footnote(l)]
    for metric in metrics_of(wl)[:2]:
        m = METRICS[metric]
        rows = []
        for p in ids:
            cells = []
            for lock in main:
                c = summary.compare_pair(side, wl, p, lock, base, metric)
                cells.append((summary.cell(c) + ("†" if disturbed_cell(side, wl, p, lock) else "")) if c else "-")
            bv = side.values(wl, p, base, metric)
            b = stats.bootstrap_median([v * m.scale for v in bv.values()]) if bv else None
            rows.append([p, b.fmt() if b else "-"] + cells)
        out.append("%s relative to %s (%s is better; per-round ratios, geometric mean [95 %% interval]; "
                   "▲ above 1 ▼ below = within ±5 %% · inconclusive; † a repetition was disturbed). "
                   "Baseline column: %s%s.\n" % (
                       m.label, base, "higher" if m.higher_is_better else "lower", m.label,
                       " (%s)" % m.unit if m.unit else ""))
        out.append(md_table(["point", base] + main, rows))
    # The workloads built to show the array: what spinning cost, per lock.
    if wl not in ("sweep", "micro"):
        rows = []
        for p in ids:
            for lock in colours.order(side.locks()):
                if not side.values(wl, p, lock, "ops_per_s"):
                    continue
                cells = []
                for col, _ in COST_COLUMNS:
                    v = side.values(wl, p, lock, col)
                    cells.append(fmt_num(stats.median(list(v.values()))) if v else "-")
                rows.append([p, lock] + cells)
        out.append("Costs (medians over rounds; libuspin's counters are blank for the other locks, "
                   "and for all where meta.json says uspin_thread_stats is absent):\n")
        out.append(md_table(["point", "lock"] + [c for _, c in COST_COLUMNS], rows))
    foot = [l for l in locks if colours.is_footnote(l)]
    for lock in foot:
        rows = []
        for p in ids:
            c = summary.compare_pair(side, wl, p, lock, base, metrics_of(wl)[0])
            if c:
                rows.append([p, summary.cell(c)])
        if rows:
            out.append("Footnote: %s (off the plots' scale), %s relative to %s:\n" % (
                lock, METRICS[metrics_of(wl)[0]].label, base))
            out.append(md_table(["point", "ratio [interval]"], rows))
    made = plots_for(side, base, wl, caption)
    if made:
        out.append("Plots: " + ", ".join("[%s](%s.png) ([svg](%s.svg))" % (n, p, p) for n, p in made) + "\n")


def side_section(side, base, out, top):
    m = side.meta
    caption = summary.caption(side)
    meth = m.get("method", {})
    out.append("## %s\n" % dict(SIDES).get(side.name, side.name))
    out.append("_%s_\n" % caption)
    out.append("- baseline: **%s**; proposal: **%s** (provider %s)" % (base, colours.PROPOSAL,
                                                                   m.get("running_state_provider")))
    out.append("- kernel ops: FUTEX_LOCK %s, FUTEX_LOCK_ADAPTIVE %s, FUTEX_UNLOCK %s; libuspin thread "
               "counters: %s; one running-state query %.2f ns (self read on-CPU %.0f %%)" % (
                   "yes" if m.get("futex_lock") else "no", "yes" if m.get("futex_lock_adaptive") else "no",
                   "yes" if m.get("futex_unlock") else "no", m.get("uspin_thread_stats", "?"),
                   m.get("rs_query_ns", 0), m.get("rs_query_self_on_cpu_pct", 0)))
    if m.get("running_state_provider", "none") != "none" and m.get("rs_query_self_on_cpu_pct", 100) < 99:
        out.append("- **WARNING: the %s provider did not see the harness's own running thread on a CPU "
                   "(%.0f %% of queries): the proposal was not told when owners run; its numbers are a "
                   "bounded spin's, not the running-state array's.**" % (
                       m.get("running_state_provider"), m.get("rs_query_self_on_cpu_pct", 0)))
    prov = str(m.get("running_state_provider", "none"))
    asked = str(m.get("running_state_provider_requested", ""))
    if asked and not prov.startswith(asked):
        out.append("- **WARNING: the run asked for the %s provider (USPIN_RS_PROVIDER) and got %s.**" % (
            asked, prov))
    elif asked:
        out.append("- the provider was chosen for this run: USPIN_RS_PROVIDER=%s" % asked)
    elif side.name == "guest" and not prov.startswith("vdso"):
        out.append("- **WARNING: the guest's provider is %s, not the kernel's array (vdso): was "
                   "kernel.sched_running_state left at 0?  These are not the proposal's numbers.**" % prov)
    cal = m.get("calibration", {})
    out.append("- work unit: %s instructions per round (%s), %.3f ns per round here; timestamps %s" % (
        cal.get("insn_per_round"), cal.get("source"), cal.get("ns_per_round", 0), m.get("timestamps")))
    out.append("- method: %s rounds x %s s per point, locks interleaved and rotated per round; "
               "latency sampled 1 in %s (closed loop); bootstrap %s resamples, seed %s (report: %d, %d)" % (
                   meth.get("repeats"), meth.get("seconds"), meth.get("latency_sample_one_in"),
                   meth.get("bootstrap_resamples"), meth.get("bootstrap_seed"), stats.RESAMPLES, stats.SEED))
    env = m.get("environment", {})
    if env:
        out.append("- environment: " + ", ".join("`%s=%s`" % kv for kv in env.items()))
    for l in m.get("locks", []):
        extra = []
        if l.get("process") == "own":
            extra.append("own process per repetition" + (" with " + " ".join("`%s`" % e for e in l.get("env", []))
                                                         if l.get("env") else ""))
        if l.get("note"):
            extra.append(l["note"])
        if extra:
            out.append("- %s: %s" % (l["name"], "; ".join(extra)))
    for s in m.get("skipped", []):
        out.append("- **skipped** %s: %s" % (s["name"], s["reason"]))
    dist = side.disturbed()
    reasons = {}
    for r in dist:
        for w in (r.get("disturbed_why") or "?").split("+"):
            reasons[w] = reasons.get(w, 0) + 1
    superseded = len(side.all_rows) - len(side.rows)
    out.append("- interference guard (foreign load > %s CPUs, steal > %s %%, fewer CPUs): %d of %d kept "
               "repetitions disturbed%s; %d repetitions superseded by reruns%s" % (
                   meth.get("guard_foreign_cpus"), meth.get("guard_steal_pct"), len(dist), len(side.rows),
                   " (" + ", ".join("%s %d" % kv for kv in sorted(reasons.items())) + ")" if reasons else "",
                   superseded, "" if m.get("finished") else "; **the run did not finish**"))
    out.append("")

    # Plots are regenerated from scratch: nothing stale survives.
    plotdir = os.path.join(side.path, "plots")
    shutil.rmtree(plotdir, ignore_errors=True)
    os.makedirs(plotdir)
    comps = {metric: summary.compare(side, base, metric) for metric in set(VERDICT_METRICS + ["ns_per_op"])}
    write_points_csv(side, base, comps)
    # Verdict counts: contended workloads only (micro has its own table).
    tallies = {metric: summary.tally([c for c in comps[metric] if c.workload != "micro"])
               for metric in VERDICT_METRICS}
    contenders = summary.contenders(side, base)
    rows = [[l + (" **(proposal)**" if colours.is_proposal(l) else "")] +
            [summary.beiw(tallies[mt].get(l, {})) for mt in VERDICT_METRICS] for l in contenders
            if any(l in tallies[mt] for mt in VERDICT_METRICS)]
    if rows:
        out.append("### Every contender against %s\n" % base)
        out.append("Better / equivalent / inconclusive / worse over all contended points of all workloads "
                   "(%s):\n" % verdict.rule_line())
        out.append(md_table(["contender"] + ["%s B/E/I/W" % METRICS[mt].label for mt in VERDICT_METRICS], rows))
    prop = colours.PROPOSAL
    if prop in side.locks():
        rows = []
        for other in [l for l in contenders + [base] if l != prop]:
            cells = []
            for mt in VERDICT_METRICS:
                cs = [summary.compare_pair(side, wl, p, prop, other, mt)
                      for wl in side.workloads() if wl != "micro" for p in side.point_ids(wl)]
                cells.append(summary.beiw(summary.tally([c for c in cs if c]).get(prop, {})))
            rows.append([other] + cells)
        out.append("### %s against each contender\n" % prop)
        out.append("The proposal against each contender, point by point (all contended workloads):\n")
        out.append(md_table(["against"] + ["%s B/E/I/W" % METRICS[mt].label for mt in VERDICT_METRICS], rows))
        per_wl = []
        for wl in side.workloads():
            if wl == "micro":
                continue
            t = summary.tally([c for c in comps["ops_per_s"] if c.workload == wl and c.lock == prop])
            t2 = summary.tally([c for c in comps["cpu_us_per_op"] if c.workload == wl and c.lock == prop])
            t3 = summary.tally([c for c in comps["lat_p99_ns"] if c.workload == wl and c.lock == prop])
            per_wl.append([wl, summary.beiw(t.get(prop, {})), summary.beiw(t2.get(prop, {})),
                           summary.beiw(t3.get(prop, {}))])
        out.append("By workload, against %s:\n" % base)
        out.append(md_table(["workload", "throughput B/E/I/W", "CPU/op B/E/I/W", "p99 B/E/I/W"], per_wl))
    for wl in side.workloads():
        workload_section(side, base, wl, caption, out, top)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--baseline", action="append", default=[], metavar="SIDE=LOCK")
    args = ap.parse_args()
    top = args.results
    forced = dict(b.split("=", 1) for b in args.baseline)
    out = ["# uspin benchmarks: %s\n" % os.path.basename(os.path.abspath(top))]
    cmd = os.path.join(top, "command.txt")
    if os.path.exists(cmd):
        out.append("Command: `%s`\n" % open(cmd).read().strip())
    if os.path.exists(os.path.join(top, "WARNING-busy.txt")):
        out.append("**Warning: other heavy work ran during this run; see WARNING-busy.txt.**\n")
    out.append("How to read: every number for a lock is the median over rounds (each round runs every lock "
               "once, interleaved), with its 95 %% percentile-bootstrap interval (%d resamples, seed %d; "
               "descriptive). Ratios are taken per round against the side's baseline: their geometric mean "
               "and 95 %% t interval, and one call per point, **better**, **equivalent**, **inconclusive** or "
               "**worse**: %s. Method and columns: docs/benchmarks.md.\n"
               % (stats.RESAMPLES, stats.SEED, verdict.rule_line()))
    sides = [d for d in sorted(os.listdir(top)) if os.path.exists(os.path.join(top, d, "meta.json"))]
    order = [s for s, _ in SIDES if s in sides] + [s for s in sides if s not in dict(SIDES)]
    for name, label in SIDES:
        if name not in sides:
            out.append("## %s\n\nno results (run failed or not requested).\n" % label)
    for name in order:
        side = Side(os.path.join(top, name), name)
        base = forced.get(name) or summary.pick_baseline(side, BASELINES.get(name, BASELINES[None]))
        if base is None:
            out.append("## %s\n\nno rows.\n" % name)
            continue
        side_section(side, base, out, top)
    with open(os.path.join(top, "summary.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    return 0 if sides else 1


if __name__ == "__main__":
    sys.exit(main())
