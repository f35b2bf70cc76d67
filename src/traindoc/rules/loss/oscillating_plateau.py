"""oscillating-plateau: early drop, then a long saw-tooth band with no downward trend."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.metrics import direction, is_running_best, is_train_name
from traindoc.measure.schedule import planned_steps
from traindoc.measure.stats import fmt, level_noise, lr_fraction, mad, rolling_median, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Enough points for a trend test to mean something.
    min_points: int = 20
    # The band must be long: 30% of the run (the LoRA-plateau run: ~1000 of ~1500 steps, 67%)
    # and at least this many logged points.
    min_band_fraction: float = 0.3
    min_band_points: int = 10
    # Mann-Kendall z above this = "no downward trend" (two-sided 5%).
    falling_z: float = -1.96
    # Relative drop between the band's first and last thirds still counted as flat:
    # a healthy fine-tune keeps shedding a few percent over a third of its run.
    max_band_drop: float = 0.015
    # With the eval loss logged over the band and flat (|drop| <= eval_improving,
    # no significant trend, >= eval_min_points points), a train drift of up to 5% is
    # still the plateau: the creep inside a wide noisy band is not generalising
    # (the LoRA-plateau run: "validation did not improve"). Without eval it cannot be told from a
    # slow healthy descent, so the 1.5% bound stays (a healthy batch-2 pre-training
    # run sheds 3-5% over its band with no eval to say otherwise).
    max_band_drop_eval_flat: float = 0.05
    eval_min_points: int = 5
    # A band whose last third sits more than 5% above its first is climbing, not
    # oscillating: divergence's (or a resume jump's), not a plateau.
    max_band_rise: float = 0.05
    # The early drop (start -> band level) that makes it a plateau after learning
    # rather than no learning at all (the LoRA-plateau run: 2.3 -> 1.1, 52%).
    min_early_drop: float = 0.15
    # Saw-tooth: the band's 5-95% width relative to its level; below this it is a
    # flat line (degenerate-loss / no-trainable-parameters), not an oscillation.
    min_rel_width: float = 0.005
    # Median LR over the band below this share of the peak = a schedule that has
    # decayed: a flat tail there is convergence (cosine tail), not a plateau.
    converged_lr_fraction: float = 0.15
    # Eval loss falling by more than this over the band = the run is still improving.
    eval_improving: float = 0.02
    # ... or falling, however slowly, at (nearly) every eval over the band: its rises
    # summing to at most this share of its net fall (a pre-training eval loss gaining a
    # hair once in 25 evals while it falls 3.599 -> 3.558 is still descending; one that
    # wobbles up and down about its level is not).
    eval_rise_share: float = 0.1
    # A held-out metric within 1% of perfect over the band (accuracy >= 0.99): the task
    # is solved, the flat loss is convergence (a 99.1%-accurate gender CNN's 85 flat epochs).
    ceiling_error: float = 0.01
    # The band's drop plus this many standard errors must stay under twice the drop
    # bound: with few points in a wide band, a slow descent cannot be ruled out.
    flat_z: float = 2.0
    # Raw points the trend tests see, whatever the log's length.
    sample_points: int = 200
    # A band that repeats one swing (a per-epoch saw-tooth, a regular bounce) has its
    # level read over whole swings: the swing's period is the first autocorrelation
    # peak above this (of the band less its line), at a lag of 3+ points, and the band
    # must hold this many whole swings.
    swing_acf: float = 0.5
    min_swings: int = 4
    # No flat tail, yet an LR that decays: the run is judged up to where the LR first
    # falls under half its peak (a cosine's midpoint), the band must cover 30% of the
    # whole run, and the loss must leave it only after that (its last third of the rest
    # under the band's 5% quantile): a band held while the LR was high that the loss
    # leaves as the LR falls is the LR's (a TinyStories LM at AdamW 1e-1: 4.5-5.5 for
    # 2,500 steps, then 3.2 as its cosine decays).
    decay_cut: float = 0.5
    # A from-scratch LM falls from ln(V) to its text's unigram entropy (0.55-0.7 ln V)
    # within tens of steps: a first loss logged past step 1 at half of ln(V) or more,
    # with no regime known, started at ln(V), and the early drop is read from there (a
    # pretrained LM meets new text under half of ln(V)).
    scratch_share: float = 0.5


@rule(
    "oscillating-plateau",
    minimum="20 logged losses with a 10-point band after the early drop",
    family="loss",
    severity=Severity.WARNING,
    params=Params(),
    requires=("loss",),
    uses=("lr", "eval_loss"),
    explained_by=(
        "lr-too-high",
        "small-effective-batch",
        "warmup-too-short",
        "schedule-not-applied",
        # the data: contradicting labels and unshuffled mixed domains keep a band
        "label-conflicts",
        "heterogeneous-mix",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Early drop, then a long band with no downward trend (saw-tooth plateau).

    **What it does.** Finds the earliest point from which the rest of the loss (200
    raw points evenly strided, so a test's power does not grow with the log's length)
    has no downward trend (Mann-Kendall z > -1.96, and under 1.5% drop between
    the band's first and last thirds; up to 5% when the eval loss, logged at 5+
    points over the band, is flat: within +-2% and no significant trend; a band
    whose last third is > 5% above its first is climbing, not a plateau). Flags when
    that band covers >= 30% of the run (of the planned run when known: `max_steps`, or
    the configured epochs when the steps count epochs, as in an early-stopped YOLO
    run), follows an early drop of >= 15%, oscillates (5-95% width >= 0.5% of its
    level), the LR has not decayed to near 0 there, and eval loss (if logged) is not
    improving (a significant falling trend with a 2%+ drop over the band, or a fall
    at every one of 5+ evals there however small, its rises at most a tenth of its net
    fall), nor is a task metric (accuracy,
    PSNR, WER, ...; 5+ points over the band, even sparse ones without an eval loss:
    a significant trend in its better direction, last third better than the first).
    The band starts where the descent has ended: a wide swing hides the tail of the
    drop from the trend test, so the start moves on to the first one whose band drops
    no more than the flat bound. A band that repeats one swing (a per-epoch saw-tooth
    from unshuffled or ordered data, a regular bounce at too high an LR: an
    autocorrelation peak >= 0.5 with 4+ whole swings) has its drop read from the
    means of its whole swings (first vs last third), since a third's median moves with where
    the cut falls in a swing; otherwise the thirds' medians are compared, with an
    error from the larger of the point-to-point noise and the spread of the values
    about the band's line (a saw-tooth's ramps move little from point to point).

    With no flat tail but an LR that decays, the run is judged the same way up to the
    first step after the LR's peak where it is under half of it: a band that held while
    the LR was high (30%+ of the whole run) and that the loss leaves only after that
    (the last third of the rest under the band's 5% quantile) is the LR's plateau, the
    updates too large for the valley until the schedule shrank them (a TinyStories LM
    at AdamW 1e-1: 4.3-5.1 for 2,600 steps, then 3.2 as its cosine decayed; the eval
    loss is read over the band only). A from-scratch LM whose log begins after its
    first updates (a first loss past step 1 at half of ln(V) or more, no fine-tune
    known) fell from ln(V) to its text's unigram level before the log began: its early
    drop is read from ln(V), and a band from its first logged point is judged.

    **Why it matters.** The LoRA-plateau run (LoRA, ~7B): loss fell 2.3 -> 1.1 in 500 steps, then
    oscillated between 1.08 and 1.14 for ~1000 steps while validation stalled. The
    steps are too large for the bowl the model is in: LR 2e-4 with linear decay and
    10% warmup; cosine, 3% warmup and 5e-5 settled at 0.87 in ~800 more steps.

    **Known false positives.** A run converging at the end of a cosine schedule is
    flat because its LR is ~0: with an LR series, the band counts only up to the first
    step whose LR is under 15% of its peak, and that high-LR part must itself cover 30%
    of the run (a linear schedule reaching 0 at the end does not hide a plateau that
    held while the LR was high). Without an LR series that cannot be told apart.
    A running average (kohya's `avr_loss`, an EMA) changes by a fraction of a batch's
    noise per step: its flatness is judged with the noise of its independent stretches
    (measure.level_noise), else a converged diffusion loss's wander reads as a shown
    flat band where its per-step log of the same run would not.
    A held-out metric within 1% of perfect over the band (validation accuracy >= 0.99,
    an error rate <= 0.01) clears it too: the task is solved, and the loss's band is the
    noise of a converged model (a gender CNN at 99.1% for 85 epochs).
    A converging loss at the end of a long run whose held-out metric still climbs
    (USRNet super-resolution: train loss in a 0.032-0.033 band for the last 190 of 550
    epochs while validation PSNR rose 30.41 -> 30.82 dB) is learning slowly, not
    stalled: a task metric improving over the band clears it.
    A train loss the trainer computes differently from a configured step on (ultralytics'
    close_mosaic: the last 10 epochs train without mosaic augmentation, and the summed
    loss steps 5-8% up at that epoch) is two curves: the band is judged on the part
    before that step only (a YOLOv8n whose loss fell 4.14 -> 3.90 over epochs 45-65,
    then stepped to 4.21 at the first mosaic-off epoch, is still descending, not in a
    3.90-4.14 band).
    Heterogeneous or noisy data (duplicates, wrong labels) gives the same picture
    whatever the hyper-parameters: check the data too.

    **What to do.** Lower the peak LR 3-5x (the LoRA-plateau run: 2e-4 -> 5e-5), use cosine decay
    with 2-5% warmup, raise the effective batch to 16-64 (per-device x devices x
    accumulation), and check the data for duplicates, conflicts and mixed domains.
    """
    loss = run.get("loss")
    assert loss is not None
    if run.is_rl:
        return
    f = _before_change(run, loss.finite())
    hit = _judge(run, f, p)
    if hit is None and (cut := _decay_cut(run, f, p)) is not None:
        # No flat tail, but the LR decays: judge the run while the LR was high. A band
        # held there that the loss leaves only as the LR falls is the LR's plateau.
        hit = _judge(run, _upto(f, cut), p, f)
    if hit is not None:
        yield hit


