# SPDX-License-Identifier: LGPL-2.1-or-later
"""The model against the measured `holdtime` runs, point by point.

For each side, point and base lock: the proposal's throughput over the
base, predicted, against the measured paired per-round ratio and its 95 %
interval (benchlib.summary.compare_pair, the statistics of compare.py).
The same for CPU per operation.  A prediction "orders" a pair right when
it names the side of 1 the measured interval lies on (above: > 1 + TIE,
below: < 1 - TIE) or, where the data
cannot order the pair (a tie), when it lies inside the interval.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchlib.data import Side  # noqa: E402
from benchlib.summary import compare_pair  # noqa: E402

import model  # noqa: E402

WL = "holdtime"
BASES = ("block", "v2_rule", "blind_capped", "glibc_adaptive")
TIE = 0.01          # a predicted ratio within 1 % of 1 is a predicted tie
FIT_SUFFIX = "-t2-g0"


def point_of(pid, cpus):
    """h50-d50-t4-g2 -> model.Point (the run's hogs are one per CPU)."""
    h, _, t, g = pid.split("-")
    return model.Point(cpus, int(t[1:]), float(h[1:]), 1 if int(g[1:]) else 0)


METRICS = ("ops_per_s", "cpu_us_per_op")


def _verdict(lo, hi):
    """Of a ratio's interval: above 1, below 1, or containing it."""
    return "above" if lo > 1 else "below" if hi < 1 else "tie"


def _predicted_verdict(r):
    return "above" if r > 1 + TIE else "below" if r < 1 - TIE else "tie"


def _orders(pred, measured, lo, hi):
    if measured == "tie":
        return lo <= pred <= hi or _predicted_verdict(pred) == "tie"
    return _predicted_verdict(pred) == measured


def _measured_best(side, pid):
    """Locks whose throughput interval overlaps the best median's."""
    vals = {}
    for pol, lock in model.LOCK_OF.items():
        c = compare_pair(side, WL, pid, lock, model.LOCK_OF["block"], "ops_per_s")
        if c:
            vals[pol] = c.value
    top = max(vals.values(), key=lambda iv: iv.median)
    return {p for p, iv in vals.items() if iv.hi >= top.lo}


def validate_side(path, name, prims):
    """Rows: one per (point, base), plus one winner row per point."""
    side = Side(path, name)
    cpus = int(side.meta.get("cpus_online", 2))
    pairs, winners = [], []
    for pid in side.point_ids(WL):
        pred = model.predict_all(prims, point_of(pid, cpus))
        fit = pid.endswith(FIT_SUFFIX)
        for metric, base in ((m, b) for m in METRICS for b in BASES):
            c = compare_pair(side, WL, pid, model.LOCK_OF["proposal"], model.LOCK_OF[base], metric)
            if not c:
                continue
            r = getattr(pred["proposal"], metric) / getattr(pred[base], metric)
            lo, hi, med = c.ratio.lo, c.ratio.hi, c.ratio.median
            meas = _verdict(lo, hi)
            pairs.append({"side": name, "point": pid, "base": base, "fit": fit, "metric": metric,
                          "pred": r, "meas": med, "lo": lo, "hi": hi, "verdict": meas,
                          "pred_verdict": _predicted_verdict(r),
                          "in_interval": lo <= r <= hi, "orders": _orders(r, meas, lo, hi),
                          "not_above": r <= hi})
        best = max(pred, key=lambda p: pred[p].ops_per_s)
        mbest = _measured_best(side, pid)
        winners.append({"side": name, "point": pid, "fit": fit, "pred_best": best,
                        "meas_best": sorted(mbest), "agrees": best in mbest})
    return pairs, winners


def tally(pairs, winners, metric):
    """Counts per side and in/out of the fit family, for one metric."""
    out = []
    for name in sorted({p["side"] for p in pairs}, reverse=True):
        for fit in (True, False):
            ps = [p for p in pairs if p["side"] == name and p["fit"] == fit and p["metric"] == metric]
            ws = [w for w in winners if w["side"] == name and w["fit"] == fit]
            if not ps:
                continue
            out.append({"side": name, "family": "fit (t2-g0)" if fit else "validation",
                        "pairs": len(ps), "orders": sum(p["orders"] for p in ps),
                        "in_interval": sum(p["in_interval"] for p in ps),
                        "not_above": sum(p["not_above"] for p in ps),
                        "points": len(ws), "winner": sum(w["agrees"] for w in ws)})
    return out
