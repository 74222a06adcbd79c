#!/usr/bin/env python3
# ratios.py POINTS.CSV [SUBJECT-PREFIX] - geometric-mean ratios of one lock
# against every other lock of the same run (points.csv of uspin-bench):
# throughput and CPU time per iteration, over contended points (threads > 1)
# and oversubscribed ones (threads >= 8), with the range and the win count.
# Ratios inside one run are what these shared machines can measure.
import collections
import csv
import math
import sys


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: ratios.py POINTS.CSV [SUBJECT-PREFIX]")
    prefix = sys.argv[2] if len(sys.argv) > 2 else "uspin_user_adaptive"
    rows = list(csv.DictReader(open(sys.argv[1])))
    subjects = sorted({r["lock"] for r in rows if r["lock"].startswith(prefix)})
    if not subjects:
        sys.exit(f"ratios.py: no lock named {prefix}* in {sys.argv[1]}")
    subj = subjects[0]
    points = collections.defaultdict(dict)
    for r in rows:
        points[(int(r["period"]), int(r["duty"]), int(r["threads"]))][r["lock"]] = r

    def cpu(r):
        return float(r["user_us_per_iter_med"]) + float(r["sys_us_per_iter_med"])

    print(f"subject: {subj}")
    print(f"{'vs':30s} {'points':12s} {'thr gm':>7s} {'min':>6s} {'max':>7s} {'wins':>6s} {'cpu/it gm':>9s}")
    for other in sorted({r["lock"] for r in rows} - {subj}):
        for name, keep in (("threads>1", lambda k: k[2] > 1),
                           ("threads>=8", lambda k: k[2] >= 8)):
            pairs = [(v[subj], v[other]) for k, v in points.items()
                     if keep(k) and subj in v and other in v
                     and float(v[other]["iters_per_s_med"]) > 0]
            if not pairs:
                continue
            thr = [float(a["iters_per_s_med"]) / float(b["iters_per_s_med"]) for a, b in pairs]
            cp = [cpu(a) / cpu(b) for a, b in pairs if cpu(b) > 0 and cpu(a) > 0]
            wins = sum(x > 1 for x in thr)
            print(f"{other:30s} {name:12s} {gm(thr):7.2f} {min(thr):6.2f} {max(thr):7.2f} "
                  f"{wins:3d}/{len(thr):<3d} {gm(cp) if cp else float('nan'):9.2f}")


main()
