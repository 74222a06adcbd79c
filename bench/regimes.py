#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/regimes.py - the paired verdicts of one lock, summed per regime.

usage: bench/regimes.py SIDE_DIR LOCK BASE [BASE...] [--metric M]
                        [--account [--shadow LOCK]] [--by-load]

A regime is a band of hold times crossed with what takes CPUs from the
owner and its waiters (axes of `holdtime`, docs/benchmarks.md):

  holds      1-5 us (a futex sleep and wake-up costs more than the hold),
             10-50 us, 100 us-1 ms (a sleep and a wake-up are small next
             to the hold);
  load       alone (one thread per CPU), oversubscribed (2-4 threads per
             CPU), CPU hogs (a nice-0 hog per CPU), owner preempted rarely
             (a preemptor takes the owner's CPU in 0.1-1 % of critical
             sections) or often (10-50 %).

Per regime and base the table gives the calls of the one verdict rule
on LOCK / BASE (bench/benchlib/verdict.py, as bench/compare.py: paired
t test on the per-round log ratios, TOST at ±5 %, Benjamini-Hochberg
over every point of the grid, not of the regime), counted as better /
equivalent / inconclusive / worse, and the range of the per-point
geometric mean ratios.  --account
prints instead, per regime, where the time goes: the median over the
regime's points of LOCK's and each BASE's wasted spin per operation, and
with --shadow the spin the shadow-mode control spent while the owner was
off its CPU (the saving on offer).

