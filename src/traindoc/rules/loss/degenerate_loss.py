"""degenerate-loss: loss exactly 0, or one value repeated exactly, for many logs."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.losses import components, nonfinite_loss
from traindoc.measure.stats import mad, printed_decimals, quantum
from traindoc.model import Run, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._evalcurve import task_metrics


@dataclass(frozen=True)
class Params:
    # Consecutive exact zeros that are not a rounding accident ...
    min_zero_run: int = 3
    # ... or fewer when they start or end the log: that is the run's state, not a blip.
    min_edge_zero_run: int = 2
    # One zero is enough when it is the log's last value and the loss just before was
    # at least this: 0.1 -> < 5e-5 in one logged interval is no descent a model makes
    # (a paste that ends "1.7328, then 0.0"), so it is the state the run is in now.
    sudden_from: float = 0.1
    # ... or when an eval task metric ends under half its scale: the model solves
    # nothing, so its training loss cannot be 0 (spaCy's `ner_loss 0.000`, NER F 10.3).
    unsolved_share: float = 0.5
    # "Zero" is anything a 4-decimal logger prints as 0.0000.
    zero_below: float = 5e-5
    # Level before the zeros under which 0 is convergence (memorised set, rounding
    # to 4 decimals), not a bug: info only.
    converged_level: float = 0.01
    # Consecutive identical values at full precision: a real loss differs between
    # batches in its last digits, so 5 in a row is not chance.
    min_repeat_fine: int = 5
    # ... and for values on a coarse grid (bf16, 4 decimals) where chance repeats happen.
    min_repeat_coarse: int = 10
    # A short log that is one value at EVERY point (3+), printed to 1e-3 of itself or
    # finer (7.9712 at each of 4 epochs): the chance that a model whose weights change
    # logs it is (resolution / noise) per repeat, so the whole log says it is frozen.
    min_repeat_whole: int = 3
    # A grid step this small relative to the value still shows batch-to-batch noise
    # (4 decimals at a loss of 1.1 is 1e-4 relative).
    informative_rel_resolution: float = 1e-3
    # A decimal grid this fine relative to the value is full precision for a repeat
    # (2129.3452: 4 decimals at 2129 is 5e-8, float32's own precision is 6e-8): no batch
    # noise or converging curve repeats at that resolution, so `min_repeat_fine` holds.
    full_rel_resolution: float = 1e-6
    # On a coarser grid, the logs around the repeat (this many on each side) must vary
    # by this many grid steps for a repeat to mean something.
    noise_over_resolution: float = 4.0
    neighbourhood: int = 10
    # Error when the repeat is this long; shorter is a warning.
    error_run: int = 10
    # HF Trainer <= 4.57 rounds logged losses to 4 decimals.
    hf_decimals: int = 4
    # A detector's box-regression terms (iou / giou / box / bbox / dfl / reg) exactly 0
    # at every one of 3+ logs while another term is not: the box losses are computed on
    # matched (positive) anchors only, so no ground-truth box was ever matched.
    box_zero_logs: int = 3
    # A loss term (loss_cls, ...) printed to 1e-3 of itself or finer, the same non-zero value
    # at every one of its 2+ logs (distinct steps) while another term of those same logs
    # moves: the other term proves each log averages different batches, and a data-dependent
    # term repeats to 4 significant digits over different batches only by a ~1e-3 chance.
    frozen_term_logs: int = 2


@rule(
    "degenerate-loss",
    minimum=(
        "3 logged losses (0, or identical at every one of them); 5-10 for a repeat inside a "
        "log; 2 when the last is 0 right after a loss of 0.1 or more; 1 beside an eval "
        "metric under half its scale; 3 logs of a detector's box terms at exactly 0 (1 from a "
        "window-mean logger: mmengine, detectron2); 2 logs "
        "of a loss term identical to 4 digits while another term moves"
    ),
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss",),
    explained_by=(
        "uniform-plateau",
        "schedule-not-applied",
        "no-trainable-parameters",
        "fp16-instability",
        # exact zeros right after an overflow: the scaler skipping NaN steps
        "nonfinite-gradients",
        "nonfinite-loss",
        "grad-explosion",
        # a loss at 0 after a smooth fall: the model memorised a set of few distinct rows
        "duplicate-samples",
        "dataset-too-small",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Loss exactly 0, or one value repeated exactly: a logging, masking or overflow bug.

    **What it does.** Finds the longest stretch of consecutive logged losses that are
    exactly 0 (>= 3, or >= 2 that start or end the log: a pasted excerpt whose loss
    is 0 now; 1 when it is the last log and the loss before it was >= 0.1, a drop
    no descent makes in one interval, or when an eval task metric ends under half its
    scale, which a loss of 0 cannot fit: warning) or exactly equal to each other (>= 5 at
    full precision, a decimal grid under 1e-6 of the value included: 2129.3452 printed to
    4 decimals is known to 5e-8, finer than any batch noise; >= 10 on a coarse grid such as bf16 or 4-decimal rounding, where the logs around it
    must vary by >= 4 grid steps for the repeat to mean anything; the decimal grid is the
    one the logger prints, read off the series: values that never show a 4th decimal are
    on a 3-decimal grid (Lightning's progress bar prints `loss=0.158`), so 0.158 is known
    to 0.6%, not to 0.06%; 3 when the value is
    the whole log, or every log after a first one at step 0 (the model before any
    update, so the rest is the whole trained run), printed to 1e-3 of itself or
    finer: 1.0097 at each of 3 epochs; 92.10 at iteration 0, then 122.271 at each of
    the 3 logs after it; a first log later than step 0 may be an epoch mean that
    holds the first descent, so it is not discounted). A repeated bf16
    value at ln(V) (the exploded-head run's 10.8125) is `uniform-plateau`'s, not this rule's.
    Zeros reached gradually from under 0.01 are convergence (info). Values under
    5e-5 count as zeros (a 4-decimal logger prints them as 0.0000), except when every
    log is under it, none is 0 and 3+ differ: a logger printing 1.9500e-05, 1.8771e-05
    resolves that scale, so it is a small-scale loss (a pose model's heatmap MSE), not 0.

    A detector's box-regression terms (`iou_loss`, `dfl_loss`, `loss_bbox`, ...) exactly
    0 at every one of 3+ logs while another term (the classification loss) is not are
    the same failure seen in a part (one log is enough from a trainer whose every log is a
    window of iterations, mmengine's interval mean or detectron2's 20-iteration median: an
    mmdet Faster R-CNN line with `loss_rpn_bbox: 0.0000, loss_bbox: 0.0000` beside
    `loss_cls: 0.0097, acc: 99.79`): box losses are computed on the anchors matched to
    a ground-truth box, so none was ever matched (labels missing, in the wrong format
    or out of the image), and the model learns to predict background everywhere. A box
    term at exactly 0 beside another box term that is not 0 is no such failure: the live
    box term proves boxes were matched, so the zero one is a term the framework has
    switched off. YOLOX adds its L1 box loss only in the last `no_aug_epochs` (15), when
    the trainer turns mosaic off and sets `head.use_l1`; until then every line logs
    `l1_loss: 0.0` beside a moving `iou_loss`, `conf_loss` and `cls_loss`.

    A loss term (`loss_cls`, `box_loss`, ...; not a regulariser: weight decay, an L2 or KL
    term, which depends on the weights only) that prints the same non-zero value, to 1e-3
    of itself or finer, at every one of its 2+ logs while another term of the same logs
    moves, is frozen (warning): the moving term shows each log averages different batches,
    and a term computed from the data repeats to 4 significant digits over different
    batches only by chance (about 1 in 1000 per repeat at 1% window noise). The head it
    scores outputs the same thing for every input (mmdet on COCO: `loss_cls: 4.5210` at
    iterations 50 and 100 while `loss_rpn_cls` moves 0.5645 -> 0.5604). A stale progress
    bar repeats every term at once, so it is no such log; nor is a run whose loss went NaN
    (a term stuck at 3e7 beside NaN warnings is an overflowed number, `nonfinite-loss`'s).

    **Why it matters.** Different batches give different losses. Exact zeros after
    a normal loss are a masking bug (every label ignored) or fp16 overflow (0.0 right
    after NaNs, or from one log to the next with no NaN printed: LoRA and VL fine-tunes in
    fp16 on V100s, gone in bf16); an identical value across many batches means the output no longer
    depends on the input, or nothing is being updated (LR 0, frozen model).

    **Known false positives.** RL trainers (GRPO/PPO, fact task=rl or a reward
    series) legitimately log a loss of 0 and are skipped. HF Trainer <= 4.57 rounds
    to 4 decimals and bf16 has 8 significant bits: chance repeats on those grids are
    discounted (a 4-decimal value read back from TensorBoard's float32, 0.0005 as
    0.0005000000237, is on that grid: a fine-tune's train loss that fell smoothly to
    0.0005 and repeats it is memorisation at the printed precision, not a frozen model). A progress bar re-prints the last values the trainer set on every
    refresh, and Lightning's bar (before 2.0) also runs through the validation batches
    with the training loss frozen: 14 refreshes of one bar at `loss=0.158` (3 decimals,
    nothing logged around them) are one stale value shown 14 times, not 14 batches
    (a pasted Lightning issue log, "Unusual printing statements after 90% epoch").
    A model card's Training Loss column carries the last logged loss over every eval
    until the next log (3.2831 at epochs 5-8 of an mT5 card that logged it once); the
    reader takes such a run of equal cells as the one log it is, so it is no repeat here.

    **What to do.** For zeros: check the label mask (are all labels -100?), and for
    NaNs just before, switch fp16 -> bf16. For repeats: check the LR column (0?), the
    trainable-parameter count and that the batches actually change.
    """
    loss = run.get("loss")
    assert loss is not None
    if run.is_rl:
        return
    if (hit := _no_matched_boxes(run, p) or _frozen_term(run, p)) is not None:
        yield hit
        return
    f = loss.finite()
    y, steps = f.values, f.steps
    n = y.size
    if n < p.min_edge_zero_run and not (n == 1 and _task_unsolved(run, p)):
        return  # (one log of 0 beside a held-out score far from solved still counts)
    # Zero at 4-decimal print precision: a cross-entropy of 1.8e-6 right after 12.18
    # (perplexity 1.0) is as impossible as an exact 0.
    zeros_at = np.abs(y) < p.zero_below
    # ... unless every log lies under it, none is 0 and they differ (1.9500e-05,
    # 1.8771e-05, ...: scientific notation): the logger resolves that scale, so these
    # are the values of a small-scale loss (an MSE on normalised targets), not zeros.
    resolved = bool(zeros_at.all()) and not bool((y == 0).any()) and np.unique(y).size >= 3
    if zeros_at.any() and not resolved:  # else y as it is: no copy of a long loss
        y = np.where(zeros_at, 0.0, y)
    del zeros_at
    starts = np.flatnonzero(np.r_[True, y[1:] != y[:-1]])
    lengths = np.empty_like(starts)  # np.diff(np.r_[starts, n]) without the joined copy
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1] = n - starts[-1]
    # A zero stretch counts when long, or when it is where the log starts or ends
    # (a short paste whose loss *is* 0 now: 12.18, 0.0, 0.0): the first and last.
    edge = np.zeros(starts.size, bool)
    edge[[0, -1]] = True
    zero = (y == 0)[starts] & (
        (lengths >= p.min_zero_run) | (edge & (lengths >= p.min_edge_zero_run))
    )
    # a last log at 0 right after a sane loss (one zero, the state the paste ends in),
    # or beside a held-out score far from solved (a loss of 0 fits nothing then)
    sudden = bool(y[-1] == 0 and lengths[-1] == 1 and n >= 2 and y[-2] >= p.sudden_from)
    zero[-1] |= sudden or bool(y[-1] == 0 and _task_unsolved(run, p))
    if zero.any():
        i = int(np.flatnonzero(zero)[np.argmax(lengths[zero])])
        hit = _zeros(run, f.steps, y, int(starts[i]), int(lengths[i]), p)
        if lengths[i] == 1:  # one log: the run's state now, not yet a stretch of them
            hit = replace(hit, severity=min(hit.severity, Severity.WARNING))
        yield hit
        return
    # the whole log, or every log after a first one at step 0 (the untrained model,
    # before any update: Caffe's "Iteration 0, loss = ..."), i.e. the whole trained run
    tail = int(lengths[-1])
    whole = (int(lengths.max()) == n and n >= p.min_repeat_whole) or (
        tail == n - 1 and tail >= p.min_repeat_whole and float(steps[0]) <= 0
    )
    if int(lengths.max()) < p.min_repeat_fine and not whole:
        return  # the longest repeat is too short: the loop below would stop at once
    dtype = str(run.fact("loss_dtype") or "").lower()
    # the decimals the logger prints (Lightning's bar: 3), read off the whole series
    places = printed_decimals(y, p.hf_decimals)
    np.negative(lengths, out=lengths)  # argsort(-lengths) without a copy of them
    order = np.argsort(lengths)
    np.negative(lengths, out=lengths)
    for i in order[:5]:
        s, length = int(starts[i]), int(lengths[i])
        if length < p.min_repeat_fine and not whole:
            return
        v = float(y[s])
        if v == 0:
            continue
        # (a value read back from float32 storage is on the grid the series' other values
        # show; a whole log of one value shows none, and one exact value at every batch is
        # frozen at any precision: 0.300000011921 at each of 8 batches)
        grid = _grid(v, dtype, p, places, f32=not whole)
        if grid and grid <= p.full_rel_resolution * abs(v):
            grid = None  # 4 decimals at 2129.3452: the grid resolves 5e-8 of the value
        bf16_grid = dtype in ("bf16", "fp16") or bool(fl.on_bf16_grid(np.array([v]))[0])
        if bf16_grid and _at_floor(run, v):
            continue  # the exploded-head run's 10.8125, ln(V) quantised: uniform-plateau's finding
        if grid:
            rel = grid / abs(v)
            # the noise around the repeat, not of the whole run: a converged tail at
            # 0.0002 on a 4-decimal grid repeats although the early loss was noisy
            w = p.neighbourhood
            outside = np.r_[y[max(0, s - w) : s], y[s + length : s + length + w]]
            sigma = mad(np.diff(outside)) / math.sqrt(2) if outside.size > 3 else 0.0
            # A fine grid (4 decimals at 0.23) resolves batch noise, unless the logs around
            # the repeat move by under `noise_over_resolution` grid steps themselves: then
            # the curve crept into the value (epoch means of a converged fit, 0.2281,
            # 0.2280, then 0.2279 for 61 epochs while val_loss still moves) and the repeat
            # is its convergence at the printed precision, not a frozen model.
            step = float(np.median(np.abs(np.diff(outside)))) if outside.size > 3 else 0.0
            loud = max(sigma, step) >= p.noise_over_resolution * grid
            informative = loud if outside.size > 3 else rel <= p.informative_rel_resolution
            # its own printed digits bound the grid too: 0.7 says nothing past 0.1
            fine = whole and max(rel, _printed(v) / abs(v)) <= p.informative_rel_resolution
            if not informative or (length < p.min_repeat_coarse and not fine):
                continue
        end = int(steps[s + length - 1])
        yield Hit(
            title=(
                f"Loss is exactly {v!r} for {length} consecutive logs (steps {int(steps[s])}-{end})"
            ),
            step=int(steps[s]),
            end_step=end,
            evidence={
                "kind": "repeat",
                "value": v,
                "count": length,
                "fraction_of_run": length / n,
                "resolution": grid or 0.0,
            },
            explanation=(
                "Different batches give different losses; the same value to the last "
                "logged digit across many logs means the model's output no longer "
                "depends on its input, or nothing is being updated (LR 0, frozen "
                "parameters), or the logger repeats a stale value."
            ),
            prescription=(
                "Check the logged LR (0 or never scheduled?), the trainable-parameter "
                "count and grad norm (0?), and that the data loader yields different "
                "batches; check the logging code is not re-reporting a cached value."
            ),
            severity=Severity.ERROR if length >= p.error_run else Severity.WARNING,
        )
        return


