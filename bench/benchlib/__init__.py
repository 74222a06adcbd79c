# SPDX-License-Identifier: LGPL-2.1-or-later
"""benchlib - what every uspin benchmark report is made of.

Used by bench/report.py (uspin-bench results) and meant for any script
that runs external programs under several lock configurations (the real
applications, bench/apps/): write rows in the repeats.csv format
(data.py), then

    from benchlib import data, stats, summary, gnuplot, colours

- stats:   medians, percentile-bootstrap intervals (fixed seed), paired
           ratios, win/tie/loss from intervals;
- colours: the one table of colours and line styles per lock, used by
           every plot;
- data:    reading repeats.csv / meta.json, grouping by point and round;
- summary: comparisons against a baseline, win/tie/loss tallies,
           markdown tables, captions;
- gnuplot: ratio-to-baseline line plots with interval bands and ratio
           bar charts with whiskers, PNG + SVG.

Standard library and gnuplot only (no numpy): it must run wherever the
project builds.
"""
