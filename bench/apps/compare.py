#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/apps/compare.py - one configuration against another, per round.

usage: bench/apps/compare.py APPS_DIR A B [--side host|guest]

summary.md compares every configuration with glibc; this script answers
the question between two others (the proposal against FUTEX_LOCK_ADAPTIVE:
uspin-user-adaptive uspin-kernel-adaptive; the array against the
per-thread areas: uspin-user-adaptive uspin-user-adaptive@rseq).  It
reads the repeats.csv that report.py wrote and prints, per side, workload
and point, the median over rounds of A/B measured in the same round, with
its 95 % bootstrap interval (bench/benchlib/stats.py, the same resamples
as the report), for throughput (higher is better) and CPU per operation
(lower is better).  The verdict is the ratio's: "A better" or "B better"
only when the interval excludes 1.
"""
import argparse
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))

from benchlib import stats  # noqa: E402
from benchlib.stats import fmt_num  # noqa: E402
from benchlib.summary import md_table  # noqa: E402

METRICS = (("ops_per_s", "throughput", True), ("cpu_us_per_op", "CPU/op", False))


def load(path):
    """{(workload, point): {lock: {rep: row}}} of the kept, passed runs."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["kept"] != "1" or r["check"] != "pass":
                continue
            out.setdefault((r["workload"], r["point"]), {}).setdefault(r["lock"], {})[r["rep"]] = r
    return out


def verdict(iv, higher_is_better):
    if iv.n == 0:
        return "n/a"
    if iv.lo > 1 or iv.hi < 1:
        return "A better" if (iv.lo > 1) == higher_is_better else "B better"
    return "tie"


def side_table(points, a, b):
    rows = []
    for (wl, point), locks in sorted(points.items()):
        if a not in locks or b not in locks:
            continue
        cells = [wl, point]
        for key, _, hib in METRICS:
            pairs = [(float(locks[a][rep][key]), float(locks[b][rep][key]))
                     for rep in locks[a] if rep in locks[b]
                     and locks[a][rep][key] and locks[b][rep][key]]
            iv = stats.bootstrap_ratio(pairs)
            cells += ["%s [%s, %s] (n=%d)" % (fmt_num(iv.median), fmt_num(iv.lo), fmt_num(iv.hi), iv.n),
                      verdict(iv, hib)]
        rows.append(cells)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("apps_dir")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--side", choices=("host", "guest"))
    args = ap.parse_args()
    found = False
    for side in ("host", "guest"):
        path = os.path.join(args.apps_dir, side, "repeats.csv")
        if (args.side and side != args.side) or not os.path.exists(path):
            continue
        rows = side_table(load(path), args.a, args.b)
        if not rows:
            continue
        found = True
        print("### %s: %s / %s, per round\n" % (side, args.a, args.b))
        head = ["workload", "point"]
        for _, name, _ in METRICS:
            head += ["%s ratio [95 %% CI]" % name, "verdict"]
        print(md_table(head, rows))
        print()
    if not found:
        print("bench/apps/compare.py: no side of %s ran both %s and %s" % (args.apps_dir, args.a, args.b),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