def _grid(
    v: float, dtype: str, p: Params, places: int | None = None, f32: bool = False
) -> float | None:
    """The grid step a logged value sits on, or None when it looks full precision.

    A value on the 4-decimal grid is on the grid its logger prints (`places`, the most
    decimals any value of the series shows): 0.158 from a bar that prints 3 decimals
    is known to 1e-3, not 1e-4."""
    if dtype in ("bf16", "fp16") or (dtype != "fp32" and bool(fl.on_bf16_grid(np.array([v]))[0])):
        return quantum(v, dtype if dtype in ("bf16", "fp16") else "bf16")
    # (stored as float32 by TensorBoard / W&B: 0.0005 reads back as 0.0005000000237)
    r = round(v, p.hf_decimals)
    if r == v or (f32 and np.float32(r) == np.float32(v)):
        return 10.0 ** -(p.hf_decimals if places is None else min(places, p.hf_decimals))
    return None


def _printed(v: float) -> float:
    """The last printed digit's place in the shortest repr of `v` (0.7 -> 0.1)."""
    text = repr(float(v))
    if "e" in text or "." not in text:
        return 0.0
    return 10.0 ** -len(text.split(".")[1])


def _at_floor(run: Run, v: float) -> bool:
    floor = fl.known(run) or fl.infer(v, 0.0, run)
    if floor is None:
        return False
    lo, hi = fl.band(run, floor.value)
    return lo <= v <= hi


