"""rl-no-signal's reading of a game's own score logged beside a shaped reward: the score
is the task, the reward only what the agent is paid to get there.

Custom environments (dice and board games, Snake, Tetris, 2048, Flappy Bird) pay a shaped
per-step reward (bonuses for a reroll, a cleared line, staying alive) and print the game's
final score beside it. An agent can learn to collect the shaping without ever playing
better: the reward climbs while the score stays where it started. The score, not the
reward, says whether the policy learned the game."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params

# A game's score by its name, separators dropped: "score", "Avg_Final_Score_100",
# "game_score", "mean score", "total_score". Not a reward model's (TRL's objective/scores,
# verl's critic/score: those are the reward itself, read as such), nor an eval / test one.
_SCORE = re.compile(
    r"^(?:avg|average|mean|running|total|smoothed)?(?:final|game|episode|ep)?(?:final|game)?"
    r"score(?:mean|avg|average)?(?:[1-9]\d+)?$"
)


def _score(run: Run) -> Series | None:
    """The game score the run logs beside its reward, if one is (the first by name)."""
    for name in sorted(run.series):
        if "/" in name or name.startswith(("eval", "val", "test")):
            continue
        if _SCORE.match(re.sub(r"[\s_.\-]", "", name.lower())):
            s = run.series[name]
            if len(s.finite()):
                return s.finite()
    return None


def score_flat(
    run: Run,
    p: Params,
    flat: Callable[[Params, Series], Hit | None],
    rises: Callable[[Params, Series], bool],
) -> Hit | None:
    """A game score that does not improve over the run by the reward's own flatness test
    (`flat`: 20+ logs, its last fifth within the noise of its first), while the reward
    logged beside it rises (`rises`): the agent is learning the shaping, not the game
    (warning). With the reward flat too, the reward's own reading says it."""
    score, reward = _score(run), run.get("reward")
    if score is None or reward is None or not rises(p, reward):
        return None
    hit = flat(p, score)
    if hit is None:
        return None
    r = reward.finite().values
    k = max(1, r.size // 5)
    r0, r1 = float(r[:k].mean()), float(r[-k:].mean())
    head, tail = hit.evidence.get("reward_start"), hit.evidence.get("reward_end")
    return replace(
        hit,
        title=(
            f"The game score ({score.name}) does not improve over {len(score)} logs "
            f"({fmt(float(head or 0))} at the start, {fmt(float(tail or 0))} at the end) "
            f"while the shaped reward rises {fmt(r0)} -> {fmt(r1)}"
        ),
        evidence={
            **hit.evidence,
            "signal": f"{score.name} (flat, reward rising)",
            "shaped_reward_start": r0,
            "shaped_reward_end": r1,
        },
        explanation=(
            f"{score.name} is the game's own result; the reward is what the agent is paid "
            "on the way (bonuses per move, per kept die, per step alive). The reward's rise "
            "shows the updates work, yet the score is where it began: the agent learned to "
            "collect the shaping terms, not to play better. No signal from the task reaches "
            "the policy through this reward."
        ),
        prescription=(
            "Compare the shaping terms with the final score: pay the final score (or its "
            "change) as the main reward, make the shaping potential-based (the difference "
            "of a state value, which cannot be farmed), or shrink it; then check that the "
            "score rises against a random agent's."
        ),
    )
