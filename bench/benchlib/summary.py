# SPDX-License-Identifier: LGPL-2.1-or-later
"""Comparisons against a baseline, verdict tallies, markdown, captions."""
from collections import Counter, namedtuple

from . import colours, verdict as vd
from .stats import bootstrap_median

Metric = namedtuple("Metric", "label unit higher_is_better scale")

# What the reports compare, and which way is better.  scale: to the unit.
METRICS = {
    "ops_per_s": Metric("throughput", "ops/s", True, 1),
    "cpu_us_per_op": Metric("CPU per operation", "us", False, 1),
    "lat_p50_ns": Metric("latency p50", "us", False, 1e-3),
    "lat_p99_ns": Metric("latency p99", "us", False, 1e-3),
    "lat_p999_ns": Metric("latency p99.9", "us", False, 1e-3),
    "ns_per_op": Metric("lock+unlock", "ns", False, 1),
    "spin_wasted_us_per_op": Metric("spin wasted per op", "us", False, 1),
    "holder_preempted_per_kop": Metric("holders preempted per 1,000 ops", "", False, 1),
    "jain": Metric("fairness (Jain)", "", True, 1),
}


class Comparison:
    """lock against base at one point of a workload, for one metric.

    paired: the one verdict rule's test (benchlib/verdict.py), corrected
    over every point of the workload in this side; verdict: better /
    equivalent / inconclusive / worse.  value and base (each lock's median
    over rounds with its bootstrap interval) are descriptive only."""

    def __init__(self, side, workload, point, lock, base, metric, paired):
        self.side, self.workload, self.point = side, workload, point
        self.lock, self.base_lock, self.metric = lock, base, metric
        self.paired = paired
        self.verdict = vd.verdict(paired, METRICS.get(metric, METRICS["ops_per_s"]).higher_is_better)

    @property
    def value(self):
        return bootstrap_median(list(self.side.values(self.workload, self.point, self.lock,
                                                      self.metric).values()))

    @property
    def base(self):
        return bootstrap_median(list(self.side.values(self.workload, self.point, self.base_lock,
                                                      self.metric).values()))


def grid_of(side, wl, lock, base, metric, margin=vd.MARGIN):
    """{point: Paired} of lock / base over every point of wl that has both,
    corrected over them (the grid of the one rule); cached on the side."""
    cache = side.__dict__.setdefault("_grid_cache", {})
    key = (wl, lock, base, metric, margin)
    if key not in cache:
        pairs = {}
        for point in side.point_ids(wl):
            a = side.values(wl, point, lock, metric)
            b = side.values(wl, point, base, metric)
            if a and b:
                pairs[point] = [(a[r], b[r]) for r in sorted(a) if r in b]
        cache[key] = vd.grid(pairs, margin)
    return cache[key]


def compare_pair(side, wl, point, lock, base, metric, margin=vd.MARGIN):
    """lock against base at one point, or None if either has no value."""
    paired = grid_of(side, wl, lock, base, metric, margin).get(point)
    return Comparison(side, wl, point, lock, base, metric, paired) if paired else None


def compare(side, baseline, metric, workloads=None):
    """Every lock against the baseline at every point that has both."""
    out = []
    for wl in workloads or side.workloads():
        for point in side.point_ids(wl):
            locks = side.points.get((wl, point), {})
            if baseline not in locks:
                continue
            for lock in side.locks():
                if lock == baseline or lock not in locks:
                    continue
                c = compare_pair(side, wl, point, lock, baseline, metric)
                if c:
                    out.append(c)
    return out


def tally(comparisons):
    """{lock: Counter(better=, equivalent=, inconclusive=, worse=)}"""
    t = {}
    for c in comparisons:
        t.setdefault(c.lock, Counter())[c.verdict] += 1
    return t


def beiw(counter):
    """better/equivalent/inconclusive/worse counts of a tally's Counter."""
    return "/".join(str(counter.get(k, 0)) for k in vd.CALLS)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def cell(c, digits=3):
    """A ratio cell: geometric mean [95 % interval] and the call's mark."""
    return c.paired.cell(digits)


def caption(side):
    """What was run, in one line, for plots and tables."""
    m = side.meta
    meth = m.get("method", {})
    rev = m.get("git_revision", "unknown")
    if m.get("git_dirty") in ("1", "yes", "true", True):
        rev += "+dirty"
    machine = m.get("host_cpu_model") or m.get("cpu_model", "?")
    where = side.name
    if side.name == "guest":
        where = "guest (QEMU, %s CPUs, on %s)" % (m.get("cpus_allowed", "?"), machine)
    else:
        where = "%s (%s, %s CPUs)" % (side.name, machine, m.get("cpus_allowed", "?"))
    return ("%s; kernel %s; clocksource %s; running-state provider %s; %s rounds x %s s; "
            "rev %s; %s" % (where, m.get("kernel", "?"), m.get("clocksource", "?"),
                            m.get("running_state_provider", "?"), meth.get("repeats", "?"),
                            meth.get("seconds", "?"), rev, m.get("date", "?")[:10]))


def pick_baseline(side, preferred):
    """The first of @preferred that ran on this side."""
    locks = side.locks()
    for b in preferred:
        if b in locks:
            return b
    return locks[0] if locks else None


def contenders(side, baseline):
    return [l for l in colours.order(side.locks()) if l != baseline]
