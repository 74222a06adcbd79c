# SPDX-License-Identifier: LGPL-2.1-or-later
"""The model against the measured `holdtime` runs, point by point.

For each side, point and base lock: the proposal's throughput over the
base, predicted, against the measured per-round ratio (geometric mean,
95 % interval) and the call of the one verdict rule
(benchlib/verdict.py through benchlib.summary.compare_pair, as
compare.py).  The same for CPU per operation.  A prediction "orders" a
pair right when it names the side of 1 the rule called (above: > 1 + TIE,
below: < 1 - TIE) or, where the rule called no difference (equivalent or
inconclusive: a "tie" here), when it lies inside the interval or within
TIE of 1.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchlib.data import Side  # noqa: E402
from benchlib.stats import median  # noqa: E402
from benchlib.summary import compare_pair  # noqa: E402

import model  # noqa: E402

WL = "holdtime"
BASES = ("block", "v2_rule", "blind_capped", "glibc_adaptive")
TIE = 0.01          # a predicted ratio within 1 % of 1 is a predicted tie
# Predictors with no model at all, which the model must beat to have skill:
# "no difference" and "the proposal is 5 % better", at every pair.
CONSTANTS = {"ops_per_s": (1.0, 1.05), "cpu_us_per_op": (1.0, 0.95)}
CONSTANT_NAMES = ("no difference", "5 % better")
FAMILIES = ("fit (t2-g0)", "validation", "duty 25/90 %", "preemptor")


def _axes(pid):
    """h50-d25-t4-g2[-p100000-D1000] -> {'h': 50, 'd': 25, ...}"""
    return {f[0]: int(f[1:]) for f in pid.split("-")}


def point_of(pid, cpus):
    """A point id -> model.Point (the run's hogs are one per CPU; the gap
    follows from the duty; preemptions per million holds and their length)."""
    a = _axes(pid)
    h, d = float(a["h"]), a["d"]
    return model.Point(cpus, a["t"], h, 1 if a["g"] else 0, gap=h * (100 - d) / d,
                       preempt_p=a.get("p", 0) / 1e6, preempt_us=float(a.get("D", 0)))


def family(pid):
    """The fit family (one thread per CPU, no load, duty 50 %, where the
    primitives come from) or the family a validation point belongs to."""
    a = _axes(pid)
    if a.get("p", 0):
        return FAMILIES[3]
    if a["d"] != 50:
        return FAMILIES[2]
    return FAMILIES[0] if a["t"] == 2 and a["g"] == 0 else FAMILIES[1]


METRICS = ("ops_per_s", "cpu_us_per_op")


def _verdict(paired):
    """The one rule's call: above 1, below 1, or neither (a tie here)."""
    return paired.call if paired.call in ("above", "below") else "tie"


def _predicted_verdict(r):
    return "above" if r > 1 + TIE else "below" if r < 1 - TIE else "tie"


def _orders(pred, measured, lo, hi):
    if measured == "tie":
        return lo <= pred <= hi or _predicted_verdict(pred) == "tie"
    return _predicted_verdict(pred) == measured


def _measured_best(side, pid):
    """The policy with the highest median throughput and every policy the
    one rule does not call worse than it."""
    meds = {}
    for pol, lock in model.LOCK_OF.items():
        v = side.values(WL, pid, lock, "ops_per_s")
        if v:
            meds[pol] = median(list(v.values()))
    top = max(meds, key=meds.get)
    best = {top}
    for pol in meds:
        c = compare_pair(side, WL, pid, model.LOCK_OF[pol], model.LOCK_OF[top], "ops_per_s")
        if pol != top and c and c.verdict != "worse":
            best.add(pol)
    return best


def validate_side(path, name, prims):
    """Rows: one per (point, base), plus one winner row per point."""
    side = Side(path, name)
    cpus = int(side.meta.get("cpus_online", 2))
    pairs, winners = [], []
    for pid in side.point_ids(WL):
        pred = model.predict_all(prims, point_of(pid, cpus))
        fam = family(pid)
        fit = fam == FAMILIES[0]
        for metric, base in ((m, b) for m in METRICS for b in BASES):
            c = compare_pair(side, WL, pid, model.LOCK_OF["proposal"], model.LOCK_OF[base], metric)
            if not c:
                continue
            r = getattr(pred["proposal"], metric) / getattr(pred[base], metric)
            lo, hi, med = c.paired.lo, c.paired.hi, c.paired.ratio
            meas = _verdict(c.paired)
            pairs.append({"side": name, "point": pid, "base": base, "fit": fit, "family": fam,
                          "metric": metric,
                          "pred": r, "meas": med, "lo": lo, "hi": hi, "verdict": meas,
                          "pred_verdict": _predicted_verdict(r),
                          "in_interval": lo <= r <= hi, "orders": _orders(r, meas, lo, hi),
                          "not_above": r <= hi,
                          "const_orders": [_orders(k, meas, lo, hi) for k in CONSTANTS[metric]]})
        best = max(pred, key=lambda p: pred[p].ops_per_s)
        mbest = _measured_best(side, pid)
        winners.append({"side": name, "point": pid, "fit": fit, "family": fam, "pred_best": best,
                        "meas_best": sorted(mbest), "agrees": best in mbest})
    return pairs, winners


def tally(pairs, winners, metric):
    """Counts per side and family, for one metric."""
    out = []
    for name in sorted({p["side"] for p in pairs}, reverse=True):
        for fam in FAMILIES:
            ps = [p for p in pairs if p["side"] == name and p["family"] == fam and p["metric"] == metric]
            ws = [w for w in winners if w["side"] == name and w["family"] == fam]
            if not ps:
                continue
            out.append({"side": name, "family": fam,
                        "pairs": len(ps), "orders": sum(p["orders"] for p in ps),
                        "const_orders": [sum(p["const_orders"][i] for p in ps)
                                         for i in range(len(CONSTANT_NAMES))],
                        "in_interval": sum(p["in_interval"] for p in ps),
                        "not_above": sum(p["not_above"] for p in ps),
                        "points": len(ws), "winner": sum(w["agrees"] for w in ws)})
    return out
