"""no-learning's readings of an error rate (WER, CER) at its worst: at the ceiling late in
the run, at the ceiling at the run's end, or worse than an empty transcript while the loss
falls. It owns the error-rate names and the ceiling's prescription."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _floor_span_late, _loss_falls
from traindoc.rules.loss._evalcurve import task_metrics, train_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


_ERROR_RATE = ("wer", "cer")


def _error_rate_ceiling_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """An eval error rate (WER, CER) exactly at its ceiling, 1.0 (100 when printed in
    percent), at every one of 2+ evals, all from epoch 10 on (or 2+ from epoch 3 on through
    epoch 10+, earlier evals at the ceiling too), with the train loss and the
    eval loss (each when logged) moving under `frozen_max_drop` of their size over those
    evals (warning): the mirror of an overlap metric at 0."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    for m, higher in task_metrics(run):
        parts = re.split(r"[_/\-. ]", m.name.lower())
        if higher or not any(x in _ERROR_RATE for x in parts):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points:
            continue
        if not (np.all(mf.values == 1.0) or np.all(mf.values == 100.0)):
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if not _floor_span_late(at, p):
            continue
        moves: list[str] = []
        evidence: dict[str, object] = {
            "metric": m.name,
            "value": float(mf.values[0]),
            "evals": len(mf),
            "first_epoch": float(at.min()),
        }
        still = True
        for name, s in (("loss", loss), ("eval_loss", run.get("eval_loss"))):
            if s is None or not len(sf := s.finite()):
                continue
            inside = (sf.steps >= mf.steps[0]) & (sf.steps <= mf.steps[-1])
            w = sf.values[inside] if inside.sum() >= 2 else sf.values[-2:]
            if w.size < 2 or not w[0] or abs(w[0] - w[-1]) / abs(w[0]) >= p.frozen_max_drop:
                still = False
                break
            moves.append(f"{name} {fmt(float(w[0]))} -> {fmt(float(w[-1]))}")
            evidence[f"{name}_start"], evidence[f"{name}_end"] = float(w[0]), float(w[-1])
        if not still:
            continue
        beside = f", while {', '.join(moves)}" if moves else ""
        return Hit(
            title=(
                f"{m.name} is {fmt(float(mf.values[0]))} (its ceiling) at every one of "
                f"{len(mf)} evals from epoch {int(at.min())} on{beside}: the model transcribes "
                "nothing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence=evidence,
            explanation=(
                f"{m.name} is the share of words (characters) the model gets wrong; exactly "
                "1.0 is its ceiling for an empty output: a CTC model that emits only the blank "
                "token scores it whatever the audio. Early in training that blank plateau is "
                "normal, but after 10 or more passes over the data a model that learns has left "
                "it, and its loss falls as it does; here neither happened."
            ),
            prescription=_CEILING_FIX,
            severity=Severity.WARNING,
        )
    return None


_CEILING_FIX = (
    "Check the LR and its warmup (a warmup longer than the run never reaches the peak LR), "
    "that the vocabulary / tokenizer matches the labels (no all-<unk> targets), the audio "
    "sampling rate and normalisation, and that the CTC loss's blank index is the one the "
    "head predicts."
)


def _error_rate_ceiling_at_end(run: Run, p: Params) -> Hit | None:
    """An eval error rate (WER, CER) at its ceiling, within `ceiling_below` under and
    `ceiling_above` over 1.0 (100 in percent), at every one of its 2+ evals, the last of
    them the run's last eval: the next, one eval interval on, would fall past the planned
    end (`num_train_epochs`, `max_steps`; the last step of a log that records its end)
    (warning). The run ended with a model that transcribes nothing, whatever its loss did
    on the way (a CTC loss falls a long way on the blank plateau)."""
    for m, higher in task_metrics(run):
        if higher or not _is_error_rate(m.name):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points:
            continue
        v = _as_fraction_of_ceiling(mf.values)
        if not np.all((v >= 1.0 - p.ceiling_below) & (v <= 1.0 + p.ceiling_above)):
            continue
        if _loss_ends_low(run, p):
            return None  # 1% of words wrong in percent, not the ceiling
        end = _last_eval_ends_run(run, mf)
        if end is None:
            continue
        return Hit(
            title=(
                f"{m.name} stays at its ceiling ({fmt(float(mf.values.min()))}-"
                f"{fmt(float(mf.values.max()))}) at every one of {len(mf)} evals up to the "
                f"run's end ({end}): the trained model transcribes nothing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "min_value": float(mf.values.min()),
                "max_value": float(mf.values.max()),
                "evals": len(mf),
                "run_end": end,
            },
            explanation=(
                f"{m.name} is the share of words (characters) the model gets wrong; 1.0 is "
                "what an empty transcript scores (a CTC head emitting only the blank token), "
                "and 1% either side of it is a handful of words. Every eval of this run sits "
                "there, the last one at the run's planned end, so the model it produced "
                "transcribes nothing: the run learned nothing usable. A CTC loss falls a long "
                "way on that blank plateau (the model learns the blank and the letter "
                "frequencies), so a falling loss does not say otherwise."
            ),
            prescription=_CEILING_FIX,
            severity=Severity.WARNING,
        )
    return None


def _loss_ends_low(run: Run, p: Params) -> bool:
    """A train or eval loss whose last value is under ln 2 (`zero_min_loss`): a model that
    gets its words right, so an error rate of ~1 beside it is 1% in percent, not 1.0."""
    for name in ("loss", "eval_loss"):
        s = run.get(name)
        if s is not None and len(f := s.finite()) and float(f.values[-1]) < p.zero_min_loss:
            return True
    return False


def _as_fraction_of_ceiling(v: np.ndarray) -> np.ndarray:
    """Error rates as fractions of their ceiling: a log printing any value above 2 is in
    percent (a fraction-scale WER of 2 is three times the reference's words)."""
    return v / 100.0 if float(np.max(v)) > 2.0 else v


def _last_eval_ends_run(run: Run, m: Series) -> str | None:
    """How the last eval of `m` is known to be the run's last (as words), or None: the next
    eval, one median eval interval after it, would fall past the planned end, counted in
    epochs (`num_train_epochs` against the logged epoch) or in steps (`max_steps`, or the
    last logged step of a log that records its own end)."""
    ep, n_ep = run.get("epoch"), run.fact("num_train_epochs")
    if ep is not None and len(e := ep.finite()) and n_ep:
        at = np.interp(m.steps, e.steps, e.values)
        gap = float(np.median(np.diff(at)))
        if gap > 0 and at[-1] + gap > float(n_ep):
            return f"epoch {fmt(float(at[-1]))} of {fmt(float(n_ep))}"
        return None
    plan = run.fact("max_steps") or (run.last_step if run.fact("ended") else None)
    gap = float(np.median(np.diff(m.steps)))
    if plan and gap > 0 and m.steps[-1] + gap > float(plan):
        return f"step {int(m.steps[-1])} of {int(plan)}"
    return None


def _is_error_rate(name: str) -> bool:
    """A WER / CER by a word of its name (`eval_wer`, `train_cer`, `valid/cer`)."""
    return any(x in _ERROR_RATE for x in re.split(r"[_/\-. ]", name.lower()))


def _error_rate_worse_than_empty(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """No epoch logged (an iteration count only): a train error rate (WER, CER) above 100
    at every one of `ceiling_train_points`+ logs, all from update `ceiling_min_step` on, its
    last third no lower than its first, with every eval error rate at or above 100 at each
    of its 2+ evals in that span and the loss (when logged) falling under `frozen_max_drop`
    there (warning). Percent only: no fraction-scale WER is printed above 100."""
    ep = run.get("epoch")
    if ep is not None and len(ep.finite()):
        return None  # the passes over the data are known: `_error_rate_ceiling_late` judges
    evals = [m for m, higher in task_metrics(run) if not higher and _is_error_rate(m.name)]
    if not evals:
        return None
    for tr, higher in train_metrics(run):
        if higher or not _is_error_rate(tr.name):
            continue
        tf = tr.finite()
        v = tf.values
        if v.size < p.ceiling_train_points or float(tf.steps[0]) < p.ceiling_min_step:
            continue
        k = max(1, v.size // 3)
        if not bool(np.all(v > 100.0)) or float(np.mean(v[-k:])) < float(np.mean(v[:k])):
            continue
        lo, hi = float(tf.steps[0]), float(tf.steps[-1])
        inside = [f.values[(f.steps >= lo) & (f.steps <= hi)] for f in (m.finite() for m in evals)]
        if max(w.size for w in inside) < p.overlap_points:
            continue
        if not all(bool(np.all(w >= 100.0)) for w in inside):
            continue
        if loss is not None and _loss_falls(loss, lo, hi, p):
            continue
        names = [m.name for m in evals]
        return Hit(
            title=(
                f"{tr.name} stays above 100% ({fmt(float(v.min()))}-{fmt(float(v.max()))}, not "
                f"falling) at all {v.size} logs from iteration {int(lo)} on, and "
                f"{', '.join(names)} are at or above 100 at every eval: the model gets "
                "nothing right"
            ),
            step=int(lo),
            end_step=int(hi),
            evidence={
                "metric": tr.name,
                "eval_metrics": names,
                "logs": int(v.size),
                "min_train": float(v.min()),
                "first_step": lo,
            },
            explanation=(
                "An error rate counts the edits from the output to the reference per "
                "reference character (word): an empty output scores 100% exactly, so above "
                "100% the model does worse than emitting nothing. A recogniser emits such "
                "garbage only at its very start and falls back under 100% as it learns; this "
                "one is still above it, and not falling, after a thousand or more updates, "
                "and every eval agrees: it has learned nothing it can read."
            ),
            prescription=(
                "Check the training data (empty or mismatched ground-truth lines, images whose "
                "text is not their transcription), that the character set / unicharset covers "
                "the labels, the LR, and for a model trained from scratch whether there is "
                "enough data (fine-tune a pretrained model instead)."
            ),
            severity=Severity.WARNING,
        )
    return None
