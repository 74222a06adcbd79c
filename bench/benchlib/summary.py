# SPDX-License-Identifier: LGPL-2.1-or-later
"""Comparisons against a baseline, win/tie/loss tallies, markdown, captions."""
from collections import Counter, namedtuple
from dataclasses import dataclass

from . import colours
from .stats import Interval, bootstrap_median, bootstrap_ratio, fmt_num, verdict

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


@dataclass
class Comparison:
    workload: str
    point: str
    lock: str
    metric: str
    value: Interval      # the lock's median and interval
    base: Interval       # the baseline's
    ratio: Interval      # per-round ratio lock / baseline
    verdict: str         # from value vs base intervals


def compare_pair(side, wl, point, lock, base, metric):
    """lock against base at one point, or None if either has no value."""
    cache = side.__dict__.setdefault("_compare_cache", {})
    key = (wl, point, lock, base, metric)
    if key not in cache:
        cache[key] = _compare_pair(side, wl, point, lock, base, metric)
    return cache[key]


def _compare_pair(side, wl, point, lock, base, metric):
    a = side.values(wl, point, lock, metric)
    b = side.values(wl, point, base, metric)
    if not a or not b:
        return None
    va, vb = bootstrap_median(list(a.values())), bootstrap_median(list(b.values()))
    ratio = bootstrap_ratio([(a[r], b[r]) for r in a if r in b])
    return Comparison(wl, point, lock, metric, va, vb, ratio,
                      verdict(va, vb, METRICS.get(metric, METRICS["ops_per_s"]).higher_is_better))


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
    """{lock: Counter(win=, tie=, loss=)}"""
    t = {}
    for c in comparisons:
        t.setdefault(c.lock, Counter())[c.verdict] += 1
    return t


def wtl(counter):
    return "%d / %d / %d" % (counter.get("win", 0), counter.get("tie", 0), counter.get("loss", 0))


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


MARK = {"win": "▲", "loss": "▼", "tie": "·", "n/a": ""}


def cell(c, digits=3):
    """A ratio cell: median [lo, hi] and the verdict's mark."""
    return "%s [%s, %s] %s" % (fmt_num(c.ratio.median, digits), fmt_num(c.ratio.lo, digits),
                               fmt_num(c.ratio.hi, digits), MARK[c.verdict])


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