--by-load groups instead by the exact load a point crosses (threads per
CPU, hogs, preemptor's share and length), every hold together: for grids
that cross the loads with few holds.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib.data import Side  # noqa: E402
from benchlib import verdict as vd  # noqa: E402
from benchlib.stats import fmt_num, median  # noqa: E402
from benchlib.summary import METRICS, compare_pair, md_table  # noqa: E402

WORKLOAD = "holdtime"
HOLDS = (("1–5 µs", 0, 5), ("10–50 µs", 10, 50), ("100 µs–1 ms", 100, 1000))
LOADS = ("alone", "oversubscribed", "CPU hogs", "owner preempted 0.1–1 %",
         "owner preempted 10–50 %")


def hold_band(ax):
    h = ax.get("hold_us", 0)
    for name, lo, hi in HOLDS:
        if lo <= h <= hi:
            return name
    return None


def load(ax):
    ppm = ax.get("preempt_ppm", 0)
    if ppm > 0:
        return LOADS[3] if ppm <= 10000 else LOADS[4]
    if ax.get("hogs", 0) > 0:
        return LOADS[2]
    return LOADS[1] if ax.get("tpc10", 10) > 10 else LOADS[0]


def regimes(side):
    """{(load, hold band): [point ids]} in LOADS x HOLDS order."""
    out = {}
    for p in side.point_ids(WORKLOAD):
        ax = side.axes(WORKLOAD, p)
        band = hold_band(ax)
        if band:
            out.setdefault((load(ax), band), []).append(p)
    order = [(l, h[0]) for l in LOADS for h in HOLDS]
    return [(k, out[k]) for k in order if k in out]


def exact_load(ax):
    """The sort key and the label of a point's load, holds aside."""
    t, g = ax.get("tpc10", 10), ax.get("hogs", 0)
    ppm, us = ax.get("preempt_ppm", 0), ax.get("preempt_us", 0)
    label = "%g thread%s/CPU" % (t / 10, "" if t == 10 else "s")
    if g > 0:
        label += " + %d hog%s" % (g, "" if g == 1 else "s")
    if ppm > 0:
        label += " + preempted %g %% × %d µs" % (ppm / 1e4, us)
    return (ppm, us, g, t), label


def regimes_by_load(side):
    """[((label, None), [point ids])] in order of preemption, hogs, threads."""
    out = {}
    for p in side.point_ids(WORKLOAD):
        out.setdefault(exact_load(side.axes(WORKLOAD, p)), []).append(p)
    return [((k[1], None), out[k]) for k in sorted(out)]


def regime_label(ld, band):
    return ld if band is None else "%s · %s" % (ld, band)


def holds_note(side, by_load):
    """What a --by-load row puts together, for the line above the table."""
    if not by_load:
        return ""
    hs = sorted({side.axes(WORKLOAD, p).get("hold_us", 0) for p in side.point_ids(WORKLOAD)})
    return "; each row every hold: %s µs" % ", ".join("%d" % h for h in hs)


def verdict_cell(side, points, lock, base, metric):
    calls, ratios = [], []
    for p in points:
        c = compare_pair(side, WORKLOAD, p, lock, base, metric)
        if c:
            calls.append(c.verdict)
            ratios.append(c.paired.ratio)
    if not ratios:
        return "-"
    span = fmt_num(min(ratios)) if min(ratios) == max(ratios) else \
        "%s–%s" % (fmt_num(min(ratios)), fmt_num(max(ratios)))
    return "%s · %s" % (vd.counts_cell(calls), span)


def point_median(side, p, lock, column):
    v = side.values(WORKLOAD, p, lock, column)
    return median(list(v.values())) if v else None


def account_cell(side, points, lock, column):
    meds = [m for m in (point_median(side, p, lock, column) for p in points) if m is not None]
    return fmt_num(median(meds), 3) if meds else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("side")
    ap.add_argument("lock")
    ap.add_argument("bases", nargs="+")
    ap.add_argument("--metric", default="ops_per_s")
    ap.add_argument("--account", action="store_true",
                    help="wasted spin per operation instead of verdicts")
    ap.add_argument("--shadow", help="the shadow-mode control, for --account")
    ap.add_argument("--by-load", action="store_true",
                    help="one row per exact load, every hold together")
    a = ap.parse_args()
    if a.metric not in METRICS:
        sys.exit("bench/regimes.py: unknown metric %s (one of %s)" % (a.metric, ", ".join(METRICS)))
    if a.shadow and not a.account:
        sys.exit("bench/regimes.py: --shadow goes with --account")
    try:
        side = Side(a.side)
    except OSError as e:
        sys.exit("bench/regimes.py: %s" % e)
    for l in [a.lock] + a.bases + ([a.shadow] if a.shadow else []):
        if l not in side.locks():
            sys.exit("bench/regimes.py: no lock %s in %s" % (l, a.side))
    groups = regimes_by_load(side) if a.by_load else regimes(side)
    if not groups:
        sys.exit("bench/regimes.py: no %s points in %s" % (WORKLOAD, a.side))
    rows = []
    if a.account:
        head = ["regime", "points", "%s wasted spin µs/op" % a.lock] + \
            ["%s wasted spin µs/op" % b for b in a.bases] + \
            (["%s spin with the owner off µs/op" % a.shadow] if a.shadow else [])
        for (ld, band), pts in groups:
            cells = [regime_label(ld, band), str(len(pts))]
            cells += [account_cell(side, pts, l, "spin_wasted_us_per_op") for l in [a.lock] + a.bases]
            if a.shadow:
                cells.append(account_cell(side, pts, a.shadow, "shadow_off_us_per_op"))
            rows.append(cells)
        print("Median over the regime's points of each point's median (%s, %s%s)\n"
              % (side.name, WORKLOAD, holds_note(side, a.by_load)))
    else:
        head = ["regime", "points"] + ["%s / %s" % (METRICS[a.metric].label, b) for b in a.bases]
        for (ld, band), pts in groups:
            rows.append([regime_label(ld, band), str(len(pts))] +
                        [verdict_cell(side, pts, a.lock, b, a.metric) for b in a.bases])
        print("%s per regime (%s, %s%s): better/equivalent/inconclusive/worse, %s; and the "
              "range of the geometric mean ratios\n" % (a.lock, side.name, WORKLOAD,
                                                       holds_note(side, a.by_load), vd.rule_line()))
    print(md_table(head, rows))


if __name__ == "__main__":
    main()
