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

    **What it does.** On RL runs (those that log `reward_std`, `reward` or TRL's
    `frac_reward_zero_std`) it looks for the longest stretch where reward_std is ~0 (every completion
    of a prompt group got the same reward). A stretch of 10+ log points and 20%+
    of the run is an error when grad_norm is ~0 over it too, else a warning (what
    gradient there is comes from the KL / entropy terms, not from the reward).
    Dead at 75%+ of 10+ logs, scattered, is the same lack of signal (a warning),
    unless the reward's last fifth still rises 5% above its first; unlike the
    longest stretch, that share survives a sparser logging interval. Without reward_std, the spread of a `<reward>/max` and `/min` pair (verl's
    critic/score, else critic/advantages) stands in for it, then a constant reward;
    but not a constant the reward climbed to: logs at the run's maximum, when the
    logs before its first visit there lie (by their median) 5%+ below it, are the
    task's cap reached (an SB3 Monitor's CartPole returns at 500 after 21, 20, 81,
    209, 467; every completion right), solved rather than dead. Pinned at its first
    value, fallen to a constant, or up by less than 5% is still dead, except a log that
    is a late window of the run (it starts far from step 0) pinned at a positive value
    from its first log: the climb can lie before the window (TF-Agents' DQN at CartPole's
    200 at every eval from step 73000); pinned at 0 or below, it is dead however late.
    Pinned from its first log at a positive whole multiple of 100 is not dead either:
    Gym's time limits are round, and a +1-per-step return at one is every episode run to
    the limit (a trained CartPole policy tested at "reward: 500.00" each episode).
    A constant reward it fell to is dead at any length from 3 logs: a log that ends
    in 3+ logs (half of it or more) at one exact value below every log before them
    (FinRL's agent that stops trading, total_reward 0.00 at each episode after one of
    94.35; deepq's Pong mean at -21, every point lost, for its last 5 of 10 logs after
    -20.3 .. -20.6) has a policy that settled on one behaviour and repeats it: its
    episodes no longer differ, so there is nothing left to learn from (a warning; an
    error with the grad norm 0 there too). A stochastic policy that still explores
    does not repeat a return exactly log after log, and a run that learned does not
    end at its lowest point.
    A log whose advantages are all equal (verl's critic/advantages max = min) is
    dead even when the scores differ: the score's max and min span the batch,
    across prompt groups, while the advantages are taken inside each group, so
    equal advantages are every group tied (all right or all wrong) and no policy
    gradient. A log where 95%+ of the completions are cut at the length limit and
    the grad norm is exactly 0 is dead too, whatever the reward spread: the cut
    completions carry no gradient (overlong masking, DAPO's
    mask_truncated_completions) and the zero norm shows nothing else did; that
    truncation, not a frozen model (no-trainable-parameters), explains the zero.
    mlx_lm's GRPO "Grouped rewards std" is read as reward_std and its
    "Total rewards mean" as the reward. On DPO runs (no reward,
    but `rewards/margins`) a margin exactly 0 at every one of 3+ logs is an error:
    the reference moves with the policy, or nothing is updated. With a live reward
    spread, a reward whose last fifth is no better than its first (within 4
    standard errors and 5% of its level) over 20+ logs is a warning: the policy
    gets no better at what it is rewarded for. So is one whose rise is under a fifth
    of the span its logs cover (their 5-95 percentile range), however significant: a
    long noisy log (a DQN return 715 -> 780 over 485 logs that scatter 560-985) clears
    4 standard errors and 5% of its level while its logs wander over a band five
    times wider - noise around one level, not a learning curve (a straight rise of D
    through noise sigma spans about D + 3.3 sigma, so this asks for D above ~1 sigma),
    unless the rise is a quarter of the reward's level or more (per-episode returns
    whose median doubles learn, however wide single episodes scatter). A reward of a
    few levels (per-episode 0/1 outcomes, or means of 2-4 of them: at most 8 values,
    each at 5%+ of the logs) is compared by its window means, not medians: the median
    snaps to one level (a MiniGrid success share 0.30 -> 0.64 kept both at 0.5);
    not when the reward is a success rate
    in [0, 1] flat at 0.95+ (solved: nothing is left to gain), nor when the last fifth
    clears the run's first 3 logs by both gates: a reward that rose inside the first
    fifth (GAIL on CartPole, the mean-of-100-episodes return 26 -> 194 in 6 of 100 logs,
    then held at the environment's cap of 200) has its converged level as that fifth's
    median; it learned early and held, which is no missing signal (that rise, too, must
    clear a fifth of the span). A log that opens mid-run (its first step past 50 and a
    quarter of the span it covers, not one interval in: a resumed run, a tail excerpt)
    shows no start to improve on: its flat reward is info, since a trained policy holds
    its level just as flatly (a DQN LunarLander log from step 300k at a return of ~150);
    where the env is known, its random-play level still judges it (below).
    A goal-conditioned run that logs a success rate and no return (OpenAI baselines
    HER's test/ and train/success_rate, SB3's eval/ and rollout/success_rate) is read
    the same way from its success rate, the test / eval rate first (the train rate
    mixes in exploration noise): exactly 0 at each of 10+ logs is a warning (no
    episode ever reached its goal, so every sparse return is the same failure), and
    so is a rate no better at the end than at the start over 20+ logs, where the 5%
    is of the rate's range [0, 1] (5 points of success), not of its level: a rate at
    0.03 has no level to take 5% of, and one more success in 20 test episodes is
    noise, not learning.
    A log that prints the spread of the episodes' returns beside each mean return
    (ml-agents' "Mean Reward: X. Std of Reward: Y.", read as `episode_reward_std`)
    is judged at 5+ summaries from the start of the run (the first a logging interval
    in): means that all lie within a tenth of the median episode spread never moved
    the distribution of returns, so the policy still plays as it did at the start (a
    warning). The spread is the noise of each mean known without reading it off the
    curve, which is why five points do; a log that starts mid-run is left alone (its
    plateau can be the converged one), and so is a spread of 0 (one episode per
    summary, or every episode at the same capped return).
    A log that prints the best and worst episode return beside each mean
    (devsisters/DQN-tensorflow's max_ep_r / min_ep_r, RLlib's episode_reward_max /
    _min) and whose mean is 0 at each of 3+ logs (within 1% of that range, the printed
    rounding) while the episodes go both ways is a warning at any point of the run: the
    wins and losses cancel, the level of play with no edge (a trading agent's
    "avg_ep_r: 0.0000" 6.4M steps in). A learned policy earns more than it loses.

    An ml-agents log whose summary lines all end in the trainer's own status "Not
    Training." at Step 0, with no line at a later step, is an error from one line on:
    the trainer is not updating its policy (mlagents-learn started without --train, a
    learning brain not assigned) and has never taken a training step, so whatever
    reward it prints is the untrained policy's. The status is set at launch, so one
    line is the whole run; Step 0 is what tells it from a behaviour that reached its
    max_steps (also "Not Training.", at that step) and from a resumed checkpoint.

    Two readings need no reward curve at all. A PPO run whose approx KL is ~0
    (<= 1e-10) at each of 3+ logs, with the clip fraction exactly 0 wherever logged
    (SB3 / SB2 / baselines, CleanRL, TRL's PPOTrainer; not verl's ppo_kl nor TRL
    GRPO's clip_ratio, on-policy and 0 by construction with one update per rollout),
    never changed its policy: an error when the entropy is the same number at every
    log too, else a warning (one minibatch of one epoch also logs 0). From 1 log when
    the entropy is ~0 there as well: the policy collapsed onto one action (FinRL's SB3
    PPO at lr 0.125, entropy_loss -2e-18), its saturated softmax leaving PPO no
    gradient, so that KL of 0 is no single-minibatch artefact (a warning). It is reported
    instead of a flat reward, which it explains. A GRPO reward function named for
    the task (`rewards/<fn>` with accuracy / correct in its name) that is exactly 0 at
    each of 10+ logs never scored a completion right, so the policy learns only what
    the other (format) rewards pay for: a warning, when nothing else was found. So is a
    tianshou run whose test line still names epoch #0 (the test before any training) as
    the best after 3+ epochs: no trained policy scored above the untrained one. So is a
    FinRL trading env whose last episode summary, past its first episode, shows 0 trades
    and a total_reward of exactly 0: the agent held its cash all episode, its actions
    never reach the market, and every return is the same 0.

    A return still at its environment's random-policy level is a warning too, when the
    env id is known (read from the log, its path or an SB3 Monitor header, else from the
    name of the file itself when it is named after the game: angela's
    bipedalwalker_hardcore.md) and the
    environment is one whose random score is published (measure/rl_envs.py: Atari Pong,
    Breakout, Space Invaders, Boxing, Asterix, Beam Rider, Demon Attack, Road Runner,
    Crazy Climber, Atlantis from the DQN Nature table; CartPole, Pendulum,
    Acrobot, MountainCar, LunarLander, BipedalWalker and its Hardcore variant, whose
    random walker falls on the same start pad): the mean of the last fifth of the
    logs (from one log) within 5% of the way from random play to a competent score (the
    human score, or the task's solved threshold), every one of those logs past the env
    steps a working standard agent needs to leave that level (2M on Atari, past the
    standard epsilon schedules; half as many for a policy-gradient agent, which logs its
    entropy and has no epsilon phase), and no epsilon schedule still above 0.1 there.
    When the last fifth reaches back before that budget (a log its author cut in the
    middle: episodes 100-3000, "...", 19000-19500), the logs past it are judged, 3 or
    more of them (one late summary is too little to read a level from).
    The env steps come from a counter printed beside the return (num timesteps,
    total_timesteps, a Steps column that rises at every log) or from a log numbered by
    them (an SB3 Monitor, an SB3 rollout table, a progress.csv numbered by its
    total_timesteps); a steps column that does not rise at every log is each episode's
    length, not a counter. On BipedalWalker the advice adds the known cause: its -100
    for a fall can stop a standard agent's training outright (clip it at a fall).

    A return logged from the start of the run (5+ logs, its first no later than one
    logging interval in) whose first log is above every later one, and whose last fifth
    lies below that first log by a tenth of its level and by 4 standard errors of the
    log's own noise, sinking as a line (no log climbs back above the one before it by a
    quarter of the whole fall: scattered per-episode returns do), is a warning too: the untrained policy is the best the run ever
    logged (an A2C printout's mean-of-100 return 22.6, 20.3, 17.0, ... 14.1 on CartPole,
    whose random play scores ~22). A working agent rises from its random start, however
    slowly or noisily; not while an epsilon-greedy schedule is still above 0.1 (a greedy
    DQN policy plays worse than random until its Q-values are learned).

    A game's own score logged beside the reward ("score", "Avg_Final_Score_100",
    "game_score"; not an eval one, nor a reward model's) that is flat by the reward's own
    test (20+ logs, its last fifth within the noise and 5% of its first, or under a fifth
    of its span) while the reward beside it rises 5%+ is a warning: the agent learned to
    collect a shaped reward's bonuses, not to play the game (a Yacht PPO's mean score 40
    -> 42 over 67,000 episodes while its shaped reward climbed 1.1 -> 2.9). A return
    column named with its window ("Avg_Reward_100", "mean_return_10") is the reward.

    **Why it matters.** GRPO-style trainers learn from reward differences inside
    a group: with zero variance every advantage is 0, the policy gradient is 0
    and the run burns compute learning nothing. RL trainers log a loss that can
    legitimately be 0; what matters is grad_norm (>0 fine, =0 broken) and
    reward_std (0 = no learning signal). A 0 loss alone is never flagged here.

    A short log (under 10 points) is judged only when every point of it is dead,
    from 3 points up: the policy then sits at a fixed point it cannot leave (zero
    advantages, zero gradient, no KL yet). With every completion cut at the length
    limit at each log as well (TRL's `completions/clipped_ratio`, verl's
    `response_length/clip_ratio` at 1), a single dead log is enough: an unfinished
    answer matches no format, so the truncation explains the tie. One or two dead
    logs are a warning when a second signal is dead at them too (the grad norm
    exactly 0, or verl's advantages all equal besides its scores, or, when the
    advantages are the dead signal, verl's actor/pg_loss exactly 0): a tie that leaves
    no gradient at all is what the pasted run looks like. A short log that ends in
    3+ dead logs with the grad norm exactly 0 at each, dead for half of it or more,
    is judged too: the run stopped learning and never recovered. So is a short log
    dead at every log after its first, with the grad norm exactly 0 (or the
    advantages all equal) at each of those: the first log can be the last batch
    before the run broke (TRL GRPO, reward_std 0.52 then 0 and grad_norm 0.0 from the
    second log on). Any other short log
    with some live points says it could not judge.

    **Known false positives.** A reward that stops improving in a run whose losses
    diverge (a critic whose value estimates exploded) or turn NaN is what the broken
    updates did to the policy: the finding is linked to divergence / nonfinite-loss /
    nonfinite-gradients, the root cause to fix first. A stretch of prompts that are all trivially easy
    (or impossible) gives zero variance for a while; that is why only a long
    window counts.

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
