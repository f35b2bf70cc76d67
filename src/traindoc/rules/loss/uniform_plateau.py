"""uniform-plateau: the loss sits at ln(V), the loss of a model that guesses uniformly."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.metrics import task_metrics
from traindoc.measure.schedule import warmup
from traindoc.measure.stats import fmt, mad, part_medians
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, NotJudged, rule


@dataclass(frozen=True)
class Params:
    # Points at the floor that can be called "sits there" (two equal ones also do:
    # a loss identical at iteration 1 and 400 has not moved).
    min_points: int = 3
    # An error needs this many points at the floor; fewer is a warning.
    error_points: int = 5
    # 15% of the run at ln(V) is far longer than a fresh init spends there (a healthy
    # LM leaves the floor within the first few percent); the exploded-head run spent 87% there.
    min_fraction: float = 0.15
    # With a planned length known, the stretch must also hold this share of the plan:
    # 8 steps at ln(V) are 100% of an 8-step log but nothing of a 100,000-step run.
    min_plan_fraction: float = 0.02
    # A short log (20 points or fewer) at the floor from its first points (or come down
    # onto it from above) that ends within its first 300 updates (under an epoch) shows a
    # fresh model that has not had the chance to fall yet: a from-scratch run starts at ln(V) and healthy ones leave
    # it in the first few hundred steps (a healthy run's first 5-10 logs alone sit there
    # end to end).
    fresh_steps: int = 300
    fresh_points: int = 20
    # DPO: logged log-probabilities this close to 0 mean no completion token is scored.
    zero_logp: float = 1e-6
    # A paste of 1-2 losses: the last one in the floor's band, logged after an epoch or
    # 100 steps, with an accuracy at chance 1/C at each of its logs, 3+ measurements in
    # all (1 loss and 2 accuracies, or 2 losses and 1 accuracy). Two measures of the same
    # model agreeing that it guesses uniformly; either alone can be a coincidence.
    short_after_steps: int = 100
    short_measurements: int = 3
    # One loss equal to ln(C) (C = 2-20) within 5e-5: printed to 4+ digits (0.6931 is
    # ln 2 - 4.7e-5), no coincidence for a model past its first steps.
    exact_tol: float = 5e-5
    exact_max_classes: int = 20
    # ... or one loss in the floor's band after 10,000 updates or 10 epochs, for a
    # stated count, a known tokenizer's or a round one of 100+.
    late_steps: int = 10_000
    late_epochs: float = 10.0
    late_min_classes: int = 100
    # 10+ losses past two passes over the data (epoch 2 on; no epoch logged, update 1000
    # on) whose median, give or take 2 standard errors, and the median of each third lie
    # in ln(C)'s band for C 2-5: the band of one of these counts is 2.5% wide and the
    # next count's floor 11%+ away (ln 6 / ln 5), so a loss that learns does not sit in one
    # by chance at every third of a long stretch. From C 6 on the floors crowd (ln 11 is
    # 4% above ln 10): a level there names no count without the run stating it.
    pinned_points: int = 10
    pinned_epoch: float = 2.0
    pinned_step: int = 1000
    pinned_max_classes: int = 5
    pinned_z: float = 2.0
    # ... unless a held-out task metric gains 10%+ over the stretch (its first eval there
    # against the median of its last third, 3+ evals): a model that learns slowly (SGD at
    # LR 1e-5 on IMDB: the loss at 0.70 while the test accuracy creeps 0.51 -> 0.61) is
    # lr-too-low's, not a guess.
    pinned_metric_gain: float = 0.10
    pinned_metric_evals: int = 3


@rule(
    "uniform-plateau",
    minimum="3 logged losses at the floor for 15% of the run (2 printed identically), past the warmup and 2% of a known plan, and past update 300 for a log of 20 or fewer at the floor from its first point; 1-2 with an accuracy at chance, 3 measurements of the two; 1 equal to ln(C) or a known ln(V) to 4 digits after 100 steps, or in the band after 10,000 steps or 10 epochs (3+ too noisy to name C from: all in the band of their median's floor); 10+ past 2 epochs (update 1000) scattering around ln C of C 2-5 in every third",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    uses=("loss", "eval_loss", "lr"),
    explained_by=(
        "absurd-initial-loss",
        "lr-too-low",
        # steps so large the output collapses to uniform (lr-too-high reads this finding)
        "lr-too-high",
        "schedule-not-applied",
        "no-trainable-parameters",
        "label-conflicts",  # labels that contradict each other leave only chance
        # A blow-up that wrecked the model into uniform predictions lands here.
        "divergence",
        "vanishing-gradients",
    ),
    core=True,
)
def check(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """Loss sits at the uniform floor ln(V): the model predicts every token equally.

    **What it does.** Finds the longest stretch where the (binned, median-smoothed)
    training loss, else the eval loss, stays at ln(V) (ln(C) for a C-class
    classifier), allowing one quantum of the logged dtype (fact `loss_dtype`; bf16
    spacing when unknown) or 0.5% below / 2% above, whichever is wider, and flags it
    when it covers at least 15% of the curve and 3 points (error when the run ends
    there with 5 or more, warning otherwise). When V or C is not known, the flat
    tail's level tells: exp(level) on a known tokenizer size (50257, 32000, 128256,
    ...) or a multiple of 128/64 when the log's resolution allows (evidence
    `inferred_vocab_size`), or on a class count (2-20, or a round one such as 50,
    100, 1000) when an accuracy in the log sits at chance 1/C or the curve is flat to
    0.1% (evidence `inferred_classes`). A paste of one or two losses is flagged
    (warning) when the last one sits in the floor's band after an epoch or 100 steps
    and an accuracy is at chance 1/C at each of its logs, with 3+ measurements of the
    two in all (one loss and two accuracies, two losses in the band and one accuracy,
    or one Keras line's loss and val_loss in the band with its acc and val_acc at
    chance): two measures agree that the model guesses. When the losses alone name no
    count, an accuracy at chance 1/C to within 0.01 (C = 2-20) names it and the losses'
    median need only lie in ln(C)'s band, a batch loss as far under ln(C) as the band
    reaches above it counting as the same level's noise (XLM on SST-2: XE 0.6889 and
    0.7019 at epoch 6 beside a valid accuracy of 50.92%). One loss alone is enough when it equals ln(C) of a small
    class count (2-20) to its 4th digit (0.6931, 1.0986, 2.3026) after an epoch or 100
    steps: a learning model passes that value only in its first steps (not DPO / RL);
    and one loss merely in the floor's band is enough after 10,000 updates or 10
    epochs, for a count the run states, a known tokenizer's or a round one of 100+; so
    are 3+ losses too noisy for their tail to name C, every one of them in the band of
    the floor their median implies (the median known to its standard error, 1.25 sigma /
    sqrt(n): six batch losses scattering by 0.007 name their level to 0.003, not to the
    printed digit), after 10,000 updates or 10 epochs (darknet on ImageNet: ten batch
    losses 6.899-6.917 around ln 1000 at iteration 40,245; its last six alone, median
    6.9119, 0.004 above ln 1000). Past two passes over the data (epoch 2 on; no epoch
    logged, update 1000 on), 10+ losses too noisy for a flat stretch are flagged (warning)
    when their median, give or take 2 standard errors, and the median of each third all lie
    in ln(C)'s band for a small C (2-5), evidence `inferred_classes`, and no held-out task
    metric gains 10% over them (a slow learner's loss can sit near ln 2 while its test
    accuracy creeps 0.51 -> 0.61: lr-too-low's finding): these floors lie 11%+
    apart (ln 6 / ln 5), so a loss that learns does not sit in one by chance in every third
    of a long stretch, while from C = 6 on the floors crowd (ln 11 is 4% above ln 10) and
    name no count unless the run states it (CPM-2 fine-tuned on a 4-choice task: lm loss
    0.687-0.703 around ln 2 at epochs 3-4, eval accuracy 0.24). Also flagged without a loss: a top-1 and a
    top-5 accuracy at chance (1/C, 5/C) together; and a DPO run whose log-probs are
    exactly 0 (no completion token scored: the loss is pinned at ln 2, one point is
    enough).

    **Why it matters.** ln(V) is what a model scores when its output ignores the
    input. The exploded-head run sat at 10.8125 = ln(50257) = 10.8249 rounded to bf16 for 260 of
    300 steps and generated noise: the run had spent itself undoing a broken
    checkpoint (first loss 96) and landed on a "blank" model. A classifier at ln(C)
    with accuracy 1/C has learned nothing about its inputs (dead units, a softmax fed
    twice, an LR too high that collapsed it, labels that do not match inputs).

    **Known false positives.** A freshly initialised model starts 1-2% above ln(V)
    and leaves within the first few percent of the run; only a long stretch counts,
    and not before the warmup has ended (the LR is still ramping up: not judged).
    With a planned length (`max_steps`) the stretch must also span 2% of it: the
    live monitor at step 8 of 100,000 has seen nothing yet. A short log (20 points or
    fewer) at the floor from its first points, or come down onto it from above, that
    ends before update 300 (and an epoch) is not judged: a from-scratch model starts there and has not had the
    chance to fall.
    A plateau that ends before the run does is reported as a warning. DPO starts at
    ln 2 by construction (policy = reference): only zero log-probs flag one point.

    **What to do.** Check the first-batch loss and the checkpoint (absurd initial
    loss?), the logged LR (0, never scheduled, or 1e-6 where pre-training needs
    ~3e-4), the trainable-parameter count, and for a classifier the head (a softmax
    before CrossEntropyLoss) and the labels. Relaunch with the cause fixed.
    """
    if (hit := _dpo_without_tokens(run, p)) is not None:
        yield hit
        return
    signals = [s for s in ("loss", "eval_loss") if run.get(s) is not None]
    if not signals:
        if (hit := _chance_topk(run)) is not None:
            yield hit
        return
    found = [
        a
        for s in signals
        if (a := fl.at_floor(run, s, min_points=p.min_points, min_fraction=p.min_fraction))
    ]
    if not found:
        n = max(len(run.get(s).finite()) for s in signals)  # type: ignore[union-attr]
        if n < p.min_points:
            if (hit := _short_at_chance(run, signals, p)) is not None:
                yield hit
                return
            yield NotJudged(f"loss has {n} point{'s' * (n != 1)}; needs {p.min_points}")
        elif hit := _late_level(run, signals, p) or _pinned_small_count(run, signals, p):
            yield hit
        return
    # The training loss first; the eval loss when only it sits there (or longer).
    at = max(found, key=lambda a: (a.to_end, a.signal == "loss", a.fraction))
    if (why := _too_early(run, at, p)) is not None:
        yield NotJudged(why)
        return
    yield _hit(run, at, p)


def _short_at_chance(run: Run, signals: list[str], p: Params) -> Hit | None:
    """A paste of one or two losses whose last one is at ln(C) after updates, beside an
    accuracy at chance 1/C at each of its logs, 3+ measurements of the two (warning)."""
    for name in signals:
        f = run.get(name).finite()  # type: ignore[union-attr]
        if not len(f):
            continue
        v, step = float(f.values[-1]), int(f.steps[-1])
        epoch = _epoch_at(run, step)
        if not (epoch >= 1 or (not run.fact("steps_ordinal") and step >= p.short_after_steps)):
            continue  # before an epoch or 100 updates a fresh model is at ln(C) by design
        flo = fl.known(run) or fl.infer(v, 0.0, run)
        named = None
        if flo is None:
            # An accuracy at chance 1/C names C; the paste's level (the median: the batch
            # losses of a model at chance scatter both ways around ln C) need only agree.
            if (got := fl.classes_at_chance(run, float(np.median(f.values)))) is None:
                continue
            flo, named = got
        lo, hi = fl.band(run, flo.value)
        if not lo <= v <= hi:
            continue
        if (hit := _long_after(run, name, v, step, epoch, p, flo)) is not None:
            return hit
        if flo.count > 1024:  # a vocabulary: no accuracy is at chance 1/V; only exactness tells
            if (hit := _exactly_ln_c(run, name, v, step, epoch, p, flo)) is not None:
                return hit
            continue
        # the losses in the band: this one's, and the other loss's (train / eval) when
        # every one of its logs sits there too (Keras' loss and val_loss on one line)
        # (with C named by the accuracy, a batch loss as far under ln C as the band
        # reaches above it is the same level's noise, not a model that learned)
        low = flo.value - (hi - flo.value) if named else lo
        losses = int(np.count_nonzero((f.values >= low) & (f.values <= hi)))
        for other in signals:
            o = run.get(other).finite().values if other != name else np.empty(0)  # type: ignore[union-attr]
            if o.size and bool(np.all((o >= lo) & (o <= hi))):
                losses += int(o.size)
        # every accuracy at chance at each of its logs (acc and val_acc both count)
        at_chance = [m for m in fl.chance_metrics(run, flo.count) if _every_log(run, m, flo, 1)]
        logs = sum(len(run.get(m).finite()) for m in at_chance)  # type: ignore[union-attr]
        if not at_chance and (hit := _exactly_ln_c(run, name, v, step, epoch, p, flo)) is not None:
            return hit
        if not at_chance or losses + logs < p.short_measurements:
            continue
        chance = max(at_chance, key=lambda m: len(run.get(m).finite()))  # type: ignore[union-attr]
        mv = run.get(chance).finite().values  # type: ignore[union-attr]
        when = f"epoch {epoch:g}" if epoch >= 1 else f"step {step}"
        return Hit(
            title=(
                f"Loss is {fmt(v)} at {when}, the uniform floor {fl.log_name(run)}({flo.count}) = "
                f"{flo.value:.4f}, and {chance} is at chance 1/{flo.count} at every log"
            ),
            step=step,
            end_step=step,
            evidence=_short_evidence(
                name, v, flo.value, flo.count, losses, at_chance=chance, metric_points=int(mv.size)
            ),
            explanation=(
                f"A loss of {fl.log_name(run)}({flo.count}) and an accuracy of 1/{flo.count} are both what a "
                f"model scores when it gives each of {flo.count} classes the same probability: "
                f"its output ignores the input. After {when} of training, two measures agreeing "
                "on it is no coincidence, short as the paste is."
            ),
            prescription=_prescription(run, flo.count),
            severity=Severity.WARNING,
        )
    return None


def _epoch_at(run: Run, step: int) -> float:
    """The logged epoch at `step` (0 when no epoch is logged)."""
    ep = run.get("epoch")
    return float(np.interp(step, ep.steps, ep.values)) if ep is not None and len(ep) else 0.0


def _late_level(run: Run, signals: list[str], p: Params) -> Hit | None:
    """A paste of 3+ losses too noisy for `at_floor` to name C from its tail, every one
    of them in the band of the floor their median implies (the median known to its
    standard error, 1.25 sigma / sqrt(n)), logged after 10,000 updates or 10 epochs:
    `_long_after`'s statement about one such loss holds the more for several
    (darknet's ImageNet batch losses at 6.899-6.917 around ln 1000 at iteration 40,245)."""
    for name in signals:
        f = run.get(name).finite()  # type: ignore[union-attr]
        if len(f) < p.min_points:
            continue
        level, step = float(np.median(f.values)), int(f.steps[-1])
        # The median of n noisy batch losses is known to ~1.25 sigma / sqrt(n): C is
        # named within that, not within a flat curve's print precision.
        err = 1.2533 * mad(f.values) / math.sqrt(len(f))
        flo = fl.known(run) or fl.infer(level, err, run)
        if flo is None:
            continue
        lo, hi = fl.band(run, flo.value)
        if not bool(np.all((f.values >= lo) & (f.values <= hi))):
            continue
        hit = _long_after(run, name, level, step, _epoch_at(run, step), p, flo, len(f))
        if hit is not None:
            return hit
    return None


def _pinned_small_count(run: Run, signals: list[str], p: Params) -> Hit | None:
    """10+ losses past two passes (`pinned_epoch`; no epoch logged, update
    `pinned_step`) whose median within 2 standard errors and each third's median lie in
    ln(C)'s band for a small C (2-`pinned_max_classes`) (warning): too noisy for
    `at_floor`'s flat stretch, yet at the loss of a uniform guess throughout (CPM-2's
    "lm loss" 0.6875-0.7028 around ln 2 at epochs 3-4, eval accuracy 0.24 on 4 choices)."""
    w = warmup(run)
    if run.is_rl or run.get("rewards/margins") is not None or run.fact("task") == "gan":
        return None
    if w is not None and not w.complete:
        return None
    ep = run.get("epoch")
    for name in signals:
        f = run.get(name).finite()  # type: ignore[union-attr]
        if ep is not None and len(e := ep.finite()):
            late = np.interp(f.steps, e.steps, e.values) >= p.pinned_epoch
        elif run.fact("steps_ordinal") or run.fact("steps_epochs"):
            continue  # no update count: two passes cannot be told
        else:
            late = f.steps >= p.pinned_step
        y = f.values[late]
        if y.size < p.pinned_points:
            continue
        level = float(np.median(y))
        err = p.pinned_z * 1.2533 * mad(y) / math.sqrt(y.size)
        thirds = part_medians(y, 3)
        for c in range(2, p.pinned_max_classes + 1):
            floor = fl.log_of(run, c)
            lo, hi = fl.band(run, floor)
            if lo <= level - err and level + err <= hi and all(lo <= m <= hi for m in thirds):
                if _metric_gains(run, float(f.steps[late][0]), p):
                    return None
                return _pinned_hit(run, name, f.steps[late], level, c, floor, thirds)
    return None


def _metric_gains(run: Run, since: float, p: Params) -> bool:
    """A held-out task metric with 3+ evals from step `since` whose median of the last
    third is `pinned_metric_gain` better (relative) than its first eval there."""
    for m, higher in task_metrics(run):
        f = m.finite()
        v = f.values[f.steps >= since]
        if v.size < p.pinned_metric_evals or v[0] == 0:
            continue
        gain = (float(np.median(v[-max(1, v.size // 3) :])) - float(v[0])) / abs(float(v[0]))
        if (gain if higher else -gain) >= p.pinned_metric_gain:
            return True
    return False


def _pinned_hit(
    run: Run, name: str, steps: np.ndarray, level: float, c: int, floor: float, thirds: list[float]
) -> Hit:
    log = fl.log_name(run)
    return Hit(
        title=(
            f"{name} sits at {log}({c}) = {floor:.4f} over {steps.size} logs from step "
            f"{int(steps[0])} (median {fmt(level)}, each third {fmt(min(thirds))}-"
            f"{fmt(max(thirds))}): the loss of a uniform guess between {c} outcomes"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={
            "signal": name,
            "median_loss": level,
            "floor": floor,
            "inferred_classes": c,
            "points_at_floor": int(steps.size),
            "part_medians": thirds,
        },
        explanation=(
            f"{log}({c}) is the cross-entropy of a model that gives each of {c} outcomes the "
            f"same probability, whatever the input. After two passes over the data the loss "
            f"still scatters around it, in every third of the stretch: the model has learned "
            f"nothing that tells the outcomes apart. No other count's floor lies near: the "
            f"level names {c}."
        ),
        prescription=_prescription(run, c),
        severity=Severity.WARNING,
    )


def _short_evidence(
    name: str, v: float, floor: float, count: int, points: int, **extra: object
) -> dict[str, object]:
    """The evidence of a paste of one or two losses judged against the floor."""
    return {
        "signal": name,
        "median_loss": v,
        "floor": floor,
        "vocab_size": count,
        "points_at_floor": points,
        **extra,
    }


def _long_after(
    run: Run,
    name: str,
    v: float,
    step: int,
    epoch: float,
    p: Params,
    flo: fl.Floor,
    points: int = 1,
) -> Hit | None:
    """One loss in the floor's band after 10,000 updates or 10 epochs: a model that
    learns is far below ln(V) (ln(C)) by then (ImageNet at epoch 10 is near 2, not
    6.9). Only for a count the run states, a known tokenizer's, or a round one of 100+:
    a loss near ln(C) of some small C is too common a coincidence to name C from."""
    late = epoch >= p.late_epochs or (not run.fact("steps_ordinal") and step >= p.late_steps)
    named = flo.how != "classes" or flo.count >= p.late_min_classes
    if not (late and named) or run.is_rl or run.get("rewards/margins") is not None:
        return None
    when = f"step {step}" + (f" (epoch {epoch:g})" if epoch >= 1 else "")
    return Hit(
        title=(
            (
                f"Loss is {fmt(v)} at {when}"
                if points == 1
                else f"{points} losses around {fmt(v)} up to {when}"
            )
            + f": the uniform floor {fl.log_name(run)}({flo.count}) = {flo.value:.4f} "
            f"({(v - flo.value) / flo.value:+.2%})"
        ),
        step=step,
        end_step=step,
        evidence=_short_evidence(name, v, flo.value, flo.count, points, late=True),
        explanation=(
            f"{fl.log_name(run)}({flo.count}) is the loss of a model that gives every one of {flo.count} "
            f"outputs the same probability. After {when} of training a model that learns is "
            "far below it; one still there has not moved off chance."
        ),
        prescription=_prescription(run, flo.count),
        severity=Severity.WARNING,
    )


def _exactly_ln_c(
    run: Run, name: str, v: float, step: int, epoch: float, p: Params, flo: fl.Floor
) -> Hit | None:
    """One loss, after updates, equal to ln(C) of a small class count to its 4th digit
    (0.6931, 1.0986, 2.3026), or to ln(V) of the run's vocabulary (known, or a known
    tokenizer's: 10.8249 for GPT-2's 50257): a learning model passes such a value only
    in its first steps, so one log there is the model guessing uniformly (warning). Not
    a bf16 value (its grid puts every loss near ln(V) on one number), not DPO / RL,
    whose loss is ln 2 by construction at the start."""
    if run.is_rl or run.fact("task") == "rl" or run.get("rewards/margins") is not None:
        return None
    small = range(2, p.exact_max_classes + 1)
    c = next((c for c in small if abs(v - fl.log_of(run, c)) <= p.exact_tol), None)
    if c is None and flo.how != "classes" and abs(v - flo.value) <= p.exact_tol:
        if bool(fl.on_bf16_grid(np.array([v]))[0]):
            return None  # 10.8125 is every loss from 10.78 to 10.84 in bf16
        c = flo.count
    if c is None:
        return None
    when = f"epoch {epoch:g}" if epoch >= 1 else f"step {step}"
    return Hit(
        title=(
            f"Loss is {fmt(v)} at {when}: {fl.log_name(run)}({c}) = {fl.log_of(run, c):.4f} "
            "to its last printed "
            f"digit, the uniform floor of {c} classes"
        ),
        step=step,
        end_step=step,
        evidence=_short_evidence(name, v, fl.log_of(run, c), c, 1, exact=True),
        explanation=(
            f"{fl.log_name(run)}({c}) is the cross-entropy of a model that gives each of {c} classes the same "
            "probability: its output ignores the input. A model that learns passes this "
            f"value in its first steps; sitting on it to the 4th digit after {when} means the "
            "updates have not moved it off chance."
        ),
        prescription=_prescription(run, c),
        severity=Severity.WARNING,
    )


def _every_log(run: Run, name: str, flo: fl.Floor, need: int) -> bool:
    """The metric is at chance 1/C at each of its logs, `need` (1 at least) or more."""
    s = run.get(name)
    mv = s.finite().values if s is not None else np.array([])
    error = "err" in name.lower()
    return mv.size >= max(1, need) and all(
        fl.at_chance(np.array([x]), flo.count, error) for x in mv
    )


def _too_early(run: Run, at: fl.AtFloor, p: Params) -> str | None:
    """Why a stretch at the floor says nothing yet: a fresh model sits at ln(V) until
    its LR has ramped up, and a stretch is judged against the run it belongs to."""
    w = warmup(run)
    last = run.last_step or at.end
    plan = run.fact("max_steps")
    ended = bool(run.fact("ended")) or (isinstance(plan, int | float) and last >= 0.98 * plan)
    if w is not None and w.steps > 0 and not ended and (last <= w.steps or not w.complete):
        return f"the log ends at step {last}, inside the LR warmup (the LR is still ramping up)"
    sig = run.get(at.signal)
    f = sig.finite() if sig is not None else None
    if (
        f is not None
        and 0 < len(f) <= p.fresh_points
        # at the floor from its first logs, or come down onto it from above: never under
        # it before the stretch (a fresh LM passing down through ln(30522) in its first
        # 20 steps is no model that learned and fell back)
        and not bool((f.values[f.steps < at.onset] < at.band[0]).any())
        and int(f.steps[-1]) < p.fresh_steps
        and not (run.fact("steps_ordinal") or run.fact("steps_epochs"))
        and _epoch_at(run, int(f.steps[-1])) < 1
        and not _evaluated_each_log(run, f)
        and not _exact_floor(f, at, p)
    ):
        return (
            f"the {at.signal} never was under the floor before it and ends at step "
            f"{int(f.steps[-1])}: a fresh model starts there, not a plateau; needs {p.fresh_steps} updates"
        )
    if isinstance(plan, int | float) and plan > last:
        need = p.min_plan_fraction * float(plan)
        if at.end - at.onset + 1 < need:
            return (
                f"{at.end - at.onset + 1} steps at the floor of a {int(plan)}-step plan; "
                f"needs {need:.0f}"
            )
    return None


def _evaluated_each_log(run: Run, f: Series) -> bool:
    """An eval loss logged at every step the train loss is: the steps are epochs (no one
    evaluates after every update), however the log numbers them."""
    ev = run.get("eval_loss")
    if ev is None or f.name == "eval_loss" or len(f) < 2:
        return False
    return bool(np.isin(f.steps, ev.finite().steps).all())


def _exact_floor(f: Series, at: fl.AtFloor, p: Params) -> bool:
    """The stretch's last points equal ln(C) within `exact_tol` (5e-5): the output is
    exactly uniform (logits collapsed to one value), which a fresh random init, its
    batch losses scattering 1e-3-1e-2 around ln(C), does not print (MXNet on ImageNet:
    6.907778, 6.907757, 6.907731 at batches 30-50, ln 1000 = 6.907755)."""
    tail = f.values[f.steps >= at.onset][-3:]
    return tail.size >= 3 and bool(np.all(np.abs(tail - at.floor.value) <= p.exact_tol))


def _hit(run: Run, at: fl.AtFloor, p: Params) -> Hit:
    flo = at.floor
    strong = flo.how in ("fact", "known-tokenizer") or at.corroborated_by is not None
    severity = (
        Severity.ERROR
        if at.to_end and at.points >= p.error_points and (strong or flo.how == "classes")
        else Severity.WARNING
    )
    unit = "classes" if flo.count <= 1024 and flo.how in ("classes", "fact") else "tokens"
    what = f"{fl.log_name(run)}({flo.count})"
    evidence: dict[str, object] = {
        "signal": at.signal,
        "median_loss": at.median,
        "floor": flo.value,
        "vocab_size": flo.count,
        "onset_step": at.onset,
        "end_step": at.end,
        "points_at_floor": at.points,
        "fraction_of_run": at.fraction,
        "band_low": at.band[0],
        "band_high": at.band[1],
        "loss_dtype": run.fact("loss_dtype") or "unknown (allowed bf16 spacing)",
        "still_at_floor_at_end": at.to_end,
    }
    if flo.how in ("known-tokenizer", "padded-multiple"):
        evidence["inferred_vocab_size"] = flo.count
        evidence["inferred_from"] = flo.how
    elif flo.how == "classes":
        evidence["inferred_classes"] = flo.count
    if at.corroborated_by:
        evidence["at_chance"] = at.corroborated_by
    lr = run.get("lr")
    if lr is not None:
        lf = lr.finite()
        sel = lf.values[(lf.steps >= at.onset) & (lf.steps <= at.end)]
        if sel.size:
            evidence["median_lr_on_plateau"] = float(np.median(sel))
    name = "eval loss" if at.signal == "eval_loss" else "Loss"
    chance = f"; {at.corroborated_by} is at chance 1/{flo.count}" if at.corroborated_by else ""
    inferred = {"fact": "", "classes": f" ({flo.count} {unit} inferred from the level)"}.get(
        flo.how, " (V inferred from the plateau)"
    )
    return Hit(
        title=(
            f"{name[0].upper()}{name[1:]} is stuck at the uniform floor {what} = "
            f"{flo.value:.4f} (median {at.median:.6g}, {at.points} points) from step "
            f"{at.onset} to {at.end}{inferred}{chance}"
        ),
        step=at.onset,
        end_step=at.end,
        evidence=evidence,
        explanation=(
            f"A loss of {fl.log_name(run)}({flo.count}) is what a model scores when it gives each of "
            f"{flo.count} {unit} the same probability: its output no longer depends on the "
            f"input. Sitting there for {at.fraction:.0%} of the logged curve means nothing "
            "is being learned; after a fall from a high start it means the run only undid "
            "a broken starting point."
        ),
        prescription=_prescription(run, flo.count),
        severity=severity,
    )


def _prescription(run: Run, count: int) -> str:
    lr = run.get("lr")
    lr_now = float(np.median(lr.finite().values)) if lr is not None and len(lr.finite()) else None
    first = []
    if lr_now == 0.0:
        first.append("The logged LR is 0 on the plateau: nothing can move; fix the schedule.")
    elif lr_now is not None and lr_now >= 1e-3 and count <= 1024:
        first.append(
            f"The LR is {lr_now:g}: a classifier collapsed to uniform output often had its "
            "ReLUs killed by a too-large first update; retry at 1/10 of it."
        )
    return " ".join(
        [
            *first,
            "Check the first-batch loss and the starting checkpoint; that the LR is non-zero "
            "and right for the regime (pre-training ~3e-4, not 1e-6) and the scheduler steps; "
            "the trainable-parameter count; for a classifier, that the head emits logits "
            "(no softmax before CrossEntropyLoss) and the labels match the inputs.",
        ]
    )


def _dpo_without_tokens(run: Run, p: Params) -> Hit | None:
    """DPO with log-probs exactly 0: no completion token is scored, loss pinned at ln 2."""
    chosen, rejected, loss = run.get("logps/chosen"), run.get("logps/rejected"), run.get("loss")
    if chosen is None or rejected is None or loss is None:
        return None
    c, r, lf = chosen.finite(), rejected.finite(), loss.finite()
    if not (len(c) and len(r) and len(lf)):
        return None
    if np.abs(c.values).max() > p.zero_logp or np.abs(r.values).max() > p.zero_logp:
        return None
    med = float(np.median(lf.values))
    if abs(med - math.log(2)) > 1e-3:
        return None
    return Hit(
        title=(
            f"DPO loss is pinned at ln 2 = 0.6931 (median {med:.4g}, {len(lf)} points): "
            "logps/chosen and logps/rejected are exactly 0, so no completion token is scored"
        ),
        step=int(lf.steps[0]),
        end_step=int(lf.steps[-1]),
        evidence={
            "signal": "loss",
            "median_loss": med,
            "floor": math.log(2),
            "max_abs_logps_chosen": float(np.abs(c.values).max()),
            "max_abs_logps_rejected": float(np.abs(r.values).max()),
            "points": len(lf),
        },
        explanation=(
            "The DPO loss is -log sigmoid(beta * margin); the margin is built from the summed "
            "log-probabilities of the completion tokens. A sum of exactly 0 means no token "
            "was summed: every completion label is masked (-100) or truncated away. The "
            "margin is 0 forever, the loss is ln 2 and the gradient is 0."
        ),
        prescription=(
            "Inspect a collated batch: count the label positions that are not -100 for "
            "chosen and rejected. Usually the prompt fills max_length (raise max_length or "
            "lower max_prompt_length) or the chat template masks the answer too."
        ),
    )


def _chance_topk(run: Run) -> Hit | None:
    """No loss logged: a top-1 and a top-5 accuracy at 1/C and 5/C for the same C."""
    names = sorted(run.series)
    for n1 in names:
        low = n1.lower()
        if not any(t in low for t in ("rec@1", "top1", "acc@1", "top-1", "prec@1")):
            continue
        n5 = next((n for n in names if n != n1 and _top5_of(n1, n)), None)
        if n5 is None:
            continue
        a1, a5 = run.get(n1).finite(), run.get(n5).finite()  # type: ignore[union-attr]
        if len(a1) < 2 or len(a5) < 2:
            continue
        for count in (run.vocab_size, *fl.ROUND_CLASSES):
            if not count or count < 100:
                continue
            if fl.at_chance(a1.values, count) and fl.at_chance(a5.values / 5.0, count):
                return Hit(
                    title=(
                        f"{n1} and {n5} sit at chance for {count} classes "
                        f"({float(np.median(a1.values)):.4g} ~ 1/{count}, "
                        f"{float(np.median(a5.values)):.4g} ~ 5/{count}) over "
                        f"{len(a1)} evaluations: the model predicts uniformly"
                    ),
                    step=int(a1.steps[0]),
                    end_step=int(a1.steps[-1]),
                    evidence={
                        "signal": n1,
                        "top5_signal": n5,
                        "median_top1": float(np.median(a1.values)),
                        "median_top5": float(np.median(a5.values)),
                        "inferred_classes": count,
                        "points": len(a1),
                    },
                    explanation=(
                        f"A top-1 accuracy of 1/{count} and a top-5 of 5/{count} are what a "
                        "model scores when its output ignores the input: nothing is learned."
                    ),
                    prescription=_prescription(run, count),
                    severity=Severity.ERROR if len(a1) >= 3 else Severity.WARNING,
                )
    return None


def _top5_of(top1: str, other: str) -> bool:
    for a, b in (("@1", "@5"), ("top1", "top5"), ("top-1", "top-5")):
        if a in top1 and top1.replace(a, b) == other:
            return True
    return False
