#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/compare.py - one lock against others, per round, from uspin-bench.

usage: bench/compare.py SIDE_DIR LOCK BASE [BASE...] [--workload W[,W...]]
                        [--metric M ...] [--points P,...] [--wide | --tally]
                        [--margin PCT]

summary.md compares every lock with one baseline; this prints, for the
question a change asks (libuspin v3's user-adaptive against blocking, v2's
learned rule and the same spin blind to the owner), LOCK/BASE measured in
the same round: the geometric mean of the per-round ratios, its 95 %
interval, and the call of the one verdict rule (bench/benchlib/verdict.py:
paired t test on the log ratios, TOST at ±--margin %, default 5,
Benjamini-Hochberg at 5 % over every point of the workload in SIDE_DIR):
better / equivalent / inconclusive / worse, per point and metric, then
a table of the counts over every workload named, a row per base, with
the resolution (median half-width of the intervals, relative to the
ratio: smaller differences are not resolved by this run).  --tally
prints only that table; --wide one table of the points instead (of every
workload named), a column per metric and base (▲ above 1, ▼ below, = within the margin, ·
inconclusive).  A BASE written A/B compares A with B instead of LOCK
with B.  A BASE written best:A+B+... is, at each point, whichever of
A, B, ... had the highest throughput there (e.g. the best fixed blind
budget per point: a ceiling no real lock reaches, chosen on the same
rounds); the choices are listed under the table.  SIDE_DIR is a host/ or
guest/ folder (meta.json, repeats.csv; an applications run's side too,
its workloads the applications).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib import verdict as vd  # noqa: E402
from benchlib.data import Side  # noqa: E402
from benchlib.stats import median  # noqa: E402
from benchlib.summary import METRICS, compare_pair, md_table  # noqa: E402


def pairs_of(lock, bases):
    """[(lock, base, label)]: BASE, or A/B for A against B."""
    out = []
    pairs = any("/" in b for b in bases)
    for b in bases:
        x, y = b.split("/", 1) if "/" in b else (lock, b)
        out.append((x, y, "%s / %s" % (x, y) if pairs else y))
    return out


def wide(side, by_wl, pairs, metrics, margin):
    """One table: a row per point ("workload point" when several), a
    column per metric and base."""
    head, rows = ["point"], []
    for m in metrics:
        head += ["%s / %s" % (METRICS[m].label, lab) if lab == b else "%s %s" % (METRICS[m].label, lab)
                 for _, b, lab in pairs]
    for wl, points in by_wl.items():
        for p in points:
            cells = [p if len(by_wl) == 1 else "%s %s" % (wl, p)]
            for m in metrics:
                for x, b, _ in pairs:
                    c = compare_pair(side, wl, p, x, b, m, margin)
                    cells.append(c.paired.cell() if c else "-")
            rows.append(cells)
    print("%s per round (%s, %s); geometric mean [95 %% interval]; ▲ above 1, ▼ below, = within "
          "±%g %%, · inconclusive: %s\n" % (pairs[0][0], side.name, ",".join(by_wl), 100 * margin,
                                              vd.rule_line(margin)))
    print(md_table(head, rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("side")
    ap.add_argument("lock")
    ap.add_argument("bases", nargs="+", help="locks to compare LOCK with; A/B compares A with B")
    ap.add_argument("--workload", default="holdtime",
                    help="a workload, or several separated by commas")
    ap.add_argument("--metric", action="append")
    ap.add_argument("--points", help="comma-separated point ids (default: all)")
    ap.add_argument("--wide", action="store_true", help="one table, a column per metric and base")
    ap.add_argument("--tally", action="store_true",
                    help="only the counts, over all workloads named: a row per base")
    ap.add_argument("--margin", type=float, default=5.0,
                    help="equivalence margin in percent (default 5)")
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
    best = {}
    for b in a.bases:
        if b.startswith("best:"):
            members = b[5:].split("+")
            for l in members:
                if l not in side.locks():
                    sys.exit("bench/compare.py: no lock %s in %s" % (l, a.side))
            best[b] = side.add_best(b, members)
    pairs = pairs_of(a.lock, a.bases)
    for x, b, _ in pairs:
        for l in (x, b):
            if l not in side.locks():
                sys.exit("bench/compare.py: no lock %s in %s" % (l, a.side))
    workloads = a.workload.split(",")
    by_wl = {}
    for wl in workloads:
        points = side.point_ids(wl)
        if a.points:
            want = a.points.split(",")
            points = [p for p in points if p in want]
        if not points and not a.points:
            sys.exit("bench/compare.py: no points of workload %s in %s" % (wl, a.side))
        if points:
            by_wl[wl] = points
    if not by_wl:
        sys.exit("bench/compare.py: none of the points %s in %s" % (a.points, a.side))
    if a.wide:
        wide(side, by_wl, pairs, metrics, margin)
        for b, chosen in best.items():
            print("\n%s: %s" % (b, ", ".join("%s %s" % (p, chosen[(wl, p)])
                                             for wl in by_wl for p in by_wl[wl]
                                             if (wl, p) in chosen)))
        return
    rows = []
    for x, base, label in pairs:
        cells = [label]
        for m in metrics:
            calls, widths = [], []
            for wl in by_wl:
                table = []
                for p in by_wl[wl]:
                    c = compare_pair(side, wl, p, x, base, m, margin)
                    if c:
                        calls.append(c.verdict)
                        widths.append(c.paired.half_width())
                    if not a.tally:
                        table.append([p, "%s %s" % (c.paired.interval(), c.verdict) if c else "-"])
                if not a.tally:
                    print("### %s / %s, %s (%s, %s)\n" % (x, base, METRICS[m].label, side.name, wl))
                    print(md_table(["point", "ratio [95 % interval]"], table))
            cells.append("%s · ±%.1f %%" % (vd.counts_cell(calls), 100 * median(widths)) if calls else "-")
        rows.append(cells)
    print("%s (%s, %s): better/equivalent/inconclusive/worse · resolution (median half-width of "
          "the 95 %% intervals); %s\n" % (a.lock, side.name, ",".join(workloads), vd.rule_line(margin)))
    print(md_table(["against"] + ["%s B/E/I/W" % METRICS[m].label for m in metrics], rows))


if __name__ == "__main__":
    main()
