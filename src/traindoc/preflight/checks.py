"""Config-only variants of rules whose registered form needs a logged loss curve.

Before a run there is no curve, so warmup-too-short and small-effective-batch
speak from the config alone (as warnings at most), and until the data audit
(traindoc.data) is importable, dataset-too-small and empty-samples come from a
plain count of the data file. They keep the public ids (RULES.md) and are
RuleSpecs that the engine runs like any other, but they are not registered:
`traindoc diagnose` keeps using the curve-based rules.
"""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.measure.schedule import peak_lr, total_steps, warmup
from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, RuleSpec
from traindoc.rules.rate._common import FINETUNE, effective_batch

# Same thresholds as the registered rules (rules/rate/warmup_too_short.py, small_effective_batch.py).
_HIGH_LR = {"pretraining": 3e-4, "full-finetune": 2e-5, "lora": 1e-4}
_SHORT_FRAC, _SHORT_STEPS = 0.01, 10
_MIN_BATCH = 16
# Seed B: under 1,000 representative samples no tuning helps.
_MIN_SAMPLES = 1000


def _warmup_too_short(run: Run, _p: object) -> Iterator[Hit]:
    """No or very short warmup at a high peak LR, from the config alone (preflight)."""
    pk, w, total = peak_lr(run), warmup(run), total_steps(run)
    if pk is None or w is None or not total:
        return
    regime = run.regime if run.regime in _HIGH_LR else None
    high = _HIGH_LR[regime] if regime else 3e-4
    frac = w.steps / float(total)
    if pk.value < high or not (w.steps < _SHORT_STEPS or frac < _SHORT_FRAC):
        return
    yield Hit(
        title=f"Warmup of {w.steps:.0f} steps ({100 * frac:.1f}% of {total}) at peak LR {fmt(pk.value)}",
        step=0,
        evidence={
            "warmup_steps": w.steps,
            "warmup_frac": frac,
            "peak_lr": pk.value,
            "total_steps": total,
        },
        explanation=(
            "Without warmup the first updates come at full LR while Adam's moment estimates are "
            "still empty; seed B recommends 2-5% of total steps."
        ),
        prescription=f"Set warmup to 2-5% of total steps (~{max(10, round(0.03 * total))} steps, warmup_ratio=0.03).",
    )


def _small_batch(run: Run, _p: object) -> Iterator[Hit]:
    """Effective batch below 16 for a fine-tune, from the config alone (preflight)."""
    eb = effective_batch(run)
    if eb is None or eb >= _MIN_BATCH or run.regime == "pretraining":
        return
    sev = Severity.WARNING if run.regime in FINETUNE else Severity.INFO
    want = -(-_MIN_BATCH // eb)
    yield Hit(
        title=f"Effective batch {eb} is below 16 (per-device x devices x accumulation)",
        evidence={
            "effective_batch": eb,
            "per_device_batch": run.fact("per_device_batch"),
            "devices": run.fact("devices"),
            "grad_accum": run.fact("grad_accum"),
            "regime": run.regime or "unknown",
        },
        explanation=(
            "Below ~16 each step's gradient is a noisy estimate: fluctuations that look like "
            "convergence (seed B: 16-64 is a reasonable start for fine-tuning)."
        ),
        prescription=f"Raise gradient accumulation ~{want}x to reach 16-64, and re-tune the LR with it.",
        severity=sev,
    )


def _too_small(run: Run, _p: object) -> Iterator[Hit]:
    """Fewer than ~1,000 training samples (preflight count of --data)."""
    n = int(run.fact("dataset_size"))
    if n >= _MIN_SAMPLES:
        return
    yield Hit(
        title=f"{n} training samples: under ~1,000 no tuning helps",
        evidence={"samples": n, "threshold": _MIN_SAMPLES},
        explanation="Seed B: under 1,000 representative samples, hyper-parameters cannot rescue a fine-tune.",
        prescription="Collect more data, use a smaller model, or few-shot prompting instead of fine-tuning.",
    )


def _empty(run: Run, _p: object) -> Iterator[Hit]:
    """Empty or whitespace-only samples in --data (preflight count)."""
    n, total = int(run.fact("empty_samples")), int(run.fact("dataset_size") or 0)
    if n == 0:
        return
    yield Hit(
        title=f"{n} empty or whitespace-only samples" + (f" of {total}" if total else ""),
        evidence={"empty": n, "samples": total, "first_lines": run.fact("empty_lines")},
        explanation="Empty samples waste steps and, with loss masking, can give NaN or zero losses.",
        prescription="Drop them before training (filter on stripped text length > 0).",
    )


WARMUP_TOO_SHORT = RuleSpec(
    "warmup-too-short", "rate", Severity.WARNING, _warmup_too_short,
    requires=("fact:learning_rate",),
)  # fmt: skip
SMALL_EFFECTIVE_BATCH = RuleSpec(
    "small-effective-batch", "rate", Severity.WARNING, _small_batch,
    requires=("fact:per_device_batch|fact:effective_batch",),
)  # fmt: skip
DATASET_TOO_SMALL = RuleSpec(
    "dataset-too-small", "data", Severity.WARNING, _too_small, requires=("fact:dataset_size",)
)
EMPTY_SAMPLES = RuleSpec(
    "empty-samples", "data", Severity.WARNING, _empty, requires=("fact:empty_samples",)
)
