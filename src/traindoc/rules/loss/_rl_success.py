"""rl-no-signal on a goal-conditioned run that logs a success rate in place of a return:
finding that rate, and calling it flat when no episode ever reached its goal or the end
is no better than the start."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, NotJudged, too_few
from traindoc.rules.loss._rl_common import SUCCESS
from traindoc.rules.loss._rl_flat import _flat_reward

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _success_rate(run: Run) -> Series | None:
    """The success rate a goal-conditioned run logs in place of a return."""
    for name in SUCCESS:
        s = run.get(name)
        if s is not None and len(s.finite()):
            return s
    return None


def _success_flat(p: Params, rate: Series) -> Iterator[Hit | NotJudged]:
    """A success rate in [0, 1] with no return logged: exactly 0 at each of 10+ logs
    (no episode ever reached its goal), or no better at the end than at the start over
    20+ logs (within 4 standard errors and 5 points of success) while short of solved."""
    r = rate.finite()
    v = r.values
    if v.size < p.min_points or float(v.min()) < 0.0 or float(v.max()) > 1.0:
        if v.size < p.min_points:
            yield too_few(rate.name, int(v.size), p.min_points)
        return
    if bool(np.all(v <= p.std_eps)):
        s0, s1 = int(r.steps[0]), int(r.steps[-1])
        yield Hit(
            title=(
                f"No RL learning signal for {v.size} log points (steps {s0}-{s1}): "
                f"{rate.name} is 0 at every one"
            ),
            step=s0,
            end_step=s1,
            evidence={"signal": f"{rate.name} = 0", "dead_points": int(v.size), "dead_frac": 1.0},
            explanation=(
                "Not one episode reached its goal at any log: with a sparse success reward "
                "every return is the same failure, so there is no difference for the policy "
                "to learn from."
            ),
            prescription=(
                "Check the goal / success test on a hand-made successful episode; then make "
                "the goal reachable by exploration (hindsight relabelling, a denser or "
                "shaped reward, a curriculum of easier goals, more exploration noise)."
            ),
            severity=Severity.WARNING,
        )
        return
    if (hit := _flat_reward(p, rate, rate=True)) is not None:
        yield hit
