"""rl-no-signal: an RL trainer whose reward has no variance and whose gradient is zero."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, NotJudged, rule
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
)
from traindoc.rules.loss._rl_decline import declined
from traindoc.rules.loss._rl_flat import _flat_reward, _reward_rises
from traindoc.rules.loss._rl_llm import (
    _policy_frozen,
    _task_reward_dead,
)
from traindoc.rules.loss._rl_random import STEP_COLUMNS, TIMESTEPS, random_level
from traindoc.rules.loss._rl_reward import _main
from traindoc.rules.loss._rl_score import score_flat
from traindoc.rules.loss._rl_trainer_says import _never_beats_start, _no_trades, _not_training


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
