"""rl-no-signal: an RL trainer whose reward has no variance and whose gradient is zero."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import diff_mad, fmt
from traindoc.model import Run, Series, Severity, Signal
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._rl_collapse import collapse
from traindoc.rules.loss._rl_common import (
    APPROX_KL,
    BEST_EPOCH,
    CLIP_FRACTION,
    CLIPPED,
    DPO_MARGINS,
    EPISODE,
    EPISODE_RANGE,
    EPISODE_STD,
    NOT_TRAINING,
    POLICY_ENTROPY,
    SUCCESS,
    TRADES,
    ZERO_STD_FRACTION,
    _at,
    _longest_run,
    _tail_run,
    episode_range,
    reward_spread,
)
from traindoc.rules.loss._rl_decline import declined
from traindoc.rules.loss._rl_llm import (
    _advantage_spread,
    _all_clipped,
    _clipped_at,
    _corroborated,
    _dpo_no_margin,
    _policy_frozen,
    _task_reward_dead,
)
from traindoc.rules.loss._rl_random import STEP_COLUMNS, TIMESTEPS, random_level
from traindoc.rules.loss._rl_score import score_flat


@dataclass(frozen=True)
class Params:
    # reward_std below this is "every completion of a group scored the same":
    # rewards are usually O(0.1-1), and a real spread is never below 1e-6.
    std_eps: float = 1e-6
    # grad_norm below this is zero (some stacks log 1e-12-ish instead of 0.0).
    grad_eps: float = 1e-8
    # Without reward_std, a reward that moves less than this over a few logs is "constant".
    reward_eps: float = 1e-6
    # Consecutive dead log points needed: one dead batch (an easy prompt set) is normal ...
    min_points: int = 10
    # ... and the dead stretch must be 20% of the log, i.e. a long window.
    min_frac: float = 0.20
    # A log that is dead at EVERY point from its first is judged with fewer: with
    # every advantage 0 and a zero gradient the policy cannot move, so it stays at
    # that fixed point (each log point already averages many prompt groups). Three
    # points is the least that shows "every log", not one unlucky batch.
    min_all_dead: int = 3
    # Every completion cut at the length limit (a clipped share this close to 1 at every
    # log) with no reward difference at any log explains the dead signal outright:
    # an unfinished answer matches no answer format, so one log of it is enough.
    clipped_all: float = 0.99
    # A log where 95%+ of the completions are cut at the length limit and the grad
    # norm is exactly 0 is dead whatever the reward spread: the cut completions carry
    # no gradient (masked as overlong, DAPO's mask_truncated_completions; or all scored
    # alike), and the exactly-0 norm shows the few finished ones did not either.
    clipped_most: float = 0.95
    # The reward is an RL run's learning curve: over 20+ logs, a last fifth within 5%
    # (of the reward's scale) and 4 standard errors of the first fifth has not improved.
    flat_min_points: int = 20
    # Dead at 75%+ of 10+ logs, scattered: three quarters of the batches gave every
    # completion of a group the same reward, so three quarters of the compute produced
    # no policy gradient (unless the reward still rises: the rest carries it).
    dead_share: float = 0.75
    flat_rel: float = 0.05
    flat_z: float = 4.0
    # The start of the run is its first 3 logs, not the median of its first fifth: a
    # reward that rose inside that fifth (a mean-of-100-episodes return 26 -> 194 in 6 of
    # 100 logs, then held at the CartPole cap) has the converged level as its "first
    # fifth". The last fifth 4 standard errors and 5% of its level above the first 3 logs
    # (both: 3 logs are few) is a reward that improved - early, then held.
    early_points: int = 3
    # A climb is a move across the span the curve covers: the late level must clear the
    # early one by a fifth of the curve's 5-95 percentile range as well. A long noisy log
    # can rise by 4 standard errors and 5% of its level while its logs still scatter over
    # a band five times wider (a DQN return 715 -> 780 over 485 logs spread 560-985):
    # the logs are noise around one level, not a learning curve. (A straight rise of D
    # through noise of sigma spans about D + 3.3 sigma, so this asks for D above ~1 sigma.)
    span_frac: float = 0.20
    # ... unless the rise is large against the reward's own level: a quarter of it (a
    # median return 206 -> 417 of per-episode logs whose single episodes scatter 0-1500
    # doubled; no RL engineer calls that no signal, however wide the episodes spread).
    big_rel: float = 0.25
    # A reward in [0, 1] (a success rate, an accuracy reward) flat at 0.95+ is solved:
    # no improvement is left to make (a log that starts after it got there).
    solved_rate: float = 0.95
    # With the spread of the episodes' returns logged beside each mean (ml-agents' "Std
    # of Reward"), the noise is known without reading it off the curve: means that stay
    # within a tenth of that spread at 5+ summaries from the first one on never moved
    # the return distribution. Five, not three: a line, not a few points that agree.
    band_points: int = 5
    band_frac: float = 0.10
    # PPO's approx KL between the rollout policy and the updated one: (r - 1) - log r
    # is ~(r - 1)^2 / 2, so 1e-10 is probabilities moved by ~1e-5 at most, which is
    # float noise, not an update (a real one logs 1e-4 - 1e-2).
    kl_eps: float = 1e-10
    # A reward that takes at most this many distinct values over 20+ logs is a count of
    # outcomes (0/1 success per episode, or the mean of 2-4 of them): its windows are
    # compared by their means, since a median snaps to one of the few levels.
    few_levels: int = 8
    # A mean return within 1% of its episodes' range (best - worst) of exactly 0, at each
    # of 3+ logs, while its episodes go both ways (some won, some lost): the gains and
    # losses cancel, so the policy earns nothing on average. 1% of the range is the
    # printed rounding of such a mean (0.0000 to 0.0001 beside episodes of +-0.1), not a
    # level a learning agent would hold log after log.
    zero_band: float = 0.01
    # A return pinned from its first log at a positive whole multiple of this is the
    # +1-per-step return of episodes that all ran to the time limit (Gym's CartPole
    # 200 / 500, InvertedPendulum 1000): the cap, solved.
    cap_unit: float = 100.0
    # A return still within 5% of the way from the environment's random-policy level to
    # a competent score (the Atari human-normalised score of 0.05: Pong at -19.2 or
    # below, CartPole at 31 or below) is a random policy's (measure/rl_envs.py).
    random_frac: float = 0.05
    # An epsilon-greedy schedule above this is still exploring: its return is random
    # by design (the standard schedules end at 0.01 - 0.1).
    explore_eps: float = 0.1
    # A return logged from the run's start whose first log is above every later one and
    # whose last fifth lies a tenth of its level below it (and 4 standard errors) never
    # beat the untrained policy. Five logs: the least that shows a sinking line rather
    # than two or three unlucky evaluations.
    decline_points: int = 5
    decline_rel: float = 0.10
    # ... sinking as a line: no log climbs back above the one before it by more than a
    # quarter of the whole fall (scattered per-episode returns do, a sinking mean does not)
    decline_rise: float = 0.25


def _few_levels(p: Params, v: np.ndarray) -> bool:
    """The log takes only a few distinct values (`few_levels`) over 20+ logs, each of them
    again and again (at 5%+ of the logs): counts of outcomes (0/1 success per episode, or
    means of 2-4 of them), not a continuous return. A mostly-0 reward with a few one-off
    spikes is not one: its rare values are not levels it returns to."""
    if v.size < p.flat_min_points:
        return False
    _, counts = np.unique(v, return_counts=True)
    return counts.size <= p.few_levels and int(counts.min()) >= 0.05 * v.size


def _level(v: np.ndarray, discrete: bool) -> float:
    """A window's level: its median, or its mean for a log of few levels (`_few_levels`):
    the median of such a window snaps to one of the levels, so a success share that
    rises from 30% to 64% of the episodes keeps the median at 0.5 while the mean moves
    with it."""
    return float(np.mean(v)) if discrete else float(np.median(v))


def _flat_reward(p: Params, reward: Series, rate: bool = False) -> Hit | None:
    """A reward that does not improve over the whole run (20+ logs): the policy gets no
    better at what it is rewarded for (warning). Improving takes a late level above the
    early one by more than the noise (4 standard errors) or 5% of its level, and by a
    fifth of the span the logs cover (their 5-95 percentile range): a rise buried in the
    scatter of a long log is noise around one level, however significant. For a success
    rate (`rate`) the 5% is of its range [0, 1], not of its level: a rate near 0 has no
    level to take 5% of, and 5 points of success is the least gain that counts as one."""
    r = reward.finite()
    n = len(r)
    if n < p.flat_min_points:
        return None
    v = r.values
    few = _few_levels(p, v)
    k = max(3, n // 5)
    head, tail = _level(v[:k], few), _level(v[-k:], few)
    sigma = diff_mad(v) / math.sqrt(2)
    if few:  # a diff MAD of 0/1 outcomes is 0 or 1 by chance: take their spread
        sigma = float(np.std(v))
    se = 1.2533 * sigma * math.sqrt(2 / k)
    scale = 1.0 if rate else max(abs(head), abs(tail), sigma, p.std_eps)
    gain = tail - head
    span = float(np.percentile(v, 95) - np.percentile(v, 5))
    if (gain >= p.flat_z * se or gain >= p.flat_rel * scale) and (
        gain >= p.span_frac * span or gain >= p.big_rel * scale
    ):
        return None
    if float(v.min()) >= 0.0 and float(v.max()) <= 1.0 and tail >= p.solved_rate:
        return None  # a success rate in [0, 1] at its ceiling: solved, nothing left to gain
    # learned inside the first fifth, then held: the first logs are the start, and the
    # last fifth clears them by the same two gates, both
    k0 = min(p.early_points, k)
    start = _level(v[:k0], few)
    se0 = 1.2533 * sigma * math.sqrt(1 / k0 + 1 / k)
    scale0 = 1.0 if rate else max(abs(start), abs(tail), sigma, p.std_eps)
    rise = tail - start
    if (
        rise >= p.flat_z * se0
        and rise >= p.flat_rel * scale0
        and (rise >= p.span_frac * span or rise >= p.big_rel * scale0)
    ):
        return None
    s0, s1 = int(r.steps[0]), int(r.steps[-1])
    what = f"The success rate ({reward.name})" if rate else "The reward"
    late = starts_mid_run(r)
    return Hit(
        title=(
            f"{what} does not improve over {n} logs (steps {s0}-{s1}): "
            f"{fmt(head)} at the start, {fmt(tail)} at the end"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": f"{reward.name} (flat)" if rate else "reward (flat)",
            "reward_start": head,
            "reward_end": tail,
            "reward_gain": gain,
            "noise": sigma,
            "points": n,
        },
        explanation=(
            "In RL the reward is the learning curve. Here its last fifth is no better than "
            "its first, within the noise and 5% of its level, or by less than a fifth of the "
            "span its logs cover: the episodes or completions "
            "differ in reward, yet the updates do not make the better ones more likely (advantages "
            "too small or too noisy, a KL or clip that holds the policy back, or a reward "
            "the policy cannot reach)."
            + (
                f" But the log opens mid-run (step {s0}): it shows no start to improve on, "
                "and a trained policy holds its level just as flatly."
                if late
                else ""
            )
        ),
        prescription=(
            "Score sampled completions by hand to check the reward ranks them sensibly; then "
            "check the advantages (normalised, not ~0), the KL coefficient and clip range, the "
            "LR, and that the policy's trainable parameters are the ones updated."
        ),
        # A log that opens mid-run (resumed, or its head cut) shows no start to improve
        # on: a flat return there may be a trained policy holding its level (info); the
        # level itself is judged against random play where the env is known (_rl_random).
        severity=Severity.INFO if late else Severity.WARNING,
    )


def _flat_from_start(p: Params, reward: Series, spread: Series) -> Hit | None:
    """A mean return that never leaves its first summary's level: 5+ summaries from the
    start of the run (the first one a logging interval in) whose means all lie within a
    tenth of the episodes' own spread (the median `episode_reward_std`). Each mean
    averages the episodes of its interval; a policy that got better at anything would
    shift them by a visible part of that spread. Not judged when the spread is 0 (one
    episode per summary, or every episode at the same capped return)."""
    r = reward.finite()
    n = len(r)
    if n < p.band_points:
        return None
    sd = _at(spread.finite(), r.steps)
    sd = sd[np.isfinite(sd)]
    if sd.size < p.band_points:
        return None
    sigma = float(np.median(sd))
    if not sigma > 0:
        return None
    steps, v = r.steps, r.values
    gap = float(np.median(np.diff(steps)))
    if not gap > 0 or steps[0] > 1.5 * gap:
        return None  # the log starts mid-run: a plateau there can be the converged one
    width = float(v.max() - v.min())
    if width > p.band_frac * sigma:
        return None
    s0, s1 = int(steps[0]), int(steps[-1])
    return Hit(
        title=(
            f"The mean reward does not move over {n} summaries from the start (steps "
            f"{s0}-{s1}): it stays within {fmt(width)} of {fmt(float(np.median(v)))}, while "
            f"the episodes' rewards spread {fmt(sigma)}"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward (flat from the start)",
            "reward_start": float(v[0]),
            "reward_end": float(v[-1]),
            "reward_range": width,
            "episode_reward_std": sigma,
            "points": n,
        },
        explanation=(
            "Each summary's mean reward averages the episodes finished in its interval, and "
            "the std beside it is how much those episodes differ. From the first summary on, "
            f"the means stay within {p.band_frac:.0%} of that spread: the distribution of "
            "returns has not shifted at all, so the policy plays as it did at the start "
            "(a random policy's level). Either the run is far too short for the task, or "
            "the updates do not change the policy."
        ),
        prescription=(
            "Compare with the task's published training budget (sparse or self-play tasks "
            "need millions of steps); if the run is long enough, check that the policy's "
            "parameters are updated (approx KL / clip fraction above 0) and that the reward "
            "the agent receives is the one you intend (inspect a few episodes)."
        ),
        severity=Severity.WARNING,
    )


def _zero_return(p: Params, reward: Series, spread: tuple[Series, Series]) -> Hit | None:
    """A mean return of 0 at every one of 3+ logs (within `zero_band` of its episodes'
    best - worst range) while the episodes behind each mean go both ways: the agent's
    wins and losses cancel, whatever the interval (devsisters/DQN-tensorflow's trading
    agent: "avg_ep_r: 0.0000, max_ep_r: 0.0911, min_ep_r: -0.0984", report after report
    6.4M steps in). A policy that learned anything would earn more than it loses: a
    reward that is 0 on average is the level of play with no edge, a random policy's in
    a market or a symmetric game. Judged at any point of the run: no learning curve ends
    at a mean of exactly nothing with its episodes spread on both sides of it."""
    r = reward.finite()
    if len(r) < p.min_all_dead:
        return None
    hi, lo = _at(spread[0], r.steps), _at(spread[1], r.steps)
    if not (np.all(np.isfinite(hi)) and np.all(np.isfinite(lo))):
        return None
    width = hi - lo
    both_ways = (lo < 0) & (hi > 0)
    if not (both_ways.all() and np.all(np.abs(r.values) <= p.zero_band * width)):
        return None
    s0, s1 = int(r.steps[0]), int(r.steps[-1])
    return Hit(
        title=(
            f"The mean return is 0 at all {len(r)} logs (steps {s0}-{s1}), while single "
            f"episodes range {fmt(float(np.min(lo)))} to {fmt(float(np.max(hi)))}"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward (zero mean, episodes both ways)",
            "reward_max_abs": float(np.max(np.abs(r.values))),
            "episode_range_min": float(np.min(width)),
            "points": len(r),
        },
        explanation=(
            "Each log's mean return averages the episodes of its interval, and the best "
            "and worst of them lie on both sides of 0. A mean of 0 at every log is "
            "gains and losses cancelling out: the policy has no edge, the level of "
            "random play, however many steps it has trained. Episodes that differ give "
            "advantages, yet the updates have not made the winning behaviour more likely."
        ),
        prescription=(
            "Check the reward the agent gets per step (scale, sign, and that it depends on "
            "the action: a trading reward of price noise has no edge to learn); compare "
            "with a random and a buy-and-hold policy, then check the learning rate, the "
            "target-network updates and the exploration schedule."
        ),
        severity=Severity.WARNING,
    )


def _reward_rises(p: Params, reward: Series) -> bool:
    """The reward's last fifth is 5%+ (of its scale) above its first: the live batches
    still teach the policy something."""
    v = reward.finite().values
    if v.size < 5:
        return False
    few = _few_levels(p, v)
    k = max(1, v.size // 5)
    head, tail = _level(v[:k], few), _level(v[-k:], few)
    return tail - head >= p.flat_rel * max(abs(head), abs(tail), p.std_eps)


@rule(
    "rl-no-signal",
    minimum=(
        "10 logged reward / reward_std points (3 when every one of them is dead, 1 when "
        "every completion is also clipped or the grad norm or advantages are dead too); "
        "3 DPO reward margins (1 when the logps are 0 too); 10 success-rate logs (20 for a "
        "flat one); 5 mean rewards with their episode spread; 3 PPO approx-KL logs; 10 logs "
        "of a task reward function; 3 tianshou test epochs; 1 mean return past its "
        "environment's step budget, for an env id with a known random-policy level"
    ),
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    # a reward that stops improving once the losses blow up or turn NaN is what broken
    # updates do to the policy, not a missing learning signal: those are the root cause
    explained_by=("divergence", "nonfinite-loss", "nonfinite-gradients", "lr-too-high"),
    requires=(
        f"reward_std|reward|{ZERO_STD_FRACTION}|{DPO_MARGINS}|{'|'.join(SUCCESS)}"
        f"|{'|'.join(APPROX_KL)}|{BEST_EPOCH}|event:{NOT_TRAINING}",
    ),
    uses=(
        "grad_norm",
        EPISODE_STD,
        TRADES,
        EPISODE,
        *(name for pair in EPISODE_RANGE for name in pair),
        *CLIPPED,
        *CLIP_FRACTION,
        *POLICY_ENTROPY,
        *TIMESTEPS,
        *STEP_COLUMNS,
    ),
    core=True,
)
def check(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """RL trainer (GRPO/PPO) with zero reward variance and zero grad norm: nothing to learn from.

    **What it does.** On RL runs (those logging `reward_std`, `reward`, TRL's
    `frac_reward_zero_std`, a return or a success rate) it flags a run whose reward gives
    the policy nothing to learn from: no spread within prompt groups, a reward pinned or
    flat, a policy that never changes. Error when the grad norm is ~0 too (or the trainer
    says it is not training); warning for a flat or dead reward otherwise; info for a flat
    reward in a window that opens mid-run.

    **Why it matters.** GRPO-style trainers learn from reward differences inside a group:
    with zero variance every advantage is 0, the policy gradient is 0 and the run burns
    compute learning nothing. RL trainers log a loss that can legitimately be 0; what
    matters is grad_norm (>0 fine, =0 broken) and reward_std (0 = no learning signal). A 0
    loss alone is never flagged here.

    **Readings.** mlx_lm's GRPO "Grouped rewards std" is read as reward_std and "Total
    rewards mean" as the reward.

    Reward spread dead (GRPO and kin):

    - *Dead stretch*: the longest stretch of reward_std ~0 (every completion of a group
      rewarded alike), 10+ logs and 20%+ of the run: error when grad_norm is ~0 over it,
      else warning (what gradient there is comes from KL / entropy terms).
    - *Dead at 75%+ of 10+ logs*, scattered (survives sparser logging): warning, unless the
      reward's last fifth still rises 5% above its first.
    - *Stand-ins for reward_std*: the spread of a `<reward>/max` and `/min` pair (verl's
      critic/score, else critic/advantages), then a constant reward. verl's advantages all
      equal (max = min) are dead even when scores differ (every group tied).
    - *Truncated*: 95%+ of completions cut at the length limit with grad norm exactly 0, any
      reward spread (overlong masking, DAPO's mask_truncated_completions; not
      `no-trainable-parameters`).
    - *Short log* (under 10 points): judged only when every point is dead, from 3 points; from
      1 dead log when every completion is cut at each log (TRL's `completions/clipped_ratio`,
      verl's `response_length/clip_ratio` at 1). 1-2 dead logs warn when a second signal is
      dead there too (grad norm exactly 0, verl's advantages equal beside its scores, or
      actor/pg_loss exactly 0 when the advantages are the dead signal). Also judged: a short
      log ending in 3+ dead logs (half of it or more) with grad norm exactly 0 at each, and
      one dead at every log after its first with grad norm 0 (or equal advantages) at each
      (TRL GRPO: reward_std 0.52, then 0 and grad_norm 0.0 from the second log). Other short
      logs with live points are not judged.
    - *Task reward never right*: a GRPO `rewards/<fn>` named accuracy / correct exactly 0 at
      each of 10+ logs (warning, when nothing else was found).

    Reward pinned or flat:

    - *Constant reward* is dead, but not a constant it climbed to: logs at the run's maximum
      with the logs before it 5%+ below (by median) are the cap reached (an SB3 Monitor's
      CartPole: 21, 20, 81, 209, 467, then 500). Pinned at its first value, fallen to a
      constant, or up under 5% is dead, except a late window (far from step 0) pinned at a
      positive value (TF-Agents' DQN at CartPole's 200 from step 73000; at 0 or below it is
      dead however late), or pinned from its first log at a positive multiple of 100 (Gym's
      round time limits: "reward: 500.00" each episode).
    - *Fell to a constant*, from 3 logs: the log ends in 3+ logs (half or more) at one exact
      value below every log before (warning; error with grad norm 0 there; FinRL's agent
      stopping trading: total_reward 0.00 after 94.35; deepq's Pong mean at -21 for its last
      5 of 10 logs after -20.3 .. -20.6).
    - *No better at the end*: with a live spread, over 20+ logs the last fifth within 4
      standard errors and 5% of the first fifth (warning); or a rise under a fifth of the
      logs' 5-95 percentile span, unless it is a quarter of the level (a DQN return 715 ->
      780 over 485 logs scattering 560-985). A few-level reward (at most 8 values, each at 5%+
      of logs) compares window means (a MiniGrid success share 0.30 -> 0.64, both medians
      0.5). Not a [0, 1] success rate flat at 0.95+, nor a last fifth clearing the first 3
      logs by both gates (GAIL on CartPole: 26 -> 194 in 6 of 100 logs, then 200).
    - *Window from mid-run* (first step past 50 and past a quarter of the span covered, not
      one interval in): a flat reward is info (a DQN LunarLander log from step 300k at ~150);
      a known env's random level still judges it.
    - *Success rate* with no return (HER's test/ and train/success_rate, SB3's eval/ and
      rollout/success_rate; the test / eval one first): exactly 0 at each of 10+ logs, or no
      better at the end over 20+ logs with 5% taken of [0, 1] (warning).
    - *Means within the episode spread*: ml-agents' "Mean Reward: X. Std of Reward: Y." at 5+
      summaries from the run's start, every mean within a tenth of the median spread
      (warning). Not a mid-run log, nor a spread of 0.
    - *Wins and losses cancel*: the mean 0 (within 1% of the max-min range) at 3+ logs while
      episodes go both ways (max_ep_r / min_ep_r, RLlib's episode_reward_max / _min), at any
      point (warning; a trading agent's "avg_ep_r: 0.0000" 6.4M steps in).
    - *At random play*: a known env (from the log, its path, an SB3 Monitor header, or the
      file's name: angela's bipedalwalker_hardcore.md) with a published random score
      (measure/rl_envs.py: Atari Pong, Breakout, Space Invaders, Boxing, Asterix, Beam Rider,
      Demon Attack, Road Runner, Crazy Climber, Atlantis from the DQN Nature table; CartPole,
      Pendulum, Acrobot, MountainCar, LunarLander, BipedalWalker and Hardcore), the last
      fifth's mean (1+ logs) within 5% of the way from random to competent (human score or
      solved threshold), every log past the steps a standard agent needs (2M on Atari, half
      for a policy-gradient agent), no epsilon above 0.1 there (warning). A cut log: the 3+
      logs past the budget are judged. Env steps come from a printed counter or a log
      numbered by them (SB3 Monitor, rollout table, progress.csv); a non-rising steps column
      is episode length. BipedalWalker's advice adds: clip its -100 for a fall.
    - *Sinking from the start*: 5+ logs from the start, the first above every later one, the
      last fifth a tenth of the level and 4 standard errors below it, sinking as a line (no
      climb back by a quarter of the fall) (warning; an A2C CartPole mean-of-100 return 22.6,
      20.3, 17.0, ... 14.1, random ~22). Not with epsilon above 0.1.
    - *Game score flat under a rising reward*: a game score ("score", "Avg_Final_Score_100",
      "game_score"; not an eval or reward-model score) flat by the reward's test (20+ logs)
      while the reward rises 5%+ (warning; a Yacht PPO: score 40 -> 42 over 67,000 episodes,
      shaped reward 1.1 -> 2.9). "Avg_Reward_100", "mean_return_10" are the reward.

    The policy never changes:

    - *PPO KL ~0* (<= 1e-10) at each of 3+ logs with the clip fraction exactly 0 wherever
      logged (SB3 / SB2 / baselines, CleanRL, TRL's PPOTrainer; not verl's ppo_kl nor TRL
      GRPO's clip_ratio): error when the entropy is identical at every log too, else warning;
      from 1 log when the entropy is ~0 there too (warning; FinRL's SB3 PPO at lr 0.125,
      entropy_loss -2e-18). Reported instead of a flat reward.
    - *DPO margin* (`rewards/margins`, no reward) exactly 0 at each of 3+ logs (error).
    - *ml-agents "Not Training."* on every summary line, at Step 0 only, from one line
      (error; not a behaviour at its max_steps, nor a resumed checkpoint).
    - *tianshou's best still epoch #0* after 3+ epochs (warning).
    - *FinRL's last episode summary* past the first with 0 trades and total_reward exactly 0
      (warning).

    **Known false positives.** A reward that stops improving in a run whose losses diverge
    (a critic whose value estimates exploded) or turn NaN is what the broken updates did:
    the finding is linked to divergence / nonfinite-loss / nonfinite-gradients, the root
    cause to fix first. A stretch of prompts all trivially easy (or impossible) gives zero
    variance for a while; that is why only a long window counts.

    **What to do.** Test the reward function on a few sampled completions: it
    probably returns a constant (a parsing/format mismatch, always 0). Raise the
    number of generations per prompt and the sampling temperature so group
    members differ; make the reward less binary (partial credit); check that the
    completions are not all truncated at max_completion_length.
    """
    if (idle := _not_training(run)) is not None:
        yield idle  # the trainer says so itself: nothing below can be a learning signal
        return
    if (frozen := _policy_frozen(run, p)) is not None:
        yield frozen  # it explains a flat reward: the policy it measures never changed
        return
    # A return that climbed and then fell back had a signal that wrecked its policy
    # (divergence's collapse): "no improvement" and "still random play" are not this run's
    # story, though a reward that went dead (constant) on the way down still is.
    collapsed = collapse(run) is not None
    found = [h for h in _main(run, p) if not (collapsed and _no_gain(h))]
    if any(isinstance(h, Hit) for h in found):
        yield from found
        return
    dead = (
        _task_reward_dead(run, p)
        or score_flat(run, p, _flat_reward, _reward_rises)
        or _never_beats_start(run, p)
        or _no_trades(run)
        or (None if collapsed else random_level(run, p))
        or declined(run, p)
    )
    yield from [dead] if dead is not None else found


def _no_gain(h: Hit | NotJudged) -> bool:
    """A finding that the reward did not improve (flat over the run or from the start)."""
    return isinstance(h, Hit) and "(flat" in str(h.evidence.get("signal", ""))


def _no_trades(run: Run) -> Hit | None:
    """FinRL's summary of the last episode shows 0 trades and a total_reward of exactly 0,
    past the env's first episode: the agent held its cash for the whole episode, so its
    actions never reach the market (every one rounds to "hold") and every return is the
    same 0 - there is no difference left to learn from (a warning, from one summary: a
    policy that still explores trades at least once in an episode of hundreds of days)."""
    trades, reward, ep = run.get(TRADES), run.get(Signal.REWARD.value), run.get(EPISODE)
    if trades is None or reward is None or ep is None:
        return None
    t, r, e = trades.finite(), reward.finite(), ep.finite()
    if not (len(t) and len(r) and len(e)):
        return None
    last_r = float(_at(r, t.steps[-1:])[0])
    if float(t.values[-1]) != 0 or last_r != 0 or float(e.values[-1]) <= 1:
        return None
    zero = int(_tail_run(t.values == 0))
    s0, s1 = int(t.steps[-zero]), int(t.steps[-1])
    episode = int(e.values[-1])
    return Hit(
        title=(
            f"The agent made no trade in its last episode (episode {episode}"
            + (f", and the {zero - 1} before it" if zero > 1 else "")
            + "): total_reward exactly 0"
        ),
        step=s0,
        end_step=s1,
        evidence={"signal": f"{TRADES} = 0", "episode": episode, "dead_points": zero},
        explanation=(
            "FinRL's env sums each episode up: 0 trades and a total_reward of exactly 0 "
            "mean the agent held its starting cash from the first day to the last. Its "
            "actions never moved a share (each one rounds to 'hold', or is clipped away), "
            "so every episode returns the same 0 and the updates have nothing to compare."
        ),
        prescription=(
            "Print the raw actions: if they sit in (-1, 1) they round to 0 shares at "
            "hmax scaling, so raise hmax or the action scale; check the reward scaling, "
            "the turbulence threshold (it forces selling / holding) and that the "
            "technical-indicator features are not all NaN or constant."
        ),
        severity=Severity.WARNING,
    )


def _not_training(run: Run) -> Hit | None:
    """ml-agents' "... Step: 0. ... Not Training." on every status line, no line at a
    later step: the trainer never updated its policy (error)."""
    idle = [e for e in run.events if e.kind == NOT_TRAINING]
    if not idle or any(e.value != 0 for e in idle):
        return None
    for s in run.series.values():
        if len(s) and float(np.nanmax(s.steps)) > 0:
            return None  # some line printed a later step: that behaviour did train
    first = idle[0]
    return Hit(
        title=(
            f"The RL trainer is not training: {len(idle)} summary line"
            f'{"s" if len(idle) != 1 else ""} end in "Not Training." at step 0'
        ),
        step=0,
        evidence={
            "signal": "trainer status (Not Training.)",
            "not_training_lines": len(idle),
            "line": first.line,
            "text": first.text,
        },
        explanation=(
            "ml-agents prints its trainer's status at the end of every summary: \"Not "
            'Training." means the policy is only run, never updated, and Step 0 means it '
            "has never taken a training step. The rewards shown are the untrained policy's."
        ),
        prescription=(
            "Start mlagents-learn with --train (ml-agents 0.x; later releases train unless "
            "--inference is given), and check the agents use a learning brain / behaviour "
            "type Default, not a player or inference-only one."
        ),
        severity=Severity.ERROR,
    )


def _main(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """The reward-signal reading of `check` (its docstring)."""
    std, reward, grad = run.get("reward_std"), run.get("reward"), run.get("grad_norm")
    fallen = 0  # a constant reward's last logs, at the lowest value it fell to
    zero_frac = run.get(ZERO_STD_FRACTION)
    spread = reward_spread(run)
    ep_std = run.get(EPISODE_STD)
    if (
        std is None
        and zero_frac is None
        and reward is not None
        and ep_std is not None
        and (hit := _flat_from_start(p, reward, ep_std)) is not None
    ):
        yield hit
        return
    if (
        std is None
        and zero_frac is None
        and reward is not None
        and (rng := episode_range(run)) is not None
        and (hit := _zero_return(p, reward, rng)) is not None
    ):
        yield hit
        return
    if std is None and reward is None and zero_frac is None:
        if (margins := run.get(DPO_MARGINS)) is not None:
            yield from _dpo_no_margin(run, p, margins)
        elif (rate := _success_rate(run)) is not None:
            yield from _success_flat(p, rate)
        return
    if std is None and spread is not None:
        std = spread  # max - min of the batch's scores: 0 when every completion tied
    if std is not None:
        base = std.finite()
        dead_signal = np.abs(base.values) <= p.std_eps
        what = std.name if std is spread else "reward_std"
    elif zero_frac is not None:
        base = zero_frac.finite()
        dead_signal = base.values >= 1 - p.std_eps
        what = f"{ZERO_STD_FRACTION} = 1"
    else:
        assert reward is not None
        base = reward.finite()
        x = base.values
        if x.size < 3:
            yield too_few("reward", x.size, p.min_all_dead)
            return
        # Constant reward: no change from either neighbour.
        d = np.abs(np.diff(x)) <= p.reward_eps
        dead_signal = np.r_[d[:1], d] & np.r_[d, d[-1:]]
        dead_signal &= ~_at_climbed_ceiling(p, x, late=starts_mid_run(base))
        fallen = _fallen_tail(p, x)
        if fallen:
            dead_signal[x.size - fallen :] = True
        what = "reward (constant)"
    tied_groups = None  # logs where the scores differ but every advantage is equal
    adv = _advantage_spread(run) if std is not None and std is spread else None
    if adv is not None and spread is not None and adv.name != spread.name:
        # The score's max - min spans the whole batch, across prompt groups; the
        # advantages are taken inside each group. All advantages equal while the
        # scores differ is every group tied (each prompt all right or all wrong):
        # no policy gradient, however live the batch's score spread looks.
        a = _at(adv.finite(), base.steps)
        adv_dead = np.isfinite(a) & (np.abs(a) <= p.std_eps)
        tied_groups = adv_dead & ~dead_signal
        if tied_groups.any():
            dead_signal = dead_signal | adv_dead
            what = adv.name
    n = base.steps.size
    g = _at(grad.finite(), base.steps) if grad is not None and len(grad.finite()) else None
    truncated = None  # logs dead because nearly every completion was cut, with no gradient
    cut = _clipped_at(run, base.steps)
    if cut is not None and g is not None:
        trunc_dead = (cut >= p.clipped_most) & (np.abs(g) <= p.grad_eps)
        if (trunc_dead & ~dead_signal).any():
            truncated = trunc_dead & ~dead_signal
            dead_signal = dead_signal | trunc_dead
    # No reward difference anywhere is no task signal, whatever the grad norm: what
    # gradient there is comes from the KL / entropy terms, which pull the policy back
    # to the reference or spread it, never towards the reward. A zero grad norm as
    # well (no such terms) makes it certain: an error rather than a warning.
    dead = dead_signal
    clipped = _all_clipped(run, p)
    short_and_mixed = n < p.min_points and (n < p.min_all_dead or not dead.all())
    if short_and_mixed and clipped is not None and n and dead.all():
        short_and_mixed = False  # truncation explains the tie: judged at any length
    few = n < p.min_all_dead
    if (
        short_and_mixed
        and n
        and dead.all()
        and _corroborated(run, p, base.steps, g, std, tied_groups)
    ):
        short_and_mixed = False  # a second dead signal at the same logs: a warning
    # A short log that ends in 3+ cut-off logs with no gradient while the rewards still
    # differ, dead for at least half of it: the run stopped learning and never came
    # back. Not a stretch of easy prompts: groups whose rewards differ have non-zero
    # advantages, so an exactly-0 norm at each of them is no batch luck. (A tail of
    # tied logs, reward_std 0, could be one; it keeps the all-dead test above.)
    tail = _tail_run(truncated) if truncated is not None else 0
    terminal = (
        n < p.min_points and tail >= p.min_all_dead and 2 * tail >= n and tail == _tail_run(dead)
    )
    if not terminal and fallen and fallen == _tail_run(dead):
        # the reward fell to its lowest value and sits there, exactly, for its last 3+
        # logs (half the log or more): the policy settled on one behaviour and never
        # left it, the same end as the cut-off logs above, from the reward alone
        tail, terminal = fallen, True
    if (
        not terminal
        and short_and_mixed
        and _dead_after_first(run, p, base, dead, g, std, tied_groups)
    ):
        tail, terminal = n - 1, True
    if short_and_mixed and terminal:
        short_and_mixed = False
    if short_and_mixed:
        if dead.any() or n < p.min_all_dead:
            yield too_few(what.split()[0], n, p.min_points)
        return  # (no dead point at all: the signal is there, judged healthy)
    start, length = _longest_run(dead)
    if terminal:
        start, length = n - tail, tail
    span = np.zeros(n, dtype=bool)
    span[start : start + length] = True
    mostly = False
    if not terminal and length < min(n, max(p.min_points, p.min_frac * n)):
        # Scattered rather than in one stretch: dead at most logs of a long one is the
        # same lack of signal, and unlike the longest stretch it survives a sparser
        # logging interval.
        mostly = n >= p.min_points and float(dead.mean()) >= p.dead_share
        if not mostly or (reward is not None and _reward_rises(p, reward)):
            if reward is not None and (hit := _flat_reward(p, reward)) is not None:
                yield hit  # the rewards differ, but the policy never gets better at them
            return
        span, length = dead, int(dead.sum())
    s0, s1 = int(base.steps[span][0]), int(base.steps[span][-1])
    evidence = {
        "signal": what,
        "dead_points": length,
        "dead_frac": length / n,
        "start_step": s0,
        "end_step": s1,
        "grad_norm_max": float(np.nanmax(np.abs(g[span]))) if g is not None else None,
    }
    if mostly:
        evidence["mode"] = "most logs"
    if std is not None:
        live = np.abs(base.values)
        if tied_groups is not None:
            live = np.where(tied_groups, 0.0, live)
        evidence["reward_std_max"] = float(np.max(live[span]))  # a tied group adds 0
    if reward is not None:
        r = reward.finite()
        seg = r.values[(r.steps >= s0) & (r.steps <= s1)]
        if seg.size:
            evidence["reward_median"] = float(np.median(seg))
    both = g is not None and bool(np.all(np.abs(g[span]) <= p.grad_eps))
    where = (
        f"at {length} of {n} log points ({length / n:.0%}, steps {s0}-{s1})"
        if mostly
        else f"for {length} log points (steps {s0}-{s1})"
    )
    # every dead log of the span is a cut-off one whose rewards still differ
    by_cut = truncated is not None and bool(np.all(truncated[span]))
    if by_cut:
        assert cut is not None
        share = float(np.min(cut[span]))
        title = (
            f"No RL learning signal {where}: {share:.0%}+ of completions cut at the length "
            "limit and grad_norm exactly 0, though the rewards differ"
        )
        evidence["signal"] = "completions clipped + grad_norm 0"
        evidence["clipped_min"] = share
    elif what == "reward (constant)" and not both:
        level = evidence.get("reward_median")
        at = f" at {fmt(level)}" if isinstance(level, float) else ""
        title = f"No RL learning signal {where}: the reward is constant{at}"
        if fallen and terminal and reward is not None:
            prior = reward.finite().values[: n - fallen]
            evidence["fallen_from"] = float(np.median(prior))
            title += f", fallen there from {fmt(float(np.median(prior)))}"
    else:
        title = f"No RL learning signal {where}: {what} ~0" + (" and grad_norm ~0" if both else "")
    if truncated is not None and truncated[span].any():
        evidence["truncated_points"] = int(truncated[span].sum())
    if tied_groups is not None and tied_groups[span].any():
        title += f": every prompt group tied, though {spread.name} is not 0"
        evidence["tied_groups"] = int(tied_groups[span].sum())
    if clipped is not None:
        title += f", every completion cut at the length limit ({clipped.name} 1)"
        evidence["clipped_signal"] = clipped.name
        evidence["clipped_min"] = float(np.min(clipped.finite().values))
    rm = evidence.get("reward_median")
    # a reward logged without any spread beside it, constant: an environment's return
    # (or a trainer that logs no per-completion spread), not a GRPO group's tie
    constant = what == "reward (constant)" and clipped is None and not by_cut
    yield Hit(
        title=title,
        step=s0,
        end_step=s1,
        evidence=evidence,
        explanation=(
            "Nearly every completion hit the length limit, so almost no answer finishes. "
            "A cut completion carries no gradient when the trainer masks overlong ones "
            "(DAPO's mask_truncated_completions / overlong filtering), and the grad norm of "
            "exactly 0 shows the rest gave none either: the reward differences are there, "
            "but no update reaches the policy."
            + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            if by_cut
            else "The reward is the same at every one of these logs: every episode or batch "
            "scores exactly alike, so no update can tell a better action from a worse one. "
            "A sparse reward the agent never earns (always 0, or the same penalty), a reward "
            "function that returns a constant, or episodes that always end the same way do "
            "this." + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            if constant
            else "Group-relative RL (GRPO, RLOO, PPO with group baselines) learns from reward "
            "differences between completions of the same prompt. With no variance every "
            "advantage is zero"
            + (
                ", and the zero grad_norm confirms that nothing is being updated."
                if both
                else ", so what gradient there is comes from the KL / entropy terms, not "
                "from the reward."
                if g is not None
                else "."
            )
            + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            + " A 0 loss on its own is normal for these trainers; this is not."
        ),
        prescription=(
            "Raise max_completion_length (TRL) / max_response_length (verl) until most "
            "completions finish, or ask for shorter answers in the prompt; then check a "
            "few finished completions against the reward function."
            if clipped is not None or by_cut
            else "Check what the environment (or reward function) returns on a few episodes "
            "you play by hand; for a sparse reward, shape it or explore more (an entropy "
            "bonus, a higher epsilon), and confirm the agent's actions reach the environment."
            if constant
            else "Score a few sampled completions with the reward function by hand: it "
            "probably returns a constant (format/parsing mismatch). Then raise "
            "num_generations and the sampling temperature, give partial credit instead of "
            "a 0/1 reward, and check the completions are not all cut at "
            "max_completion_length."
        ),
        severity=None if both and not few else Severity.WARNING,
    )


def _dead_after_first(
    run: Run,
    p: Params,
    base: Series,
    dead: np.ndarray,
    g: np.ndarray | None,
    std: Series | None,
    tied_groups: np.ndarray | None,
) -> bool:
    """A short log dead at every log after its first, with a second signal dead at each
    of them too (the grad norm exactly 0, or the advantages all equal): the first log
    can be the last batch before the run broke (memgen's GRPO: reward_std 0.52 and
    grad_norm 6.2 at its first log, then reward_std 0, frac_reward_zero_std 1 and
    grad_norm 0.0 from the second on). A tie that leaves no gradient at all, from one
    log to the end of the log, is the evidence a wholly dead short log gives, only
    after one live batch: the run lost its signal and did not get it back."""
    if dead.size < 2 or bool(dead[0]) or not bool(dead[1:].all()):
        return False
    rest = slice(1, None)
    return _corroborated(
        run,
        p,
        base.steps[rest],
        g[rest] if g is not None else None,
        std,
        tied_groups[rest] if tied_groups is not None else None,
    )


def _fallen_tail(p: Params, x: np.ndarray) -> int:
    """How many logs a reward logged without any spread ends in at one exact value it
    fell to: 3+ logs, half the log or more, below every log before them (0 when it does
    not). An RL return that drops to its lowest value and repeats it exactly, log after
    log, comes from a policy that settled on one behaviour (FinRL's agent that stops
    trading: total_reward 0.00 at every episode after one of 94.35; deepq's Pong at -21,
    every point lost, after -20.3 .. -20.6): the episodes no longer differ, so nothing
    is left to learn from. Not a reward that climbed to a constant (the task's cap,
    `_at_climbed_ceiling`), nor one pinned from its first log (judged as a whole)."""
    n = x.size
    k = 1
    while k < n and abs(float(x[n - 1 - k]) - float(x[-1])) <= p.reward_eps:
        k += 1
    if k >= n or k < p.min_all_dead or 2 * k < n:
        return 0
    return k if float(x[-1]) < float(np.min(x[: n - k])) else 0


def _at_climbed_ceiling(p: Params, x: np.ndarray, late: bool = False) -> np.ndarray:
    """The logs where a reward with no spread logged sits at the run's maximum after
    climbing there: the logs before its first visit to that maximum lie, by their
    median, 5%+ (of the maximum's size) below it. A return pinned at a value it rose
    to is the task's cap reached (CartPole's 500, an accuracy reward of 1 for every
    completion): solved, nothing left to gain, not a reward that never reached the
    policy. A constant it started at, or fell to, is still dead. A `late` window (the
    log starts far into the run) pinned at a positive value from its first log may have
    climbed before it (TF-Agents' DQN: "Average Return = 200.0", CartPole-v0's cap, at
    every eval from step 73000 on): not dead either; pinned at 0 or below it still is.
    Nor is a return pinned from its first log at a positive whole multiple of 100
    (`cap_unit`): Gym's time limits are round (CartPole-v0 200, v1 500, InvertedPendulum
    1000), and a +1-per-step survival return that equals one at every episode is every
    episode run to the limit (a trained CartPole policy tested: "reward: 500.00" at each
    episode) - the most the task pays, not a reward that never reached the policy. A
    negative round constant is the opposite end (MountainCar's -200: every episode
    failed at the limit) and stays dead, as do returns that are not round (a
    deterministic policy's -943.4 or 5.367 repeated)."""
    top = float(np.max(x))
    at_top = np.abs(x - top) <= p.reward_eps
    first = int(np.argmax(at_top))
    if first == 0:
        if late and top > 0:
            return at_top  # the climb, if any, lies before the window
        if top > 0 and top % p.cap_unit == 0:
            return at_top  # every episode ran to a round time limit: the cap, solved
        return np.zeros(x.size, dtype=bool)  # pinned from the first log: never climbed
    before = float(np.median(x[:first]))
    if top - before < p.flat_rel * max(abs(top), p.std_eps):
        return np.zeros(x.size, dtype=bool)
    return at_top


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


def _never_beats_start(run: Run, p: Params) -> Hit | None:
    """tianshou's test line names the epoch of the best test return so far, and tests
    the policy before any training as epoch #0. Still #0 after 3+ epochs: no trained
    policy has scored above the untrained one on its own test, i.e. nothing learned
    (or the training made it worse)."""
    best = run.get(BEST_EPOCH)
    if best is None or len(best.finite()) < p.min_all_dead:
        return None
    b = best.finite()
    if not bool(np.all(b.values == 0)):
        return None
    ev = run.get("eval_reward")
    lvl = float(ev.finite().values[0]) if ev is not None and len(ev.finite()) else None
    s0, s1 = int(b.steps[0]), int(b.steps[-1])
    return Hit(
        title=(
            "No epoch beats the untrained policy: the best test reward is still epoch #0's"
            + (f" ({fmt(lvl)})" if lvl is not None else "")
            + f" after {len(b)} epochs (steps {s0}-{s1})"
        ),
        step=s0,
        end_step=s1,
        evidence={"signal": f"{BEST_EPOCH} = 0", "dead_points": len(b), "eval_reward_first": lvl},
        explanation=(
            "The trainer tests the policy before any update (epoch #0) and after each "
            "epoch, and names the epoch of the best test return so far. It is still #0: "
            "after every epoch of training the test return is no better than the untrained "
            "policy's, so the updates have not made the policy better at the task."
        ),
        prescription=(
            "Watch a few test episodes: if the actions never change, check the reward the "
            "environment returns (a constant, or a penalty the agent cannot avoid) and that "
            "the policy's updates reach it (learning rate, gradients, the right network "
            "being optimised); then the exploration (the entropy term, action noise)."
        ),
        severity=Severity.WARNING,
    )
