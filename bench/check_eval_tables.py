#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/check_eval_tables.py - the tables of the evaluation recompute from the stored runs.

A table in a document is checked when the line before it (blank lines
aside) is a comment

    <!-- recompute: python3 bench/compare.py SIDE LOCK BASE... [options] -->

naming the command that produced it from the CSVs under docs/eval/.  The
command runs (only bench/compare.py, bench/regimes.py or
bench/benchlib/selftest.py, without a shell); every row of the
document's table must be a row of the command's table, cell for cell
(labels in the header may differ; rows may be left out).  Prints one
line per table and exits 1 on any difference, or if a document has no
checked table at all.

usage: bench/check_eval_tables.py [DOC.md ...]   (default: docs/evaluation.md)
       bench/check_eval_tables.py --selftest [DOC.md ...]
                                 (a changed number is caught; then check DOC.md)
"""
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The scripts a recompute comment may name: they only read docs/eval/
# (the selftest reads nothing: it simulates the verdict rule's error rates).
SCRIPTS = ("bench/compare.py", "bench/regimes.py", "bench/benchlib/selftest.py")
MARK = re.compile(r"^<!-- recompute: (.*) -->\s*$")


def tables(lines, start):
    """The markdown table that starts at the first '|' line at or after start."""
    i = start
    while i < len(lines) and not lines[i].startswith("|"):
        if lines[i].strip() and not lines[i].startswith("<!--"):
            return None
        i += 1
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
        i += 1
    return rows if len(rows) >= 3 else None


def body(rows):
    """point -> cells, without the header and the |---| line."""
    return {r[0]: r[1:] for r in rows[2:]}


_outputs = {}


def prefetch(cmds):
    """Runs the commands side by side (each is one Python process)."""
    todo = [c for c in set(cmds) if c not in _outputs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        for c, out in zip(todo, ex.map(_run_once, todo)):
            _outputs[c] = out


def run(cmd):
    if cmd not in _outputs:
        _outputs[cmd] = _run_once(cmd)
    out = _outputs[cmd]
    if isinstance(out, ValueError):
        raise out
    return out


def _run_once(cmd):
    try:
        return _run(cmd)
    except ValueError as e:
        return e


def _run(cmd):
    argv = shlex.split(cmd)
    if argv[0] != "python3" or len(argv) < 2 or argv[1] not in SCRIPTS:
        raise ValueError("only python3 %s may be run: %s" % (" or ".join(SCRIPTS), cmd))
    out = subprocess.run([sys.executable, "-B", os.path.join(ROOT, argv[1])] + argv[2:],
                         cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise ValueError("%s: exit %d: %s" % (cmd, out.returncode, out.stderr.strip()))
    return out.stdout.splitlines()


def recompute(cmd):
    lines = run(cmd)
    first = next((i for i, l in enumerate(lines) if l.startswith("|")), None)
    rows = tables(lines, first) if first is not None else None
    if not rows:
        raise ValueError("%s printed no table" % cmd)
    return rows


def differences(doc_rows, got_rows):
    want, got = body(doc_rows), body(got_rows)
    diffs = []
    if len(doc_rows[0]) != len(got_rows[0]):
        diffs.append("%d columns, the command prints %d" % (len(doc_rows[0]), len(got_rows[0])))
        return diffs
    for point, cells in want.items():
        if point not in got:
            diffs.append("%s: not a point of the run" % point)
            continue
        for k, (w, g) in enumerate(zip(cells, got[point])):
            if w != g:
                diffs.append("%s, column %d (%s): document %r, recomputed %r"
                             % (point, k + 2, doc_rows[0][k + 1], w, g))
    return diffs


def check(path, mutate=None):
    """[(line, command, [differences])] of the checked tables of path."""
    with open(path) as f:
        lines = f.read().splitlines()
    found = []
    prefetch([m.group(1) for m in map(MARK.match, lines) if m])
    for n, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        rows = tables(lines, n + 1)
        if not rows:
            found.append((n + 1, m.group(1), ["no table follows the comment"]))
            continue
        if mutate:
            rows = mutate(rows)
        try:
            found.append((n + 1, m.group(1), differences(rows, recompute(m.group(1)))))
        except ValueError as e:
            found.append((n + 1, m.group(1), [str(e)]))
    return found


def report(path, found):
    bad = 0
    if not found:
        print("FAIL: %s: no table marked <!-- recompute: ... -->" % path)
        return 1
    for line, cmd, diffs in found:
        if diffs:
            bad += 1
            print("FAIL: %s:%d: %s" % (path, line, cmd))
            for d in diffs[:10]:
                print("      " + d)
        else:
            print("PASS: %s:%d: recomputes: %s" % (path, line, cmd))
    return 1 if bad else 0


def selftest(path):
    """Changing one number of one table must be reported."""
    def digit(text):
        return re.sub(r"\d", lambda d: str((int(d.group()) + 1) % 10), text, count=1)

    def bump(rows):
        rows = [list(r) for r in rows]
        k = next(k for k, c in enumerate(rows[2]) if k and re.search(r"\d", c))
        rows[2][k] = digit(rows[2][k])
        return rows
    found = check(path, bump)
    caught = bool(found) and all(d for _, _, d in found)
    print("%s: selftest: a changed number in each of %d blocks %s" % (
        "PASS" if caught else "FAIL", len(found), "is caught" if caught else "went unnoticed"))
    return 0 if caught else 1


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    rc = 0
    if argv and argv[0] == "--selftest":
        rc = selftest(os.path.join(ROOT, "docs/evaluation.md"))
        argv = argv[1:]
        if not argv:
            return rc
    if any(a.startswith("-") for a in argv):
        sys.stderr.write("check_eval_tables.py: unknown option (usage: [DOC.md ...] | --selftest)\n")
        return 2
    paths = argv or [os.path.join(ROOT, "docs/evaluation.md")]
    for p in paths:
        if not os.path.isfile(p):
            sys.stderr.write("check_eval_tables.py: %s: not a file\n" % p)
            return 2
        rc |= report(os.path.relpath(p, ROOT), check(p))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
