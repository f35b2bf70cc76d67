"""overfitting's main reading, of the eval loss against the train loss: it finds the eval
minimum, decides whether the evals since rose or stalled while the train loss still fell,
and words the finding with the checkpoint to keep. With no eval logged it owns the other
loss-only reading too: a fine-tune that drove its train loss to ~0 for epochs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, NotJudged, too_few
from traindoc.rules.loss._evalcurve import (
    level_at,
    metric_trends,
    noise,
    smooth,
    tail_level,
    train_change,
)
from traindoc.rules.loss._overfit_eval_only import _eval_only
from traindoc.rules.loss._overfit_metrics import (
    _best_at_end,
    _improved_more,
    _metric_gap,
    _metric_reads,
    _stopped_improving,
    _task_best_at_last,
)
from traindoc.rules.loss._overfit_rise import (
    _climbs,
    _confirmed,
    _cost_from_best,
    _falls_back,
    _falls_each,
    _past_one_epoch,
    _quantum,
    _risen_from_best,
    _sparse_fall,
    _train_worse_than_before,
    _trends_up,
    _turned,
    _without_rescore,
)

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


def _curve(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """The eval curve against the train loss (the `check` docstring, less the gap)."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None:
        if tr is not None:
            yield from _memorised(run, tr, p)
        return
    ev = _without_rescore(ev.finite())
    if len(ev) < p.min_eval_points:
        yield too_few("eval_loss", len(ev), p.min_eval_points)
        return
    e, st = ev.values, ev.steps
    es = smooth(e)
    i_min = int(np.argmin(es))
    after = e.size - 1 - i_min
    if tr is None:
        yield from _eval_only(run, p, st, e)
        return
    low = float(es[i_min])
    clear = after >= 2 and bool(np.all(e[i_min + 1 :] >= (1 + p.clear_rise_rel) * low))
    steady = (
        after >= 2 and bool(np.all(np.diff(e[i_min:]) > 0)) and e[-1] >= (1 + p.min_rise_rel) * low
    )
    if after < p.min_after_points and not (clear or steady):
        return
    sigma = noise(e)
    last = tail_level(e[i_min + 1 :])
    rise = last - low
    rel_rise = rise / abs(low) if low else 0.0
    rising = rise >= max(p.min_rise_rel * abs(low), p.k_noise * sigma)
    if not rising and _turned(e, i_min, rise, sigma, tr, int(st[i_min]), p):
        rising = True
    if not rising and _trends_up(st, e, i_min, rel_rise, p):
        rising = True
    if not rising and _climbs(e, p) and not _task_best_at_last(run):
        # every eval since the best one above the one before, the last 10%+ above it: on a
        # monotone climb the last eval is the level (a tail median would reach back into it)
        i_min = int(np.argmin(e))
        low, last = float(e[i_min]), float(e[-1])
        rise = last - low
        rel_rise = rise / abs(low)
        after = e.size - 1 - i_min
        rising = True
    if not rising and (v := _risen_from_best(e, es, i_min, sigma, p)) is not None:
        # the smoothed minimum hid a sharp V: the rise is read from the best checkpoint
        i_min, low, last = v
        rise = last - low
        rel_rise = rise / abs(low) if low else 0.0
        after = e.size - 1 - i_min
        rising = True
    if rising and _falls_back(st, e, i_min, p):
        rising = False  # the evals since the minimum trend down: a lucky low draw, no rise
    if rising and rise < p.min_quanta * _quantum(e):
        rising = False  # one printed digit (0.0016 -> 0.0017) is rounding, not a rise
    # Onset of a stall: the first eval already within noise of the minimum (the step
    # after which the eval loss stopped improving); of a rise: the minimum itself.
    near = low + max(p.settle_rel * abs(low), 2 * sigma)
    # (the raw eval too: a rolling median's edge can lift a far-off first eval to its
    # neighbour's level, and the onset is a checkpoint someone may keep)
    within = (es[: i_min + 1] <= near) & (e[: i_min + 1] <= near)
    i_on = i_min if rising or not within.any() else int(np.flatnonzero(within)[0])
    onset = int(st[i_on])
    span_total = float(max(run.last_step or st[-1], st[-1]) - min(tr.steps[0], st[0]))
    stalled_for = int(st[-1]) - onset
    stalled = (
        not rising
        and stalled_for >= max(p.stall_steps, p.stall_frac * span_total)
        and not trend(st[i_on:], e[i_on:]).falling
        # the last eval a new best (below every raw eval before it): still improving
        and not e[-1] < float(e[:-1].min())
    )
    if not (rising or stalled):
        yield from _metric_gap(run, ev, tr, p)
        return
    t_on, t_end, t_drop, t_z = train_change(tr, onset)
    # A train loss halved since the onset has fallen whatever a test on a few logs
    # says (a model card repeats its last logged value at each eval: ties, no trend).
    falls = t_z <= p.train_z or _falls_each(tr, onset, p) or t_drop >= p.train_halved
    # most task metrics fell from their best: the held-out harm is shown, a train loss that
    # falls at p < 0.05 is enough
    reads = _metric_reads(run, onset, p)
    fallen = bool(reads) and 2 * sum(r.fell for r in reads) > len(reads)
    falls = falls or (fallen and bool(rising) and t_z <= p.fell_train_z)
    if not (t_drop >= p.train_drop_min and falls):
        # 3-5 train logs since the onset (one per epoch): lower at each is its trend
        t_on, t_end, t_drop, falls = _sparse_fall(tr, onset, p)
        # ... and a few per-step logs that halved it have fallen, however they wobble
        falls = falls or t_drop >= p.train_halved
        if not (t_drop >= p.train_drop_min and falls):
            return
    if _train_worse_than_before(tr, onset, t_end, p):
        return  # both losses rose: the model got worse on its own data too, not overfitting
    severity = None
    notes = []
    # The checkpoint to keep: the lowest eval logged (what load_best_model_at_end keeps),
    # and what going on to the end cost, measured against it.
    i_best = int(np.argmin(e))
    best_step, e_best = int(st[i_best]), float(e[i_best])
    last_vs_best = (float(e[-1]) - e_best) / abs(e_best) if e_best else 0.0
    evidence = {
        "onset_step": onset,
        "eval_min": low,
        "eval_last": last,
        "eval_rise_rel": rel_rise,
        "eval_points_after": after,
        "stalled_steps": stalled_for,
        "train_at_onset": t_on,
        "train_last": t_end,
        "train_drop_rel": t_drop,
        "mode": "rising" if rising else "stalled",
        "best_step": best_step,
        "eval_best": e_best,
        "eval_last_vs_best": last_vs_best,
    }
    verdicts = []
    improving: list[str] = []  # task metrics still improving after the onset
    for mt in metric_trends(run, onset, p.metric_gain_rel):
        name, at, end, verdict = mt.name, mt.at, mt.end, mt.verdict
        verdicts.append(verdict)
        if verdict == "improving":
            improving.append(name)
        evidence[f"{name}_at_onset"] = at
        evidence[f"{name}_last"] = end
        if verdict == "improving":
            notes.append(
                f"{name} kept improving ({fmt(at)} -> {fmt(end)}) after the onset, so the "
                "model is still getting better at the task: the eval loss is probably "
                "measuring confidence/calibration, not quality."
            )
        elif verdict == "held":
            notes.append(
                f"{name} held its level after the onset ({fmt(at)} -> {fmt(end)}): the "
                "extra steps bought nothing, but the task quality did not suffer."
            )
        else:
            notes.append(f"{name} got worse after the onset ({fmt(at)} -> {fmt(end)}).")
    # Info when the task still improves, or holds while the eval loss moved little:
    # the loss measures calibration there. A large rise is harm even at a flat
    # accuracy (an overconfident model, a best checkpoint far back).
    # ... the rise read from the best checkpoint too: what going on cost against the lowest
    # eval a user keeps, which a rolling median's lifted minimum understates
    cost = _cost_from_best(e, i_best)
    mild = rising is False or max(rel_rise, cost) < p.clear_rise_rel
    large = bool(rising) and rel_rise >= p.large_rise_rel
    # (mild: the task metrics mostly held; one of four a little worse is their noise)
    mostly_held = bool(verdicts) and 2 * verdicts.count("worse") < len(verdicts)
    # A large rise stays a warning unless the task metrics improved by more than it, or
    # the evals do not confirm it (noisy evals, a metric setting new bests).
    confirmed = large and _confirmed(st, e, p)
    clearly = large and _improved_more(run, onset, rel_rise, p)
    best_at_end = bool(rising) and _best_at_end(run, onset, rel_rise, p)
    # The separator: every task metric still at its best at the end (none fell from its best
    # beyond its noise) after improving since the minimum - the rise is overconfidence
    # in a trend since the minimum; not when the model memorised its training set (train loss
    # under 2% of the eval loss) while the eval loss rose by half: the metric's creep is then
    # the tail of what it learned, and the gap is what it learns now
    memorised = (
        t_end <= p.memorised_gap * float(e[-1]) and max(rel_rise, last_vs_best) >= p.memorised_rise
    )
    still_best = (
        bool(reads)
        and not any(r.fell for r in reads)
        and any(r.gained and r.trending for r in reads)
        and not memorised
    )
    fell_names = [r for r in reads if r.fell]
    if still_best:
        evidence["task_still_best_at_end"] = True
        names = ", ".join(r.name for r in reads if r.gained and r.trending)
        notes.append(
            f"The eval loss rises (overconfidence) while {names} still improves to its best "
            "at the end: the model gets more examples right and is surer of the ones it gets "
            "wrong. Keep the best-metric checkpoint (here the last), not the lowest-loss one."
        )
    elif fell_names:
        r0 = fell_names[0]
        evidence["task_best_step"] = r0.best_step
        notes.append(
            f"{r0.name} fell from its best ({fmt(r0.best)} at step {r0.best_step}) to "
            f"{fmt(r0.end)}, beyond its eval-to-eval noise: the task got worse, not only the "
            "loss."
        )
    if large and not confirmed and "improving" in verdicts and not clearly:
        notes.append(
            f"The {rel_rise:.0%} rise is not confirmed by the evals since the minimum (no "
            "significant upward trend: single noisy evals), while the task metric improved."
        )
    if clearly:
        notes.append(
            "Most task metrics improved after the onset, their error shrinking by more than "
            f"the eval loss rose ({rel_rise:.0%}): the loss measures calibration here."
        )
    if best_at_end:
        evidence["task_best_at_end"] = True
        notes.append(
            "Every task metric kept improving to a new best at the end (a significant trend, "
            f"its error down by at least half the eval loss's {rel_rise:.0%} rise): the last "
            "checkpoint is the one to keep, and the rise is calibration, not lost quality."
        )
    if (
        ("improving" in verdicts and not (large and confirmed))
        or (mostly_held and mild)
        or clearly
        or best_at_end
        or still_best
        # a large rise no trend confirms, with no task metric worse: the eval set's noise
        or (large and not confirmed and bool(verdicts) and "worse" not in verdicts)
    ):
        severity = Severity.INFO
        # ... unless the metrics that improved after the loss minimum stopped improving
        # long before the end while the eval loss kept rising: judged from their own peak,
        # not from the loss minimum (metrics that only held since the minimum are the
        # calibration case above and stay info).
        flat = (
            _stopped_improving(run, st, e, tr, onset, sigma, p)
            if "improving" in verdicts and not best_at_end
            else None
        )
        if flat is not None:
            severity = None
            peak, n_flat, flat_rise = flat
            evidence["metric_peak_step"] = peak
            evidence["eval_rise_since_metric_peak"] = flat_rise
            notes.append(
                f"But the task metrics peaked at step {peak} and did not improve over the "
                f"{n_flat} evals since, while the eval loss rose {flat_rise:.0%} more and the "
                "train loss kept falling: that stretch only memorised the training set."
            )
    elif "improving" in verdicts and not clearly:
        notes.append(
            f"The eval loss rose {rel_rise:.0%} all the same: a model this overconfident on "
            "held-out data is past its best checkpoint, whatever the metric's last digits say."
        )
    if severity is Severity.INFO and memorised and rising and _confirmed(st, e, p):
        # memorised: whatever the metric's creep, the gap is what the run learns now
        severity = None
        evidence["memorised"] = True
        notes.append(
            f"But the train loss ({fmt(t_end)}) is under {p.memorised_gap:.0%} of the eval "
            f"loss ({fmt(float(e[-1]))}), which rose {rel_rise:.0%} at evals that confirm it: "
            "the model has memorised its training set, and the gap is what it learns now."
        )
    if severity is None and not rising and not fallen:
        # a stall is a plateau: the held-out loss stopped improving, it did not get worse,
        # and no task metric fell from its best - further steps buy nothing, harm nothing yet
        severity = Severity.INFO
        notes.append(
            "The eval loss only stopped improving (no rise beyond its noise) and no task "
            "metric fell from its best: the extra steps bought nothing, but held-out quality "
            "did not get worse."
        )
    if severity is None and (deg := run.symptom("degenerate-loss")) is not None:
        # Overfitting is the train loss fitting the training data better while held-out
        # quality pays: a train loss that falls with a component pinned at 0 (no target
        # ever matched) or masked out is not fitting the data, so its gap is no memorising.
        severity = Severity.INFO
        notes.append(
            f"The train loss is degenerate ({deg.title}): its fall is not the model fitting "
            "its training data, so the gap says nothing about memorisation - fix that first."
        )
    if run.fact("task") == "rl":
        severity = Severity.INFO
        notes.append("For DPO / RL trainers the eval loss is not the target; judge by rewards.")
    ep = run.get("epoch")
    if not rising and run.regime == "pretraining" and not _past_one_epoch(run, ep):
        # one pass over fresh text: no sample is seen twice, so nothing is memorised; a
        # flat eval there is a plateau of capacity or schedule, not overfitting
        severity = Severity.INFO
        notes.append(
            "This is pre-training that has not finished an epoch: it never sees a sample "
            "twice, so a flat eval loss is a plateau (model size, LR schedule), not memorisation."
        )
    near_epoch = ""
    if ep is not None:
        e_on = level_at(ep, onset, k=1)
        if np.isfinite(e_on):
            evidence["epoch_at_onset"] = e_on
            if run.regime in ("full-finetune", "lora") and e_on <= 1.5:
                near_epoch = f" (epoch {e_on:.2f})"
                notes.append(
                    "The onset is around the first epoch of a fine-tune, where a rising eval "
                    "loss is common and not always harmful: check a task metric or samples."
                )
    # The title names the checkpoint to keep (the lowest eval, raw) and the last one
    # against it; the thresholds above read the smoothed level (onset, rel_rise).
    if rising:
        title = (
            f"Eval loss rose {rel_rise:.0%}"
            if rel_rise >= 0.01
            else f"Eval loss rose {rel_rise:.1%}"
        ) + (
            f" from its minimum at step {onset}{near_epoch} while train loss fell "
            f"{t_drop:.0%}; best checkpoint: step {best_step} (eval loss {fmt(e_best)}, "
            f"last {fmt(float(e[-1]))})"
        )
    else:
        title = (
            f"Eval loss has not improved beyond its noise for {stalled_for} steps (since step {onset}"
            f"{near_epoch}) while train loss fell {t_drop:.0%}; best checkpoint: step "
            f"{best_step} (eval loss {fmt(e_best)}, last {fmt(float(e[-1]))})"
        )
    yield Hit(
        title=title,
        step=onset,
        end_step=int(st[-1]),
        evidence=evidence,
        explanation=" ".join(
            [
                "The train loss keeps falling while the held-out loss "
                + ("rises" if rising else "stopped improving")
                + ": the model is fitting the training set rather than the task "
                "(stop, or lower the LR, as soon as eval stalls while train falls).",
                f"The best checkpoint by eval loss is step {best_step} ({fmt(e_best)}); the "
                f"last one's eval loss is {last_vs_best:.0%} above it.",
                *notes,
            ]
        ),
        prescription=(
            (
                f"Keep the checkpoint of step {fell_names[0].best_step}, the best by "
                f"{fell_names[0].name} ({fmt(fell_names[0].best)}; load_best_model_at_end="
                "True with metric_for_best_model set to it); "
                if fell_names and not still_best
                else f"Select the checkpoint by {improving[0]}, not by the eval loss "
                "(load_best_model_at_end=True with metric_for_best_model set to it): it kept "
                f"improving after step {onset}; "
                if improving
                else f"Keep the checkpoint of step {best_step} (eval loss {fmt(e_best)}, the "
                f"lowest logged; the last one's is {last_vs_best:.0%} above it) - "
                "load_best_model_at_end=True with metric_for_best_model does that - "
            )
            + "add early stopping, or lower the LR; add regularisation "
            "(weight decay, dropout) or more / deduplicated data, and check train/eval leakage."
        ),
        severity=severity,
    )


