"""nonfinite-gradients: NaN or Inf in the logged gradient norm."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Recovered (the last `recovered_points` norms finite) means the bad steps were
    # skipped: a warning, not an error. Rare as well (<= 5% of points: an fp16 scaler
    # calibrating at the start and overflowing after each scale increase skips a few
    # percent of steps by design) with the loss falling: info.
    rare_share: float = 0.05
    recovered_points: int = 5
    # Bad norms only in the first 2 logs (or 2% of them), then finite, with the loss
    # falling after: the scaler's calibration at the start (info).
    start_share: float = 0.02
    # Norms bad to the end while the loss keeps learning: 5+ finite, positive losses
    # after the first bad norm, whose last third sits 5%+ below their first third.
    min_learn_points: int = 5
    learn_drop: float = 0.05
    # Not recovered is an error only on evidence of damage: the norms bad at each of
    # the last 3+ logs (the NaN persists), or a non-finite loss from the first bad norm
    # on. One or two bad norms ending the log, with finite losses, leave it open: the
    # log stops before it could show the weights survived (warning).
    persist_points: int = 3


@rule(
    "nonfinite-gradients",
    minimum="one logged grad norm",
    family="grads",
    severity=Severity.ERROR,
    params=Params(),
    requires=("grad_norm",),
    uses=("loss", "fact:precision"),
    explained_by=("fp16-instability", "grad-explosion", "nonfinite-loss"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """NaN or Inf gradient norm, even when the logged loss looks finite.

    **What it does.** Counts the non-finite values in the logged gradient norm
    and reports the first bad step, the count and the share, and whether the
    loss logged at those steps is finite.

    **Why it matters.** A NaN gradient poisons the weights on the next
    optimizer step (unless a loss scaler skips it). And the loss column can
    hide it: HF Trainer's `logging_nan_inf_filter` (on by default) replaces
    NaN/Inf step losses by the window average, so `trainer_state.json` shows a
    finite loss while `grad_norm` is NaN. The grad norm is the honest signal.

    **Known false positives.** Finite norms after the last bad one prove the
    weights are intact: an optimizer step taken on a NaN gradient writes NaN into
    the weights, and every later norm would be NaN. Something skipped those steps
    (fp16's dynamic loss scaler while it calibrates and after each scale increase,
    DeepSpeed's overflow check, a NaN guard), so a recovered run is a warning, not
    an error. Rare (<= 5% of points, or only the first logs) and with the loss
    falling after, it is info: the skipped steps cost nothing visible. Norms bad to
    the end while a positive loss keeps falling 5%+ over 5+ logs after the first bad
    one is a warning too: NaN weights cannot learn (HF's filter would log 0.0), so
    the norm is misreported or those steps skipped; never a finite norm at all is
    a reporting quirk (info). One or two bad norms that end the log, with finite
    losses, are a warning: the log stops before it could show the damage; an error
    needs the NaN to persist (bad at each of the last 3+ logs) or reach the loss.

    **What to do.** Find the first bad step and the batch at it. Under fp16,
    switch to bf16 (or fp32); lowering the LR only delays the NaN. Otherwise
    lower the LR, keep clipping on, and check the data and the loss for
    log(0) / division by zero.
    """
    gn = run.get("grad_norm")
    assert gn is not None
    bad = ~np.isfinite(gn.values)
    count = int(bad.sum())
    if count == 0:
        return
    steps = gn.steps[bad]
    share = count / len(gn)
    n_nan = int(np.isnan(gn.values).sum())
    after = gn.values[int(np.flatnonzero(bad)[-1]) + 1 :]
    # Finite norms after the last bad one: the bad step was skipped (a NaN in the
    # weights would make every later norm NaN). A short log needs every point after.
    recovered = after.size >= min(p.recovered_points, 1 + len(gn) // 10) and bool(
        np.isfinite(after[-p.recovered_points :]).all()
    )
    fp16 = str(run.fact("precision", "")).lower() == "fp16"
    # Only the first logged norm(s), then finite ones and a falling loss: a loss
    # scaler calibrating (or a NaN guard) skipped those steps; nothing was damaged.
    start_only = recovered and int(np.flatnonzero(bad)[-1]) < max(2, p.start_share * len(gn))
    falling = _loss_falls(run, int(steps[-1]))

    evidence: dict = {
        "first_step": int(steps[0]),
        "last_step": int(steps[-1]),
        "count": count,
        "share": share,
        "nan": n_nan,
        "inf": count - n_nan,
        "recovered": recovered,
        "precision": run.fact("precision"),
    }
    hidden = ""
    loss = run.get("loss")
    if loss is not None:
        at = _isin(loss.steps, steps)
        logged = int(at.sum())
        finite_at = int(np.isfinite(loss.values[at]).sum())
        evidence["loss_logged_at_bad_steps"] = logged
        evidence["loss_finite_at_bad_steps"] = finite_at
        if finite_at:
            hidden = (
                f" The loss logged at {finite_at} of these steps is finite: HF Trainer's "
                "logging_nan_inf_filter (on by default) replaces NaN/Inf losses by the window "
                "average, so the loss column hides the NaN; the grad norm does not."
            )
    # Finite norms after the last bad one prove the bad steps were skipped (a NaN
    # written into the weights makes every later norm NaN): the damage is wasted
    # steps, not broken weights, whatever the precision says.
    severity = Severity.ERROR
    if recovered:
        rare = start_only or share <= p.rare_share
        severity = Severity.INFO if rare and falling else Severity.WARNING
    elif _learns(run, int(steps[0]), p):
        # NaN weights give a NaN loss at every step (HF's filter then logs 0.0): a
        # positive loss that keeps falling after the first bad norm shows the weights
        # are fine and the norm is what is broken: misreported, or those steps skipped.
        # Never a finite norm at all is a reporting quirk (info).
        severity = Severity.INFO if share >= 1.0 else Severity.WARNING
        evidence["loss_learns_after"] = True
    elif _tail_bad(bad) < p.persist_points and not _loss_broken(run, int(steps[0])):
        severity = Severity.WARNING  # too little after the last bad norm to tell
        evidence["undetermined"] = True
    kind = "NaN" if n_nan == count else "Inf" if n_nan == 0 else "NaN/Inf"
    yield Hit(
        title=(
            f"Gradient norm is {kind} at {count} logged step{'s' if count > 1 else ''} "
            f"({share:.1%}), first at step {steps[0]}"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence=evidence,
        explanation=(
            "A non-finite gradient norm means at least one gradient overflowed or became NaN; "
            "an optimizer step taken on it writes NaN into the weights."
            + (
                " Here every norm after the last bad one is finite, so those steps were "
                "skipped (a loss scaler or an overflow check) and the weights are intact"
                + (
                    "; they are rare and the loss keeps falling."
                    if severity == Severity.INFO
                    else ", but each skipped step is lost work."
                )
                if recovered
                else " Yet the loss keeps falling after the first bad norm, which NaN weights "
                "cannot do: the norm is misreported (a known quirk of some DeepSpeed/FSDP "
                "setups) or those steps were skipped."
                if evidence.get("loss_learns_after")
                else " The log ends one or two logs after the last bad norm, with finite "
                "losses: too soon to show whether the weights survived it."
                if evidence.get("undetermined")
                else " The log ends without the finite norms after the last bad one that would "
                "show the weights survived it."
            )
            + hidden
        ),
        prescription=(
            "Switch to bf16 (or fp32): under fp16 lowering the LR only delays the NaN. "
            if fp16
            else ""
        )
        + (
            f"Inspect the batch and the loss at step {steps[0]} (log(0), division by zero, "
            "bad labels); keep clipping on (max_grad_norm=1.0) and lower the LR if the grad "
            "norm was climbing before it."
        ),
        severity=severity,
    )


def _tail_bad(bad: np.ndarray) -> int:
    """How many logs at the end of the log are bad, in a row."""
    good = np.flatnonzero(~bad)
    return int(bad.size - 1 - good[-1]) if good.size else int(bad.size)


def _loss_broken(run: Run, since: int) -> bool:
    """A non-finite loss logged at or after `since`: the NaN reached the forward pass."""
    loss = run.get("loss")
    if loss is None:
        return False
    v = loss.values[loss.steps >= since]
    return bool(v.size) and not bool(np.isfinite(v).all())


def _learns(run: Run, since: int, p: Params) -> bool:
    """The finite loss logged from `since` on, positive at every point, falls by `learn_drop` or more
    (last third against first third, by medians) over `min_learn_points`+ points."""
    loss = run.get("loss")
    if loss is None:
        return False
    f = loss.finite()
    v = f.values[f.steps >= since]
    if v.size < p.min_learn_points:
        return False
    k = max(1, v.size // 3)
    head, tail = float(np.median(v[:k])), float(np.median(v[-k:]))
    # a 0.0 among them is HF's filter standing in for NaN losses, not learning
    return bool((v > 0).all()) and tail <= (1 - p.learn_drop) * head


def _loss_falls(run: Run, after_step: int) -> bool:
    """The finite loss after `after_step` ends below where it was at that step."""
    loss = run.get("loss")
    if loss is None:
        return False
    f = loss.finite()
    v = f.values[f.steps >= after_step]
    return v.size >= 2 and float(v[-1]) < float(v[0])


def _isin(a: np.ndarray, b: np.ndarray, part: int = 1 << 20) -> np.ndarray:
    """np.isin(a, b) a part of `a` at a time: on a long loss its temporaries (an int64
    copy of a, a table or a sort) are several times the loss."""
    out = np.empty(a.size, bool)
    for i in range(0, a.size, part):
        out[i : i + part] = np.isin(a[i : i + part], b)
    return out
