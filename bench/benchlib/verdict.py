# SPDX-License-Identifier: LGPL-2.1-or-later
"""The one verdict rule: every report that calls a point better or worse.

A comparison of lock A with lock B at one point of a grid:

- **Paired per-round log ratios.** Each round runs every lock once,
  seconds apart, in an order shuffled per round (docs/benchmarks.md,
  "Method"); d_r = log(A_r / B_r) for every round r both kept.  A drift
  of the machine that a round shares cancels in d_r.  The estimate is
  the geometric mean ratio exp(mean d), its interval exp(mean d ± t·se),
  the 95 % Student-t interval (n - 1 degrees of freedom).
- **The difference test** is Student's one-sample t test of mean d = 0,
  two-sided.  Under the null "A and B are exchangeable within a round"
  the d_r are symmetric about 0, and for symmetric data the t test
  keeps its level at 5 % (Efron 1969; heavy tails make it conservative);
  the selftest shows it by simulation at the project's round counts.
  Not a bootstrap (percentile intervals of 8 rounds reject 5.7-7.9 % of
  true nulls) and not an exact sign-flip test (its smallest two-sided p
  is 2/2^n: 1/16 at the 5 rounds of the application runs, so nothing
  could ever be called there, and 1/128 at 8 rounds, which passes a
  60-point grid's Benjamini-Hochberg step only where 10 points or more
  reach it, and Holm's never).
- **The equivalence test** is TOST at ±MARGIN (5 %) on the log scale:
  both one-sided t tests of mean d <= -log(1.05) and of mean d >=
  log(1.05) must reject at 5 %, i.e. the 90 % interval lies within
  [1/1.05, 1.05].  p_eq is the larger of the two one-sided p.
- **Correction across the grid**: Benjamini-Hochberg at 5 % over the
  points of one grid (one workload of one run, one pair of locks, one
  metric), separately for the difference p and the equivalence p_eq.
  BH, not Holm: a report states how many of a grid's points are better
  or worse, and BH bounds the expected share of false ones among those
  it names (5 %), where Holm bounds the chance of a single false one in
  the grid and, over 60 points, keeps a point only if its |t| exceeds
  5.6 at 8 rounds (9.0 at 5 rounds).  BH is valid for independent or positively
  dependent tests (the points of a grid share a machine, not a sign).
- **Exactly one call per point**: "above" / "below" when the corrected
  difference test rejects (then a real difference, even one smaller
  than the margin, is named), else "equivalent" when the corrected TOST
  rejects, else "inconclusive".  verdict() turns above/below into
  better/worse by the metric's direction.

`python3 -m benchlib.selftest` (bench/, part of `make bench-check`)
simulates null grids and asserts the false-positive rates.
Standard library only.
"""
import math
from dataclasses import dataclass

ALPHA = 0.05
MARGIN = 0.05          # equivalence: the ratio within [1/1.05, 1.05]
LEVEL = 0.95           # the interval printed beside a call
CALLS = ("better", "equivalent", "inconclusive", "worse")
MARK = {"above": "▲", "below": "▼", "equivalent": "=", "inconclusive": "·"}


# -- Student's t, integer degrees of freedom (closed forms, A&S 26.7.3-4) --

def t_two_sided(t, df):
    """P(|T| >= |t|) for Student's T with df (a positive integer) degrees of freedom."""
    t = abs(t)
    if math.isinf(t):
        return 0.0
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2:
        term, acc = c, (c if df > 1 else 0.0)
        for k in range(3, df - 1, 2):   # c + 2/3 c^3 + 2*4/(3*5) c^5 + ...
            term *= c2 * (k - 1) / k
            acc += term
        a = 2 / math.pi * (theta + s * acc)
    else:
        term, acc = 1.0, 1.0
        for k in range(2, df - 1, 2):   # 1 + 1/2 c^2 + 1*3/(2*4) c^4 + ...
            term *= c2 * (k - 1) / k
            acc += term
        a = s * acc
    return min(1.0, max(0.0, 1.0 - a))


def t_upper(t, df):
    """P(T >= t), one-sided."""
    p = t_two_sided(t, df) / 2
    return p if t >= 0 else 1.0 - p


_quantiles = {}


def t_quantile(level, df):
    """The t with P(|T| < t) = level (bisection; memoised)."""
    key = (level, df)
    if key not in _quantiles:
        lo, hi = 0.0, 1.0
        while t_two_sided(hi, df) > 1 - level:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if t_two_sided(mid, df) > 1 - level:
                lo = mid
            else:
                hi = mid
        _quantiles[key] = (lo + hi) / 2
    return _quantiles[key]


