#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/apps/compare.py - one configuration against another, per round.

usage: bench/apps/compare.py APPS_DIR A B [--side host|guest]

summary.md compares every configuration with glibc; this script answers
the question between two others (the proposal against FUTEX_LOCK_ADAPTIVE:
uspin-user-adaptive uspin-kernel-adaptive; the array against the
per-thread areas: uspin-user-adaptive uspin-user-adaptive@rseq).  It
reads the repeats.csv that report.py wrote (kept rows: failed runs are
kept = 0) and prints, per side, workload and point, A/B measured in the
same round for throughput (higher is better) and CPU per operation (lower
is better): the geometric mean of the per-round ratios, its 95 %
interval, and the call of the one verdict rule (bench/benchlib/verdict.py:
paired t test, TOST at ±5 %, Benjamini-Hochberg over the workload's
points): "better" or "worse" (A against B), "equivalent" or
"inconclusive".
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))

from benchlib import verdict  # noqa: E402
from benchlib.data import Side, has_data  # noqa: E402
from benchlib.summary import compare_pair, md_table  # noqa: E402

METRICS = (("ops_per_s", "throughput", True), ("cpu_us_per_op", "CPU/op", False))


def side_table(side, a, b):
    rows = []
    for wl in side.workloads():
        for point in side.point_ids(wl):
            cells = [wl, point]
            for key, _, hib in METRICS:
                c = compare_pair(side, wl, point, a, b, key)
                if not c:
                    break
                cells += ["%s (n=%d)" % (c.paired.interval(), c.paired.n), verdict.verdict(c.paired, hib)]
            else:
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
        path = os.path.join(args.apps_dir, side)
        if (args.side and side != args.side) or not has_data(os.path.join(path, "repeats.csv")):
            continue
        rows = side_table(Side(path, side), args.a, args.b)
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
