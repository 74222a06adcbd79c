#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/model/run.py - the many-core model of docs/model.md.

usage: bench/model/run.py [--out DIR] [--data DIR] [--also DIR ...] | --selftest

Reads the primitives from the measured `holdtime` runs (--data, default
docs/eval/v3-full/hold), validates the model against every measured point of
those runs and of the runs --also names (other families: duty, the
preemptor grid; they give no primitive), and writes the predicted maps for 8-256 CPUs with their sensitivity into
DIR (default docs/eval/model): primitives.md, validation.md,
validation.csv, maps.md, sensitivity.md.
"""
import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import maps  # noqa: E402
import primitives  # noqa: E402
import validate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def revision():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def header(title):
    return "# %s\n\nWritten by `python3 bench/model/run.py` at revision %s; see docs/model.md.\n\n" % (
        title, revision())


def primitives_md(prims):
    rows = ["| primitive | host | guest | source (host; the guest's is the same in guest/) |",
            "|---|---|---|---|"]
    for name in ("handover_spin", "wake", "release_return", "block_cpu", "preempt_rate",
                 "preempt_len", "notice", "query_ns", "v2_budget", "glibc_budget", "cap"):
        h, g = getattr(prims["host"], name), getattr(prims["guest"], name)
        unit = " /ms" if name == "preempt_rate" else ""
        scale = 1e3 if name == "preempt_rate" else 1
        rows.append("| %s | %.4g%s | %.4g%s | %s |" % (name, h * scale, unit, g * scale, unit,
                                                      prims["host"].sources.get(name, "")))
    return header("Model primitives") + "Times in µs (query in ns).\n\n" + "\n".join(rows) + "\n"


def _tally_md(pairs, winners):
    out = []
    for metric in validate.METRICS:
        out.append("\n**%s**, proposal over each of 4 bases:\n" % metric)
        consts = " | ".join("constant %s (%.2f×) ordered right" % (n, k) for n, k in
                            zip(validate.CONSTANT_NAMES, validate.CONSTANTS[metric]))
        out.append("| side | family | pairs | ordered right | %s | predicted ratio in the 95 %% interval | not above the interval | points | predicted best among the measured best |" % consts)
        out.append("|---|---|---|---|" + "---|" * len(validate.CONSTANT_NAMES) + "---|---|---|---|")
        for t in validate.tally(pairs, winners, metric):
            w = "%d / %d" % (t["winner"], t["points"]) if metric == "ops_per_s" else "-"
            out.append("| %s | %s | %d | %d | %s | %d | %d | %d | %s |" % (
                t["side"], t["family"], t["pairs"], t["orders"],
                " | ".join("%d" % n for n in t["const_orders"]), t["in_interval"],
                t["not_above"], t["points"], w))
    return "\n".join(out) + "\n"


def validation_md(pairs, winners):
    out = [header("Model validation"), _tally_md(pairs, winners),
           "\nPer point (throughput): predicted ratio / measured geometric mean ratio [95 % interval];"
           " ✓ ordered right, ✗ not; (fit) marks the fit family.\n"]
    for name in ("host", "guest"):
        out.append("\n### %s\n" % name)
        out.append("| point | " + " | ".join("/ %s" % b for b in validate.BASES) +
                   " | predicted best | measured best |")
        out.append("|---|" + "---|" * (len(validate.BASES) + 2))
        for w in (w for w in winners if w["side"] == name):
            cells = []
            for b in validate.BASES:
                p = next((p for p in pairs if p["side"] == name and p["point"] == w["point"]
                          and p["base"] == b and p["metric"] == "ops_per_s"), None)
                cells.append("-" if not p else "%.2f / %.2f [%.2f, %.2f] %s" % (
                    p["pred"], p["meas"], p["lo"], p["hi"], "✓" if p["orders"] else "✗"))
            out.append("| %s%s | %s | %s | %s |" % (w["point"], " (fit)" if w["fit"] else "",
                                                   " | ".join(cells), w["pred_best"],
                                                   "/".join(w["meas_best"])))
    return "\n".join(out) + "\n"


def write_csv(path, pairs):
    keys = ["side", "point", "metric", "base", "family", "pred", "meas", "lo", "hi", "verdict",
            "pred_verdict", "in_interval", "orders", "not_above"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for p in pairs:
            w.writerow({k: ("%.4g" % p[k] if isinstance(p[k], float) else p[k]) for k in keys})


def maps_md(prims):
    host = maps.compute(prims["host"])
    guest = maps.compute(prims["guest"])
    differ = [c for c in host if not set(host[c][0]) & set(guest[c][0])
              or maps.saves(host[c]) != maps.saves(guest[c])]
    out = [header("Predicted maps (host primitives)"),
           "PREDICTIONS of the model, not measurements. Cell: the policies within 1 % of the best "
           "predicted throughput (P proposal, V2 v2's rule, BC blind capped spin, B block, "
           "G glibc adaptive), then the proposal's throughput and CPU per op against the best "
           "policy blind to the owner; **bold**: a possible saving of 5 % or more (throughput, "
           "or CPU at no throughput loss).\n", maps.tables(host),
           "\nWith the guest's primitives instead, %d of %d cells change their winner or their "
           "5 %% flag: %s\n" % (len(differ), len(host), maps._examples(differ, 8) or "none")]
    return "\n".join(out), host


def sensitivity_md(prims, host_map):
    rows, flipped = maps.sensitivity(prims["host"], host_map)
    out = [header("Sensitivity of the maps"),
           "Each primitive ×0.5 and ×1.5 alone (host primitives); cells whose predicted winner "
           "set no longer overlaps, and cells whose ≥ 5 % flag flips.\n",
           "| primitive | factor | winner flips | 5 % flag flips | examples |", "|---|---|---|---|---|"]
    for name, f, win, sav, ex in rows:
        out.append("| %s | ×%g | %d | %d | %s |" % (name, f, win, sav, ex))
    robust = maps.robust_savings(host_map, flipped)
    flagged = [c for c, v in host_map.items() if maps.saves(v)]
    out.append("\n%d of %d cells have a predicted saving ≥ 5 %%; %d of them keep it under every "
               "single change above. Cells that flip under some change:\n" % (
                   len(flagged), len(host_map), len(robust)))
    for c in sorted(flipped):
        out.append("- %s: %s" % (maps.cell_name(c), ", ".join(sorted(flipped[c]))))
    return "\n".join(out) + "\n", len(flagged), len(robust), len(flipped)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "eval", "model"))
    ap.add_argument("--data", default=os.path.join(ROOT, "docs", "eval", "v3-full", "hold"))
    ap.add_argument("--also", action="append", default=[],
                    help="a further run folder (host/, guest/) to validate against")
    ap.add_argument("--selftest", action="store_true", help="the model's properties, in seconds")
    a = ap.parse_args()
    if a.selftest:
        import selftest
        selftest.run()
        return
    prims = primitives.load_all(a.data)
    pairs, winners = [], []
    for folder in [a.data] + a.also:
        for name in ("host", "guest"):
            p, w = validate.validate_side(os.path.join(folder, name), name, prims[name])
            pairs += p
            winners += w
    os.makedirs(a.out, exist_ok=True)
    files = {"primitives.md": primitives_md(prims), "validation.md": validation_md(pairs, winners)}
    files["maps.md"], host_map = maps_md(prims)
    files["sensitivity.md"], n_flag, n_robust, n_flip = sensitivity_md(prims, host_map)
    for fname, text in files.items():
        with open(os.path.join(a.out, fname), "w") as f:
            f.write(text)
    write_csv(os.path.join(a.out, "validation.csv"), pairs)
    print(_tally_md(pairs, winners))
    print("maps: %d cells with a predicted saving >= 5 %%, %d robust to every +-50 %% change; "
          "%d cells flip under some change" % (n_flag, n_robust, n_flip))
    print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
