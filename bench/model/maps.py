# SPDX-License-Identifier: LGPL-2.1-or-later
"""Predicted maps for 8-256 CPUs, and their sensitivity to each primitive.

A cell is (CPUs, hold, threads per CPU, hogs per CPU) at duty 50 %, one
mutex, as in `holdtime`.  It says which policies the model predicts to
have the highest throughput (within 1 %), and the proposal's throughput
and CPU per op against the best policy blind to the owner (block, the
capped blind spin, glibc's adaptive mutex): its possible saving.  These are predictions of a
model validated on 2 CPUs only (docs/model.md says how far to trust it).
"""
import model

CPUS = (8, 16, 32, 64, 128, 256)
HOLDS = (2, 5, 20, 50, 200, 1000)
TPC = (1.0, 2.0)
HOGS = (0, 1)
SAVING = 0.05
SHORT = {"block": "B", "proposal": "P", "v2_rule": "V2", "blind_capped": "BC",
         "glibc_adaptive": "G"}


def cells():
    for tpc in TPC:
        for hogs in HOGS:
            for n in CPUS:
                for h in HOLDS:
                    yield (n, h, tpc, hogs)


BLIND = ("block", "blind_capped", "glibc_adaptive")   # policies without the running state
TIE = 0.01


def evaluate(prims, cell):
    """(winners within 1 % of the best, proposal / best blind throughput,
    proposal CPU per op / that blind policy's, which blind policy)."""
    n, h, tpc, hogs = cell
    pred = model.predict_all(prims, model.Point(n, int(round(n * tpc)), float(h), hogs))
    best = max(v.ops_per_s for v in pred.values())
    winners = tuple(p for p in model.POLICIES if pred[p].ops_per_s >= best * (1 - TIE))
    blind = max(BLIND, key=lambda p: pred[p].ops_per_s)
    ratio = pred["proposal"].ops_per_s / pred[blind].ops_per_s
    cpu = pred["proposal"].cpu_us_per_op / pred[blind].cpu_us_per_op
    return winners, ratio, cpu, blind


def saves(v):
    """The proposal's possible saving over the best blind policy is >= 5 %:
    in throughput, or in CPU per op at no throughput loss."""
    _, ratio, cpu, _ = v
    return ratio >= 1 + SAVING or (ratio >= 1 - TIE and cpu <= 1 - SAVING)


def compute(prims):
    return {c: evaluate(prims, c) for c in cells()}


def _cell_text(v):
    winners, ratio, cpu, _ = v
    mark = "**" if saves(v) else ""
    who = "/".join(SHORT[w] for w in winners)
    return "%s%s %+.0f%% thr, %+.0f%% CPU%s" % (mark, who, 100 * (ratio - 1), 100 * (cpu - 1), mark)


def tables(m):
    """Markdown: one table per (threads per CPU, hogs); rows CPUs, columns holds."""
    out = []
    for tpc in TPC:
        for hogs in HOGS:
            out.append("**%g thread%s per CPU, %s** (prediction)\n" % (
                tpc, "" if tpc == 1 else "s", "a CPU hog per CPU" if hogs else "no hogs"))
            out.append("| CPUs | " + " | ".join("%g µs" % h for h in HOLDS) + " |")
            out.append("|---|" + "---|" * len(HOLDS))
            for n in CPUS:
                row = [_cell_text(m[(n, h, tpc, hogs)]) for h in HOLDS]
                out.append("| %d | %s |" % (n, " | ".join(row)))
            out.append("")
    return "\n".join(out)


def sensitivity(prims, base_map, factors=(0.5, 1.5)):
    """Per primitive and factor: cells whose winner flips, cells whose
    >= 5 % saving flag flips."""
    from primitives import VARIED
    rows, flipped = [], {}
    for name in VARIED:
        for f in factors:
            m = compute(prims.scaled(name, f))
            win = [c for c in m if not set(m[c][0]) & set(base_map[c][0])]
            sav = [c for c in m if saves(m[c]) != saves(base_map[c])]
            for c in set(win) | set(sav):
                flipped.setdefault(c, set()).add("%s×%g" % (name, f))
            rows.append((name, f, len(win), len(sav), _examples(win + sav)))
    return rows, flipped


def _examples(cs, k=3):
    seen = []
    for c in cs:
        if c not in seen:
            seen.append(c)
    return "; ".join(cell_name(c) for c in seen[:k]) + (" …" if len(seen) > k else "")


def cell_name(c):
    n, h, tpc, hogs = c
    return "%d CPUs %g µs t%g%s" % (n, h, tpc, " hogs" if hogs else "")


def robust_savings(base_map, flipped):
    """Cells with a >= 5 % saving that no single ±50 % change removes."""
    return [c for c, v in base_map.items() if saves(v) and c not in flipped]
