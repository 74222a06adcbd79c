#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/check_eval_tables.py - the evaluation's tables and verdict recompute from the stored runs.

A table in a document is checked when the line before it (blank lines
aside) is a comment

    <!-- recompute: python3 bench/compare.py SIDE LOCK BASE... [options] -->

naming the command that produced it from the CSVs under docs/eval/.  The
command runs (only bench/compare.py, bench/regimes.py or
bench/benchlib/selftest.py, without a shell); every row of the
document's table must be a row of the command's table, cell for cell
(labels in the header may differ; rows may be left out).

The prose of a section (a heading to the next) that holds a comment

    <!-- claim: SOURCE ; QUANTITIES -->

is checked number by number.  SOURCE is such a command, a stored file
under docs/eval/ (a command's output kept with its run), DOC#section:
the sources of that section's claims (the README's result restates the
verdict), or several joined by " + " (a range over two runs); paths are
from the repository's root.  QUANTITIES are numbers
of the paragraph or list item the comment is in, written as there: 1.69,
a range 0.91–0.96 or +1.5 to +2.6 (each end), a count 7 of 8 or 37–40 of
40 (a B/E/I/W cell with 7 among counts that sum to 8, or one row of a
table without such cells printing both).  A number matches a value in
SOURCE's table rows (a B/E/I/W cell's total too) that it rounds to the
prose's digits (0.91 for 0.905; ± and unsigned numbers compare
magnitudes).  In a checked section every number must be listed by a
claim of its paragraph and every listed number must be in it, so a
changed or added number without a source fails.  Not results, never
checked: a number that is part of a name (v4, 2-CPU, 6.12.118, a link's
target, `code`), a list item's number, a revision, a kernel version
(stock 6.18, patched 6.12, Linux 7.0), the rule's margin (TOST at ±5 %),
and a setting of a run: threads, CPUs or hogs, or a time in µs or ms
(holds, budgets, caps; a measured time is written in ns).

Prints one line per table and paragraph and exits 1 on any difference,
or if a document has no checked table or claim at all.  Checking DOC
checks too the documents (top level, docs/) whose claims cite DOC#....

usage: bench/check_eval_tables.py [DOC.md ...]   (default: docs/evaluation.md)
       bench/check_eval_tables.py --selftest [DOC.md ...]
                        (a changed number is caught in a table, a changed
                         number in a claim and its paragraph and an
                         unlisted one too; then check DOC.md)
