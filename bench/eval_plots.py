#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/eval_plots.py - the plots of the runs kept in docs/eval/, redrawn.

usage: bench/eval_plots.py [SRC [OUT]]    (make eval-plots: docs/eval BUILD/eval)

docs/eval/ keeps each run's meta.json and CSVs but not what derives from
them.  This copies SRC to OUT without any plot and redraws them there
from each side's meta.json and repeats.csv:
- a run of the synthetic harness (sides holding meta.json and
  repeats.csv): bench/report.py, which also writes the copy's
  points.csv and summary.md (the one verdict rule);
- a run of the applications (sides with configs/): bench/apps/report.py's
  charts; its summary needs the raw output, which is not kept, so the
  copy keeps the stored summary.md.
The reports' plot links then resolve inside OUT.  SRC is only read.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchlib.data import Side, has_data  # noqa: E402


def load_apps_report():
    """bench/apps/report.py as a module (bench/report.py is also 'report')."""
    spec = importlib.util.spec_from_file_location("apps_report",
                                                  os.path.join(HERE, "apps", "report.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def side_names(run):
    """The sides of a run folder: host and guest first, as the reports order them."""
    names = [n for n in sorted(os.listdir(run))
             if os.path.isfile(os.path.join(run, n, "meta.json"))
             and has_data(os.path.join(run, n, "repeats.csv"))]
    first = [n for n in ("host", "guest") if n in names]
    return first + [n for n in names if n not in first]


def apps_plots(apps, run, names):
    sides = [Side(os.path.join(run, n), n) for n in names]
    comps = {s.name: apps.comparisons(s) for s in sides}
    return apps.plots(run, sides, comps)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "docs/eval"
    out = sys.argv[2] if len(sys.argv) > 2 else "build/eval"
    if shutil.which("gnuplot") is None:
        print("eval-plots: needs gnuplot (make deps-bench)", file=sys.stderr)
        return 1
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out, ignore=shutil.ignore_patterns("plots", "*.png", "*.svg"))
    runs = sorted(d for d, _, _ in os.walk(out) if side_names(d))
    apps = None
    for run in runs:
        names = side_names(run)
        if any(os.path.isdir(os.path.join(run, n, "configs")) for n in names):
            apps = apps or load_apps_report()
            apps_plots(apps, run, names)
        else:
            subprocess.run([sys.executable, os.path.join(HERE, "report.py"), run],
                           check=True, stdout=subprocess.DEVNULL)
        made = sum(f.endswith(".png") for d in [run] + [os.path.join(run, n) for n in names]
                   if os.path.isdir(os.path.join(d, "plots"))
                   for f in os.listdir(os.path.join(d, "plots")))
        print("eval-plots: %s: %d plots" % (run, made))
    return 0


if __name__ == "__main__":
    sys.exit(main())
