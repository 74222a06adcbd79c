# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks of the statistics that cannot flake (seeded), and the verdict
rule's error rates simulated under the null.

    cd bench && python3 -B -m benchlib.selftest      (make bench-check: all of it)
    python3 -B bench/benchlib/selftest.py --points | --grids
                          (make check-eval-tables: the two tables that
                           docs/evaluation.md quotes, "Verdict rule")

The simulation (~15 s) draws grids the way the project measures them:
n rounds (the counts of docs/eval/: 5, 6, 8, 10, 12), each lock's
repetition log-normal around its own level with a shared per-round
drift, in three noise models -
  normal     log-normal, sd 0.05 per lock (the stored runs' per-round log
             ratios have a median sd of 0.03-0.09);
  heavy      the same, but one repetition in ten has 5 times the sd
             (kurtosis ~16);
  disturbed  the normal noise plus, in one repetition in ten, a one-sided
             slow-down to 0.5-0.95 of the value (the guard's "foreign
             load"), to either lock independently -
and asserts, with a Monte-Carlo margin of three standard errors:
  - uncorrected, a point with no difference is called better or worse at
    most 5 % of the time, at every round count and noise model;
  - over 10,000 null grids of 60 points at 8 rounds, after the
    Benjamini-Hochberg step, at most 5 % of the grids have any call at all;
  - at a true difference of exactly ±5 % (the equivalence margin) a point
    is called equivalent at most 5 % of the time, corrected or not;
  - in grids of 40 null and 20 truly different points, at most 5 % of the
    calls are false on average (the false discovery rate BH bounds);
  - a shared per-round drift changes no call (the pairing cancels it).
"""
import math
import os
import random
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchlib import colours, stats, verdict
    from benchlib.summary import md_table
else:
    from . import colours, stats, verdict
    from .summary import md_table

SEED = 20101
ROUNDS = (5, 6, 8, 10, 12)
NOISES = ("normal", "heavy", "disturbed")
SD = 0.05
PER = 10000          # points per cell of the per-point table


def check(cond, what):
    if not cond:
        print("FAIL: benchlib: " + what)
        sys.exit(1)


def noise(rng, kind):
    """One repetition's log deviation from its lock's level."""
    e = rng.gauss(0.0, SD)
    if kind == "heavy" and rng.random() < 0.1:
        e *= 5
    elif kind == "disturbed" and rng.random() < 0.1:
        e += math.log(rng.uniform(0.5, 0.95))
    return e


def log_ratios(rng, n, kind, true_log=0.0):
    """The per-round log ratios of one point (the drift cancels exactly in
    them; drift_cancels shows it through the values themselves)."""
    return [true_log + noise(rng, kind) - noise(rng, kind) for _ in range(n)]


def null_grid(rng, n, kinds, m, true_logs=None):
    out = []
    for i in range(m):
        tl = true_logs[i] if true_logs else 0.0
        out.append(verdict.test_logs(log_ratios(rng, n, kinds[i % len(kinds)], tl)))
    return out


def margin3(rate, trials):
    return 3 * math.sqrt(rate * (1 - rate) / trials)


def units():
    check(stats.median([3, 1, 2]) == 2 and stats.median([4, 1, 2, 3]) == 2.5, "median")
    check(math.isnan(stats.median([])), "median of nothing is nan")
    xs = [10, 11, 9, 10.5, 10.2, 9.8, 10.1, 10.4, 9.9, 10.3]
    a = stats.bootstrap_median(xs)
    check(a.lo <= a.median <= a.hi and a.n == 10, "interval holds the median")
    check(min(xs) <= a.lo and a.hi <= max(xs), "percentile interval inside the data")
    stats._interval_cache.clear()
    check(stats.bootstrap_median(list(reversed(xs))).median == a.median, "order does not matter")
    stats._interval_cache.clear()
    b = stats.bootstrap_median(xs)
    check((b.lo, b.hi) == (a.lo, a.hi), "same data, same interval (fixed seed)")
    one = stats.bootstrap_median([5.0])
    check((one.lo, one.median, one.hi) == (5.0, 5.0, 5.0), "one value: a point interval")
    # Student's t: textbook quantiles.
    for df, t975 in ((1, 12.7062), (4, 2.7764), (5, 2.5706), (7, 2.3646), (9, 2.2622), (11, 2.2010)):
        check(abs(verdict.t_quantile(0.95, df) - t975) < 1e-4, "t quantile, %d df" % df)
    check(abs(verdict.t_two_sided(2.0, 1000) - 0.0458) < 1e-4, "t tends to the normal")
    check(abs(verdict.t_upper(-1.5, 6) + verdict.t_upper(1.5, 6) - 1) < 1e-12, "one-sided t")
    # Benjamini-Hochberg: the textbook example's step-up.
    q = verdict.bh([0.01, 0.04, 0.03, 0.005])
    check([round(x, 6) for x in q] == [0.02, 0.04, 0.04, 0.02], "BH adjusted p")
    # Calls.
    twice = verdict.test([(2 * x, x) for x in xs])
    check(twice.ratio == 2 and twice.p == 0 and twice.lo == twice.hi == 2, "twice in every round")
    same = verdict.test([(x, x) for x in xs])
    check(same.ratio == 1 and same.p == 1 and same.p_eq == 0, "equal in every round")
    g = verdict.decide({"a": twice, "b": same})
    check(g["a"].call == "above" and g["b"].call == "equivalent", "above and equivalent")
    check(verdict.verdict(twice, True) == "better" and verdict.verdict(twice, False) == "worse",
          "the metric's direction turns above into better or worse")
    wide = verdict.test([(x * (1.3 if i % 2 else 0.75), x) for i, x in enumerate(xs)])
    check(verdict.decide([wide])[0].call == "inconclusive", "noisy and unresolved: inconclusive")
    near = verdict.test([(x * (1.02 if i % 2 else 1.0), x) for i, x in enumerate(xs)])
    check(verdict.decide([near])[0].call == "above", "a resolved 1 % difference is named, not equivalent")
    check(verdict.test([(1, 0), (None, 1), (-1, 2)]).n == 0, "unusable pairs are dropped")
    check(verdict.counts_cell(["better", "worse", "inconclusive", "better"]) == "2/0/1/1", "counts")
    check(colours.style("glibc") == colours.style("pthread_mutex"), "aliases share a colour")
    check(colours.style("uspin-user-adaptive") == colours.style(colours.PROPOSAL), "dashes alias")
    check(colours.style("someone_new") == colours.style("someone_new"), "unknown names are stable")
    check(len({v[0] for v in colours.TABLE.values()}) == len(colours.TABLE), "one colour per lock")


def drift_cancels(rng):
    """The same repetitions with and without a shared per-round drift
    (sd 0.3, six times the noise) give the same calls."""
    for _ in range(50):
        n = rng.choice(ROUNDS)
        pts_a, pts_b = {}, {}
        for p in range(60):
            eff = rng.choice((0.0, 0.0, 0.05, -0.1))
            ea = [eff + noise(rng, "disturbed") for _ in range(n)]
            eb = [noise(rng, "disturbed") for _ in range(n)]
            drift = [rng.gauss(0.0, 0.3) for _ in range(n)]
            pts_a[p] = [(1e5 * math.exp(a), 1e5 * math.exp(b)) for a, b in zip(ea, eb)]
            pts_b[p] = [(1e5 * math.exp(a + d), 1e5 * math.exp(b + d)) for a, b, d in zip(ea, eb, drift)]
        ga, gb = verdict.grid(pts_a), verdict.grid(pts_b)
        check(all(ga[p].call == gb[p].call and abs(ga[p].p - gb[p].p) < 1e-9 for p in ga),
              "a shared per-round drift changed a call")


def per_point():
    """Table 1: one point at a time, uncorrected, at every round count."""
    rng = random.Random(SEED)
    drift_cancels(rng)
    delta = math.log(1 + verdict.MARGIN)
    rows = []
    for n in ROUNDS:
        cells = [str(n)]
        for kind in NOISES:
            hits = sum(1 for _ in range(PER) if verdict.test_logs(log_ratios(rng, n, kind)).p <= verdict.ALPHA)
            check(hits / PER <= verdict.ALPHA + margin3(verdict.ALPHA, PER),
                  "false positives %.2f %% at %d rounds, %s noise" % (100 * hits / PER, n, kind))
            cells.append("%.1f %%" % (100 * hits / PER))
        eq = sum(1 for i in range(PER)
                 if verdict.test_logs(log_ratios(rng, n, "normal", delta if i % 2 else -delta)).p_eq
                 <= verdict.ALPHA)
        check(eq / PER <= verdict.ALPHA + margin3(verdict.ALPHA, PER),
              "TOST at the margin, %d rounds: %.2f %% equivalent" % (n, 100 * eq / PER))
        cells.append("%.1f %%" % (100 * eq / PER))
        rows.append(cells)
    return md_table(["rounds", "no difference, normal noise: called better or worse", "heavy-tailed",
                     "disturbed", "true ratio 1.05 or 1/1.05: called equivalent"], rows)


def grids():
    """Table 2: grids of 60 points at 8 rounds, after Benjamini-Hochberg."""
    rng = random.Random(SEED + 1)
    m, n = 60, 8
    rows = []
    # No difference anywhere (the noise models in turn).
    count = 10000
    raw = called = any_call = 0
    for g in range(count):
        ts = verdict.decide(null_grid(rng, n, NOISES[g % 3:] + NOISES[:g % 3], m))
        raw += sum(1 for t in ts if t.p <= verdict.ALPHA)
        k = sum(1 for t in ts if t.call in ("above", "below"))
        called += k
        any_call += k > 0
    tot = count * m
    check(raw / tot <= verdict.ALPHA + margin3(verdict.ALPHA, tot), "null grids: uncorrected FPR")
    check(any_call / count <= verdict.ALPHA + margin3(verdict.ALPHA, count),
          "null grids: %.2f %% with a call" % (100 * any_call / count))
    rows.append(["%s, no difference anywhere" % "{:,}".format(count), "points called better or worse",
                 "%.3f %% (uncorrected: %.1f %%); grids with any call: %.1f %%"
                 % (100 * called / tot, 100 * raw / tot, 100 * any_call / count)])
    # Every point exactly at the margin.
    count = 1000
    delta = math.log(1 + verdict.MARGIN)
    eq = 0
    for g in range(count):
        ts = verdict.decide(null_grid(rng, n, ("normal",), m, [delta if i % 2 else -delta for i in range(m)]))
        eq += sum(1 for t in ts if t.call == "equivalent")
    check(eq / (count * m) <= verdict.ALPHA + margin3(verdict.ALPHA, count * m), "TOST after BH")
    rows.append(["%s, every point at 1.05 or 1/1.05" % "{:,}".format(count), "points called equivalent",
                 "%.2f %%" % (100 * eq / (count * m))])
    # 40 null points and 20 at a true 10 % difference.
    fdp = power = 0.0
    for g in range(count):
        ts = verdict.decide(null_grid(rng, n, NOISES, m, [0.0] * 40 + [math.log(1.1)] * 20))
        hit = [i for i, t in enumerate(ts) if t.call in ("above", "below")]
        fdp += sum(1 for i in hit if i < 40) / len(hit) if hit else 0.0
        power += sum(1 for i in hit if i >= 40)
    check(fdp / count <= verdict.ALPHA + 0.01, "FDR %.2f %%" % (100 * fdp / count))
    rows.append(["%s, 40 points at 1 and 20 at 1.10" % "{:,}".format(count),
                 "false calls among the calls (FDR)",
                 "%.2f %%; the 20 found: %.0f %%" % (100 * fdp / count, 100 * power / (20 * count))])
    return md_table(["grids of 60 points × 8 rounds", "after Benjamini-Hochberg", "simulated"], rows)


def main(argv):
    units()
    if argv in ([], ["--points"]):
        print("One point at a time, uncorrected, %s points per cell (seed %d; Monte-Carlo margin "
              "±%.1f %%):\n" % ("{:,}".format(PER), SEED, 100 * margin3(verdict.ALPHA, PER)))
        print(per_point())
    if argv in ([], ["--grids"]):
        print("Whole grids (seed %d; noise models in turn):\n" % (SEED + 1))
        print(grids())
    if argv not in ([], ["--points"], ["--grids"]):
        print("usage: selftest.py [--points | --grids]")
        sys.exit(2)
    print("benchlib: statistics, verdict rule and colours OK")


if __name__ == "__main__":
    main(sys.argv[1:])
