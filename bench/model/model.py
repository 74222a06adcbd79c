# SPDX-License-Identifier: LGPL-2.1-or-later
"""A mean-value model of one contended mutex under five waiting policies.

N CPUs, T threads that each hold the lock H us and then work X us
outside it (closed loop, deterministic times as in `holdtime`), and g CPU
hogs per CPU (0 or 1).  Per operation the model adds up where the time
goes (docs/model.md gives the equations and the reasons):

  A    = workers on a CPU at once (T/(1+g), or T*N/(g*N+T) beyond N)
  C    = H_eff + P_wait * (P_spin * handover_spin + (1 - P_spin) * h_sleep)
  D    = H + X + spin per op + blocks per op * block_cpu      (CPU per op)
  rate = min(1 / C, A / D)                 lock bound, CPU bound

H_eff is the hold stretched by preemptions of the owner: by a preemptor
in the share of holds and for the time the point sets, by a hog at the
measured rate and for the measured length, or by the runnable threads
beyond N, for as long as the preempting thread keeps the CPU: a blind
spinner its whole slice (or the cap), the proposal's spinner only until
it notices the owner is off, a thread in its gap until the gap ends.
"""
import math
from dataclasses import dataclass

POLICIES = ("block", "proposal", "v2_rule", "blind_capped", "glibc_adaptive")

# Which measured lock each modelled policy stands for.
LOCK_OF = {
    "block": "uspin_block",
    "proposal": "uspin_user_adaptive",
    "v2_rule": "uspin_user_adaptive_bounded",
    "blind_capped": "uspin_spin_capped",
    "glibc_adaptive": "pthread_mutex_adaptive",
}


@dataclass
class Point:
    cpus: int
    threads: int
    hold: float          # us
    hogs_per_cpu: int    # 0 or 1
    gap: float = None    # us; None: equal to hold (duty 50 %)
    preempt_p: float = 0.0   # share of holds whose CPU a preemptor takes
    preempt_us: float = 0.0  # for this long (holdtime's preemptor axis)

    def x(self):
        return self.hold if self.gap is None else self.gap


@dataclass
class Prediction:
    ops_per_s: float
    cpu_us_per_op: float
    cycle: float          # lock cycle per op, us
    spin_us_per_op: float
    blocks_per_op: float
    owner_stretch: float  # us per op
    spin_wasted_us_per_op: float = 0.0   # spun while the owner was off


def _budgets(policy, pr):
    """(spin budget while the owner runs, spin budget once it is off,
    at most CPUs - 1 spinners?)"""
    if policy == "block":
        return 0.0, 0.0, True
    if policy == "proposal":
        return pr.cap, pr.notice, True
    if policy == "v2_rule":
        return pr.v2_budget, min(pr.v2_budget, pr.notice), True
    if policy == "blind_capped":
        return pr.cap, pr.cap, True
    return pr.glibc_budget, pr.glibc_budget, False    # glibc: every waiter spins


def _preempter_hold(policy, pr, budget_off, x, spinners, gappers):
    """How long an owner preempted by another worker stays off: the mean
    over who preempted it (a spinner or a thread in its gap)."""
    slice_len = pr.preempt_len
    if policy in ("proposal", "v2_rule"):
        by_spinner = min(budget_off, slice_len) + pr.block_cpu   # notices, sleeps
    else:
        by_spinner = min(budget_off, slice_len)
    by_gapper = min(x / 2, slice_len)
    total = spinners + gappers
    if total <= 0:
        return by_gapper
    return (spinners * by_spinner + gappers * by_gapper) / total


def _sleeper_handover(pr, pt, active, cycle):
    """Lock released to a woken sleeper: the wake-up, unless a running
    thread barges in first.  With two threads the releaser is back after
    its gap, before the waiter has even gone to sleep when the gap is
    shorter than half a sleep + wake-up (the fit family's 2 us point);
    with more threads on CPUs the next one out of its gap comes about once
    per cycle."""
    w = pr.wake
    if active <= 2.0:
        return pr.release_return + pt.x() if pt.x() < pr.block_cpu / 2 else w
    if w >= cycle:
        return cycle / 2
    return w - w * w / (2 * cycle)


