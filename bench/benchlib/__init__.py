# SPDX-License-Identifier: LGPL-2.1-or-later
"""benchlib - what every uspin benchmark report is made of.

Used by bench/report.py (uspin-bench results) and meant for any script
that runs external programs under several lock configurations (the real
applications, bench/apps/): write rows in the repeats.csv format
(data.py), then

    from benchlib import data, stats, verdict, summary, gnuplot, colours

- verdict: the one rule every report's better / equivalent /
           inconclusive / worse comes from: paired per-round log ratios,
           t test, TOST at ±5 %, Benjamini-Hochberg over each grid;
- stats:   medians and percentile-bootstrap intervals (fixed seed),
           descriptive only;
- colours: the one table of colours and line styles per lock, used by
           every plot;
- data:    reading repeats.csv / meta.json, grouping by point and round;
- summary: comparisons against a baseline (through verdict), tallies,
           markdown tables, captions;
- gnuplot: ratio-to-baseline line plots with interval bands and ratio
           bar charts with whiskers, PNG + SVG.

Standard library and gnuplot only (no numpy): it must run wherever the
project builds.
"""
