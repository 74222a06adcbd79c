# SPDX-License-Identifier: LGPL-2.1-or-later
"""The one table of colours and line styles per lock, for every plot.

Fixed per name, never assigned by position, so a lock looks the same on
the host and in the guest, in the sweep and in the applications.  The
proposal (PROPOSAL) is drawn thick and on top; locks in FOOTNOTE are
kept off the ratio axes (they would squeeze everything else) and given
in a table under the plot instead.
"""

PROPOSAL = "uspin_user_adaptive"
# Orders of magnitude off everyone else: a table, not a line.
FOOTNOTE = {"pthread_mutex_pi"}

# name: (colour, dash type, point type) - gnuplot dt 1 solid, 2 dashed,
# 3 dotted, 4 dash-dot.  Families share a hue: red = libuspin user-space
# adaptive (the proposal), purple = libuspin other policies, blue = the
# FUTEX_LOCK ops, green = glibc, brown/grey = the classic futex mutexes.
TABLE = {
    "uspin_user_adaptive":             ("#d62728", 1, 7),
    "uspin_user_adaptive_futex_wait":  ("#f28e8e", 2, 7),
    "uspin_user_adaptive_bounded":     ("#ff9896", 3, 7),
    "uspin_spin_capped":               ("#8c6d31", 4, 4),
    # Fixed blind budgets: the blind control's hue, lighter as B grows.
    "uspin_blind_2us":                 ("#5d4a20", 2, 4),
    "uspin_blind_10us":                ("#7f5f1f", 2, 4),
    "uspin_blind_40us":                ("#bd9e39", 2, 4),
    "uspin_blind_200us":               ("#e7ba52", 2, 4),
    "uspin_user_adaptive_areas":       ("#e6550d", 4, 7),
    "uspin_kernel_adaptive":           ("#9467bd", 1, 5),
    "uspin_spin":                      ("#b07cc6", 2, 4),
    "uspin_block":                     ("#c5b0d5", 3, 6),
    # The owner's side (rseq slice extension): the policy's colour, and
    # dash type 5 marks "with the extension" (a darker shade).
    "uspin_user_adaptive_slice":       ("#a50f15", 5, 7),
    "uspin_spin_slice":                ("#7b4173", 5, 4),
    "uspin_block_slice":               ("#a55194", 5, 6),
    "futex_lock_adaptive":             ("#1f77b4", 1, 9),
    "futex_lock":                      ("#6baed6", 2, 8),
    "pthread_mutex_adaptive":          ("#2ca02c", 1, 13),
    "pthread_mutex_adaptive_spin0":    ("#98df8a", 2, 12),
    "pthread_mutex_adaptive_spin1000": ("#1b7837", 4, 12),
    "pthread_mutex":                   ("#74c476", 3, 11),
    "pthread_mutex_pi":                ("#7f7f7f", 1, 3),
    "pthread_dropin":                  ("#ff7f0e", 1, 2),
    "futex_wait":                      ("#8c564b", 1, 1),
    "futex_wait_adaptive":             ("#c49c94", 2, 1),
    "futex_wait_tid":                  ("#bcbd22", 3, 1),
    "parking_lot":                     ("#17becf", 1, 7),
}

# Names other scripts use for the same thing (the apps' configurations).
ALIASES = {
    "glibc": "pthread_mutex",
    "uspin-block": "uspin_block",
    "uspin-spin": "uspin_spin",
    "uspin-user-adaptive": "uspin_user_adaptive",
    "uspin-kernel-adaptive": "uspin_kernel_adaptive",
}

_FALLBACK = ["#17becf", "#e377c2", "#7f3b08", "#525252", "#fdae6b", "#3182bd"]


def canonical(name):
    n = ALIASES.get(name, name)
    if n not in TABLE and n.replace("-", "_") in TABLE:
        n = n.replace("-", "_")
    return n


def style(name):
    """(colour, dash type, point type) of a lock; unknown names get a stable one."""
    n = canonical(name)
    if n in TABLE:
        return TABLE[n]
    h = sum(ord(c) for c in n)
    return (_FALLBACK[h % len(_FALLBACK)], 1 + h % 4, 1 + h % 13)


def is_proposal(name):
    return canonical(name) == PROPOSAL


def is_footnote(name):
    return canonical(name) in FOOTNOTE


def order(names):
    """Names in the table's order (the legend order), unknown ones last."""
    keys = list(TABLE)
    return sorted(names, key=lambda n: (keys.index(canonical(n)) if canonical(n) in keys else len(keys), n))


def legend_table():
    """Markdown: the colour of every lock, for documents."""
    rows = ["| lock | colour | line |", "|---|---|---|"]
    dashes = {1: "solid", 2: "dashed", 3: "dotted", 4: "dash-dot"}
    for n, (c, dt, _) in TABLE.items():
        rows.append("| %s%s | `%s` | %s |" % (n, " (proposal)" if n == PROPOSAL else "", c, dashes[dt]))
    return "\n".join(rows)
