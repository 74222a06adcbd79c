# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots a kernel developer reads in ten seconds, PNG + SVG, via gnuplot.

ratio_plot: one line per lock, the median per-round ratio to the baseline
against an axis (threads, load, hogs), with its 95 % interval as a band;
the baseline is the dashed line at 1; the proposal is thick and on top;
footnote locks (PI) are left off the axis and listed under the plot.
ratio_bars: the same for categories (applications, the micro benchmark):
bars with interval whiskers.
Every plot carries a caption that says what was run.
"""
import os
import shutil
import subprocess
import sys

from . import colours

TERMINALS = (("pngcairo size 1100,680 font 'Sans,10'", "png"),
             ("svg size 1100,680 dynamic font 'Sans,11'", "svg"))
RATIO_TICKS = (0.1, 0.2, 0.25, 0.33, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 5, 10, 20)


def _q(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def available():
    return shutil.which("gnuplot") is not None


_warned = []


def _run(script_lines, datdir, base):
    """Draws base.png and base.svg; [] without gnuplot (the report then links no plots)."""
    if not available():
        if not _warned:
            print("report: no gnuplot on PATH: plots not drawn (apt-get install gnuplot-nox)",
                  file=sys.stderr)
            _warned.append(True)
        return []
    made = []
    for term, ext in TERMINALS:
        lines = ["set terminal " + term, "set output %s" % _q(base + "." + ext)] + script_lines
        path = os.path.join(datdir, os.path.basename(base) + "." + ext + ".gp")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run(["gnuplot", path], check=True)
        made.append(base + "." + ext)
    return made


def _yrange(values):
    lo = min([v for v in values if v > 0] + [1.0])
    hi = max(values + [1.0])
    lo, hi = lo / 1.08, hi * 1.08
    ticks = [t for t in RATIO_TICKS if lo <= t <= hi]
    return lo, hi, ticks


def _caption_labels(caption, footnote):
    out = ["set label 901 %s at screen 0.01, screen 0.025 font ',9' noenhanced" % _q(caption)]
    for i, line in enumerate(footnote[:4]):
        out.append("set label %d %s at screen 0.01, screen %.3f font ',9' noenhanced" % (
            902 + i, _q(line), 0.055 + 0.028 * (len(footnote[:4]) - 1 - i)))
    return out


def ratio_plot(base, title, caption, xlabel, ylabel, baseline, series, footnote=(), logx=None):
    """series: [(lock, [(x, median, lo, hi), ...])], footnote: lines of text.

    Writes base.png and base.svg (base is a path without extension); the
    data and scripts go to base's directory, under plotdata/.
    """
    outdir = os.path.dirname(base) or "."
    datdir = os.path.join(outdir, "plotdata")
    os.makedirs(datdir, exist_ok=True)
    xs = sorted({p[0] for _, pts in series for p in pts})
    if not xs:
        return []
    if logx is None:
        logx = len(xs) > 2 and xs[0] > 0 and xs[-1] / xs[0] >= 8
    allv = [v for _, pts in series for p in pts for v in p[1:]]
    ylo, yhi, ticks = _yrange(allv)
    bottom = 0.11 + 0.028 * min(len(footnote), 4)
    gp = [
        "set title %s noenhanced" % _q(title),
        "set xlabel %s noenhanced" % _q(xlabel),
        "set ylabel %s noenhanced" % _q(ylabel),
        "set logscale y 2",
        "set yrange [%g:%g]" % (ylo, yhi),
        "set ytics (%s)" % ", ".join("%s %g" % (_q("%g" % t), t) for t in ticks) if ticks else "set ytics auto",
        "set grid ytics lc rgb '#dddddd'",
        "set key outside right top noenhanced samplen 3 spacing 1.1",
        "set bmargin at screen %.3f" % (bottom + 0.06),
    ]
    span = (xs[-1] - xs[0]) or max(abs(xs[0]), 1)
    if logx:
        gp += ["set logscale x 2", "set xrange [%g:%g]" % (xs[0] / 1.3, xs[-1] * 1.3)]
    else:
        gp += ["set xrange [%g:%g]" % (xs[0] - 0.1 * span, xs[-1] + 0.1 * span)]
    gp.append("set xtics (%s)" % ", ".join("%s %g" % (_q("%g" % x), x) for x in xs))
    gp += _caption_labels(caption, list(footnote))
    # Proposal last: drawn on top.
    ordered = sorted(series, key=lambda s: colours.is_proposal(s[0]))
    plots = ["1 with lines lc rgb 'black' dt 2 lw 1.5 title %s" % _q("baseline: " + baseline)]
    dodge = {name: i - (len(ordered) - 1) / 2 for i, (name, _) in enumerate(ordered)}
    for name, pts in ordered:
        colour, dt, pt = colours.style(name)
        prop = colours.is_proposal(name)
        fn = os.path.join(datdir, "%s.%s.dat" % (os.path.basename(base), name))
        with open(fn, "w") as f:
            f.write("# x median lo hi  (ratio to %s)\n" % baseline)
            for x, m, lo, hi in sorted(pts):
                f.write("%g %g %g %g\n" % (x, m, lo, hi))
        lw = 3.5 if prop else 1.6
        title = name + (" (proposal)" if prop else "")
        if len(xs) >= 2:
            # The proposal's band stands out; the others' stay faint.
            plots.append("%s using 1:3:4 with filledcurves fs transparent solid %.2f noborder lc rgb %s notitle" % (
                _q(fn), 0.22 if prop else 0.06, _q(colour)))
            plots.append("%s using 1:2 with linespoints lc rgb %s dt %d pt %d ps %.1f lw %.1f title %s" % (
                _q(fn), _q(colour), dt, pt, 1.4 if prop else 0.9, lw, _q(title)))
        else:
            # One x: intervals as whiskers, dodged so they do not overlap.
            off = dodge[name] * 0.02 * (xs[0] if logx else span)
            plots.append("%s using ($1+(%g)):2:3:4 with yerrorbars lc rgb %s pt %d ps %.1f lw %.1f title %s" % (
                _q(fn), off, _q(colour), pt, 1.4 if prop else 0.9, lw, _q(title)))
    gp.append("plot " + ", \\\n  ".join(plots))
    return _run(gp, datdir, base)


def ratio_bars(base, title, caption, ylabel, baseline, categories, series, footnote=()):
    """Bars per category, one per lock: series = [(lock, {category: (median, lo, hi)})]."""
    outdir = os.path.dirname(base) or "."
    datdir = os.path.join(outdir, "plotdata")
    os.makedirs(datdir, exist_ok=True)
    if not categories or not series:
        return []
    fn = os.path.join(datdir, os.path.basename(base) + ".dat")
    with open(fn, "w") as f:
        f.write("# category, then median lo hi per lock: %s\n" % " ".join(n for n, _ in series))
        for c in categories:
            cells = []
            for _, vals in series:
                m, lo, hi = vals.get(c, (float("nan"),) * 3)
                cells += ["%g" % m, "%g" % lo, "%g" % hi]
            f.write("%s %s\n" % (_q(c), " ".join(cells)))
    allv = [v for _, vals in series for t in vals.values() for v in t if v == v]
    ylo, yhi, ticks = _yrange(allv)
    bottom = 0.11 + 0.028 * min(len(footnote), 4)
    gp = [
        "set title %s noenhanced" % _q(title),
        "set ylabel %s noenhanced" % _q(ylabel),
        "set logscale y 2",
        "set yrange [%g:%g]" % (ylo, yhi),
        "set ytics (%s)" % ", ".join("%s %g" % (_q("%g" % t), t) for t in ticks) if ticks else "set ytics auto",
        "set grid ytics lc rgb '#dddddd'",
        "set key outside right top noenhanced",
        "set style data histograms",
        "set style histogram errorbars gap 1.5 lw 1",
        "set bmargin at screen %.3f" % (bottom + 0.08),
        "set xtics noenhanced rotate by -20",
        "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'black' dt 2 lw 1.5 front",
    ]
    gp += _caption_labels(caption, list(footnote))
    plots = []
    for i, (name, _) in enumerate(series):
        colour, _, _ = colours.style(name)
        prop = colours.is_proposal(name)
        fs = "fs solid 0.9 border lc rgb 'black'" if prop else "fs solid 0.55 noborder"
        plots.append("%s using %d:%d:%d%s lc rgb %s %s title %s" % (
            _q(fn), 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, ":xtic(1)" if i == 0 else "",
            _q(colour), fs, _q(name + (" (proposal)" if prop else ""))))
    gp.append("plot " + ", \\\n  ".join(plots))
    return _run(gp, datdir, base)