def _memorised(run: Run, loss: Series, p: Params) -> Iterator[Hit]:
    """No eval logged: a fine-tune that drove its train loss to ~0 for epochs on end."""
    ep, f = run.get("epoch"), loss.finite()
    if ep is None or run.is_rl or run.regime not in ("full-finetune", "lora") or len(f) < 3:
        return
    epochs = float(np.nanmax(ep.values))
    if not epochs >= p.memorised_min_epochs:
        return
    start = float(np.max(f.values[:3]))  # the level it started from (a fast first drop)
    low = f.values <= min(p.memorised_loss, p.memorised_rel * start)
    # the epoch each loss was logged at; the stretch of lows that reaches the end
    at = np.interp(f.steps, ep.steps, ep.values)
    if not low[-1]:
        return
    i0 = f.values.size - int(np.argmin(low[::-1])) if not low.all() else 0
    since = float(at[i0])
    if epochs - since < p.memorised_epochs:
        return
    onset = int(f.steps[i0])
    yield Hit(
        title=(
            f"Train loss under {fmt(float(f.values[i0:].max()))} from epoch {since:.1f} to "
            f"{epochs:.1f} with no eval logged: the model has memorised its training set"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence={
            "onset_step": onset,
            "epoch_at_onset": since,
            "epochs": epochs,
            "train_start": start,
            "train_last": float(f.values[-1]),
            "eval_loss": "not logged",
            "mode": "memorised",
        },
        explanation=(
            f"A fine-tune that keeps its train loss near 0 ({fmt(float(f.values[-1]))} at the "
            f"end, from {fmt(start)}) for {epochs - since:.1f} epochs reproduces its training "
            "samples; past that point more epochs usually make held-out quality worse, and no "
            "eval was logged to tell."
        ),
        prescription=(
            f"Evaluate the checkpoint near step {onset} and the last one on held-out data "
            "(eval_strategy='steps', an eval split); train fewer epochs (1-3 for most fine-"
            "tunes), or add data; lower the LR or add regularisation (LoRA dropout, weight decay)."
        ),
        severity=Severity.INFO,
    )
