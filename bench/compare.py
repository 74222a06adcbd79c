#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/compare.py - one lock against others, per round, from uspin-bench.

usage: bench/compare.py SIDE_DIR LOCK BASE [BASE...] [--workload W[,W...]]
                        [--metric M ...] [--points P,...] [--wide | --tally]

summary.md compares every lock with one baseline; this prints, for the
question a change asks (libuspin v3's user-adaptive against blocking, v2's
learned rule and the same spin blind to the owner), the median over rounds
of LOCK/BASE measured in the same round, with its 95 % bootstrap interval
(bench/benchlib/stats.py, the resamples of the report), per point and
metric.  "better" / "worse" only when the interval excludes 1 (the paired
verdict); "tie" otherwise.  --wide prints one table with a column per
metric and base instead (▲ interval above 1, ▼ below, · neither);
--tally only the better / tie / worse counts, over every workload named,
with three aids to reading them: a tie is split into "equivalent" (the
interval lies within the margin, --margin, default ±5 %: a difference
that large is ruled out) and "inconclusive" (it is not); the resolution
(median half-width of the intervals, relative to the median: smaller
differences are not resolved by this run); and how many "better" and
"worse" chance alone gives over that many comparisons (2.5 % each way
for a 95 % interval with no true difference).
SIDE_DIR is a host/ or guest/ folder (meta.json, repeats.csv).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib.data import Side  # noqa: E402
from benchlib.stats import fmt_num  # noqa: E402
from benchlib.summary import METRICS, compare_pair, md_table  # noqa: E402


def paired(c, higher_is_better):
    r = c.ratio
    if r.lo > 1:
        return "better" if higher_is_better else "worse"
    if r.hi < 1:
        return "worse" if higher_is_better else "better"
    return "tie"


def equivalent(c, margin):
    """The interval lies within [1/(1+margin), 1+margin]."""
    return c.ratio.lo >= 1 / (1 + margin) and c.ratio.hi <= 1 + margin


def half_width(c):
    r = c.ratio
    return (r.hi - r.lo) / 2 / r.median if r.median > 0 else float("inf")


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else float("nan")


def tally_line(label, t, widths, margin):
    n = sum(t.get(k, 0) for k in ("better", "tie", "worse"))
    return ("%s: %d better, %d tie (%d equivalent within ±%g %%, %d inconclusive), %d worse; "
            "resolution ±%.1f %%; by chance ~%.1f better and ~%.1f worse of %d" % (
                label, t.get("better", 0), t.get("tie", 0), t.get("equivalent", 0), 100 * margin,
                t.get("tie", 0) - t.get("equivalent", 0), t.get("worse", 0),
                100 * median(widths), 0.025 * n, 0.025 * n, n))


def wide(side, a, points, metrics):
    head, rows = ["point"], []
    for m in metrics:
        head += ["%s / %s" % (METRICS[m].label, b) for b in a.bases]
    for p in points:
        cells = [p]
        for m in metrics:
            for b in a.bases:
                c = compare_pair(side, a.workload, p, a.lock, b, m)
                if not c:
                    cells.append("-")
                    continue
                r = c.ratio
                mark = "▲" if r.lo > 1 else "▼" if r.hi < 1 else "·"
                cells.append("%s [%s, %s] %s" % (fmt_num(r.median), fmt_num(r.lo), fmt_num(r.hi), mark))
        rows.append(cells)
    print("%s per round against each base (%s, %s); median [95 %% interval]\n" % (a.lock, side.name, a.workload))
    print(md_table(head, rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("side")
    ap.add_argument("lock")
    ap.add_argument("bases", nargs="+")
    ap.add_argument("--workload", default="holdtime",
                    help="a workload, or several separated by commas")
    ap.add_argument("--metric", action="append")
    ap.add_argument("--points", help="comma-separated point ids (default: all)")
    ap.add_argument("--wide", action="store_true", help="one table, a column per metric and base")
    ap.add_argument("--tally", action="store_true", help="only the counts, over all workloads named")
    ap.add_argument("--margin", type=float, default=5.0,
                    help="equivalence margin in percent for --tally (default 5)")
    a = ap.parse_args()
    try:
        side = Side(a.side)
    except OSError as e:
        sys.exit("bench/compare.py: %s" % e)
    if not 0 < a.margin < 100:
        sys.exit("bench/compare.py: --margin must be between 0 and 100 (percent)")
    margin = a.margin / 100
    metrics = a.metric or ["ops_per_s", "cpu_us_per_op"]
    for m in metrics:
        if m not in METRICS:
            sys.exit("bench/compare.py: unknown metric %s (one of %s)" % (m, ", ".join(METRICS)))
    workloads = a.workload.split(",")
    by_wl = {}
    for wl in workloads:
        points = side.point_ids(wl)
        if a.points:
            want = a.points.split(",")
            points = [p for p in points if p in want]
        if not points:
            sys.exit("bench/compare.py: no points of workload %s in %s" % (wl, a.side))
        by_wl[wl] = points
    if a.wide:
        for wl in workloads:
            a.workload = wl
            wide(side, a, by_wl[wl], metrics)
        return
    tally, widths = {}, {}
    for base in a.bases:
        for wl in workloads:
            rows = []
            for p in by_wl[wl]:
                cells = [p]
                for m in metrics:
                    c = compare_pair(side, wl, p, a.lock, base, m)
                    if not c:
                        cells.append("-")
                        continue
                    v = paired(c, METRICS[m].higher_is_better)
                    t = tally.setdefault((base, m), {})
                    t[v] = t.get(v, 0) + 1
                    if v == "tie" and equivalent(c, margin):
                        t["equivalent"] = t.get("equivalent", 0) + 1
                    widths.setdefault((base, m), []).append(half_width(c))
                    cells.append("%s [%s, %s] %s" % (fmt_num(c.ratio.median), fmt_num(c.ratio.lo),
                                                     fmt_num(c.ratio.hi), v))
                rows.append(cells)
            if not a.tally:
                print("### %s / %s (%s, %s)\n" % (a.lock, base, side.name, wl))
                print(md_table(["point"] + ["%s ratio [95 %%]" % METRICS[m].label for m in metrics], rows))
        if a.tally:
            print("%s / %s (%s, %s):" % (a.lock, base, side.name, ",".join(workloads)))
        for m in metrics:
            if a.tally:
                print(tally_line(METRICS[m].label, tally.get((base, m), {}), widths.get((base, m), []),
                                 margin))
            else:
                t = tally.get((base, m), {})
                print("%s: %d better, %d tie, %d worse" % (METRICS[m].label, t.get("better", 0),
                                                          t.get("tie", 0), t.get("worse", 0)))
        print()


if __name__ == "__main__":
    main()
