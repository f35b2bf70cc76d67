"""fp16-instability: an fp16 run that overflows (NaN/Inf, loss-scale collapse, huge gradients)."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.numerics._common import (
    PER_LOG_SKIP_KEYS,
    SCALE_KEYS,
    SKIP_KEYS,
    Params,
    fp16_symptoms,
    is_fp16,
    walkdown_alone,
)


@rule(
    "fp16-instability",
    minimum="fp16 known (precision, a loss-scale series or overflow lines) and a loss or grad norm",
    family="numerics",
    severity=Severity.ERROR,
    params=Params(),
    requires=(
        "fact:precision|" + "|".join(SCALE_KEYS) + "|event:fp16-overflow|event:skipped-update",
    ),
    uses=("loss", "grad_norm", *SCALE_KEYS, *SKIP_KEYS, *PER_LOG_SKIP_KEYS, "fact:skipped_steps"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """fp16 training with NaNs, overflow or huge gradients: use bf16 or fp32.

    **What it does.** When the run's precision is fp16 (by its config, or, when the
    config is silent, because it logs a dynamic loss scale or scaler overflow
    messages, which only fp16 training has), looks for the
    signatures of overflow (a console's overflow lines give the scale they cut to,
    PaddlePaddle's "Found inf or nan, current scale is: S, decrease to: S*0.5" as
    the product S*0.5, so a scale halved at overflow after overflow reads as the
    collapse it is): NaN/Inf losses; NaN/Inf gradient norms beyond the
    loss scaler's occasional calibration overflow (> 1% of points, or still
    there at the end); a dynamic loss scale that collapses (to 1, "loss scale
    already at minimum", or by 2^12 from its peak; in a short excerpt, any logged
    scale of 1 or less); more than max(20, 1% of
    steps) skipped optimizer steps ("Gradient overflow. Skipping step", counted
    from a skipped-steps series or, in a console log, from the overflow messages
    themselves; a "loss scale already at minimum" line counts by itself, and so
    do overflow messages at 4+ consecutive steps past step 20: after calibrating,
    a scaler skips a step now and then, not one after another); and
    huge gradients (grad-norm spikes >= 10x that the loss followed, or a 10x
    rising grad norm); and an overflow past the calibration that the loss and grad norm
    both leap after (at the next log, the loss 1.2x the highest of the 3 logged before
    it and the grad norm 3x their median: fairseq's "overflow detected, setting loss
    scale to: 32.0", then loss 8.2 -> 10.5 and gnorm 1.5 -> 6.1): a scaler's periodic
    probe overflow skips one step and changes no weight, so the next log looks like the
    ones before; both leaping with it is the gradients growing past fp16's range.
    Alone, that is a warning: one leap is where a blow-up starts or a bad batch the run
    shrugs off, and the logs after it decide. Also the opposite end of fp16's range, underflow: a loss that
    reads exactly 0 at its last 2+ logs (after a non-zero one) while every accuracy
    logged beside it stays under half - a loss of 0 means every answer right, so it
    flushed to 0 (Keras `floatx float16`, pure-fp16 weights without a loss scaler) and
    no gradient reaches the weights.

    **Why it matters.** fp16 is the most common cause of NaN in training: its
    range ends at 65504, and activations or gradients beyond that overflow.
    Models pre-trained in bf16 (LLaMA, T5, Gemma, ...) are known to produce
    such values. Lowering the LR only delays the NaN: intermittent NaNs or huge
    gradients under fp16 call for bf16 (or fp32).

    **Known false positives.** A handful of overflows while the loss scaler
    calibrates at the start is normal and not flagged; so is a longer calibration
    walk-down from a deliberately high initial scale (DeepSpeed's initial_scale_power
    32: 2^32 halved at each of the first ~22 steps to 1024), when it starts with
    training, stops above the floor and 3+ logged losses follow it with the scale
    never cut below where it stopped: its halvings are not counted, and a collapse is
    measured from where the scaler settled, not from the probe it started at. A
    walk-down to the floor (1), one mid-run, or one the log ends in is still judged.
    When a walk-down from the scaler's start (each logged scale a halving or more below
    the one before, none regrown, the first at 2^15 or above) is the only symptom and no loss is logged at all, the
    finding is a warning, not an error: a console that prints only the scaler's
    messages shows the same 18 halvings to 0.25 for a summed-MSE fit that then trains
    5000 clean iterations (apex O1, its final loss matching fp32) as for a run whose
    scale goes on to 0; what follows the walk-down decides, and the log has none of it.
    Where the console does go on past the last halving - 3+ lines that print a value,
    with no gap marker, no closing fence and no error or NaN among them (that apex fit
    printing its results) - the halvings stopped and the program went on: that is the
    calibration, and nothing is reported.

    **What to do.** Switch to bf16 (`bf16=True`) on GPUs that support it
    (Ampere or newer: A100, H100, RTX 30xx/40xx; TPUs); on older GPUs without
    bf16 (V100, T4, RTX 20xx) use fp32, or keep fp16 with the model's
    overflowing parts (e.g. attention softmax, layer norms) in fp32.
    """
    if not is_fp16(run):
        return
    found = fp16_symptoms(run, p)
    if not found:
        return
    steps = [s.step for s in found if s.step is not None]
    first = min(steps) if steps else None
    base = run.fact("base_model")
    bf16_native = isinstance(base, str) and any(
        k in base.lower() for k in ("llama", "t5", "gemma", "mistral", "qwen", "falcon", "bloom")
    )
    kind = "underflow" if all(s.what == "loss-underflow" for s in found) else "overflow"
    # severity follows what the log shows of the harm: a walk-down from the scaler's start
    # with nothing logged after it is calibration or collapse, and only what follows says
    unsure = walkdown_alone(run, found, p)
    # one overflow the loss leapt after is where a blow-up starts, or a bad batch the
    # run shrugs off: the log past that next point decides
    leap = [s.what for s in found] == ["overflow-blowup"]
    yield Hit(
        severity=Severity.WARNING if unsure or leap else None,
        title=(
            f"fp16 run shows {kind}: "
            + "; ".join(s.detail for s in found)
            + (f" (from step {first})" if first is not None else "")
        ),
        step=first,
        evidence={
            "precision": "fp16",
            "symptoms": [s.what for s in found],
            "details": [s.detail for s in found],
            "first_step": first,
            "base_model": base,
            "base_model_bf16_pretrained": bf16_native if base else None,
            "walkdown_only": unsure,
        },
        explanation=(
            "fp16 can only represent magnitudes up to 65504 and has few exponent bits; "
            "activations or gradients beyond that overflow to Inf and then NaN. Dynamic loss "
            "scaling skips such steps, but when overflow is frequent the scale collapses and "
            "the NaNs reach the loss and the weights."
            + (
                f" {base} was pre-trained in bf16, and such models are known to overflow in fp16."
                if bf16_native
                else ""
            )
            + (
                " All the log shows is the scaler halving from where it starts, once per "
                "overflow, with no loss logged: that is also how a scaler calibrates at the "
                "start (a loss summed over many items can settle it below 1). It is a collapse "
                "when the overflow messages go on, or the loss turns NaN or stops falling."
                if unsure
                else ""
            )
        ),
        prescription=(
            "Switch to bf16 (bf16=True, fp16=False) on GPUs that support it (A100/H100, "
            "RTX 30xx/40xx, TPU); on V100/T4/RTX 20xx, which lack bf16, use fp32. Lowering "
            "the LR only delays the NaN. Restart from a checkpoint saved before step "
            f"{first if first is not None else 'the first anomaly'}."
        ),
    )
