# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading a results side (host/, guest/, apps/...): meta.json + repeats.csv.

repeats.csv has one row per repetition (docs/benchmarks.md lists the
columns).  The columns a report needs are: workload, point, lock, rep,
kept, and the metrics; any other column is carried along.  A script that
runs external programs writes the same format with the columns it has
(e.g. workload = application, lock = configuration, ops_per_s,
cpu_us_per_op, lat_p99_ns) and gets the same tables and plots.
"""
import csv
import json
import lzma
import math
import os

ID_COLUMNS = ("workload", "point", "lock", "disturbed_why")


def data_path(path):
    """@path, or @path.xz where only the compressed copy is stored (the
    runs kept under docs/eval/ store their large files so)."""
    if not os.path.exists(path) and os.path.exists(path + ".xz"):
        return path + ".xz"
    return path


def has_data(path):
    return os.path.exists(data_path(path))


def open_data(path):
    """A text file for reading, decompressed if stored as .xz."""
    p = data_path(path)
    if p.endswith(".xz"):
        return lzma.open(p, "rt", newline="")
    return open(p, newline="")


def read_rows(path):
    """Rows as dicts; lines a guest console mangled (wrong width) are dropped."""
    if not has_data(path):
        return []
    with open_data(path) as f:
        rows = list(csv.reader(f))
    if not rows:
        return []
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if len(r) == len(head)]


def num(row, key):
    """The cell as a float; None when empty, missing or not a number."""
    v = row.get(key, "")
    if v in ("", None):
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    return None if math.isnan(x) else x


class Side:
    """One environment's results: meta (empty without a meta.json), kept
    rows, and groupings."""

    def __init__(self, path, name=None):
        self.path = path
        self.name = name or os.path.basename(os.path.normpath(path))
        meta = os.path.join(path, "meta.json")
        self.meta = {}
        if os.path.exists(meta) or not has_data(os.path.join(path, "repeats.csv")):
            with open(meta) as f:
                self.meta = json.load(f)
        self.all_rows = read_rows(os.path.join(path, "repeats.csv"))
        self.rows = [r for r in self.all_rows if r.get("kept", "1") != "0"]
        self.points = {}  # (workload, point) -> {lock: {rep: row}}
        for r in self.rows:
            try:
                rep = int(r.get("rep", "0"))
            except ValueError:
                continue
            self.points.setdefault((r["workload"], r["point"]), {}) \
                .setdefault(r["lock"], {})[rep] = r

    def workloads(self):
        seen = []
        for w in self.meta.get("workloads", []):
            seen.append(w["name"])
        for (w, _) in self.points:
            if w not in seen:
                seen.append(w)
        return [w for w in seen if any(k[0] == w for k in self.points)]

    def workload_meta(self, wl):
        for w in self.meta.get("workloads", []):
            if w["name"] == wl:
                return w
        return {"name": wl, "x_axis": "threads", "summary": "", "latency": ""}

    def point_ids(self, wl):
        """In the order the run listed them."""
        order = self.workload_meta(wl).get("points", [])
        ids = [p for (w, p) in self.points if w == wl]
        return sorted(ids, key=lambda p: (order.index(p) if p in order else len(order), p))

    def add_best(self, name, members, metric="ops_per_s"):
        """A lock @name that is, at each point, whichever of @members had
        the highest geometric mean of @metric there: the ceiling a fixed
        choice tuned per point reaches, which no real lock has (chosen on
        the same rounds it is compared on, so it is favoured).  Returns
        {(workload, point): the member chosen}."""
        chosen = {}
        for key, per in self.points.items():
            best = None
            for m in members:
                vals = [num(r, metric) for r in per.get(m, {}).values()]
                vals = [v for v in vals if v is not None and v > 0]
                if not vals:
                    continue
                g = math.fsum(math.log(v) for v in vals) / len(vals)
                if best is None or g > best[0]:
                    best = (g, m)
            if best:
                per[name] = per[best[1]]
                chosen[key] = best[1]
        return chosen

    def locks(self):
        seen = [l["name"] for l in self.meta.get("locks", [])]
        for per in self.points.values():
            for l in per:
                if l not in seen:
                    seen.append(l)
        return seen

    def axes(self, wl, point):
        """The point's axis values (first row's), as numbers where they are."""
        per = self.points.get((wl, point), {})
        for reps in per.values():
            for r in reps.values():
                return {k: num(r, k) for k in AXES if num(r, k) is not None}
        return {}

    def values(self, wl, point, lock, metric):
        """{rep: value} of one lock at one point."""
        reps = self.points.get((wl, point), {}).get(lock, {})
        out = {}
        for rep, r in reps.items():
            v = num(r, metric)
            if v is not None:
                out[rep] = v
        return out

    def disturbed(self, wl=None):
        return [r for r in self.rows if r.get("disturbed") == "1" and (wl is None or r["workload"] == wl)]


# The point axes uspin-bench writes (repeats.c); others may add their own.
AXES = ("threads", "period", "duty", "cs_insn", "out_insn", "hogs", "sleep_permille",
        "sleep_us", "fault_permille", "load_pct", "writers", "readers", "hold_us", "tpc10",
        "preempt_ppm", "preempt_us")