def _judge(run: Run, f: Series, p: Params, whole: Series | None = None) -> Hit | None:
    """The finding for the finite loss `f`, or None. `whole`: the full loss when `f` is
    its high-LR part (up to where the LR fell under half its peak); the band must then
    cover 30% of the whole run, and the loss must have fallen under the band after it."""
    n = len(f)
    if n < p.min_points:
        return None
    # The trend test runs on 200 raw points evenly strided, not on bin medians: bins of
    # a 100,000-point log are so smooth that any drift is significant, so the same
    # curve would pass at 300 points and fail at 100,000. A fixed sample of raw points
    # keeps the test's power, and so the verdict, the same at any length.
    st, vals = _sample(f, p.sample_points)
    nb = vals.size
    min_band = max(p.min_band_points, math.ceil(p.min_band_fraction * nb))
    if nb < min_band + 3:
        return None
    stride = max(1, nb // 40)
    cands = list(range(0, nb - min_band + 1, stride))
    k = next((c for c in cands if trend(st[c:], vals[c:]).z > p.falling_z), None)
    if k is None or (k == 0 and not _scratch_start(run, f, p)):
        # no flat suffix, or flat from the start (no-learning's; not where the log began
        # after a from-scratch LM's first drop: the band is all it shows)
        return None
    # Refine to the earliest flat start within the last stride.
    for j in range(max(1, k - stride + 1), k):
        if trend(st[j:], vals[j:]).z > p.falling_z:
            k = j
            break
    # The plateau starts where the loss stops falling. In a band that swings widely the
    # trend test loses the tail of the descent long before the descent ends (its
    # variance hides the slope), so the earliest "no trend" start still holds part of
    # the drop and its first third sits above its last. Move the start on to the first
    # one whose drop is within the flat bound (the band still >= 30% of the run); where
    # none does, the band is a slow descent and is judged as it stands. A swing the band
    # repeats is found on its later half (clear of the descent's tail), and read on
    # every start.
    period = _swing_period(f.values[f.steps >= st[k + (nb - k) // 2]], p)
    k = _settled_start(f, st, vals, k, stride, min_band, period, p)
    onset = int(st[k])
    # Against the planned run when it is known: 20 flat steps of a 200-step plan that
    # crashed (or is still running) at step 60 are not yet a plateau.
    planned = planned_steps(run)
    if planned and (int(f.steps[-1]) - onset) < p.min_band_fraction * (
        float(planned) - float(f.steps[0])
    ):
        return None
    band = f.values[f.steps >= onset]
    if band.size < p.min_band_points:
        return None
    level = float(np.median(band))
    y = f.values
    kh = max(3, int(0.05 * n))
    start = max(float(np.median(y[:3])), float(np.median(y[:kh])), _scratch_start(run, f, p))
    if level <= 0 or start <= 0:
        return None
    early_drop = (start - level) / start
    q05, q95 = (float(x) for x in np.quantile(band, [0.05, 0.95]))
    width = (q95 - q05) / level
    end = int(f.steps[-1])
    # held-out evidence over the band: to the run's end (a last eval may follow the last
    # loss), or to where the LR fell when the band is the high-LR part's
    until = float(end) if whole is not None else math.inf
    eval_stats = _eval_over(run, onset, until, p)
    eval_flat = (
        eval_stats is not None
        and eval_stats[2] >= p.eval_min_points
        and abs(eval_stats[0]) <= p.eval_improving
        and abs(eval_stats[1]) < -p.falling_z
    )
    max_drop = p.max_band_drop_eval_flat if eval_flat else p.max_band_drop
    if early_drop < p.min_early_drop or width < p.min_rel_width:
        return None
    # "Flat" must be shown, not merely not refuted: a trend test on few points misses a
    # slow descent inside a wide band, so the drop's upper bound (2 standard errors of
    # the thirds' medians, from the band's own noise; of its swings' means when it
    # repeats one swing: _drift) must stay under twice the bound.
    # (the noise and the count of independent points of a running average are not its
    # step-to-step differences' and its length: measure.level_noise)
    band_drop, se = _drift(band, p, period)
    if band_drop > max_drop or band_drop + p.flat_z * se > 2 * max_drop:
        return None
    if band_drop < -p.max_band_rise:
        return None  # the band climbs: divergence's, not a plateau
    if mad(band) == 0:
        return None  # mostly one exact value: degenerate-loss's, not an oscillation
    if run.floor is not None:
        lo, hi = fl.band(run, run.floor)
        if lo <= level <= hi:
            return None  # at ln(V): uniform-plateau's
    # Where the LR has decayed to ~0 a flat loss is convergence: the band counts only
    # while the LR is high. A cosine tail turns flat where the LR is already low, so
    # its high-LR part is short; a band that holds while the LR is high is the plateau
    # however the schedule ends (the LoRA-plateau run's linear decay reaches 0 at the run's end, yet
    # its band began at ~75% of the peak and held ~800 steps above 15% of it).
    high_end = _lr_high_until(run, onset, end, p.converged_lr_fraction)
    run_end = int(whole.steps[-1]) if whole is not None else end
    span = (float(planned) if planned else float(run_end)) - float(f.steps[0])
    if high_end - onset < p.min_band_fraction * span:
        return None  # LR decayed to ~0 over most of the band: convergence, not a plateau
    lr_frac = lr_fraction(run, onset, high_end)
    evidence: dict[str, object] = {
        "start_loss": start,
        "band_level": level,
        "band_low": q05,
        "band_high": q95,
        "band_rel_width": width,
        "band_steps": end - onset,
        "band_fraction": (nb - k) / nb,
        "band_drop": band_drop,
        "early_drop": early_drop,
        "trend_z": trend(st[k:], vals[k:]).z,
    }
    if lr_frac is not None:
        evidence["band_lr_fraction_of_peak"] = lr_frac
    title = (
        f"Loss plateaued in a {fmt(q05)}-{fmt(q95)} band for {end - onset} steps "
        f"(from step {onset}) after dropping {fmt(start)} -> {fmt(level)}"
    )
    if whole is not None:
        # the loss left the band only once the LR fell: its last stretch sits under the band
        after = whole.values[whole.steps > end]
        late = float(np.median(after[-max(1, after.size // 3) :])) if after.size >= 3 else None
        if late is None or late >= q05:
            return None
        evidence["loss_after_lr_decay"] = late
        title += f" while the LR was high; it fell to {fmt(late)} only as the LR decayed"
    if eval_stats is not None:
        e_drop, e_z, _ = eval_stats
        falls_each = _eval_falls_each(run, onset, until, p)
        if e_z < p.falling_z and (e_drop > p.eval_improving or falls_each):
            return None  # validation still improving: not the stalled picture
        evidence["eval_drop_over_band"] = e_drop
    if _metric_improves(run, onset, until, p) is not None:
        return None  # a task metric still improves over the band: learning, not a stall
    if _metric_at_ceiling(run, onset, until, p) is not None:
        return None  # the held-out task is solved over the band: nothing left to bounce past
    return Hit(
        title=title,
        step=onset,
        end_step=end,
        evidence=evidence,
        explanation=(
            "After an early drop the loss stopped trending down and oscillates in a band. "
            "Updates are too large (or too noisy) for the region the model is in: it "
            "bounces across the valley instead of descending it. A schedule that keeps "
            "the LR high, a short warmup, a small effective batch or conflicting data "
            "all produce this saw-tooth."
        ),
        prescription=(
            advice.sentence(
                advice.lower_lr(run, 3, 5),
                advice.schedule(run),
                advice.batch(run),
                "check the data for duplicates, label conflicts and mixed domains before "
                "tuning further",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _drift(band: np.ndarray, p: Params, period: int | None = None) -> tuple[float, float]:
    """(relative drop over the band, its standard error).

    Read from the medians of its first and last thirds, with the noise of one point
    from measure.level_noise. A band that repeats one swing (a per-epoch saw-tooth, a
    regular bounce) would fool both: a third's median moves with where the cut falls
    in a swing, and a saw-tooth's ramps change little from point to point. Its level
    is read over whole swings instead: the means of its whole swings, their first and
    last thirds compared, with an error from the means' scatter about their line
    (`period`: the swing found on a longer stretch of the same band; with fewer than
    `min_swings` of them here, flatness cannot be shown: an infinite drop)."""
    level = float(np.median(band))
    period = period or _swing_period(band, p)
    if period:
        m = band.size // period
        if m < p.min_swings:
            return math.inf, math.inf
        cyc = band[band.size - m * period :].reshape(m, period).mean(axis=1)
        t = max(1, m // 3)
        drop = (float(np.median(cyc[:t])) - float(np.median(cyc[-t:]))) / level
        x = np.arange(m, dtype=np.float64)
        resid = cyc - np.polyval(np.polyfit(x, cyc, 1), x)
        sd = math.sqrt(float(np.sum(resid**2)) / (m - 2))
        return drop, 1.2533 * sd * math.sqrt(2 / t) / level
    third = max(1, band.size // 3)
    drop = (float(np.median(band[:third])) - float(np.median(band[-third:]))) / level
    sigma, lag = level_noise(band)
    # A third's median scatters with the spread of its values about the band's line, not
    # only with the point-to-point noise: the two agree for independent points, but a
    # saw-tooth's ramps (or any swing too short to be found as a period) move little
    # from point to point while its values spread over the whole swing.
    x = np.arange(band.size, dtype=np.float64)
    if band.size >= 3:
        resid = band - np.polyval(np.polyfit(x, band, 1), x)
        sigma = max(sigma, mad(resid))
    return drop, 1.2533 * sigma * math.sqrt(2 / max(1.0, third / lag)) / level


def _swing_period(band: np.ndarray, p: Params) -> int | None:
    """The period, in logged points, of a swing the band repeats: the first peak of the
    autocorrelation of the band less its line at a lag of 3+ points, above
    `swing_acf`, with `min_swings` whole swings in the band. None when it has none."""
    n = band.size
    if n < 3 * p.min_swings:
        return None
    x = np.arange(n, dtype=np.float64)
    r = band - np.polyval(np.polyfit(x, band, 1), x)
    var = float(np.dot(r, r))
    if var <= 0:
        return None
    top = n // p.min_swings
    ac = np.array([float(np.dot(r[:-k], r[k:])) / var for k in range(1, top + 2)])
    for k in range(3, top + 1):  # ac[k - 1] is the lag-k autocorrelation
        if ac[k - 1] >= p.swing_acf and ac[k - 1] >= ac[k - 2] and ac[k - 1] >= ac[k]:
            return k
    return None


def _settled_start(
    f: Series,
    st: np.ndarray,
    vals: np.ndarray,
    k: int,
    stride: int,
    min_band: int,
    period: int | None,
    p: Params,
) -> int:
    """The first start from `k` on (by `stride`, the band kept >= `min_band` points)
    whose band has no downward trend and drops by no more than `max_band_drop` of its
    level (_drift): where the descent has ended; no later than the first point at or
    under the median from `k` on (the loss has reached its level there). `k` when
    none does."""
    nb = vals.size
    # The descent has ended, at the latest, where the loss first reaches the level it
    # then holds (the median from `k` on): the start moves no further than that. Read on
    # a rolling median over two strides (a tenth of the sample's 40 candidate starts' span
    # each side): one noisy point dips under the level while the descent is still a
    # few percent above it, and would pin the start inside the descent's tail.
    rest = vals[k:]
    smooth = rolling_median(rest, 2 * stride + 1)
    reached = np.flatnonzero(smooth <= float(np.median(rest)))
    last = min(nb - min_band, k + int(reached[0]) if reached.size else k)
    for c in range(k, last + 1, stride):
        band = f.values[f.steps >= st[c]]  # every logged point, as the band is judged
        if float(np.median(band)) <= 0:
            return k
        drop = _drift(band, p, period)[0]
        if drop <= p.max_band_drop and trend(st[c:], vals[c:]).z > p.falling_z:
            return c
    return k


def _lr_high_until(run: Run, onset: int, end: int, fraction: float) -> int:
    """The first logged step after `onset` and the LR's peak whose LR is under `fraction`
    of that peak (`end` when none is, or no LR is logged): where the band stops being at
    a high LR."""
    lr = run.get("lr")
    f = lr.finite() if lr is not None else None
    if f is None or len(f) == 0 or float(np.max(f.values)) <= 0:
        return end
    # (after the peak: a warmup's low LR is not a decay, where a band from the log's
    # first point starts)
    peak = int(f.steps[int(np.argmax(f.values))])
    low = (f.steps >= max(onset, peak)) & (f.values < fraction * float(np.max(f.values)))
    return int(f.steps[low][0]) if low.any() else end


def _eval_falls_each(run: Run, onset: int, end: float, p: Params) -> bool:
    """The eval loss fell at (nearly) every one of its 5+ evals over the band, its rises
    summing to at most `eval_rise_share` of its net fall: however slowly (a low LR, a
    decayed schedule, late pre-training), held-out quality is still improving. One eval
    a hair above the last does not undo a steady descent; rises that match the falls are
    a wobble about a level, not a descent."""
    ev = run.get("eval_loss")
    e = _upto(ev.finite().after(onset), end).values if ev is not None else np.empty(0)
    if e.size < p.eval_min_points:
        return False
    steps = np.diff(e)
    fall = float(e[0] - e[-1])
    return fall > 0 and float(steps[steps > 0].sum()) <= p.eval_rise_share * fall


def _metric_improves(run: Run, onset: int, end: float, p: Params) -> str | None:
    """The name of a task metric (accuracy, PSNR, WER, ...; not a train one, not a
    running best) logged at 5+ points over the band whose trend there is significant in
    its better direction (Mann-Kendall) and whose last third beats its first: held-out
    quality still improves, so the flat loss is the slow end of learning, not a stall.
    Sparse evals (PSNR every 10 epochs with no eval loss logged) count as well."""
    for name, s in run.series.items():
        if "loss" in name or is_train_name(name) or is_running_best(name):
            continue
        higher = direction(name)
        if higher is None:
            continue
        e = _upto(s.finite().after(onset), end)
        if len(e) < p.eval_min_points:
            continue
        z = trend(e.steps, e.values).z
        m = max(1, len(e) // 3)
        gain = float(np.median(e.values[-m:]) - np.median(e.values[:m]))
        if not higher:
            z, gain = -z, -gain
        if z > -p.falling_z and gain > 0:
            return name
    return None


def _metric_at_ceiling(run: Run, onset: int, end: float, p: Params) -> str | None:
    """The name of a held-out task metric on a 0-1 (or 0-100) scale whose median over
    the band is within `ceiling_error` of perfect (accuracy >= 0.99, an error rate <=
    0.01): the model already answers nearly every held-out example right, so the flat
    loss beside it is a converged run, not one bouncing above its valley (a gender CNN
    at 99.1% validation accuracy for 85 epochs, its loss logged at ~1e-7)."""
    for name, s in run.series.items():
        if "loss" in name or is_train_name(name) or is_running_best(name):
            continue
        higher = direction(name)
        e = _upto(s.finite().after(onset), end).values
        if higher is None or e.size < p.eval_min_points or e.min() < 0 or e.max() > 100:
            continue
        v = float(np.median(e)) / (100.0 if e.max() > 1.0 else 1.0)
        if (1.0 - v if higher else v) <= p.ceiling_error:
            return name
    return None


def _eval_over(run: Run, onset: int, end: float, p: Params) -> tuple[float, float, int] | None:
    """(relative drop first->last third, Mann-Kendall z, points) of eval loss over the band."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = _upto(ev.finite().after(onset), end)
    if len(e) < 3:
        return None
    m = max(1, len(e) // 3)
    e_first, e_last = np.median(e.values[:m]), np.median(e.values[-m:])
    e_drop = float((e_first - e_last) / abs(e_first)) if e_first else 0.0
    return e_drop, trend(e.steps, e.values).z, len(e)


def _sample(f: Series, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(steps, values) of n raw points evenly strided over the series (all if fewer)."""
    if len(f) <= n:
        return f.steps.astype(np.float64), f.values.copy()
    idx = np.linspace(0, len(f) - 1, n).round().astype(np.int64)
    return f.steps[idx].astype(np.float64), f.values[idx]


def _before_change(run: Run, f: Series) -> Series:
    """The loss before the step the trainer starts computing it differently
    (`objective_change_step`: ultralytics' close_mosaic turns mosaic off for the last
    epochs), when the log has points on both sides: the two stretches are two curves, and
    a step between them in the level is no swing of a band."""
    at = run.fact("objective_change_step")
    if not isinstance(at, int):
        return f
    keep = f.steps < at
    if keep.all() or not keep.any():
        return f
    return Series(f.name, f.steps[keep], f.values[keep], None, f.source)


def _upto(s: Series, step: float) -> Series:
    """The points at or before `step`."""
    keep = s.steps <= step
    return Series(s.name, s.steps[keep], s.values[keep], None, s.source)


def _decay_cut(run: Run, f: Series, p: Params) -> int | None:
    """The first logged step after the LR's peak where it is under `decay_cut` of that
    peak, with 3+ losses logged after it; None without an LR series or such a step."""
    lr = run.get("lr")
    g = lr.finite() if lr is not None else None
    if g is None or len(g) < 3 or float(np.max(g.values)) <= 0:
        return None
    top = int(np.argmax(g.values))
    low = np.flatnonzero(g.values[top:] < p.decay_cut * float(g.values[top]))
    if not low.size:
        return None
    cut = int(g.steps[top + int(low[0])])
    return cut if int(np.sum(f.steps > cut)) >= 3 else None


def _scratch_start(run: Run, f: Series, p: Params) -> float:
    """ln(V) when the run is a from-scratch LM whose first logged loss comes after its
    first updates (pre-training or no regime known, a first loss logged past step 1 at
    `scratch_share` of ln(V) or more): it started at the uniform guess, and its drop to
    the unigram level happened before the log began. 0 otherwise."""
    floor = run.floor
    if floor is None or floor <= 0 or not len(f) or run.regime not in (None, "pretraining"):
        return 0.0
    late = int(f.steps[0]) > 1 and float(f.values[0]) >= p.scratch_share * floor
    return floor if late else 0.0
