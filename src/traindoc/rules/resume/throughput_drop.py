"""throughput-drop: steps/s or tokens/s fall sharply and stay low mid-run, or one rank
(a straggler) sets the pace of a distributed run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import bins, fmt
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import RANK_STEP_TIME
from traindoc.rules.api import Hit, rule
from traindoc.rules.resume._timing import intervals, longest_run, timed_series


@dataclass(frozen=True)
class Params:
    # Below 0.5x the early rate is a halving: far beyond the +-10-20% that
    # sequence-length mix, eval interleaving and logging jitter cause.
    drop_ratio: float = 0.5
    # The curve is reduced to 20 per-bin medians: single slow intervals (an eval,
    # a checkpoint save, a stall) cannot move a bin median.
    n_bins: int = 20
    # The early reference is the first quarter of the bins, less the very first
    # bin when there are enough (compilation / cache warm-up is slow, not fast).
    ref_frac: float = 0.25
    # "Sustained": at least 3 consecutive low bins (15% of the run).
    min_low_bins: int = 3
    # Points (rates) needed at all: fewer cannot separate early and late.
    min_points: int = 12
    # An RL run whose drop begins within its first 5% of steps: an off-policy agent
    # (SAC, TD3, DQN) collects `learning_starts` random environment steps before its
    # first gradient update (RL Zoo: 10k-50k of 1M+), at the simulator's bare speed.
    rl_warmup_frac: float = 0.05
    # An RL run whose episodes grew this much longer from the early window to the slow
    # stretch: the wall clock per step carries the task's own cost (see the docstring).
    rl_longer_episodes: float = 1.5
    # A straggler: its median step time 1.5x the other ranks' median. Every rank waits
    # for the slowest at each all-reduce, so the run goes at its pace; uneven sequence
    # lengths move per-rank times by +-20%, not 50%.
    straggler_ratio: float = 1.5
    # Syncs per rank the medians are taken over: one slow batch or a checkpoint save
    # on one rank cannot move a median of 20.
    straggler_window: int = 20


# Logged intervals must span this many clock ticks (seconds, for whole-second stamps)
# for a rate derived from them to resolve a halving.
MIN_TICKS = 20.0


def _rates(run: Run) -> tuple[Series, str] | None:
    thr = run.get("throughput")
    if thr is not None and len(thr.finite()) >= 2:
        return thr.finite(), thr.name
    s = timed_series(run)
    if s is None:
        return None
    steps, times, dt = intervals(s)
    # Whole-second stamps ("10:00:01") a few seconds apart make the rate jump between
    # 1/1 s and 1/2 s: a "halving" that is only the clock's resolution.
    integral = times.size > 0 and bool(np.all(times == np.round(times)))
    if integral and dt.size and float(np.median(dt)) < MIN_TICKS:
        return None
    ok = dt > 0
    dsteps = np.diff(steps).astype(np.float64)
    rate = dsteps[ok] / dt[ok]
    return Series.from_arrays("steps_per_s", steps[1:][ok], rate), f"steps/s from {s.name} times"


@rule(
    "throughput-drop",
    minimum="12 logged throughput points",
    family="resume",
    qualifier="rank-{rank}",  # a straggler names its rank; the drop over time, none
    severity=Severity.WARNING,
    params=Params(),
    uses=("throughput", "loss", RANK_STEP_TIME + "<rank>"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Steps/s or tokens/s fall sharply mid-run and stay low.

    **What it does.** Takes the logged throughput (tokens/s, samples/s, it/s),
    or derives steps per second from the wall-clock times of the logged loss,
    reduces it to 20 per-bin medians and compares them with the early rate
    (median of the first quarter). A stretch of 3+ consecutive bins below 0.5x
    the early rate is reported with its onset step: a warning while the rate is
    still low at the end of the log, info when it came back (a transient slowdown
    costs nothing from then on).

    **Why it matters.** Halved throughput doubles the cost of every remaining
    step. Common causes: thermal throttling or a degraded node, a memory leak
    pushing the allocator into fragmentation / host offload, a dataloader that
    became the bottleneck (workers died, a slow shard), a resume onto slower
    hardware or without the compiled kernels, or growing sequence lengths in a
    curriculum.

    Rates derived from whole-second timestamps are used only when the logged
    intervals span 20+ seconds: at 1-3 s apart the clock's resolution alone moves
    the rate 2x.

    An RL run (a reward is logged) whose drop begins within the first 5% of its
    steps is not reported: an off-policy agent (SAC, TD3, DQN) runs `learning_starts`
    random environment steps before its first gradient update, at the simulator's
    bare speed, and every step after it also trains (an SB3 Monitor's SAC Hopper
    run: 2250 steps/s for its first ~10k steps, 104 for the remaining 990k). Its
    short early episodes crowd the log's first points, so they fill the early
    reference. The same fall later in an RL run is reported; as info when the
    episodes over the slow stretch are 1.5x+ as long as over the early window (the
    episode length read as such, or logged under its own name: SB3's `ep_len_mean`,
    CS285's `Train_AverageEpLen`, the training one before the evaluation one): an
    agent that learned to survive (Pong games of 3,700 frames at return -20, of
    9,000-10,000 once it returns the ball) makes every periodic evaluation rollout
    that much longer, and those rollouts pause the training envs whose episode
    times the rate is read from (RL Zoo A2C Pong's Monitor: 491 -> 167 steps/s from
    step 820k while the episodes grew 2.4x), so the wall clock per training step rises
    with the task's own progress, not with anything in the machine.

    **Known false positives.** A planned change of sequence length or batch size
    mid-run (curriculum, packing switched on) changes tokens/s legitimately;
    steps/s derived from a log whose logging interval changed is still right,
    since it divides by the step difference.

    In a distributed run monitored live, the same rule compares the ranks'
    step times (`rank_step_time_s/<rank>`, gathered every sync): a rank whose
    median over the last 20 syncs is 1.5x the other ranks' median is a
    straggler, reported with its `rank`. Every rank waits for it at each
    all-reduce, so the whole run goes at its pace.

    **What to do.** Find what changed at the onset step: GPU clocks and
    temperature (nvidia-smi -q -d PERFORMANCE), memory growth, dataloader wait
    time (profile a few steps), the node the run was resumed on. For a
    straggler, look at that rank's host: data loading, CPU contention, a
    throttled or shared GPU, uneven sequence lengths.
    """
    slow = _straggler(run, p)
    if slow is not None:
        yield slow
    got = _rates(run)
    if got is None:
        return
    rates, source = got
    if len(rates) < p.min_points:
        return
    st, med = bins(rates, p.n_bins)
    nb = med.size
    k = max(1, round(nb * p.ref_frac))
    skip = 1 if nb >= 8 else 0
    ref = float(np.median(med[skip : skip + k]))
    if not np.isfinite(ref) or ref <= 0:
        return
    low = med < p.drop_ratio * ref
    low[: skip + k] = False  # mid-run: not inside the reference itself
    start, length = longest_run(low)
    if length < p.min_low_bins:
        return
    seg = med[start : start + length]
    late = float(np.median(seg))
    ratio = late / ref
    # Onset: the first raw point at or after the previous bin's centre that is already low.
    lo_step = st[start - 1] if start > 0 else st[0]
    raw = rates.after(int(lo_step))
    first_low = np.flatnonzero(raw.values < p.drop_ratio * ref)
    onset = int(raw.steps[first_low[0]]) if first_low.size else int(st[start])
    recovered = start + length < nb
    end = int(st[start + length - 1])
    if run.is_rl and onset <= p.rl_warmup_frac * float(rates.steps[-1]):
        return  # the off-policy warm-up ended: updates began, nothing slowed down
    longer = _episodes_grew(run, st, skip, k, start, length)
    task_cost = run.is_rl and longer >= p.rl_longer_episodes
    yield Hit(
        title=(
            f"Throughput fell to {ratio:.0%} of its early rate from step {onset} "
            f"({source}: {fmt(ref)} -> {fmt(late)})"
        ),
        step=onset,
        end_step=end,
        evidence={
            "source": source,
            "early_median": ref,
            "late_median": late,
            "ratio": ratio,
            "onset_step": onset,
            "low_bins": length,
            "bins": nb,
            "recovered": recovered,
        },
        explanation=(
            f"The rate stayed below {p.drop_ratio:.0%} of its early median for {length} of "
            f"{nb} stretches of the run"
            + (", then recovered." if recovered else " until the end of the log.")
            + (
                f" The episodes grew {longer:.1f}x longer over the same stretch: the agent "
                "survives longer, so each periodic evaluation rollout (which pauses the "
                "training envs) takes that much longer too; the task's progress, not the "
                "machine, slowed the wall clock per step."
                if task_cost
                else " Every remaining step costs correspondingly more: something in the "
                "machine, the dataloader or the resumed setup changed at the onset."
            )
        ),
        prescription=(
            f"Look at what changed around step {onset}: GPU clocks/temperature "
            "(nvidia-smi -q -d PERFORMANCE), memory growth (a leak), dataloader wait time "
            "(profile a few steps), and the node/kernels if the run was resumed there."
        ),
        # A slowdown the run came back from cost what it cost and costs nothing now;
        # one that lasts to the end of the log doubles the price of every step left.
        severity=Severity.INFO if recovered or task_cost else None,
    )


