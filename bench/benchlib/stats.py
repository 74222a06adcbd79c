# SPDX-License-Identifier: LGPL-2.1-or-later
"""Medians and percentile-bootstrap intervals: descriptive only.

A lock's value at a point is the median over its rounds, printed with
the percentile bootstrap of that median (RESAMPLES resamples of the
rounds with replacement, the 2.5th and 97.5th percentiles; the index
sets come from random.Random(SEED) and depend only on the number of
rounds, so every interval is reproducible from the CSV).  No verdict is
drawn from these intervals: whether one lock is better than another is
the one rule of benchlib/verdict.py (paired per-round ratios).
"""
import math
import random
from dataclasses import dataclass

RESAMPLES = 2000
SEED = 20101
LEVEL = 0.95

_index_cache = {}


@dataclass
class Interval:
    median: float
    lo: float
    hi: float
    n: int

    def fmt(self, digits=3):
        return "%s [%s, %s]" % (fmt_num(self.median, digits), fmt_num(self.lo, digits),
                                fmt_num(self.hi, digits))


def fmt_num(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    ax = abs(x)
    if ax >= 1000:
        return "{:,.0f}".format(x)
    if ax >= 100:
        return "%.0f" % x
    return "%.*g" % (digits, x)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _resamples(n):
    """RESAMPLES index tuples for n values, the same for every caller."""
    if n not in _index_cache:
        rng = random.Random(SEED * 1000003 + n)
        _index_cache[n] = [[rng.randrange(n) for _ in range(n)] for _ in range(RESAMPLES)]
    return _index_cache[n]


def _percentile_interval(stats):
    stats.sort()
    lo_i = int(round((1 - LEVEL) / 2 * (len(stats) - 1)))
    hi_i = int(round((1 + LEVEL) / 2 * (len(stats) - 1)))
    return stats[lo_i], stats[hi_i]


_interval_cache = {}


def bootstrap_median(xs):
    """Median of xs with its percentile-bootstrap interval (memoised)."""
    xs = tuple(x for x in xs if x is not None and not math.isnan(x))
    if xs not in _interval_cache:
        _interval_cache[xs] = _bootstrap_median(xs)
    return _interval_cache[xs]


def _bootstrap_median(xs):
    n = len(xs)
    m = median(xs)
    if n < 2:
        return Interval(m, m, m, n)
    boot = [median([xs[i] for i in idx]) for idx in _resamples(n)]
    lo, hi = _percentile_interval(boot)
    return Interval(m, lo, hi, n)