# -- one point --

@dataclass
class Paired:
    """Lock A over lock B at one point, from its paired rounds."""
    n: int                 # rounds with both values
    ratio: float           # geometric mean of A_r / B_r
    lo: float              # 95 % t interval of the ratio
    hi: float
    p: float               # two-sided, H0: ratio = 1
    p_eq: float            # TOST, H0: |log ratio| >= log(1 + margin)
    q: float = 1.0         # p after Benjamini-Hochberg over the grid
    q_eq: float = 1.0
    call: str = "inconclusive"   # above / below / equivalent / inconclusive

    def interval(self, digits=3):
        """'ratio [lo, hi]'."""
        from .stats import fmt_num
        return "%s [%s, %s]" % (fmt_num(self.ratio, digits), fmt_num(self.lo, digits),
                                fmt_num(self.hi, digits))

    def cell(self, digits=3):
        """The interval and the call's mark."""
        return "%s %s" % (self.interval(digits), MARK[self.call])

    def half_width(self):
        """Half the interval, relative to the estimate: what this run resolves."""
        return (self.hi - self.lo) / 2 / self.ratio if self.ratio > 0 else float("inf")


def log_ratios(pairs):
    """log(a / b) of the usable pairs (both values positive numbers)."""
    out = []
    for a, b in pairs:
        if a is None or b is None or not (a > 0 and b > 0) or math.isinf(a) or math.isinf(b):
            continue
        out.append(math.log(a / b))
    return out


def test_logs(d, margin=MARGIN):
    """Paired, uncorrected, from the per-round log ratios d."""
    n = len(d)
    if n == 0:
        return Paired(0, float("nan"), float("nan"), float("nan"), 1.0, 1.0)
    m = math.fsum(d) / n
    if n < 2:
        r = math.exp(m)
        return Paired(n, r, r, r, 1.0, 1.0)
    df = n - 1
    var = math.fsum((x - m) ** 2 for x in d) / df
    se = math.sqrt(var / n)
    delta = math.log(1 + margin)
    if se == 0:   # every round the same ratio: decided by the sign alone
        p = 0.0 if m != 0 else 1.0
        p_eq = 0.0 if abs(m) < delta else 1.0
        r = math.exp(m)
        return Paired(n, r, r, r, p, p_eq)
    p = t_two_sided(m / se, df)
    p_eq = max(t_upper((m + delta) / se, df), t_upper((delta - m) / se, df))
    h = t_quantile(LEVEL, df) * se
    return Paired(n, math.exp(m), math.exp(m - h), math.exp(m + h), p, p_eq)


def test(pairs, margin=MARGIN):
    """pairs: [(a, b)] measured in the same round."""
    return test_logs(log_ratios(pairs), margin)


# -- one grid --

def bh(ps):
    """Benjamini-Hochberg adjusted p-values (q), in the order given."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    q = [1.0] * m
    run = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        run = min(run, ps[i] * m / rank)
        q[i] = min(1.0, run)
    return q


def decide(tests, alpha=ALPHA):
    """Corrects the Paired of one grid (a list or a dict's values) and
    sets each one's call; returns them."""
    ts = list(tests.values()) if isinstance(tests, dict) else list(tests)
    for t, q, qe in zip(ts, bh([t.p for t in ts]), bh([t.p_eq for t in ts])):
        t.q, t.q_eq = q, qe
        if q <= alpha:
            t.call = "above" if t.ratio > 1 else "below"
        elif qe <= alpha:
            t.call = "equivalent"
        else:
            t.call = "inconclusive"
    return tests


def grid(pairs_by_point, margin=MARGIN, alpha=ALPHA):
    """{point: [(a, b)]} -> {point: Paired}, corrected over the grid."""
    return decide({k: test(v, margin) for k, v in pairs_by_point.items()}, alpha)


def verdict(t, higher_is_better=True):
    """better / equivalent / inconclusive / worse, for A against B."""
    if t.call == "above":
        return "better" if higher_is_better else "worse"
    if t.call == "below":
        return "worse" if higher_is_better else "better"
    return t.call


def counts_cell(calls):
    """'b/e/i/w' of a list of verdict() strings."""
    return "/".join(str(sum(1 for c in calls if c == k)) for k in CALLS)


def rule_line(margin=MARGIN):
    """One line for a report's reader: how its calls are made."""
    return ("paired t test on the per-round log ratios, TOST at ±%g %%, Benjamini-Hochberg at "
            "%g %% over each grid (bench/benchlib/verdict.py)" % (100 * margin, 100 * ALPHA))