def _task_unsolved(run: Run, p: Params) -> bool:
    """An eval task metric (higher is better) ends under half its scale (F1 10.3 of 100):
    a training loss of exactly 0 then fits nothing; it is a loss that was never computed."""
    for m, higher in task_metrics(run):
        v = m.finite().values
        if higher and v.size:
            scale = 100.0 if float(v.max()) > 1.0 else 1.0
            if float(v[-1]) < p.unsolved_share * scale:
                return True
    return False


def _zeros(run: Run, steps: np.ndarray, y: np.ndarray, s: int, length: int, p: Params) -> Hit:
    raw = run.get("loss")
    exact = raw is None or not bool(((raw.values != 0) & (np.abs(raw.values) < p.zero_below)).any())
    end = int(steps[s + length - 1])
    before = y[max(0, s - 5) : s]
    pre = float(np.median(before)) if before.size else math.nan
    raw = run.get("loss")
    nan_before = False
    if raw is not None and s > 0:
        win = (raw.steps >= steps[max(0, s - 5)]) & (raw.steps < steps[s])
        nan_before = bool((~np.isfinite(raw.values[win])).any())
    # converged: the loss was already near 0 before the zeros (the median of the 5 logs
    # before; or, in a sparse log still descending into them, the lowest and last one:
    # 0.098 -> 0.0028 -> 0.0 is a descent, not a switch)
    near = before.size > 0 and (
        pre <= p.converged_level or (before[-1] <= p.converged_level and before[-1] == before.min())
    )
    converged = near and not nan_before
    if converged:
        why = (
            "The loss decreased smoothly to 0: the model memorised the training set (or "
            "the task is trivial). Not a bug, but check eval loss for overfitting and "
            "the data for label leakage."
        )
    else:
        why = (
            "A cross-entropy of exactly 0 over many batches is not learning: every label "
            "masked out (all -100), a loss that skips the batch, or fp16 overflow "
            "(zeros right after NaNs, or a normal loss that reads 0 from one log to the next: "
            "fine-tunes on V100s, which lack bf16, show it in fp16 and not in bf16) produce it."
        )
    return Hit(
        title=(
            f"Loss is {'exactly 0' if exact else '0 to 4 decimals'} "
            + (
                (
                    f"at its only log (step {end})"
                    if y.size == 1
                    else f"at the last log (step {end})"
                )
                if length == 1
                else f"for {length} consecutive logs (steps {int(steps[s])}-{end})"
            )
            + (f", after {pre:.4g}" if before.size else ", from the first log")
        ),
        step=int(steps[s]),
        end_step=end,
        evidence={
            "kind": "zero",
            "count": length,
            "level_before": pre if before.size else None,
            "nan_before": nan_before,
            "fraction_of_run": length / y.size,
        },
        explanation=why,
        prescription=(
            "Check the label mask of a batch from that step (are all labels -100? is the "
            "completion truncated away?); "
            + (
                f"if NaNs precede the zeros or the loss fell to 0 within one log, {prec}; "
                if (prec := advice.precision(run))
                else ""
            )
            + "if the model memorised the set, stop earlier or add data."
        ),
        severity=Severity.INFO if converged else Severity.ERROR,
    )