"""
import concurrent.futures
import decimal
import glob
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
CLAIM = re.compile(r"<!-- claim: (.*?) ; (.*?) -->")
NUM = r"[+±−-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# A number, a range (a–b, a to b) or a count (N of M, a–b of M), not inside a name.
QTY = re.compile(r"(?<![\w.,/-])(?P<a>%s)(?:\s*(?:–|\bto\b)\s*(?P<b>%s))?(?:\s+of\s+(?P<m>%s))?"
                 r"(?![\w]|[.,]\d|-[^\W\d])" % (NUM, NUM, NUM))
VALUE = re.compile(r"(?<![\w.,])%s(?![\w]|[.,]\d)" % NUM)
BEIW = re.compile(r"(?<![\d/])(\d+)/(\d+)/(\d+)/(\d+)(?![\d/])")
# The exemptions: a setting after the number, a name before it.
SETTING = re.compile(r"\s*(?:µs|ms|threads?|CPUs?|hogs?)(?!\w)")
NAMED = re.compile(r"(?:revision|stock|patched|Linux|TOST at)\s*$")


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


def prose(text):
    """A paragraph's text without comments, links' targets, images and code."""
    text = re.sub(r"<!--.*?-->", " ", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"`[^`]*`", " ", text)


def key(m):
    """A quantity as a claim and the prose both write it."""
    norm = lambda x: x and x.replace("−", "-").lstrip("±+")  # noqa: E731
    return (norm(m.group("a")), norm(m.group("b")), norm(m.group("m")))


def quantities(text, exempt=True):
    """{key: text} of the numbers of text that are results."""
    out = {}
    for m in QTY.finditer(text):
        if exempt and (SETTING.match(text, m.end()) or NAMED.search(text, 0, m.start())):
            continue
        out.setdefault(key(m), m.group(0))
    return out


def number(text):
    """(sign or None for ± and unsigned, magnitude as written)."""
    text = text.replace("−", "-").replace(",", "")
    sign = text[0] if text[0] in "+-" else None
    return sign, decimal.Decimal(text.lstrip("±+-"))


def printed(lines):
    """(values, B/E/I/W cells, integers of each other row) of a command's
    table rows, the header and |---| lines aside."""
    values, cells, rows = [], [], []
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|\s*$", line) or \
                (i + 1 < len(lines) and re.match(r"^\|[-| ]+\|\s*$", lines[i + 1])):
            continue
        found = [tuple(map(int, c)) for c in BEIW.findall(line)]
        cells += found
        nums = [number(v.group(0)) for v in VALUE.finditer(line)]
        values += [("-" if s == "-" else "+", v) for s, v in nums]
        values += [("+", decimal.Decimal(sum(c))) for c in found]
        if not found:
            rows.append({v for s, v in nums if s is None and v == v.to_integral_value()})
    return values, cells, rows


def matches(q, out):
    """Whether the quantity (a key) is what out, printed(), shows."""
    values, cells, rows = out

    def one(text):
        sign, v = number(text)
        tol = decimal.Decimal(5).scaleb(v.as_tuple().exponent - 1)
        return any(abs(w - v) <= tol and (sign is None or sign == s) for s, w in values)

    def count(n, m):
        n, m = int(number(n)[1]), int(number(m)[1])
        return any(n in c and sum(c) == m for c in cells) or any({n, m} <= r for r in rows)
    a, b, m = q
    if m:
        return all(count(x, m) for x in (a, b) if x)
    return all(one(x) for x in (a, b) if x)


def sections(lines):
    """[(slug, [(line, last line, text)])]: each heading's paragraphs and
    list items, with the comments in them."""
    out, block = [], None
    for n, line in enumerate(lines):
        h = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if h:
            out.append((re.sub(r"[^\w\- ]", "", h.group(1).lower()).replace(" ", "-"), []))
            block = None
        elif not line.strip() or MARK.match(line) or line.startswith("|"):
            block = None
        elif out:
            item = re.match(r"^\s*(?:\d+\.|[-*])\s+", line)
            if block is None or item:
                block = [n + 1, n + 1, ""]
                out[-1][1].append(block)
            block[1] = n + 1
            block[2] += " " + (line[item.end():] if item else line).strip()
    return [(slug, [tuple(b) for b in blocks]) for slug, blocks in out]


def claims_of(lines):
    """[(source, quantities)] of every claim in lines."""
    return [c for _, blocks in sections(lines) for _, _, t in blocks for c in CLAIM.findall(t)]


def read(path):
    with open(path) as f:
        return f.read().splitlines()


def cited(src):
    """The claims' sources of DOC#section."""
    doc, _, slug = src.partition("#")
    path = os.path.join(ROOT, doc)
    if not os.path.isfile(path):
        raise ValueError("%s: no such document" % src)
    for s, blocks in sections(read(path)):
        if s == slug:
            srcs = [c[0] for _, _, t in blocks for c in CLAIM.findall(t) if "#" not in c[0]]
            if srcs:
                return srcs
    raise ValueError("%s: no section with a claim" % src)


def commands(src):
    """The commands a claim's source runs."""
    if " + " in src:
        return [c for s in src.split(" + ") for c in commands(s)]
    if src.startswith("python3 "):
        return [src]
    if "#" in src:
        return [c for s in cited(src) for c in commands(s)]
    return []


def output(src):
    """The lines a claim's source prints (A + B: both)."""
    if " + " in src:
        return [l for s in src.split(" + ") for l in output(s)]
    if src.startswith("python3 "):
        return run(src)
    if "#" in src:
        return [l for s in cited(src) for l in output(s)]
    path = os.path.normpath(os.path.join(ROOT, src))
    if not path.startswith(os.path.join(ROOT, "docs", "eval") + os.sep) or not os.path.isfile(path):
        raise ValueError("%s: neither a command nor a stored file under docs/eval/" % src)
    return read(path)


def check_prose(lines):
    """[(line, what, [differences])] of the paragraphs of the sections
    that hold a claim."""
    found = []
    for _, blocks in sections(lines):
        if not any(CLAIM.search(t) for _, _, t in blocks):
            continue
        for line, _, text in blocks:
            diffs, listed, srcs = [], {}, []
            for src, qs in CLAIM.findall(text):
                srcs.append(src)
                try:
                    out = printed(output(src))
                except ValueError as e:
                    diffs.append(str(e))
                    continue
                for q, t in quantities(qs, exempt=False).items():
                    listed[q] = t
                    if not matches(q, out):
                        diffs.append("%s: not what %s prints" % (t, src))
            have = quantities(prose(text))
            diffs += ["%s: listed by no claim of the paragraph" % t
                      for q, t in have.items() if q not in listed]
            diffs += ["%s: a claim lists it, the paragraph does not say it" % t
                      for q, t in listed.items() if q not in have]
            if have or srcs:
                found.append((line, "%d numbers, %d claims" % (len(have), len(srcs)), diffs))
    return found


def dependents(path):
    """The documents whose claims cite path's sections."""
    rel = os.path.relpath(path, ROOT)
    return [p for p in sorted(glob.glob(os.path.join(ROOT, "*.md")) +
                              glob.glob(os.path.join(ROOT, "docs", "*.md")))
            if os.path.abspath(p) != os.path.abspath(path) and
            any(src.startswith(rel + "#") for src, _ in claims_of(read(p)))]


