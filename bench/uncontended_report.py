#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/uncontended_report.py - bench-uncontended's rounds, under the one verdict rule.

usage: bench/uncontended_report.py ROUNDS.csv

ROUNDS.csv is what `bench-uncontended -o` writes (phase, subject, round,
ns_per_pair).  Per phase (single, threaded) and subject: the median ns
per lock+unlock pair over the rounds, and the subject over glibc's
pthread_mutex of the same phase and round: the geometric mean of the
per-round ratios, its 95 % interval, and the call of
bench/benchlib/verdict.py (lower ns is better), Benjamini-Hochberg over
every comparison of the table.  `make bench-uncontended` writes it to
summary.txt beside the rounds.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib import verdict as vd  # noqa: E402
from benchlib.stats import median  # noqa: E402
from benchlib.summary import METRICS, md_table  # noqa: E402

BASE = "pthread_mutex"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    ns = {}  # (phase, subject) -> {round: ns}, in the file's order
    try:
        with open(sys.argv[1], newline="") as f:
            for row in csv.DictReader(f):
                ns.setdefault((row["phase"], row["subject"]), {})[int(row["round"])] = \
                    float(row["ns_per_pair"])
    except (OSError, KeyError, ValueError) as e:
        sys.exit("bench/uncontended_report.py: %s: %s" % (sys.argv[1], e))
    pairs = {}
    for (phase, subject), v in ns.items():
        b = ns.get((phase, BASE))
        if b is None:
            sys.exit("bench/uncontended_report.py: no %s in phase %s" % (BASE, phase))
        if subject != BASE:
            pairs[(phase, subject)] = [(v[r], b[r]) for r in sorted(v) if r in b]
    tests = vd.grid(pairs)
    rows = []
    for key, v in ns.items():
        t = tests.get(key)
        rows.append([key[0], key[1], "%.2f" % median(list(v.values())),
                     "%s %s" % (t.interval(), vd.verdict(t, METRICS["ns_per_op"].higher_is_better))
                     if t else "(baseline)"])
    print("lock+unlock, ns per pair: median over %d rounds; each subject over glibc's %s of the "
          "same phase and round: geometric mean of the per-round ratios [95 %% interval] and the "
          "call (lower is better; the table is one grid); %s\n"
          % (max(len(v) for v in ns.values()), BASE, vd.rule_line()))
    print(md_table(["phase", "subject", "ns", "/ %s" % BASE], rows), end="")


if __name__ == "__main__":
    main()