_BOX_TERM = re.compile(r"(^|[_/])(iou|giou|ciou|box|bbox|dfl|reg|box_reg|l1)([_/]|$)", re.I)


# Trainers whose every logged loss is a mean (mmengine's LoggerHook: over its interval, 50
# iterations by default) or a median (detectron2: over a 20-iteration window) of many
# iterations: one log of a box term at exactly 0 is a whole window without a matched box.
_WINDOW_LOGGERS = frozenset({"mmengine", "detectron2"})


def _no_matched_boxes(run: Run, p: Params) -> Hit | None:
    """A detector whose box-regression terms are exactly 0 at every log while another
    loss term is not: no anchor was matched to a ground-truth box (warning). A box term
    that is not 0 means boxes were matched: a zero one beside it is switched off (YOLOX's
    l1_loss before its last no-augmentation epochs), not unmatched."""
    if run.fact("task") != "detection":
        return None
    names = components(run)
    # a window-mean logger's one log already covers its whole interval of iterations
    need = 1 if run.fact("trainer") in _WINDOW_LOGGERS else p.box_zero_logs
    zero, live, live_box = [], [], []
    for name in names:
        v = run.get(name).finite().values  # type: ignore[union-attr]
        if v.size < need:
            continue
        box = bool(_BOX_TERM.search(name))
        if box and bool(np.all(v == 0.0)):
            zero.append(name)
        elif bool(np.any(v != 0.0)):
            live.append(name)
            if box:
                live_box.append(name)
    if not zero or not live or live_box:
        return None
    s = run.get(zero[0])
    assert s is not None
    return Hit(
        title=(
            f"{', '.join(zero)} exactly 0 at "
            + (
                f"every one of {len(s)} logs"
                if len(s) > 1
                else "its one log (a window of iterations)"
            )
            + f" while {live[0]} is not: "
            "no prediction was matched to a ground-truth box"
        ),
        step=int(s.steps[0]),
        end_step=int(s.steps[-1]),
        evidence={"kind": "box-terms-zero", "zero_terms": zero, "live_terms": live, "logs": len(s)},
        explanation=(
            "A detector computes its box-regression losses only on the anchors (or queries) "
            "matched to a ground-truth box. Exactly 0 at every log means none was ever "
            "matched: the images reach the model without their boxes, so it can only learn "
            "to call everything background (the classification loss falls, mAP stays 0)."
        ),
        prescription=(
            "Check that the label files are found and parsed (one .txt per image, the path "
            "the loader derives from the image path), their format (class x_center y_center "
            "w h, normalised to 0-1 for YOLO), the class ids against the configured number of "
            "classes, and a few images with their boxes drawn."
        ),
        severity=Severity.WARNING,
    )


