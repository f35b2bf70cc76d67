"""Shared measurements for the rate family: peak LR, warmup, batch, curve shape.

Everything is vectorised and bounded: LR series are subsampled (they are
deterministic and smooth, so a stride loses nothing a rule needs), loss series
are reduced to bin medians before trend tests, and spike detection on very
long series works on block medians with a per-point residual.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import Trend, bins, mad, median, rolling_median, trend
from traindoc.model import Run, Series

# Typical peak LR per regime (AdamW). Pre-training: the exploded-head run's "about 3e-4";
# full fine-tune 1e-5..5e-5; LoRA 5e-5..2e-4 (the LoRA-plateau run's fix was 5e-5).
TYPICAL_LR = {
    "pretraining": (1e-4, 3e-4, 1e-3),
    "full-finetune": (1e-5, 2e-5, 5e-5),
    "lora": (5e-5, 1e-4, 2e-4),
}
FINETUNE = ("full-finetune", "lora")

# Pre-training peak LR falls with model size: GPT-3's (Brown et al. 2020, table
# 2.1) from 6e-4 at 125M to 6e-5 at 175B; LLaMA's 3e-4 at 7B and 1.5e-4 at 65B
# sit within 2.5x of it. (parameters, peak LR), interpolated in log-log.
PRETRAIN_LR_BY_SIZE = (
    (125e6, 6e-4),
    (350e6, 3e-4),
    (760e6, 2.5e-4),
    (1.3e9, 2e-4),
    (2.7e9, 1.6e-4),
    (6.7e9, 1.2e-4),
    (13e9, 1e-4),
    (175e9, 6e-5),
)
# Up to this size the regime tables hold as they are (GPT-3's 350M used 3e-4,
# the exploded-head run's number); above it a pre-training LR range shrinks with the table.
SIZE_FREE_UP_TO = 350e6


# Model families whose fine-tuning LRs sit well above the generic 1e-5..5e-5 (AdamW),
# by the base model's name: T5 and its descendants (HF's T5 docs: "1e-4 and 3e-4 work
# well for most problems" with AdamW, 1e-3 with Adafactor); wav2vec2-style speech
# encoders (HF's wav2vec2 / XLS-R CTC recipes 1e-4..3e-4, audio classification 3e-5).
# (name pattern, (low, typical, high), words)
FAMILY_FINETUNE_LR = (
    (
        re.compile(r"(?:^|[/_\-.])(?:m|by|um|flan-|long-)?t5(?:$|[/_\-.])", re.I),
        (1e-4, 3e-4, 1e-3),
        "T5",
    ),
    (
        re.compile(r"wav2vec2|xls-?r|xlsr|hubert|wavlm|data2vec-audio", re.I),
        (3e-5, 1e-4, 3e-4),
        "wav2vec2-style speech encoders",
    ),
)


def family_lr(run: Run) -> tuple[tuple[float, float, float], str] | None:
    """The fine-tuning LR range of the base model's family, when the run fine-tunes a
    model of a family listed in FAMILY_FINETUNE_LR; else None."""
    base = run.fact("base_model")
    if run.regime not in FINETUNE or not isinstance(base, str):
        return None
    for pattern, rng, words in FAMILY_FINETUNE_LR:
        if pattern.search(base):
            return rng, words
    return None


# The LR tables of the rate rules are AdamW's. Under SGD a step is lr x gradient, not ~lr
# per weight as Adam's normalised step, and the usual LRs sit ~100x higher: ResNets at 0.1
# where Adam takes ~1e-3; a 27M GPT's optimizer sweep (mainrun) had plain SGD improving
# monotonically up to 3e-2 (val 2.02 at 3e-4, 1.89 at 1e-3, 1.68 at 3e-2) while AdamW
# peaked at 3e-4 (1.34).
SGD_LR_SCALE = 100.0


# Lion's update is the sign of its momentum: every weight moves by exactly the LR at each
# step, where Adam's normalised step reaches the LR only when a gradient's sign never
# changes. The Lion paper (Chen et al. 2023, "Symbolic Discovery of Optimization
# Algorithms") advises an LR 3-10x smaller than AdamW's; the table takes the 10x end,
# since Lion's full-size step on every weight is what makes it the larger one.
LION_LR_SCALE = 0.1


def optimizer_scale(run: Run) -> float:
    """Factor for an AdamW LR table under the run's named optimizer: SGD_LR_SCALE when
    it names SGD (plain or with momentum), LION_LR_SCALE when it names Lion, else 1. One
    reading for every rate rule, so a run is never told its LR is both too low (on SGD's
    scale) and too high (on AdamW's)."""
    optim = str(run.fact("optim", "")).lower()
    if "sgd" in optim and "adam" not in optim:
        return SGD_LR_SCALE
    return LION_LR_SCALE if "lion" in optim else 1.0


def adam_like(run: Run) -> bool:
    """The run's optimizer moves every weight by about the LR per step whatever the
    gradient's scale (Adam and its variants, Lion), by name; or, with none named, by its
    trainer's default: the HF Trainer's is AdamW (TrainingArguments.optim defaults to
    adamw_torch), and a Trainer run that names no optimizer ran it."""
    optim = str(run.fact("optim", "")).lower()
    if optim:
        return "adam" in optim or "lion" in optim
    return run.fact("trainer") == "hf"


def size_scale(run: Run) -> tuple[float, str]:
    """Factor (<= 1) for a pre-training run's LR range, and why; (1, "") when the
    model is small, its size unknown, or the run is not pre-training.

    Fine-tuning ranges are left alone: published fine-tuning LRs vary with the
    task more than with the size.
    """
    n = run.fact("n_params")
    if run.regime != "pretraining" or not isinstance(n, int | float) or n <= SIZE_FREE_UP_TO:
        return 1.0, ""
    sizes = np.log([s for s, _ in PRETRAIN_LR_BY_SIZE])
    lrs = np.log([lr for _, lr in PRETRAIN_LR_BY_SIZE])
    lr = float(np.exp(np.interp(math.log(n), sizes, lrs)))
    scale = lr / 3e-4
    return scale, f"{n / 1e9:.3g}B parameters: GPT-3's table gives ~{lr:.2g} at this size"


# Persistence of white batch noise over n points (simulated): median ~0.53, 95th
# percentile ~0.53 + 1.35/sqrt(n). A saw-tooth must beat it, not just a fixed 0.7.
WHITE_PERSISTENCE_MEDIAN = 0.53
WHITE_PERSISTENCE_SPREAD = 1.35


@dataclass(frozen=True)
class Curve:
    """The shape of a loss curve, from bin medians."""

    head: float  # median of the first bins
    level: float  # median of the late window
    late: Trend  # Mann-Kendall / Theil-Sen over the late window
    late_change: float  # Theil-Sen change over the late window, relative to its level
    band: float  # (q90 - q10) / level of the raw late values: oscillation width
    # Share of the band that survives a 5-point rolling median: ~0.5 for white
    # batch noise, ~0.9 for a saw-tooth that lasts several logged points.
    persistence: float
    low: float  # lowest bin median anywhere
    late_start: int
    end: float = math.nan  # median of the last ~10% of bins: where the run ended up
    tail_points: int = 0  # raw points the persistence was measured on

    def sawtooth(self, min_persistence: float) -> bool:
        """The band's persistence beats both `min_persistence` and what white batch noise
        of as many points reaches 19 times in 20: over 30 points white noise scores 0.7+
        one time in eight (its 95th percentile ~0.53 + 1.35/sqrt(n): 0.78 at 30 points,
        0.71 at 50, 0.67 at 100, simulated), so a short late window's 0.75 is no saw-tooth."""
        n = max(self.tail_points, 1)
        white_p95 = WHITE_PERSISTENCE_MEDIAN + WHITE_PERSISTENCE_SPREAD / math.sqrt(n)
        return self.persistence >= max(min_persistence, white_p95)

    @property
    def drop(self) -> float:
        """head / late level: how much the run learned before the late window."""
        return self.head / self.level if self.level > 0 else math.inf

    @property
    def stuck(self) -> bool:
        """No meaningful decrease in the late window (3% relative, significant)."""
        return not (self.late.falling and self.late_change <= -0.03)

    @property
    def converging(self) -> bool:
        return self.late.falling and self.late_change <= -0.02

    @property
    def learned(self) -> float:
        """How far the loss came down from its start to its best (the problem's scale)."""
        return max(self.head - self.low, 0.0)

    @property
    def converged(self) -> bool:
        """Fell 100x+ from its start and ended there: a solved task near zero loss.

        Relative measures (spikes over the local median, band / level) on such a
        curve measure the noise of a solved problem, not instability.
        """
        return self.head > 0 and self.level <= 0.01 * self.head

    @property
    def diverging(self) -> bool:
        """Trends up in the late window, or ends far above its own best.

        Either rise must also be material: at least 5% of what the run learned
        (head - best), so a loss that converged to ~0 and wobbles between 1e-4 and
        3e-4 (3x "above its best") is not diverging.
        """
        material = 0.05 * self.learned
        rising = (
            self.late.rising
            and self.late_change >= 0.05
            and self.late_change * self.level >= material
        )
        end = self.level if math.isnan(self.end) else self.end
        above = self.low > 0 and end >= 1.5 * self.low and end - self.low >= material
        return rising or above

    def oscillating_plateau(self, min_drop: float = 1.2, min_band: float = 0.03) -> bool:
        """An early drop, then a saw-tooth band with no downward trend: neither a
        significant one nor a material one (3%+ over the late window). A sparse log's
        trend test is weak; a late window that sheds 10% is no plateau at any length."""
        return (
            self.drop >= min_drop
            and self.late.z > -1.96
            and self.late_change > -0.03
            and self.band >= min_band
        )


def curve(loss: Series, late_frac: float = 0.5) -> Curve | None:
    f = loss.finite()
    if len(f) < 12:
        return None
    st, med = bins(f, 200)
    k = max(2, med.size // 10)
    head = median(med[:k])
    cut = int(f.steps[0] + (1 - late_frac) * (f.steps[-1] - f.steps[0]))
    late_mask = st >= cut
    if late_mask.sum() < 6:
        return None
    ls, lv = st[late_mask], med[late_mask]
    level = median(lv)
    if level <= 0 or head <= 0:
        return None  # RL / DPO-style losses at or below 0: shape ratios mean nothing
    tr = trend(ls, lv)
    span = float(ls[-1] - ls[0])
    change = tr.slope * span / level
    raw = f.values[f.steps >= cut]
    q10, q90 = np.percentile(raw, [10, 90]) if raw.size else (level, level)
    band = float(q90 - q10) / level
    tail = raw[-20000:]
    persistence = 0.0
    if tail.size >= 12 and q90 > q10:
        s10, s90 = np.percentile(rolling_median(tail, 5), [10, 90])
        r10, r90 = np.percentile(tail, [10, 90])
        persistence = float(s90 - s10) / float(r90 - r10) if r90 > r10 else 0.0
    low = float(rolling_median(med, 5).min())
    end = median(med[-max(3, med.size // 10) :])
    return Curve(head, level, tr, change, band, persistence, low, cut, end, int(tail.size))


def nonfinite(run: Run, name: str, until: float | None = None) -> tuple[int, int | None]:
    """(count, first step) of NaN/Inf values in a series, optionally up to a step."""
    s = run.get(name)
    if s is None:
        return 0, None
    bad = ~np.isfinite(s.values)
    if until is not None:
        bad &= s.steps <= until
    if not bad.any():
        return 0, None
    return int(bad.sum()), int(s.steps[int(np.argmax(bad))])


def relative_noise(loss: Series, max_points: int = 20000) -> float:
    """Robust noise of the loss around its rolling median, relative to its level.

    Measured on the second half of the run (steady state, no warmup drop), at
    most its last `max_points` points, so it is O(1) on huge logs.
    """
    f = loss.finite()
    v = f.values[f.values.size // 2 :][-max_points:]
    if v.size < 12:
        return math.nan
    base = rolling_median(v, 25)
    level = median(base)
    if level <= 0:
        return math.nan
    return mad(v - base) / level
