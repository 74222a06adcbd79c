#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/eval_figures.py - the evaluation's figures, redrawn from docs/eval/.

usage: bench/eval_figures.py [OUT]            (make eval-plots: docs/figures)
       bench/eval_figures.py --check [DIR]    (make check-eval-figures)

Draws the few figures docs/evaluation.md and the README embed, as small
SVGs (gnuplot, 640x360), from the runs stored under docs/eval/ only:

  holdtime-throughput.svg  throughput / uspin_block against the hold,
                           4 threads on 2 CPUs, no hogs; host and guest
                           (v3-full/hold: the one grid with the blind
                           spin and FUTEX_LOCK_ADAPTIVE beside the rest)
  holdtime-cpu.svg         CPU per operation / uspin_block, the same
                           threads beside 2 CPU hogs
  regime-map.svg           the call of uspin_user_adaptive against
                           uspin_spin_capped at every point of that grid
                           (hold x threads x hogs), throughput and CPU,
                           as bench/regimes.py computes it
  multimodal.svg           the multi-modal case (v4): the proposal over
                           blocking, glibc adaptive, FUTEX_LOCK_ADAPTIVE
  running-state-designs.svg  per-thread areas over the array and the
                           proposal over FUTEX_LOCK_ADAPTIVE per point,
                           and what publishing adds to a switch
                           (rs-cost-6.12's raw samples)

Every ratio and interval is the one verdict rule's
(bench/benchlib/verdict.py, through benchlib.summary.grid_of for the
runs of uspin-bench, as bench/compare.py and bench/regimes.py print
them): the geometric mean of the paired ratios and its 95 % t interval.
What the rule calls a difference (Benjamini-Hochberg over the run's
grid) is drawn filled or solid, the rest open or hatched; the regime map
colours all four calls.  docs/figures/README.md says what each shows.

The SVGs carry no date, so a redraw with the same gnuplot writes the
same bytes: --check redraws into a temporary folder and fails if a file
in DIR differs (skipped, successfully, without gnuplot or with another
gnuplot version than the one that drew DIR's files).
"""
import functools
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import regimes  # noqa: E402  (bench/regimes.py: the regime map's rows and calls)
from benchlib import colours, verdict as vd  # noqa: E402
from benchlib.data import Side  # noqa: E402
from benchlib.summary import METRICS, grid_of  # noqa: E402

EVAL = os.path.join(ROOT, "docs", "eval")
HOLD = "v3-full/hold"
MULTI = {"host": "v4-cpu-wanted/multimodal/host", "guest": "v4-cpu-wanted/multimodal-guest/guest"}
RS_COST = "rs-cost-6.12"
WL = "holdtime"
PROPOSAL = colours.PROPOSAL
BLOCK = "uspin_block"
MACHINE = {"host": "host: 2-CPU, stock 6.18, BPF provider",
           "guest": "guest: patched 6.12 under QEMU TCG"}
TERMINAL = 'set terminal svg size %d,%d dynamic enhanced font "sans,10" background rgb "white"'
FIGURES = ("holdtime-throughput.svg", "holdtime-cpu.svg", "regime-map.svg",
           "multimodal.svg", "running-state-designs.svg")
CALL_COLOUR = {"better": "#1a9850", "equivalent": "#91bfdb", "inconclusive": "#e0e0e0",
               "worse": "#d73027"}
# A point type and its filled twin (gnuplot: 4/5 square, 6/7 circle,
# 8/9 triangle, 10/11 triangle down, 12/13 diamond).
OPEN = {5: 4, 7: 6, 9: 8, 11: 10, 13: 12}
FILLED = {v: k for k, v in OPEN.items()}
TICKS = (0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 2.5, 3, 4, 5)
COARSE = (0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5)   # for ranges wider than 2.5x


def q(s):
    """A gnuplot string (a newline as \\n)."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def g(x):
    return "%.6g" % x


def block(name, rows):
    """A gnuplot datablock $name; rows are lists of cells."""
    return ["$%s << EOD" % name] + [" ".join(str(c) for c in r) for r in rows] + ["EOD"]


def render(path, lines, size=(640, 360)):
    """Runs the script (data inline: no file but the SVG) into path."""
    script = [TERMINAL % size, "set encoding utf8", "set output %s" % q(os.path.abspath(path))] + \
        lines + ["unset multiplot", "unset output"]
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
    return path


def header(title, subtitle):
    """The figure's title (machine, what) and a smaller line (data, rule)."""
    return ["set multiplot title %s noenhanced font ',10' offset 0,-0.2" % q(title),
            "set label 99 %s at screen 0.5, screen 0.905 center noenhanced font ',8' "
            "tc rgb '#444444'" % q(subtitle)]


def legend(entries, rows, top, width=0, font=9):
    """A last, empty panel across the bottom that holds the key."""
    return ["unset label", "unset object", "unset arrow", "unset title", "unset xlabel",
            "unset ylabel", "unset logscale", "unset grid", "unset border", "unset tics", "unset key",
            "set lmargin at screen 0.01", "set rmargin at screen 0.99",
            "set tmargin at screen %.3f" % top, "set bmargin at screen 0.0",
            "set xrange [0:1]", "set yrange [0:1]",
            "set key at screen 0.5, screen %.3f center top vertical maxrows %d reverse Left "
            "noenhanced samplen 2 spacing 1.0 width %d font ',%d'" % (top, rows, width, font),
            "plot NaN notitle, " + ", ".join(entries)]


def pts(pt, called):
    """The point type: filled where the rule calls the point, open where not."""
    return FILLED.get(pt, pt) if called else OPEN.get(pt, pt)


def log_ticks(lo, hi, labels=True):
    """(lo, hi, "set ytics (...)") for a log ratio axis that holds [lo, hi]."""
    lo, hi = min(lo, 1.0) / 1.05, max(hi, 1.0) * 1.05
    ticks = [t for t in (COARSE if hi / lo > 2.5 else TICKS) if lo <= t <= hi]
    return lo, hi, "set ytics (%s)" % ", ".join(
        "%s %g" % (q("%g" % t if labels else ""), t) for t in ticks)


@functools.lru_cache(maxsize=None)
def side(path):
    """A stored side, read once (its grids are cached on it)."""
    return Side(os.path.join(EVAL, path))


def called(p):
    """The rule names a difference (after the correction over the grid)."""
    return p.call in ("above", "below")


def short_load(ax):
    """'2 thr/CPU + 2 hogs' (threads per CPU, hogs) of a holdtime point's axes."""
    t, h = ax.get("tpc10", 10) / 10, int(ax.get("hogs", 0))
    return "%g thr/CPU%s" % (t, " + %d hog%s" % (h, "" if h == 1 else "s") if h else "")


# -- holdtime-throughput.svg, holdtime-cpu.svg --

LOCKS = (PROPOSAL, "pthread_mutex_adaptive", "uspin_spin_capped", "futex_lock_adaptive")
LABEL = {PROPOSAL: "uspin_user_adaptive (the proposal)",
         "pthread_mutex_adaptive": "pthread_mutex_adaptive (glibc)",
         "uspin_spin_capped": "uspin_spin_capped (blind spin, 5 ms cap)",
         "futex_lock_adaptive": "futex_lock_adaptive (in-kernel, guest)"}


def select(s, tpc10, hogs):
    """The grid's points at one load, by hold: [(hold_us, point)]."""
    out = []
    for p in s.point_ids(WL):
        ax = s.axes(WL, p)
        if ax.get("tpc10") == tpc10 and ax.get("hogs", 0) == hogs and ax.get("duty") == 50 \
                and not ax.get("preempt_ppm"):
            out.append((ax["hold_us"], p))
    return sorted(out)


def holdtime_figure(path, metric, tpc10, hogs, title):
    panels, allv = [], []
    for name in ("host", "guest"):
        s = side("%s/%s" % (HOLD, name))
        series = []
        for k, lock in enumerate(LOCKS):
            if lock not in s.locks():
                continue
            grid = grid_of(s, WL, lock, BLOCK, metric)
            rows = [(h, grid[p]) for h, p in select(s, tpc10, hogs) if p in grid]
            allv += [v for _, t in rows for v in (t.lo, t.hi)]
            series.append((lock, k, rows))
        panels.append((name, series))
    holds = sorted({h for _, series in panels for _, _, rows in series for h, _ in rows})
    decades = [h for h in holds if h in (1, 10, 100, 1000)]
    xtics = "set xtics (%s)" % ", ".join(
        "%s %g" % (q("%g" % h if h in decades else ""), h) for h in holds)
    lines = header(title, "docs/eval/v3-full/hold (libuspin v3), 8 rounds; bars: 95 % interval "
                   "of the per-round ratios (benchlib/verdict.py)")
    lines += ["set logscale xy", "set xrange [%g:%g]" % (holds[0] / 1.4, holds[-1] * 1.4),
              xtics, "set xtics font ',8' offset 0,0.3", "set ytics font ',8'",
              "set grid ytics lc rgb '#dddddd'", "unset key",
              "set xlabel 'hold time (µs)' font ',9' offset 0,0.8",
              "set tmargin at screen 0.80", "set bmargin at screen 0.31"]
    for i, (name, series) in enumerate(panels):
        lo, hi, ytics = log_ticks(min(allv), max(allv), labels=(i == 0))
        for lock, k, rows in series:
            lines += block("%s%d" % (name, k), [
                [g(h * 1.06 ** (k - 1.5)), g(t.ratio), g(t.lo), g(t.hi), int(called(t))]
                for h, t in rows])
        lines += ["set yrange [%g:%g]" % (lo, hi), ytics,
                  "set title %s noenhanced font ',9' offset 0,-0.5" % q(MACHINE[name]),
                  "set lmargin at screen %.3f" % (0.10 + 0.45 * i),
                  "set rmargin at screen %.3f" % (0.53 + 0.45 * i),
                  "set ylabel %s noenhanced font ',9' offset 1.5,0" % q(
                      "%s / uspin_block" % METRICS[metric].label) if i == 0 else "unset ylabel"]
        plots = ["1 with lines lc rgb 'black' dt 2 lw 1.2 notitle"]
        for lock, k, rows in series:
            colour, dt, pt = colours.style(lock)
            prop = colours.is_proposal(lock)
            d = "$%s%d" % (name, k)
            plots.append("%s using 1:2 with lines lc rgb %s dt %d lw %.1f notitle" % (
                d, q(colour), dt, 2.5 if prop else 1.3))
            for c in (1, 0):
                plots.append("%s using 1:($5==%d?$2:1/0):3:4 with yerrorbars lc rgb %s pt %d "
                             "ps %.1f lw 1 notitle" % (d, c, q(colour), pts(pt, c),
                                                      0.8 if prop else 0.65))
        lines.append("plot " + ", ".join(plots))
        if i == 0:
            lines.append("unset label 99")
    entries = []
    for lock in LOCKS:
        colour, dt, pt = colours.style(lock)
        prop = colours.is_proposal(lock)
        entries.append("keyentry with linespoints lc rgb %s dt %d lw %.1f pt %d ps 0.7 title %s" % (
            q(colour), dt, 2.5 if prop else 1.3, FILLED.get(pt, pt), q(LABEL[lock])))
    entries += ["keyentry with lines lc rgb 'black' dt 2 lw 1.2 title 'uspin_block (= 1)'",
                "keyentry with points lc rgb 'black' pt 6 ps 0.7 title 'open: no difference "
                "called (BH, 60 points)'"]
    lines += legend(entries, 3, 0.165, width=-11)
    return render(path, lines)


# -- regime-map.svg --

def regime_map(path):
    lines = header("uspin_user_adaptive / uspin_spin_capped (the same spin blind, 5 ms cap)",
                   "docs/eval/v3-full/hold (v3, 8 rounds); number: geometric mean ratio; colour: "
                   "the call, BH over 60 points")
    lines += ["unset key", "set xrange [-0.5:9.5]", "set yrange [-0.5:5.5]",
              "set tics scale 0", "set xtics font ',7' offset 0,0.4", "set ytics font ',8'",
              "set style fill solid 1.0 border lc rgb 'white'"]
    metrics = ("ops_per_s", "cpu_us_per_op")
    for j, metric in enumerate(metrics):
        for i, name in enumerate(("host", "guest")):
            s = side("%s/%s" % (HOLD, name))
            rows = regimes.regimes_by_load(s)   # [((label, None), points)]: threads, then hogs
            holds = sorted({s.axes(regimes.WORKLOAD, p)["hold_us"] for _, pts_ in rows
                            for p in pts_})
            cells, ylabels = [], []
            for r, (_, points) in enumerate(rows):
                y = len(rows) - 1 - r            # the first load on top
                ylabels.append((short_load(s.axes(regimes.WORKLOAD, points[0])), y))
                for p in points:
                    c = regimes.compare_pair(s, regimes.WORKLOAD, p, PROPOSAL,
                                             "uspin_spin_capped", metric)
                    if c is None:
                        continue
                    x = holds.index(s.axes(regimes.WORKLOAD, p)["hold_us"])
                    cells.append([x, y, "0x" + CALL_COLOUR[c.verdict][1:],
                                  q("%.2f" % c.paired.ratio)])
            d = "m%d%d" % (j, i)
            lines += block(d, cells)
            left, top = 0.205 + 0.40 * i, 0.80 - 0.355 * j
            better = "higher" if METRICS[metric].higher_is_better else "lower"
            lines += ["set lmargin at screen %.3f" % left,
                      "set rmargin at screen %.3f" % (left + 0.385),
                      "set tmargin at screen %.3f" % top,
                      "set bmargin at screen %.3f" % (top - 0.27),
                      "set title %s noenhanced offset 0,-0.7 font ',9'" % q(
                          "%s: %s (%s is better)" % (name, METRICS[metric].label, better)),
                      "set xtics (%s)" % ", ".join("%s %d" % (q("%g" % h if j else ""), k)
                                                   for k, h in enumerate(holds)),
                      "set ytics (%s) font ',8'" % ", ".join("%s %d" % (q(l), y)
                                                             for l, y in ylabels)
                      if i == 0 else "unset ytics",
                      "set xlabel 'hold (µs)' offset 0,1.1 font ',8'" if j == 1
                      else "unset xlabel"]
            lines.append("plot $%s using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with "
                         "boxxyerror lc rgb variable notitle, $%s using 1:2:4 with labels "
                         "font ',7' notitle" % (d, d))
            if i == 0 and j == 0:
                lines.append("unset label 99")
    entries = ["keyentry with boxes fs solid 1.0 border lc rgb '#888888' lc rgb %s title %s" % (
        q(CALL_COLOUR[k]), q(k)) for k in vd.CALLS]
    lines += legend(entries, 1, 0.075)
    return render(path, lines)


# -- multimodal.svg --

BASES = ((BLOCK, "/ uspin_block (blocking)"),
         ("pthread_mutex_adaptive", "/ pthread_mutex_adaptive (glibc)"),
         ("futex_lock_adaptive", "/ futex_lock_adaptive (in-kernel, guest)"))


def multimodal(path):
    groups = []   # (label, side, point)
    for name, p in MULTI.items():
        s = side(p)
        for pt in s.point_ids(WL):
            hogs = int(s.axes(WL, pt).get("hogs", 0))
            groups.append(("%s\n%s" % (name, "+ %d hogs" % hogs if hogs else "no hogs"), s, pt))
    metrics = ("ops_per_s", "cpu_us_per_op")
    data, allv = {}, []
    for m in metrics:
        for k, (base, _) in enumerate(BASES):
            rows = []
            for x, (_, s, p) in enumerate(groups):
                if base in s.locks():
                    t = grid_of(s, WL, PROPOSAL, base, m)[p]
                    rows.append([g(x + (k - 1) * 0.27), g(t.ratio), g(t.lo), g(t.hi),
                                 int(called(t))])
                    allv += [t.lo, t.hi]
            data[(m, k)] = rows
    lines = header("Multi-modal holds (1 µs, 2 % of them 500 µs): uspin_user_adaptive (v4) / "
                   "each lock",
                   "10 % duty, 4 threads on 2 CPUs; docs/eval/v4-cpu-wanted/multimodal{,-guest}, "
                   "10 rounds; whiskers: 95 %")
    lines += ["set logscale y", "set xrange [-0.6:%g]" % (len(groups) - 0.4),
              "set xtics (%s) font ',8' offset 0,0.2" % ", ".join(
                  "%s %d" % (q(l), x) for x, (l, _, _) in enumerate(groups)),
              "set ytics font ',8'", "set grid ytics lc rgb '#dddddd'", "set tics scale 0.5",
              "set tmargin at screen 0.80", "set bmargin at screen 0.28", "unset key"]
    for i, m in enumerate(metrics):
        lo, hi, ytics = log_ticks(min(allv), max(allv), labels=(i == 0))
        for k in range(len(BASES)):
            lines += block("b%d%d" % (i, k), data[(m, k)])
        better = "higher" if METRICS[m].higher_is_better else "lower"
        lines += ["set yrange [%g:%g]" % (lo, hi), ytics,
                  "set lmargin at screen %.3f" % (0.10 + 0.45 * i),
                  "set rmargin at screen %.3f" % (0.53 + 0.45 * i),
                  "set title %s font ',9' offset 0,-0.5" % q(
                      "%s (%s is better)" % (METRICS[m].label, better)),
                  "set ylabel 'the proposal / the lock' font ',9' offset 1.5,0" if i == 0
                  else "unset ylabel"]
        plots = ["1 with lines lc rgb 'black' dt 2 lw 1 notitle"]
        for k, (base, label) in enumerate(BASES):
            colour = colours.style(base)[0]
            d = "$b%d%d" % (i, k)
            for c in (1, 0):
                plots.append("%s using 1:($5==%d?sqrt($2):1/0):($1-0.125):($1+0.125):(1):2 "
                             "with boxxyerror fs %s border lc rgb 'black' lc rgb %s notitle" % (
                                 d, c, "solid 0.9" if c else "pattern 4", q(colour)))
            plots.append("%s using 1:2:3:4 with yerrorbars lc rgb 'black' pt 7 ps 0.3 lw 1 "
                         "notitle" % d)
        lines.append("plot " + ", ".join(plots))
        if i == 0:
            lines.append("unset label 99")
    entries = ["keyentry with boxes fs solid 0.9 border lc rgb 'black' lc rgb %s title %s" % (
        q(colours.style(b)[0]), q(l)) for b, l in BASES]
    entries.append("keyentry with boxes fs pattern 4 border lc rgb 'black' lc rgb '#888888' "
                   "title 'hatched: no difference called'")
    lines += legend(entries, 2, 0.12, width=-12)
    return render(path, lines)


# -- running-state-designs.svg --

RAW = re.compile(r"^\s+raw (\w+):?\s+(.*)$")
RS_LOGS = ((1, "boot1-pipe2000-msg5.log"), (2, "boot2-pipe20000-msg50.log"),
           (3, "boot3-pipe20000-msg1000.log"), (4, "boot4-v3-opt-out-counted-key.log"))
CALL_LINE = {"better": "#1a9850", "equivalent": "#4575b4", "inconclusive": "#8c8c8c",
             "worse": "#d73027"}


def rs_sections(path):
    """A running_state_cost log's measurements: [(header, {condition: [samples]})]."""
    out, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("context switch,") or line.startswith("workload '"):
                cur = (line.strip(), {})
                out.append(cur)
            m = RAW.match(line)
            if m and cur is not None:
                cur[1][m.group(1)] = [float(v) for v in m.group(2).split()]
    return out


def rs_cost():
    """[(row label, provider, Paired of on / off)]: the samples of a log
    pair by repetition (ABBA toggles, or the rotation's rep).  Boots 3
    (the evaluation's table) and 4 (v3's opt-out and counted key) for
    every measurement, and `perf bench sched pipe` in every boot."""
    out = []
    for b, fn in RS_LOGS:
        for head, raw in rs_sections(os.path.join(EVAL, RS_COST, fn)):
            prov = "areas" if ("toggle rseq" in head or "librs-areas" in head) else "array"
            if head.startswith("context switch") and "rotated" in head:
                if b in (3, 4):
                    out.append(("threads, rotated, boot %d" % b, "array",
                                vd.test(list(zip(raw["array"], raw["nothing"])))))
                    out.append(("threads, rotated, boot %d" % b, "areas",
                                vd.test(list(zip(raw["rseq"], raw["nothing"])))))
                continue
            if head.startswith("context switch"):
                if b in (3, 4) and "not opted in" not in head and "toggle key" not in head:
                    out.append(("threads, toggled, boot %d" % b, prov,
                                vd.test(list(zip(raw["on"], raw["off"])))))
            elif "sched pipe" in head:
                out.append(("perf pipe, boot %d" % b, prov,
                            vd.test(list(zip(raw["on"], raw["off"])))))
            elif "messaging" in head and b in (3, 4):
                out.append(("hackbench, boot %d" % b, prov,
                            vd.test(list(zip(raw["on"], raw["off"])))))
    order = ("threads, toggled", "threads, rotated", "perf pipe", "hackbench")
    return sorted(out, key=lambda r: (order.index(r[0].rsplit(",", 1)[0]), r[0]))


def designs(path):
    s = side("%s/guest" % HOLD)
    rows = regimes.regimes_by_load(s)
    comps = (("uspin_user_adaptive_areas", PROPOSAL,
              "the proposal on per-thread areas / on the array"),
             (PROPOSAL, "futex_lock_adaptive",
              "the proposal (array) / FUTEX_LOCK_ADAPTIVE"))
    lines = header("What each running-state design measurably buys (guest: 6.12, QEMU TCG)",
                   "left: throughput, docs/eval/v3-full/hold/guest, 8 rounds; right: "
                   "docs/eval/rs-cost-6.12, 21 pairs; 95 % intervals")
    left, allv, xt = [], [], []
    for k, (a, b, _) in enumerate(comps):
        grid = grid_of(s, WL, a, b, "ops_per_s")
        cells = []
        for y, (_, points) in enumerate(rows):
            hp = sorted((s.axes(WL, p)["hold_us"], p) for p in points)
            for x, (_, p) in enumerate(hp):
                t = grid[p]
                cells.append([g(y * 11 + x), g(t.ratio), g(t.lo), g(t.hi),
                              vd.CALLS.index(vd.verdict(t))])
                allv += [t.lo, t.hi]
            if k == 0:
                ax = s.axes(WL, points[0])
                xt.append((y * 11 + (len(hp) - 1) / 2, "%g/CPU%s" % (
                    ax.get("tpc10", 10) / 10, "\n+hogs" if ax.get("hogs") else "")))
        left.append(cells)
    lo, hi, ytics = log_ticks(min(allv), max(allv))
    for k, cells in enumerate(left):
        lines += block("l%d" % k, cells)
    lines += ["unset key", "set grid ytics lc rgb '#dddddd'", "set tics scale 0.5",
              "set logscale y", "set yrange [%g:%g]" % (lo, hi), ytics, "set ytics font ',8'",
              "set xrange [-1:%d]" % (len(rows) * 11 - 1),
              "set object 1 rect from graph 0, first %g to graph 1, first %g behind "
              "fc rgb '#ececec' fs solid 1.0 noborder" % (1 / (1 + vd.MARGIN), 1 + vd.MARGIN),
              "set lmargin at screen 0.085", "set rmargin at screen 0.50"]
    for k, (a, b, label) in enumerate(comps):
        top = 0.80 - 0.265 * k
        lines += ["set tmargin at screen %.3f" % top, "set bmargin at screen %.3f" % (top - 0.20),
                  "set title %s noenhanced font ',8' offset 0,-0.7" % q(label),
                  "set ylabel 'ratio' font ',8' offset 2,0"]
        if k == 0:
            lines += ["set xtics (%s) format ''" % ", ".join("'' %g" % x for x, _ in xt),
                      "unset xlabel"]
        else:
            lines += ["set xtics (%s) font ',7' offset 0,0.2" % ", ".join(
                "%s %g" % (q(l), x) for x, l in xt),
                "set xlabel 'threads per CPU (+ hogs); in each, holds 1 µs … 1 ms' font ',8' "
                "offset 0,0.3"]
        plots = ["1 with lines lc rgb 'black' dt 2 lw 1 notitle"]
        for c, call in enumerate(vd.CALLS):
            plots.append("$l%d using 1:($5==%d?$2:1/0):3:4 with yerrorbars lc rgb %s pt 7 ps 0.35 "
                         "lw 1 notitle" % (k, c, q(CALL_LINE[call])))
        lines.append("plot " + ", ".join(plots))
        if k == 0:
            lines.append("unset label 99")
    # Right: what publishing adds to a switch.
    cost = rs_cost()
    cats = []
    for c, _, _ in cost:
        if c not in cats:
            cats.append(c)
    right = {"array": [], "areas": []}
    for c, prov, t in cost:
        y = len(cats) - 1 - cats.index(c) + (0.15 if prov == "array" else -0.15)
        right[prov].append([g(100 * (t.ratio - 1)), g(y), g(100 * (t.lo - 1)), g(100 * (t.hi - 1))])
    for prov, rws in right.items():
        lines += block("r" + prov, rws)
    span = [v for rw in right.values() for r in rw for v in (float(r[2]), float(r[3]))]
    xlo, xhi = 4 * math.floor(min(span) / 4), 4 * math.ceil(max(span) / 4)
    lines += ["unset object 1", "unset logscale y", "set xrange [%d:%d]" % (xlo, xhi),
              "set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb 'black' dt 2 lw 1 back",
              "set yrange [-0.6:%g]" % (len(cats) - 0.4), "set grid xtics ytics",
              "set ytics (%s) font ',7'" % ", ".join(
                  "%s %d" % (q(c), len(cats) - 1 - i) for i, c in enumerate(cats)),
              "set xtics %d,4,%d format '%%+g' font ',8' offset 0,0.3" % (xlo, xhi),
              "set lmargin at screen 0.715", "set rmargin at screen 0.985",
              "set tmargin at screen 0.80", "set bmargin at screen 0.335",
              "set title 'cost of publishing' font ',8' offset 0,-0.7",
              "set xlabel 'on / off − 1 (%)' font ',8' offset 0,0.6",
              "unset ylabel"]
    lines.append("plot $rarray using 1:2:3:4 with xerrorbars lc rgb %s pt 7 ps 0.6 lw 1 notitle, "
                 "$rareas using 1:2:3:4 with xerrorbars lc rgb %s pt 5 ps 0.6 lw 1 notitle" % (
                     q(colours.style(PROPOSAL)[0]),
                     q(colours.style("uspin_user_adaptive_areas")[0])))
    entries = ["keyentry with points lc rgb %s pt 7 ps 0.7 title %s" % (
        q(CALL_LINE[c]), q(c)) for c in vd.CALLS]
    entries += ["keyentry with boxes fs solid 1.0 lc rgb '#ececec' title '±5 % margin'",
                "keyentry with points lc rgb %s pt 7 ps 0.7 title 'the array (right)'" % q(
                    colours.style(PROPOSAL)[0]),
                "keyentry with points lc rgb %s pt 5 ps 0.7 title 'per-thread areas (right)'" % q(
                    colours.style("uspin_user_adaptive_areas")[0])]
    lines += legend(entries, 2, 0.105, width=-9, font=8)
    return render(path, lines)


def draw(out):
    os.makedirs(out, exist_ok=True)
    j = lambda n: os.path.join(out, n)   # noqa: E731
    return [
        holdtime_figure(j("holdtime-throughput.svg"), "ops_per_s", 20, 0,
                        "Throughput / uspin_block against the hold (higher is better): 4 threads "
                        "on 2 CPUs, no hogs"),
        holdtime_figure(j("holdtime-cpu.svg"), "cpu_us_per_op", 20, 2,
                        "CPU per operation / uspin_block (lower is better): 4 threads on 2 CPUs "
                        "beside 2 CPU hogs"),
        regime_map(j("regime-map.svg")),
        multimodal(j("multimodal.svg")),
        designs(j("running-state-designs.svg")),
    ]


def gnuplot_of(svg):
    """'GNUPLOT 5.4 patchlevel 4': the gnuplot that drew an SVG, or None."""
    try:
        with open(svg) as f:
            m = re.search(r"<desc>Produced by (GNUPLOT[^<]*)</desc>", f.read(4096))
    except OSError:
        return None
    return m.group(1).strip() if m else None


def check(committed):
    """0 when every committed figure is what a redraw writes (or the check
    cannot tell: no gnuplot, another gnuplot version); 1 otherwise."""
    if shutil.which("gnuplot") is None:
        print("SKIP: check-eval-figures: no gnuplot on PATH (make deps-bench)")
        return 0
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        draw(tmp)
        ours = gnuplot_of(os.path.join(tmp, FIGURES[0]))
        theirs = {gnuplot_of(os.path.join(committed, n)) for n in FIGURES} - {None}
        if theirs and theirs != {ours}:
            print("SKIP: check-eval-figures: %s drawn by %s, this is %s" % (
                committed, ", ".join(sorted(theirs)), ours))
            return 0
        for n in FIGURES:
            new, old = os.path.join(tmp, n), os.path.join(committed, n)
            if not os.path.exists(old):
                bad.append("%s: missing (make eval-plots draws it)" % old)
                continue
            with open(new, "rb") as a, open(old, "rb") as b:
                if a.read() != b.read():
                    bad.append("%s differs from a redraw from docs/eval (make eval-plots)" % old)
    for b in bad:
        print("check-eval-figures: " + b)
    if not bad:
        print("check-eval-figures: %d figures redraw identically from docs/eval" % len(FIGURES))
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if args and args[0] == "--check":
        return check(args[1] if len(args) > 1 else os.path.join(ROOT, "docs", "figures"))
    out = args[0] if args else os.path.join(ROOT, "docs", "figures")
    if shutil.which("gnuplot") is None:
        print("eval-figures: needs gnuplot (make deps-bench)", file=sys.stderr)
        return 1
    for f in draw(out):
        print("eval-figures: %s" % os.path.relpath(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
