# SPDX-License-Identifier: LGPL-2.1-or-later
"""Properties the model must have, whatever the primitives (seconds)."""
import model
from primitives import Primitives

# Round numbers of the host's order, not its measurements: the properties
# must hold for any plausible primitives.
BASE = Primitives(side="selftest", handover_spin=0.4, wake=10.0, release_return=0.3,
                  block_cpu=8.0, preempt_rate=2.4e-4, preempt_len=3500.0, notice=27.0,
                  query_ns=2.0, v2_budget=3.0, glibc_budget=5.0)


def _ops(policy, pr, pt):
    return model.predict(policy, pr, pt).ops_per_s


def spinning_beats_blocking():
    """No preemption, holds far below a sleep + wake-up: spinning wins."""
    for n in (2, 8, 64, 256):
        pt = model.Point(n, n, 1.0, 0)
        for p in ("proposal", "blind_capped"):
            assert _ops(p, BASE, pt) > 1.1 * _ops("block", BASE, pt), (n, p)


def owner_always_off_no_spin():
    """An owner preempted in every hold: while it is off, the proposal's
    waiters spin no more than the time to notice it (each), the blind
    spinner far more."""
    pr = BASE.scaled("preempt_rate", 1e3)
    pt = model.Point(8, 16, 200.0, 1)
    mine = model.predict("proposal", pr, pt)
    blind = model.predict("blind_capped", pr, pt)
    assert mine.spin_wasted_us_per_op <= (pt.cpus - 1) * pr.notice, mine
    assert blind.spin_wasted_us_per_op > 20 * mine.spin_wasted_us_per_op, (mine, blind)
    assert mine.ops_per_s >= blind.ops_per_s and mine.cpu_us_per_op < blind.cpu_us_per_op


def preemptor_costs_the_blind_spinner():
    """A preemptor takes the owner's CPU in 10 % of 50 us holds for 1 ms:
    everyone's throughput drops; the blind spinner burns its waiter's CPU
    through the preemption, the proposal only until it notices."""
    pt = model.Point(2, 2, 50.0, 0, preempt_p=0.1, preempt_us=1000.0)
    calm = model.Point(2, 2, 50.0, 0)
    for p in model.POLICIES:
        assert _ops(p, BASE, pt) < _ops(p, BASE, calm), p
    mine = model.predict("proposal", BASE, pt)
    blind = model.predict("blind_capped", BASE, pt)
    assert mine.spin_wasted_us_per_op <= 0.1 * BASE.notice * 1.0001, mine
    assert blind.spin_wasted_us_per_op > 50.0 and mine.cpu_us_per_op < blind.cpu_us_per_op


def monotonic():
    """Dearer wake-ups never help blocking; longer holds never raise
    throughput; more preemption never raises anyone's throughput."""
    pt = model.Point(8, 16, 50.0, 0)
    assert _ops("block", BASE.scaled("wake", 2), pt) <= _ops("block", BASE, pt)
    for p in model.POLICIES:
        prev = None
        for h in (2, 5, 20, 50, 200, 1000):
            v = _ops(p, BASE, model.Point(16, 16, float(h), 1))
            assert prev is None or v <= prev * 1.0001, (p, h)
            prev = v
        for pt in (model.Point(8, 16, 200.0, 0), model.Point(8, 8, 200.0, 1)):
            assert _ops(p, BASE.scaled("preempt_rate", 2), pt) <= _ops(p, BASE, pt) * 1.0001, (p, pt)


def proposal_not_behind_blind_spin():
    """Knowing the owner is off can only shorten a useless spin."""
    for n in (2, 16, 128):
        for tpc in (1, 2):
            for g in (0, 1):
                for h in (2.0, 50.0, 1000.0):
                    pt = model.Point(n, n * tpc, h, g)
                    assert _ops("proposal", BASE, pt) >= 0.99 * _ops("blind_capped", BASE, pt), pt


def sane_everywhere():
    for n in (2, 8, 256):
        for h in (1.0, 1000.0):
            for p, v in model.predict_all(BASE, model.Point(n, 2 * n, h, 1)).items():
                assert 0 < v.ops_per_s < 1e6 / h * 1.0001 and v.cpu_us_per_op >= 2 * h, (p, v)


CHECKS = (spinning_beats_blocking, owner_always_off_no_spin, preemptor_costs_the_blind_spinner,
          monotonic,
          proposal_not_behind_blind_spin, sane_everywhere)


def run():
    for check in CHECKS:
        check()
        print("ok   %s" % check.__name__)
    print("%d passed, 0 failed" % len(CHECKS))