def on_cpu_threads(pt):
    """Workers on a CPU at once, on average.  Slices (ms) are much longer
    than holds, so only these contend for the lock; the others wait in a
    run queue.  A worker shares its CPU with the hog and with the other
    workers placed there."""
    n, t, g = pt.cpus, pt.threads, pt.hogs_per_cpu
    per_cpu = t / n
    if per_cpu <= 1.0:
        return t / (1.0 + g)
    return n * per_cpu / (g + per_cpu)


def _one_pass(policy, pr, pt, rate):
    """Everything per op, given the current estimate of the throughput."""
    n, h, x, g = pt.cpus, pt.hold, pt.x(), pt.hogs_per_cpu
    b_on, b_off, limited = _budgets(policy, pr)
    cycle0 = 1e6 / rate
    active = max(1.0, on_cpu_threads(pt))
    p_wait = min(1.0, active * h / (h + x))      # lock's offered load
    gappers = min(active - 1.0, rate * 1e-6 * x)
    waiters = max(0.0, active - 1.0 - gappers)
    slots = min(n - 1.0, waiters) if limited else waiters
    spin_frac = 1.0 if b_on >= cycle0 else b_on / cycle0
    spinners = slots * spin_frac
    # Owner preemption: by a preemptor in a set share of holds for a set
    # time, by a hog, or by the threads beyond N.
    off_len = pr.preempt_len
    if pt.preempt_p > 0:
        p_pre, off = pt.preempt_p, pt.preempt_us
        off_len = pt.preempt_us
    else:
        if g > 0:
            rate_pre, off = pr.preempt_rate * g, pr.preempt_len
        else:
            over = min(1.0, max(0.0, pt.threads - n) / n)
            rate_pre = pr.preempt_rate * over
            off = _preempter_hold(policy, pr, b_off, x, spinners, max(gappers, 1e-9))
        p_pre = 1.0 - math.exp(-rate_pre * h)
    stretch = p_pre * off
    h_eff = h + stretch
    # A spinner is there at the release unless the owner went off (the
    # proposal and v2's rule then sleep) or the spinner itself was
    # preempted by the hog on its CPU (every spinner then sleeps).
    p_self = 1.0 - math.exp(-pr.preempt_rate * g * min(cycle0, b_on)) if g else 0.0
    stays = (1.0 - p_pre) if b_off < off_len and policy != "block" else 1.0
    p_spin = 0.0 if slots <= 0 else min(1.0, spin_frac * min(1.0, slots)) * stays * (1.0 - p_self)
    cycle = h_eff + p_wait * (p_spin * pr.handover_spin +
                              (1.0 - p_spin) * _sleeper_handover(pr, pt, active, cycle0))
    # CPU: spinning waiters burn their wait (or their budget); a waiter on
    # a preempted owner burns what it spins before it stops.
    wasted = p_pre * slots * min(b_off, off_len) if b_on else 0.0
    spin = spinners * (cycle - stretch) + wasted
    blocks = p_wait * (1.0 - p_spin) if policy != "block" else p_wait
    if policy == "glibc_adaptive":
        blocks += p_wait * p_spin * min(1.0, max(0.0, waiters - 1.0))  # woken, re-sleeps
    cpu = h + x + spin + blocks * pr.block_cpu
    rate_new = min(1e6 / cycle, 1e6 * active / cpu)
    return Prediction(rate_new, cpu, cycle, spin, blocks, stretch, wasted)


def predict(policy, pr, pt, iterations=40):
    """Fixed point of the per-op accounting in the throughput."""
    rate = 1e6 / (pt.hold + pr.handover_spin)
    pred = None
    for _ in range(iterations):
        pred = _one_pass(policy, pr, pt, rate)
        new = 0.5 * rate + 0.5 * pred.ops_per_s   # damped: the bounds switch
        if abs(new - rate) < 1e-6 * rate:
            break
        rate = new
    return pred


def predict_all(pr, pt):
    return {p: predict(p, pr, pt) for p in POLICIES}