def _episodes_grew(run: Run, st: np.ndarray, skip: int, k: int, start: int, length: int) -> float:
    """How many times longer the mean episode is over the slow bins than over the early
    reference bins (0 when no episode length is logged)."""
    ep = _episode_length(run)
    if ep is None or len(ep.finite()) < 4 or st.size < 2:
        return 0.0
    e = ep.finite()
    half = float(np.median(np.diff(st))) / 2
    early = e.values[(e.steps >= st[skip] - half) & (e.steps <= st[skip + k - 1] + half)]
    slow = e.values[(e.steps >= st[start] - half) & (e.steps <= st[start + length - 1] + half)]
    if early.size == 0 or slow.size == 0 or float(np.median(early)) <= 0:
        return 0.0
    return float(np.median(slow)) / float(np.median(early))


# Episode-length names the readers leave as logged: CS285's Train_AverageEpLen,
# SB3's rollout/ep_len_mean, RLlib's episode_len_mean.
_EP_LEN = re.compile(r"(^|[/_.])(ep_?len|episode_?len(gth)?|average_?ep_?len)", re.IGNORECASE)


def _episode_length(run: Run) -> Series | None:
    """The mean episode length: the canonical series, else one named as such (a training
    one before an evaluation one: both grow with the agent's survival)."""
    ep = run.get("episode_length")
    if ep is not None:
        return ep
    named = sorted(
        (n for n in run.series if _EP_LEN.search(n.replace("averageeplen", "average_ep_len"))),
        key=lambda n: n.lower().startswith(("eval", "test")),
    )
    return run.series[named[0]] if named else None


