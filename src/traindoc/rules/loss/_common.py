"""Helpers shared by the loss-curve rules (private: not loaded as a rule)."""

from __future__ import annotations

import math

import numpy as np

from traindoc.model import Run, Series
from traindoc.rules._stats import quantum, rolling_median

# Vocabulary sizes of common tokenizers, most common first: when several lie within
# the quantisation of a plateau, the first one listed is reported.
KNOWN_VOCABS = (
    50257,  # GPT-2 / GPT-J / OPT-ish
    32000,  # Llama 1/2, Mistral 7B
    128256,  # Llama 3
    151936,  # Qwen2 (padded)
    152064,  # Qwen2 7B+ (padded)
    50304,  # GPT-NeoX / nanoGPT (50257 padded to a multiple of 128)
    32768,  # Mistral v3
    65536,  # padded 64k
    100352,  # cl100k padded
    256000,  # Gemma
    262144,  # Gemma 3
    30522,  # BERT
    50265,  # RoBERTa / BART
    32100,  # T5
    250002,  # XLM-R
    49152,  # SmolLM / StarCoder
    102400,  # DeepSeek
    64000,  # Yi
    32064,  # Phi-3
    131072,  # Mistral Nemo
    51865,  # Whisper
    250880,  # BLOOM
    50280,  # Pythia tokenizer
    100277,  # cl100k
    200064,  # Phi-4-mini / o200k padded
)


def loss_dtype(run: Run) -> str:
    """Precision of the logged loss; unknown -> bf16, the coarsest common one."""
    d = str(run.fact("loss_dtype") or "").lower()
    return d if d in ("bf16", "fp16", "fp32") else "bf16"


def floor_band(run: Run, floor: float) -> tuple[float, float]:
    """(lo, hi) of losses that count as "at the uniform floor ln(V)".

    One quantum of the logged dtype either side (10.8125 is ln(50257) in bf16);
    above the floor a little more room, since a fresh init starts 1-2% above ln(V);
    below it only a little, since a loss clearly under ln(V) has learned something.
    """
    q = quantum(floor, loss_dtype(run))
    return floor - max(q, 0.005 * floor), floor + max(q, 0.02 * floor)


def on_bf16_grid(values: np.ndarray) -> np.ndarray:
    """True where a value is exactly representable in bfloat16."""
    v = np.asarray(values, np.float64)
    f32 = v.astype(np.float32)
    bits = f32.view(np.uint32)
    return ((bits & np.uint32(0xFFFF)) == 0) & (f32.astype(np.float64) == v)


def infer_vocab(level: float, spread: float, run: Run) -> tuple[int, str] | None:
    """The vocabulary a plateau at `level` = ln(V) implies, or None.

    `spread` is the plateau's own noise (a robust sigma). The uncertainty on ln(V)
    is the larger of half a quantum of the logged dtype, the spread and the
    4-decimal rounding of older HF logs. Returns (V, "known-tokenizer") when a
    common tokenizer size fits, (V, "padded-multiple") when the range is narrow
    enough that landing on a multiple of 128/64 means something.
    """
    if not math.isfinite(level) or level < math.log(1000) or level > math.log(2_000_000):
        return None
    dtype = loss_dtype(run)
    half_q = 0.5 * quantum(level, dtype)
    if run.fact("loss_dtype") is None and not bool(on_bf16_grid(np.array([level]))[0]):
        half_q = 0.0  # an off-grid value was not logged in bf16
    tol = max(half_q, spread, 5e-5)
    lo, hi = math.exp(level - tol), math.exp(level + tol)
    for v in KNOWN_VOCABS:
        if lo <= v <= hi:
            return v, "known-tokenizer"
    if hi - lo <= 16:
        for m in (128, 64):
            k = math.ceil(lo / m) * m
            if k <= hi:
                return int(k), "padded-multiple"
    return None


def baseline(values: np.ndarray, window: int = 25) -> np.ndarray:
    """Local level of a curve: centred rolling median, or block medians for huge series.

    The rolling median costs n * window; past 20k points, medians of consecutive
    blocks interpolated back onto every point give the same level in O(n).
    """
    n = values.size
    if n <= 20_000:
        return rolling_median(values, window)
    m = n // window
    blocks = np.median(values[: m * window].reshape(m, window), axis=1)
    centres = np.arange(m) * window + window / 2.0
    return np.interp(np.arange(n), centres, blocks)


def starts_mid_run(loss: Series) -> bool:
    """True when the log is a late window of a longer run (resumed, truncated head)."""
    first, last = int(loss.steps[0]), int(loss.steps[-1])
    return first > 50 and first > 0.25 * max(last - first, 1)
