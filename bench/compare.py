#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/compare.py - one lock against others, per round, from uspin-bench.

usage: bench/compare.py SIDE_DIR[,SIDE_DIR...] LOCK BASE [BASE...]
                        [--workload W[,W...]] [--metric M ...] [--points P,...]
                        [--match RE] [--wide | --tally [--spans] [--every]]
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
its workloads the applications); with --tally several, separated by
commas, are counted together (each its own grids), for a count over
runs.  --match keeps the points whose id the regular expression finds
(the grid of the rule stays every point).  --spans adds to each count
the range of its points' ratios per call (B, E, I, W); --every a row of
the points where LOCK gets one call against every base (else
inconclusive).  These print what the prose of docs/evaluation.md
quotes, so bench/check_eval_tables.py can check it.

SIDE_DIR may instead be a folder of running_state_cost logs (make
vm-rs-cost): LOCK/BASE are then two conditions of a measurement ("on
off", or "rseq/nothing" of the rotated one); a row per measurement that
has both gives the change in percent with the rule's paired t interval,
uncorrected as the evaluation's cost table gives it, and the median of
the second condition; --match filters the measurements' headers.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib import verdict as vd  # noqa: E402
from benchlib.data import Side  # noqa: E402
from benchlib.stats import fmt_num, median  # noqa: E402
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


def span(xs):
    """'lo–hi' of the ratios, as bench/regimes.py prints a regime's."""
    lo, hi = fmt_num(min(xs)), fmt_num(max(xs))
    return lo if lo == hi else "%s–%s" % (lo, hi)


def costs(folder, pairs, match):
    """The cost logs' measurements, read as bench/eval_figures.py reads
    them (its figure and the evaluation's table give the same intervals)."""
    from eval_figures import rs_sections
    pct = lambda r: "%+.2f" % (100 * (r - 1))  # noqa: E731
    rows, off = [], []
    for fn in sorted(f for f in os.listdir(folder) if f.endswith(".log")):
        for head, raw in rs_sections(os.path.join(folder, fn)):
            for x, b, _ in pairs:
                if x in raw and b in raw and re.search(match or "", head):
                    t = vd.test(list(zip(raw[x], raw[b])))
                    if t.lo > 1 or t.hi < 1:
                        off.append(t.ratio)
                    rows.append([fn[:-4], head.rstrip(":"), "%s / %s" % (x, b),
                                 "%s [%s, %s]" % (pct(t.ratio), pct(t.lo), pct(t.hi)),
                                 fmt_num(median(raw[b]))])
    if not rows:
        sys.exit("bench/compare.py: no measurement with both %s in %s" % (
            " and ".join("%s/%s" % (x, b) for x, b, _ in pairs), folder))
    print("Per measurement, the first condition over the second, paired by repetition: the "
          "change in %% [95 %% t interval, uncorrected] (%s)\n" % folder)
    print(md_table(["log", "measurement", "pair", "change, %", "median of the second"], rows))
    print()
    ends = sorted({pct(min(off)), pct(max(off))}, key=float) if off else ["-"]
    print(md_table(["intervals excluding zero", "their changes, %"],
                   [["%d of %d" % (len(off), len(rows)), " to ".join(ends)]]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("side")
    ap.add_argument("lock")
    ap.add_argument("bases", nargs="+", help="locks to compare LOCK with; A/B compares A with B")
    ap.add_argument("--workload", default="holdtime",
                    help="a workload, or several separated by commas")
    ap.add_argument("--metric", action="append")
    ap.add_argument("--points", help="comma-separated point ids (default: all)")
    ap.add_argument("--match", help="only the points whose id this regular expression finds")
    ap.add_argument("--wide", action="store_true", help="one table, a column per metric and base")
    ap.add_argument("--tally", action="store_true",
                    help="only the counts, over all workloads named: a row per base")
    ap.add_argument("--spans", action="store_true",
                    help="with --tally, the range of the ratios of each call")
    ap.add_argument("--every", action="store_true",
                    help="with --tally, a row: the points with one call against every base")
    ap.add_argument("--margin", type=float, default=5.0,
                    help="equivalence margin in percent (default 5)")
    a = ap.parse_args()
    pairs = pairs_of(a.lock, a.bases)
    if os.path.isdir(a.side) and not os.path.exists(os.path.join(a.side, "meta.json")) \
            and any(f.endswith(".log") for f in os.listdir(a.side)):
        return costs(a.side, pairs, a.match)
    if (a.spans or a.every) and not a.tally:
        sys.exit("bench/compare.py: --spans and --every go with --tally")
    if "," in a.side and not a.tally:
        sys.exit("bench/compare.py: several sides only with --tally")
    try:
        sides = [Side(p) for p in a.side.split(",")]
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
    for side in sides:
        for b in a.bases:
            if b.startswith("best:"):
                members = b[5:].split("+")
                for l in members:
                    if l not in side.locks():
                        sys.exit("bench/compare.py: no lock %s in %s" % (l, side.path))
                best[b] = side.add_best(b, members)
        for x, b, _ in pairs:
            for l in (x, b):
                if l not in side.locks():
                    sys.exit("bench/compare.py: no lock %s in %s" % (l, side.path))
    workloads = a.workload.split(",")
    groups = []  # (side, workload, points)
    for side in sides:
        for wl in workloads:
            points = side.point_ids(wl)
            if a.points:
                want = a.points.split(",")
                points = [p for p in points if p in want]
            if a.match:
                points = [p for p in points if re.search(a.match, p)]
            if not points and not (a.points or a.match) and len(sides) == 1:
                sys.exit("bench/compare.py: no points of workload %s in %s" % (wl, a.side))
            if points:
                groups.append((side, wl, points))
    if not groups:
        sys.exit("bench/compare.py: none of the points %s in %s" % (a.points or a.match, a.side))
    side = sides[0]
    if a.wide:
        by_wl = {wl: points for _, wl, points in groups}
        wide(side, by_wl, pairs, metrics, margin)
        for b, chosen in best.items():
            print("\n%s: %s" % (b, ", ".join("%s %s" % (p, chosen[(wl, p)])
                                             for wl in by_wl for p in by_wl[wl]
                                             if (wl, p) in chosen)))
        return
    rows, every = [], {}
    for x, base, label in pairs:
        cells = [label]
        for m in metrics:
            calls, widths, ratios = [], [], {}
            for s, wl, points in groups:
                table = []
                for p in points:
                    c = compare_pair(s, wl, p, x, base, m, margin)
                    if c:
                        calls.append(c.verdict)
                        widths.append(c.paired.half_width())
                        ratios.setdefault(c.verdict, []).append(c.paired.ratio)
                        every.setdefault((m, s.path, wl, p), []).append(c.verdict)
                    if not a.tally:
                        table.append([p, "%s %s" % (c.paired.interval(), c.verdict) if c else "-"])
                if not a.tally:
                    print("### %s / %s, %s (%s, %s)\n" % (x, base, METRICS[m].label, s.name, wl))
                    print(md_table(["point", "ratio [95 % interval]"], table))
            cell = "%s · ±%.1f %%" % (vd.counts_cell(calls), 100 * median(widths)) if calls else "-"
            if a.spans and calls:
                cell += "".join(" · %s %s" % (k[0].upper(), span(ratios[k]))
                                for k in vd.CALLS if k in ratios)
            cells.append(cell)
        rows.append(cells)
    if a.every:
        rows.append(["every base"] + [vd.counts_cell(
            [cs[0] if len(set(cs)) == 1 and len(cs) == len(pairs) else "inconclusive"
             for k, cs in every.items() if k[0] == m]) for m in metrics])
    print("%s (%s, %s): better/equivalent/inconclusive/worse · resolution (median half-width of "
          "the 95 %% intervals); %s\n" % (a.lock, side.name if len(sides) == 1 else a.side,
                                          ",".join(workloads),
                                          vd.rule_line(margin)))
    print(md_table(["against"] + ["%s B/E/I/W" % METRICS[m].label for m in metrics], rows))


if __name__ == "__main__":
    main()