def check_tables(lines, mutate=None):
    """[(line, command, [differences])] of the checked tables."""
    found = []
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


def check(path):
    """The checked tables and paragraphs of path, in its order; every
    command runs first, side by side."""
    lines = read(path)
    cmds = [m.group(1) for m in map(MARK.match, lines) if m]
    for src, _ in claims_of(lines):
        try:
            cmds += commands(src)
        except ValueError:
            pass  # reported with its paragraph
    prefetch(cmds)
    return sorted(check_tables(lines) + check_prose(lines), key=lambda f: f[0])


def report(path, found):
    bad = 0
    if not found:
        print("FAIL: %s: no table marked <!-- recompute: ... --> and no <!-- claim: ... -->" % path)
        return 1
    for line, cmd, diffs in found:
        if diffs:
            bad += 1
            print("FAIL: %s:%d: %s" % (path, line, cmd))
            for d in diffs[:10]:
                print("      " + d)
        else:
            print("PASS: %s:%d: %s: %s" % (path, line, "traced" if cmd.endswith(" claims") else
                                            "recomputes", cmd))
    return 1 if bad else 0


def selftest(path):
    """Changing one number of one table must be reported; so must
    changing a listed number in a claim and its paragraph alike, and
    adding a number no claim lists."""
    def digit(text):
        return re.sub(r"\d", lambda d: str((int(d.group()) + 1) % 10), text, count=1)

    def bump(rows):
        rows = [list(r) for r in rows]
        k = next(k for k, c in enumerate(rows[2]) if k and re.search(r"\d", c))
        rows[2][k] = digit(rows[2][k])
        return rows
    lines = read(path)
    prefetch([m.group(1) for m in map(MARK.match, lines) if m])
    found = check_tables(lines, bump)
    caught = bool(found) and all(d for _, _, d in found)
    print("%s: selftest: a changed number in each of %d blocks %s" % (
        "PASS" if caught else "FAIL", len(found), "is caught" if caught else "went unnoticed"))
    rc = 0 if caught else 1
    for doc in [path] + dependents(path):
        rc |= selftest_prose(doc)
    return rc


def outside_comments(line, old, new):
    """line with old replaced by new once, not in a comment."""
    parts = re.split(r"(<!--.*?-->)", line)
    for i in range(0, len(parts), 2):
        if old in parts[i]:
            parts[i] = parts[i].replace(old, new, 1)
            break
    return "".join(parts)


def selftest_prose(path):
    """Per claim, its first number that its paragraph writes the same way
    on one line gets 77 in front, in both; per paragraph, a number no
    claim lists is added."""
    lines = read(path)
    check(path)  # runs the commands once
    changed, added, missed = 0, 0, []
    where = lambda n: "%s:%d" % (os.path.relpath(path, ROOT), n)  # noqa: E731
    for _, blocks in sections(lines):
        if not any(CLAIM.search(t) for _, _, t in blocks):
            continue
        for line, last, text in blocks:
            for c in CLAIM.finditer(text):
                for t in quantities(c.group(2), exempt=False).values():
                    at = [n for n in range(line - 1, last) if t in prose(lines[n])]
                    if not at:
                        continue
                    new = re.sub(r"\d", lambda d: "77" + d.group(), t, count=1)
                    mutated = list(lines)
                    for n in range(line - 1, last):
                        mutated[n] = mutated[n].replace(c.group(0), c.group(0).replace(t, new, 1))
                    mutated[at[0]] = outside_comments(mutated[at[0]], t, new)
                    changed += 1
                    if not any(d for l, _, d in check_prose(mutated) if l == line):
                        missed.append("%s: %s -> %s" % (where(line), t, new))
                    break
            mutated = list(lines)
            mutated[last - 1] += " 2.468×"
            added += 1
            if not any(d for l, _, d in check_prose(mutated) if l == line):
                missed.append("%s: an added 2.468×" % where(line))
    ok = added and not missed
    print("%s: selftest: %s: a changed number in %d claims and an added one in %d paragraphs %s" % (
        "PASS" if ok else "FAIL", os.path.relpath(path, ROOT), changed, added,
        "are caught" if ok else "went unnoticed: " + ("; ".join(missed) or "no claim")))
    return 0 if ok else 1


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
    paths = [os.path.abspath(p) for p in argv] or [os.path.join(ROOT, "docs/evaluation.md")]
    for p in paths:
        if not os.path.isfile(p):
            sys.stderr.write("check_eval_tables.py: %s: not a file\n" % p)
            return 2
    for p in paths + [d for p in paths for d in dependents(p) if d not in paths]:
        rc |= report(os.path.relpath(p, ROOT), check(p))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
