"""no-learning's evidence from predictions that do not change: a task metric identical
to its printed digits across evals, epochs that repeat, one predicted class."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.metrics import is_running_best
from traindoc.measure.stats import fmt, printed_decimals
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import is_eval, kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _other_metric_moves
from traindoc.rules.loss._evalcurve import task_metrics
from traindoc.rules.loss._short_logs import _spread

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _frozen_metric(run: Run, loss: Series, p: Params) -> Hit | None:
    """An eval task metric stuck at one value while the loss barely moves, or at the
    value the untrained model scored (an eval before the first update). Stuck means
    identical at its last 4+ evals: a model that collapsed after its first eval (val acc
    0.571, then 0.357 = one class's share at every later epoch) is as frozen as one that
    never moved; the first eval can precede the collapse."""
    y = loss.values
    if y.size < 2 or not y[0] > 0:
        return None
    flat = still = (y[0] - y[-1]) / y[0] < p.frozen_max_drop
    # The held-out metric's own companion: the eval loss within 10% at every eval.
    # The first train log can average the untrained model's first steps (a CTC head's
    # fall to its blank plateau) and so "fall" while nothing after it moves.
    held = _eval_loss_still(run, p)
    flat = flat or held
    if not flat and not any(len(s) and s.steps[0] <= 0 for s in run.series.values()):
        return None  # a falling loss, and no eval before the first update to compare with
    for m, higher in task_metrics(run):
        mf = m.finite()
        v = mf.values
        same = int(np.argmax(v[::-1] != v[-1])) if np.any(v != v[-1]) else v.size
        whole = same == v.size  # every eval, not only the last `same`
        if v.size < 2 or same < (2 if whole else p.frozen_metric_points):
            continue
        value = float(v[-1])
        best = (1.0, 100.0) if higher else (0.0,)
        if value in best:
            continue  # solved: nothing left to change
        if higher and value == 0.0 and _other_metric_moves(run, m):
            continue  # one class's 0 beside a metric that moves: the predictions do change
        if _other_metric_moves(run, m, since=float(mf.steps[-same]), same_split=True):
            # Another metric of the same split moves over the same evals (a converged
            # detector's recall at 0.907 while its precision and mAP still change): the
            # predictions do change; this metric is too coarse to show it.
            continue
        # Scored before any update (at or before the first logged loss) and again at
        # the end to the printed digit: whatever the loss did, the predictions are the
        # untrained model's (a worst value of 0 can still be "too early": not counted).
        from_init = (
            whole and int(mf.steps[0]) <= min(int(loss.steps[0]), 0) and value not in (0.0, 0.5)
        )
        # a metric frozen only since its first eval needs the train loss itself flat: a
        # model that fits its training set (train loss 0.10 -> 5e-4) also stops changing
        # its held-out answers, having learned
        if not (from_init or ((flat if whole else still) and same >= p.frozen_metric_points)):
            continue
        at = fl.at_floor(run, "loss")  # only now: on a long loss it is the costly part
        if at is not None and at.to_end:
            return None  # at ln(C) the metric is at chance: uniform-plateau's finding
        title = (
            f"{m.name} is {fmt(value)} before the first update (step {int(mf.steps[0])}) and "
            f"still {fmt(value)} at step {int(mf.steps[-1])}, while the loss moves "
            f"{fmt(float(y[0]))} -> {fmt(float(y[-1]))}: the predictions are the untrained model's"
            if from_init and v.size < p.frozen_metric_points
            else f"{m.name} is {fmt(value)} at "
            + (f"every one of {v.size} evals" if whole else f"each of its last {same} evals")
            + f" while the loss moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}: the "
            "predictions do not change"
        )
        if held and not from_init:
            e = run.get("eval_loss").finite().values  # type: ignore[union-attr]
            title += f" (eval loss {fmt(float(e[0]))} -> {fmt(float(e[-1]))})"
        return Hit(
            title=title,
            step=int(mf.steps[-same]),
            end_step=int(m.steps[-1]),
            evidence={
                "metric": m.name,
                "value": value,
                "evals": int(v.size),
                "same_evals": same,
                "start_loss": float(y[0]),
                "end_loss": float(y[-1]),
            },
            explanation=(
                f"On a held-out set a model whose weights change predicts differently on at "
                f"least some samples; {m.name} identical to the last digit at {same} evals "
                "means the predictions are frozen, most often one class for every input "
                "(the metric is then that class's share). The model is not learning the task."
            ),
            prescription=(
                "Check the predictions' class distribution on a few eval batches; then the LR "
                "(0, or far too low / high), the labels (encoded as the loss expects? all one "
                "class?), class imbalance, and that the trained parameters are the ones used "
                "for prediction."
            ),
            severity=Severity.WARNING,
        )
    return None


def _eval_loss_still(run: Run, p: Params) -> bool:
    """The eval loss logged at 4+ evals, all within `frozen_max_drop` of their median
    (max - min): the held-out loss does not move, whatever the first train log did."""
    ev = run.get("eval_loss")
    if ev is None:
        return False
    e = ev.finite().values
    if e.size < p.frozen_metric_points or not np.all(e > 0):
        return False
    if _spread(e) < p.frozen_max_drop:
        return True
    # The first eval can come before the model reaches the level it then keeps (in the
    # warmup, or a CTC head's fall to its blank plateau): the evals after it, 4+ of them,
    # within the same 10% say the same.
    rest = e[1:]
    return rest.size >= p.frozen_metric_points and _spread(rest) < p.frozen_max_drop


def _lone_frozen_from_start(run: Run, p: Params) -> Hit | None:
    """No loss: an eval metric identical to 4+ printed digits at every one of its 5+
    evals, the first of them at the run's start (warning)."""
    ep = run.get("epoch")
    ev = run.get("eval_loss")
    moved = ev is not None and len(e := ev.finite().values) >= 2 and e[0] != 0
    if moved and abs(e[0] - e[-1]) / abs(e[0]) >= p.frozen_max_drop:
        return None  # the held-out loss moves: the predictions do change
    for m, _ in task_metrics(run):
        mf = m.finite()
        v = mf.values
        if v.size < p.lone_frozen_evals or not _stuck_values(v, p) or not _digits(float(v[0])):
            continue
        if any(
            kind(s.name) == "task" and s is not m and np.ptp(s.finite().values) > 0
            for s in run.series.values()
            if len(s.finite()) > 1
        ):
            continue  # another metric of the same model moves: its predictions change
        if ep is not None and len(e := ep.finite()):
            start = float(np.interp(mf.steps[0], e.steps, e.values)) <= 1.0
        else:
            start = bool(mf.steps[0] <= np.median(np.diff(mf.steps)))
        if not start:
            continue  # a late window: a converged model on a small eval set can repeat
        value = float(v[0])
        return Hit(
            title=(
                f"{m.name} is {fmt(value)} at every one of {v.size} evals from the first on: "
                "the predictions never change"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={"metric": m.name, "value": value, "evals": int(v.size)},
            explanation=(
                f"{m.name} counts the held-out samples the model gets right. It is the same to "
                f"every printed digit at all {v.size} evals, the first one included: the model "
                "scores exactly as it did after its first epoch, on every sample. A model that "
                "learns changes some predictions from one eval to the next; this one answers the "
                "same (most often one class for every input, the metric being that class's share)."
            ),
            prescription=(
                "Log the loss; check the predictions' class distribution, the LR (0, or far too "
                "high / low), the labels, and that the trained parameters are the ones used for "
                "prediction."
            ),
            severity=Severity.WARNING,
        )
    return None


def _headroom_moved(s: Series) -> float | None:
    """How much of its headroom a metric's logs span: their range over the distance from
    their median to the metric's nearer end (0 or 1; 100 for a percent). None at an end."""
    v = s.finite().values
    top = 100.0 if float(v.max()) > 1.0 else 1.0
    med = float(np.median(v))
    room = min(med, top - med)
    if room <= 1e-3 * top:
        return None  # solved (or never scoring): nothing left to move
    return float(np.ptp(v)) / room


def _from_start(run: Run, s: Series) -> bool:
    """The first log is at the run's start: epoch <= 1, or within one log interval of 0."""
    f = s.finite()
    ep = run.get("epoch")
    if ep is not None and len(e := ep.finite()):
        return float(np.interp(f.steps[0], e.steps, e.values)) <= 1.0
    return bool(f.steps[0] <= np.median(np.diff(f.steps)))


def _still_from_start(run: Run, p: Params) -> Hit | None:
    """No loss: a train and a held-out metric each spanning at most `still_share` of its
    headroom (`_headroom_moved`) over 8+ logs from the run's first (warning). Printed to
    enough digits that the last ones change, yet neither moves: every update leaves the
    model's predictions where the first one put them."""
    still = [
        (s, moved)
        for s in run.series.values()
        if kind(s.name) == "task"
        and not is_running_best(s.name)  # a best-so-far stays flat by construction
        and len(s.finite()) >= p.still_points
        and (moved := _headroom_moved(s)) is not None
        and moved <= p.still_share
        and _from_start(run, s)
    ]
    ev = next(((s, m) for s, m in still if is_eval(s.name)), None)
    tr = next(((s, m) for s, m in still if not is_eval(s.name)), None)
    if ev is None or tr is None:
        return None
    (e, me), (t, mt) = ev, tr
    ve, vt = float(np.median(e.finite().values)), float(np.median(t.finite().values))
    return Hit(
        title=(
            f"{e.name} stays at {fmt(ve)} and {t.name} at {fmt(vt)} over {len(e.finite())} "
            f"logs from the first (each moving {max(me, mt):.2%} of its headroom at most): "
            "the model does not change after its first update"
        ),
        step=int(min(e.finite().steps[0], t.finite().steps[0])),
        end_step=int(max(e.finite().steps[-1], t.finite().steps[-1])),
        evidence={
            "metric": e.name,
            "value": ve,
            "train_metric": t.name,
            "train_value": vt,
            "moved": max(me, mt),
            "logs": len(e.finite()),
        },
        explanation=(
            f"{e.name} and {t.name} score the held-out and the training data. Over "
            f"{len(e.finite())} logs from the run's start neither moves by more than "
            f"{max(me, mt):.2%} of what it has left to gain, at digits that do change: the "
            "updates after the first leave the predictions as they were. Early rounds of a "
            "booster, or early epochs of a network, that learn change a few percent of the "
            "errors left at least."
        ),
        prescription=(
            "Check the learning rate (eta / LR not 0 or ~0), the objective (does it match the "
            "labels: a regression objective on 0/1 labels, labels all one class), tree or "
            "layer settings that forbid a split or an update (min_child_weight, max_depth "
            "0, frozen parameters), and the log the loss beside the metric."
        ),
        severity=Severity.WARNING,
    )


def _frozen_metrics(run: Run, p: Params) -> Hit | None:
    """No loss logged: an eval metric and its train counterpart each identical to the
    printed digit at 4+ logs. Two sets of samples scored the same every time by a
    model whose weights move is not possible: its predictions are frozen."""
    evals = [m for m, _ in task_metrics(run)]
    frozen = [s for s in run.series.values() if kind(s.name) == "task" and _stuck(s, p)]
    ev = next((s for s in frozen if any(s is m for m in evals)), None)
    tr = next((s for s in frozen if not any(s is m for m in evals)), None)
    if ev is not None and tr is None:
        # A train metric is an average over the epoch's batches: its first log holds the
        # untrained model's first steps (MXNet's Train-accuracy 0.509277 at epoch 0, then
        # 0.517578 at every later epoch while the validation accuracy is 0.517578 at all).
        # After that first log it is a measure of the frozen model like the eval metric.
        tr = next(
            (
                s
                for s in run.series.values()
                if kind(s.name) == "task"
                and not any(s is m for m in evals)
                and _stuck_after_first(s, p)
                and _digits(float(s.finite().values[-1]))
            ),
            None,
        )
    moving = any(
        kind(s.name) == "task" and not any(s is m for m in evals) and len(s.finite()) > 1
        for s in run.series.values()
    )
    if ev is not None and tr is None and not moving:
        # no train metric: two eval metrics frozen at the same 4+ evals, one of them to
        # 4+ digits (accuracy and mIoU, kappa), are two measures of one frozen model
        tr = next(
            (
                s
                for s in frozen
                if s is not ev
                and any(s is m for m in evals)
                and np.array_equal(s.finite().steps, ev.finite().steps)
                and (_digits(float(s.finite().values[0])) or _digits(float(ev.finite().values[0])))
            ),
            None,
        )
        if tr is None and _digits(float(ev.finite().values[0])):
            # ... or beside it a higher-is-better eval metric at 0 at those same evals
            # (NER's entity F1, precision and recall 0.0 while the token accuracy is 0.9388
            # every epoch): the frozen predictions never get one positive right. Alone a 0
            # can be a run not yet started; next to a 4-digit twin it is the same model.
            tr = next(
                (
                    m
                    for m, higher in task_metrics(run)
                    if higher
                    and m is not ev
                    and len(v := m.finite().values) >= p.frozen_metric_points
                    and not v.any()
                    and np.array_equal(m.finite().steps, ev.finite().steps)
                ),
                None,
            )
    if ev is None or tr is None:
        return None
    e, t = float(ev.finite().values[0]), float(tr.finite().values[0])
    return Hit(
        title=(
            f"{ev.name} is {fmt(e)} at every one of {len(ev)} evals and {tr.name} {fmt(t)} "
            f"at every one of {len(tr)} logs: the predictions do not change"
        ),
        step=int(min(ev.steps[0], tr.steps[0])),
        end_step=int(max(ev.steps[-1], tr.steps[-1])),
        evidence={"metric": ev.name, "value": e, "evals": len(ev), "train_metric": tr.name},
        explanation=(
            "A model whose weights change scores at least some samples differently from one "
            f"epoch to the next; {ev.name} and {tr.name} both identical to the last digit mean "
            "the predictions are frozen, most often one class for every input (the metric is "
            "then that class's share). The model is not learning the task."
        ),
        prescription=(
            "Log the loss too; check the predictions' class distribution, then the LR (0, or "
            "far too low / high), the labels, and that the trained parameters are the ones "
            "used for prediction."
        ),
        severity=Severity.WARNING,
    )


def _epochs_repeat(run: Run, p: Params) -> Hit | None:
    """No loss: a metric printed at 2+ points of each epoch (a running average reset
    every epoch) whose in-epoch values, at least two distinct ones, repeat exactly in
    3+ consecutive epochs. The batches come in the same order each pass and the model
    scores each the same way: its predictions, so its weights, do not change."""
    ep = run.get("epoch")
    if ep is None:
        return None
    e = ep.finite()
    epoch_at = dict(zip(e.steps.tolist(), e.values.tolist(), strict=True))
    for s in run.series.values():
        if kind(s.name) != "task":
            continue
        f = s.finite()
        groups: dict[float, list[float]] = {}
        for st, v in zip(f.steps.tolist(), f.values.tolist(), strict=True):
            if st not in epoch_at:
                groups = {}
                break
            groups.setdefault(epoch_at[st], []).append(v)
        seqs = [groups[k] for k in sorted(groups)]
        per = max((len(q) for q in seqs), default=0)
        full = [q for q in seqs if len(q) == per]  # the last epoch may be cut short
        if per < 2 or len(full) < p.repeat_epochs or len(set(full[0])) < 2:
            continue
        if not any(_digits(x) for x in full[0]):
            continue  # 0.98, 0.99 at 2 decimals: a converged model can repeat that by chance
        if any(q != full[0] for q in full) or len(full) < len(seqs) - 1:
            continue
        return Hit(
            title=(
                f"{s.name} repeats the same {per} values ({fmt(full[0][0])} ... "
                f"{fmt(full[0][-1])}) at the same points of each of {len(full)} epochs: the "
                "predictions do not change"
            ),
            step=int(f.steps[0]),
            end_step=int(f.steps[-1]),
            evidence={"metric": s.name, "per_epoch": per, "epochs": len(full)},
            explanation=(
                f"{s.name} is a running average over each epoch's batches; it takes the same "
                "values at the same batches pass after pass, so the model classifies every "
                "batch exactly as it did the epoch before. Weights that change alter some "
                "prediction in an epoch; these did not (most often one class for every input)."
            ),
            prescription=(
                "Log the loss; check the predictions' class distribution, the LR, that the "
                "optimizer steps the model that predicts, and the output layer / loss pairing "
                "(a single-unit logistic output scored by an argmax accuracy never moves)."
            ),
            severity=Severity.WARNING,
        )
    return None


def _frozen_evals(run: Run) -> Hit | None:
    """The eval loss and an eval task metric each identical, to 4+ significant digits, at
    2+ evals logged at different steps: two measures of a held-out set that do not move
    at all while steps are taken mean the weights did not change between the evals.
    With no eval loss, the train loss identical to 4+ digits at its 2+ logs and an eval
    metric repeated at 2+ evals among them say the same."""
    ev = run.get("eval_loss")
    # HF's final evaluate() after load_best_model_at_end scores the best checkpoint
    # again, at the last step: two evals of an HF run can repeat by design
    least = 3 if run.fact("trainer") in ("hf", "llamafactory") else 2
    if ev is None:
        # No eval loss: the train loss frozen to 4+ digits at its 2+ logs carries the
        # digits, and the metric need only repeat (0.5000 is printed as 0.5).
        tr = run.get("loss")
        e = tr.finite() if tr is not None else None
        need_digits = False
    else:
        e, need_digits = ev.finite(), True
    if e is None or len(e) < least or np.ptp(e.values) != 0 or e.steps[0] == e.steps[-1]:
        return None
    if not _digits(e.values[0]):
        return None
    which = "eval loss" if ev is not None else "train loss"
    for m, _ in task_metrics(run):
        v = m.finite()
        if len(v) < 2 or np.ptp(v.values) != 0 or (need_digits and not _digits(v.values[0])):
            continue
        if not need_digits and not (v.steps[0] <= e.steps[-1] and v.steps[-1] >= e.steps[0]):
            continue  # the metric's evals must fall among the frozen train logs
        if v.values[0] in (0.0, 1.0, 100.0):
            continue
        loss, metric = float(e.values[0]), float(v.values[0])
        return Hit(
            title=(
                f"{which} {fmt(loss)} and {m.name} {fmt(metric)} are identical at steps "
                f"{int(e.steps[0])} and {int(e.steps[-1])}: the model did not change between them"
            ),
            step=int(e.steps[0]),
            end_step=int(e.steps[-1]),
            evidence={
                ("eval_loss" if ev is not None else "train_loss"): loss,
                "metric": m.name,
                "value": metric,
                "evals": len(e),
            },
            explanation=(
                f"{int(e.steps[-1] - e.steps[0])} steps passed between two evals that agree to "
                "every printed digit on two measures of the held-out set. Weights that change "
                "move an eval loss in its 4th digit; these did not, so no update reached them "
                "(an LR decayed to ~0, frozen parameters, or a skipped optimizer step)."
            ),
            prescription=(
                "Print the LR with enough digits (it may have decayed to ~0), check that the "
                "optimizer steps and that the trained parameters require grad."
            ),
            severity=Severity.WARNING,
        )
    return None


def _digits(x: float, n: int = 4) -> bool:
    """x printed with n+ significant digits (56.168, 35.9623): no coincidence repeats it."""
    text = f"{x:.10g}".lstrip("-0.").replace(".", "")
    return len(text.rstrip("0")) >= n if "e" not in text else False


def _stuck(s: Series, p: Params) -> bool:
    """Identical at 4+ logs, and not at a metric's ends (1.0 / 100 solved, 0 not started)."""
    return _stuck_values(s.finite().values, p)


def _stuck_after_first(s: Series, p: Params) -> bool:
    """Identical at the 4+ logs after its first, which differs (a train metric's first
    epoch average holds the untrained model's batches); not at a metric's ends."""
    v = s.finite().values
    return v.size > p.frozen_metric_points and _stuck_values(v[1:], p) and v[0] != v[1]


def _stuck_values(v: np.ndarray, p: Params) -> bool:
    return v.size >= p.frozen_metric_points and np.ptp(v) == 0 and v[0] not in (0.0, 1.0, 100.0)


def _same_as_peer(f: Series, peer: dict) -> Hit:
    return Hit(
        title=(
            f"Losses are identical to those of {peer['run']} ({peer['points']} points) although "
            f"its LR is {peer['lr']:g} and this run's {peer['lr_here']:g}: the LR has no effect"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={"same_loss_as": peer["run"], "peer_lr": peer["lr"], "lr": peer["lr_here"]},
        explanation=(
            "Two runs on the same data with different learning rates cannot log the same "
            "losses to the last digit unless the optimizer step changes nothing: the "
            "parameters are not the ones the optimizer holds (re-created model, frozen "
            "requires_grad, optimizer built before the model was replaced), or the step is "
            "never taken."
        ),
        prescription=(
            "Print the parameter norm before and after one optimizer step; check that the "
            "optimizer is built from the model that trains and that requires_grad is set; "
            "count the trainable parameters."
        ),
    )


def _one_class(run: Run) -> Hit | None:
    """The last printed confusion matrix has every prediction in one column."""
    mats = [e for e in run.events if e.kind in ("one-class-predictions", "confusion-matrix")]
    if not mats or mats[-1].kind != "one-class-predictions" or mats[-1].value is None:
        return None
    e = mats[-1]
    share = float(e.value)
    return Hit(
        title=(
            f"the confusion matrix puts every prediction in one class (line {e.line}): the "
            f"model predicts one class for every input, accuracy = its share {fmt(share)}"
        ),
        step=e.step,
        evidence={"one_class_share": share, "line": e.line, "matrix": e.text},
        explanation=(
            "A confusion matrix's columns count the predicted classes; all samples of 2+ "
            "true classes in one column means the model outputs the same class whatever "
            "the input -- it has learned at most the class prior (the majority class), "
            "not the task."
        ),
        prescription=(
            "Check the labels and class balance (weight or resample the classes), the LR "
            "(0, far too low or too high), that the inputs are normalised and reach the "
            "model, and the software environment (a mismatched CUDA / PyTorch build)."
        ),
    )


def _empty_output(run: Run) -> Hit | None:
    """The last ASR scoring line (Kaldi's `%WER x [ errs / words, I ins, D del, S sub ]`)
    has every reference word deleted and none inserted: the decoder emits nothing."""
    scores = [e for e in run.events if e.kind in ("empty-output", "asr-score")]
    if not scores or scores[-1].kind != "empty-output" or scores[-1].value is None:
        return None
    e = scores[-1]
    return Hit(
        title=(
            f"the decode deletes every one of the {int(e.value)} reference words and inserts "
            f"none (line {e.line}): the model outputs nothing for any utterance"
        ),
        step=e.step,
        evidence={"reference_words": int(e.value), "line": e.line, "score": e.text},
        explanation=(
            "A WER breakdown counts the reference words deleted, substituted and inserted; all "
            "of them deleted with no insertion means the hypothesis is empty for every "
            "utterance: the model predicts blank / silence everywhere, the ASR form of "
            "predicting one class. It has learned at most the prior, not the task."
        ),
        prescription=(
            "Decode a few training utterances (empty there too?); check the alignment / "
            "numerator graph and the label (token) mapping, the LR, and the loss curve for a "
            "plateau at the blank / silence solution (a curriculum from short to long "
            "utterances helps a model stuck there)."
        ),
        severity=Severity.WARNING,
    )


def _empty_sample(run: Run, p: Params) -> Hit | None:
    """The last decoded sample the log prints beside its reference is empty (the reference
    is not), at epoch `topk_late_epoch` (10) or later: the model emits nothing (warning)."""
    samples = [e for e in run.events if e.kind in ("empty-prediction", "sample-prediction")]
    if not samples or samples[-1].kind != "empty-prediction":
        return None
    e = samples[-1]
    ep = run.get("epoch")
    if ep is None or not len(f := ep.finite()):
        return None
    upto = f.values if e.step is None else f.values[f.steps <= e.step]
    if not upto.size or float(upto.max()) < p.topk_late_epoch:
        return None  # early on a recogniser's blank plateau prints empty samples
    epoch = float(upto.max())
    return Hit(
        title=(
            f"the decoded sample at epoch {fmt(epoch)} is empty while its reference has "
            f"{int(e.value or 0)} words (line {e.line}): the model outputs nothing"
        ),
        step=e.step,
        evidence={"epoch": epoch, "reference_words": int(e.value or 0), "line": e.line},
        explanation=(
            "A sequence model (speech recogniser, captioner, translator) that learned anything "
            "emits some tokens after 10 passes over its data, right or wrong. An empty "
            "prediction for a non-empty reference that late is the blank / end-of-sequence "
            "token winning at every position: the model has learned at most the prior of "
            "emitting nothing (often a framework or version mismatch in the loss or decoder)."
        ),
        prescription=(
            "Decode a few training samples (empty there too?); check the loss against the "
            "output layer (CTC blank index, the label mapping), the framework versions the "
            "recipe was written for, and the LR."
        ),
        severity=Severity.WARNING,
    )


def _never_finite(run: Run) -> bool:
    """Both the train and the held-out loss are logged and NaN / Inf at every log: from its
    first log on the model computes no number on any data, so what it predicts is fixed
    (the argmax of NaN is one class) and a metric that repeats is that, not a coincidence."""
    both = [run.get("loss"), run.get("eval_loss")]
    return all(s is not None and len(s) and not np.isfinite(s.values).any() for s in both)


def _frozen_while_nonfinite(run: Run, p: Params) -> Hit | None:
    """The held-out loss (the train loss when no eval loss is logged) NaN / Inf at every
    one of its 4+ logs, beside an eval task metric identical at every one of its 4+ evals
    and not at its best value (warning): the evaluated model gives no usable scores and its
    predictions never change, whatever the train loss prints in between. With the train
    loss non-finite at every log as well, 2+ logs and 2+ evals are enough (`_never_finite`)."""
    ev = run.get("eval_loss")
    held = ev if ev is not None else run.get("loss")
    need = p.nonfinite_both_points if _never_finite(run) else p.frozen_metric_points
    if held is None or len(held) < need or np.isfinite(held.values).any():
        return None
    which = "eval loss" if ev is not None else "loss"
    for m, higher in task_metrics(run):
        v = m.finite().values
        if v.size < need or np.ptp(v) != 0:
            continue
        value = float(v[0])
        if value in ((1.0, 100.0) if higher else (0.0,)):
            continue  # solved: a NaN loss beside it is a loss bug, not a model that is stuck
        bad = "NaN" if np.isnan(held.values).all() else "non-finite"
        return Hit(
            title=(
                f"{m.name} is {fmt(value)} at every one of {v.size} evals while the {which} is "
                f"{bad} at every one of its {len(held)} logs: the model's predictions never change"
            ),
            step=int(m.finite().steps[0]),
            end_step=int(m.finite().steps[-1]),
            evidence={
                "metric": m.name,
                "value": value,
                "evals": int(v.size),
                "nonfinite_signal": held.name,
                "nonfinite_logs": len(held),
            },
            explanation=(
                f"The {which} is never a number, so the model being scored outputs no usable "
                f"probabilities; {m.name} identical at every eval says its predictions are the "
                "same each time (one class, an empty or constant output). Whatever the train "
                "loss prints in between, the held-out behaviour shows a model that learned "
                "nothing. The non-finite loss is the cause to fix."
            ),
            prescription=(
                "Find where the first NaN / Inf appears (an fp16 overflow of a model pre-trained "
                "in bf16 such as T5 / mT5, an LR far too high, a log of 0, a CTC target longer "
                "than its input); train in bf16 or fp32, lower the LR, clip gradients, and "
                "confirm the eval loss is finite before judging the metric."
            ),
            severity=Severity.WARNING,
        )
    return None


# Decimals past which a train loss counts as printed at full precision.
_FULL_PRINT = 10


def _eval_loss_frozen(run: Run, loss: Series, p: Params) -> Hit | None:
    """The eval loss identical at every one of its 5+ evals, to 4+ significant digits as
    the log prints them (the train loss's decimals: one logger prints both, Keras'
    `val_loss: 0.2000` reads as 0.2), while the train loss over the same span moves
    `frozen_move` or more: updates change the weights, yet the held-out outputs do not
    (collapsed embeddings, a head that outputs a constant). Warning."""
    ev = run.get("eval_loss")
    e = ev.finite() if ev is not None else None
    if e is None or len(e) < p.lone_frozen_evals or np.ptp(e.values) != 0:
        return None
    value = float(e.values[0])
    if value == 0.0 or e.steps[0] == e.steps[-1]:
        return None
    places = printed_decimals(loss.values, _FULL_PRINT)
    shown = f"{abs(value):.{_FULL_PRINT if places is None else places}f}".replace(".", "")
    if not _digits(value) and len(shown.lstrip("0")) < 4:
        return None  # printed too coarsely for a repeat to mean anything
    inside = (loss.steps >= e.steps[0]) & (loss.steps <= e.steps[-1])
    w = loss.values[inside]
    if w.size < 2 or not w[0] > 0:
        return None
    k = max(1, w.size // 3)
    first, last = float(np.median(w[:k])), float(np.median(w[-k:]))
    move = abs(first - last) / first
    if move < p.frozen_move:
        return None  # the train loss sits still too: an LR at ~0 (others' readings)
    return Hit(
        title=(
            f"eval loss is {fmt(value)} at every one of {len(e)} evals (steps {int(e.steps[0])}-"
            f"{int(e.steps[-1])}) while the train loss moves {fmt(first)} -> {fmt(last)}: the "
            "held-out outputs do not change"
        ),
        step=int(e.steps[0]),
        end_step=int(e.steps[-1]),
        evidence={
            "eval_loss": value,
            "evals": len(e),
            "train_start": first,
            "train_end": last,
            "train_move": move,
        },
        explanation=(
            "An eval loss averages the model's loss over the same held-out samples each time; "
            f"it is identical to every printed digit at all {len(e)} evals although the train "
            f"loss moved {move:.0%} over them, so the updates change the weights but not what "
            "the model outputs on new inputs: the outputs have collapsed to a constant (every "
            "embedding the same, a triplet loss at its margin; a head that predicts one value)."
        ),
        prescription=(
            "Look at the model's outputs on a few held-out samples (all equal?); check the "
            "output layer's activation and initialisation, the normalisation of the inputs at "
            "eval time, and that the evaluated weights are the trained ones."
        ),
        severity=Severity.WARNING,
    )
