# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks of the statistics that cannot flake: run `python3 -m benchlib.selftest` in bench/."""
import math
import sys

from . import colours, stats


def check(cond, what):
    if not cond:
        print("FAIL: benchlib: " + what)
        sys.exit(1)


def main():
    check(stats.median([3, 1, 2]) == 2 and stats.median([4, 1, 2, 3]) == 2.5, "median")
    check(math.isnan(stats.median([])), "median of nothing is nan")
    xs = [10, 11, 9, 10.5, 10.2, 9.8, 10.1, 10.4, 9.9, 10.3]
    a = stats.bootstrap_median(xs)
    check(a.lo <= a.median <= a.hi and a.n == 10, "interval holds the median")
    check(min(xs) <= a.lo and a.hi <= max(xs), "percentile interval inside the data")
    stats._interval_cache.clear()
    check(stats.bootstrap_median(list(reversed(xs))) .median == a.median, "order does not matter")
    stats._interval_cache.clear()
    b = stats.bootstrap_median(xs)
    check((b.lo, b.hi) == (a.lo, a.hi), "same data, same interval (fixed seed)")
    one = stats.bootstrap_median([5.0])
    check((one.lo, one.median, one.hi) == (5.0, 5.0, 5.0), "one value: a point interval")
    hi = stats.bootstrap_median([x * 2 for x in xs])
    check(stats.verdict(hi, a, True) == "win" and stats.verdict(a, hi, True) == "loss", "clear win/loss")
    check(stats.verdict(hi, a, False) == "loss", "lower is better flips the verdict")
    near = stats.bootstrap_median([x + 0.1 for x in xs])
    check(stats.verdict(near, a, True) == "tie", "overlapping intervals tie")
    r = stats.bootstrap_ratio([(2 * x, x) for x in xs])
    check(r.median == 2 and r.lo == 2 and r.hi == 2, "per-round ratios")
    check(stats.bootstrap_ratio([(1, 0), (None, 1)]).n == 0, "unusable pairs are dropped")
    check(colours.style("glibc") == colours.style("pthread_mutex"), "aliases share a colour")
    check(colours.style("uspin-user-adaptive") == colours.style(colours.PROPOSAL), "dashes alias")
    check(colours.style("someone_new") == colours.style("someone_new"), "unknown names are stable")
    check(len({v[0] for v in colours.TABLE.values()}) == len(colours.TABLE), "one colour per lock")
    print("benchlib: statistics and colours OK")


if __name__ == "__main__":
    main()