def _straggler(run: Run, p: Params) -> Hit | None:
    """The slowest rank, when its recent median step time is far above the others'."""
    ranks = {
        int(k[len(RANK_STEP_TIME) :]): s.finite().values[-p.straggler_window :]
        for k, s in run.series.items()
        if k.startswith(RANK_STEP_TIME) and k[len(RANK_STEP_TIME) :].isdigit()
    }
    if len(ranks) < 2 or any(v.size < p.straggler_window for v in ranks.values()):
        return None
    order = sorted(ranks)
    meds = np.median(np.vstack([ranks[r] for r in order]), axis=1)  # one call: per sync
    med = dict(zip(order, meds.tolist(), strict=True))
    slow = max(med, key=med.__getitem__)
    others = float(np.median([t for r, t in med.items() if r != slow]))
    if not others > 0 or med[slow] < p.straggler_ratio * others:
        return None
    ratio = med[slow] / others
    return Hit(
        title=f"Rank {slow} is a straggler: {ratio:.1f}x the other ranks' step time",
        step=run.last_step,
        evidence={
            "rank": slow,
            "ratio": ratio,
            "step_time_s": list(med.values()),
            "others_median_s": others,
            "syncs": p.straggler_window,
        },
        explanation=(
            f"Over the last {p.straggler_window} syncs rank {slow} took a median "
            f"{fmt(med[slow])} s per step, the other ranks {fmt(others)} s. Every rank waits "
            "for the slowest at each all-reduce, so the whole run goes at the straggler's pace."
        ),
        prescription=(
            f"Look at rank {slow}'s host: data loading, CPU contention, a throttled or shared "
            "GPU, uneven sequence lengths."
        ),
    )