# a regulariser depends on the weights only (weight decay, L2, a KL to a prior): between two
# close logs it may repeat to 4 digits in a model that learns
_REGULARISER = re.compile(
    r"reg(?:ulari[sz]|$|[_/])|(?:^|[_/])(?:l2|wd|kl)(?:$|[_/])|decay|weight|norm|prior"
)


def _frozen_term(run: Run, p: Params) -> Hit | None:
    """A loss term identical (non-zero, printed to 1e-3 of itself or finer) at every one of
    its 2+ logs while another term of those logs moves (warning): the term's output does not
    depend on the batch."""
    if nonfinite_loss(run) is not None or any(e.kind == "nonfinite-loss" for e in run.events):
        return None  # a value stuck after an overflow to NaN: nonfinite-loss's finding
    terms = {n: s.finite() for n in components(run) if (s := run.get(n)) is not None}
    for name, s in terms.items():
        v = s.values
        if v.size < p.frozen_term_logs or _REGULARISER.search(name.lower()):
            continue
        if np.unique(s.steps).size != v.size or not bool(np.all(v == v[0])) or v[0] == 0:
            continue
        if _printed(float(v[0])) / abs(float(v[0])) > p.informative_rel_resolution:
            continue  # 0.45 repeats by chance
        dtype = str(run.fact("loss_dtype") or "").lower()
        if dtype in ("bf16", "fp16") or bool(fl.on_bf16_grid(np.array([float(v[0])]))[0]):
            continue  # a coarse float grid repeats by chance
        moving = [
            o
            for o, t in terms.items()
            if o != name and np.unique(t.values[np.isin(t.steps, s.steps)]).size >= 2
        ]
        if not moving:
            continue  # nothing shows the logs hold different batches (a stale bar)
        return Hit(
            title=(
                f"{name} is exactly {float(v[0])!r} at every one of its {v.size} logs "
                f"(steps {int(s.steps[0])}-{int(s.steps[-1])}) while {moving[0]} moves: that "
                "term does not depend on the batch"
            ),
            step=int(s.steps[0]),
            end_step=int(s.steps[-1]),
            evidence={
                "kind": "frozen-term",
                "term": name,
                "value": float(v[0]),
                "count": int(v.size),
                "moving_terms": moving,
            },
            explanation=(
                "Each log averages different batches (the other terms move), yet this term "
                "prints the same value to its last digit every time. A loss computed from the "
                "data differs between batches in those digits; one that does not means the head "
                "it scores gives the same output for every input (a collapsed or dead head, "
                "labels that never reach it), so that part of the model is not learning."
            ),
            prescription=(
                "Check the labels this term is computed from (class ids against the configured "
                "number of classes, an empty or all-ignored target), that the head is trainable "
                "and receives gradients, and the LR; decode a few of its predictions."
            ),
            severity=Severity.WARNING,
        )
    return None
