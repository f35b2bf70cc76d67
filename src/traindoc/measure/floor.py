"""The uniform floor: the loss of a model whose output ignores its input.

A model that gives every one of V tokens (or C classes) the same probability scores
cross-entropy ln(V) (ln(C)); DPO's loss is ln 2 when the policy equals the reference.
A loss sitting there means nothing is learned. When V or C is not known, the level
itself tells: exp(plateau) landing on a known tokenizer size, a vocabulary padded to a
multiple of 64/128, or a plausible class count (any count up to 20, or a round one) is
strong evidence -- provided the plateau is flat, since a learning model only passes
through such a level.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import bins, mad, quantum, rolling_median
from traindoc.model import Run

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
    65024,  # Falcon
)
# Class counts worth naming above 20 (datasets' sizes): any other count is coincidence.
# 384 and 512: extractive QA picks a start and an end among max_seq_length positions
# (384 is run_qa.py's default, 512 BERT's limit), so a QA model that ignores its input
# scores ln(384) per position.
ROUND_CLASSES = (26, 32, 50, 64, 80, 91, 100, 101, 102, 128, 200, 256, 365, 384, 500, 512, 1000)
ROUND_CLASSES += (1024,)
MAX_SMALL_CLASSES = 20
# How far above ln(V) a nearly uniform model's flat loss may sit (nats).
ABOVE = 2e-3


@dataclass(frozen=True)
class Floor:
    count: int  # V or C
    value: float  # ln(count)
    how: str  # fact | known-tokenizer | padded-multiple | classes


# Trainers whose logged loss is the model's own cross-entropy per token (or per
# sample): LM and seq2seq stacks. A plain loop, Keras or Lightning may log anything
# (an MSE over raw targets, a VAE's sum over pixels), where no ln(V) applies.
CE_TRAINERS = frozenset(
    {
        "hf",
        "llamafactory",
        "megatron",
        "nanogpt",
        "llm.c",
        "modded-nanogpt",
        "mlx_lm",
        "torchtitan",
        "torchtune",
        "litgpt",
        "ms-swift",
        "minimind",
        "fairseq",
        "deepspeed",
        "opennmt",  # xent: the per-token cross-entropy of a translation model
    }
)


def cross_entropy(run: Run) -> bool:
    """The logged loss is a cross-entropy over classes or tokens: the floor is known,
    the task says so (lm, classification), the run fine-tunes a named base model, an
    LM trainer logged it, the log prints its perplexity (exp of the loss) or names
    it one (`lm_loss`, `cross_entropy`), or it counts the tokens trained on (`ntokens`)
    -- and the metrics logged beside it name no
    task whose loss is something else (`other_objective`)."""
    if run.fact("margin_softmax"):
        return False  # a margin softmax's level has no ln(C) meaning (an ArcFace head)
    if run.vocab_size == 1 or other_objective(run) is not None:
        return False  # one output (a regression head), or the metrics name another objective
    return (
        run.floor is not None
        or run.fact("task") in ("lm", "classification")
        or run.fact("base_model") is not None
        or run.fact("trainer") in CE_TRAINERS
        or perplexity_of_loss(run) is not None
        or named_cross_entropy(run) is not None
        or token_count(run) is not None
    )


# The loss's own key, as the log spelled it, naming a language model's loss or a
# cross-entropy (`lm_loss`, Megatron's `lm loss`, `ce_loss`, `cross_entropy`, OLMo's
# `train/CrossEntropyLoss`, `xent`). Not `nll`: a Gaussian negative log-likelihood
# (a VAE's, a regression's) has no ln(V).
_CE_NAME = re.compile(
    r"(?:^|[\s/_.-])(?:lm[ _]?loss|ce[ _]?loss|cross[ _-]?entropy(?:[ _]?loss)?|xent)$", re.I
)


def named_cross_entropy(run: Run) -> str | None:
    """The loss's key as the log spelled it (a reader keeps it after the last ": " of the
    series' source, `train.log: lm_loss`) when it names a cross-entropy or a language
    model's loss, or None."""
    loss = run.get("loss")
    if loss is None or ": " not in loss.source:
        return None
    key = loss.source.rsplit(": ", 1)[1].strip()
    return key if _CE_NAME.search(key) else None


# A count of the tokens a step consumed, or their rate, logged beside the loss (a loop's
# `ntokens: 618/1024`, `tokens_processed`, TRL's `num_tokens`, mlx's `trained_tokens`,
# `tokens/sec`): the model reads token sequences, a language or translation model, whose
# training loss is a cross-entropy per token. (An accuracy per token says the same, but
# such a run already names its trainer.)
_TOKEN_COUNT = re.compile(
    r"^(?:n|num|total)?_?tokens?(?:_(?:processed|seen|trained))?$"
    r"|^(?:processed|seen|trained)_tokens$|^tok(?:en)?s?(?:/s|/sec|_per_sec(?:ond)?)$",
    re.I,
)


def token_count(run: Run) -> str | None:
    """The series counting the training tokens (or their rate) beside the loss, or None."""
    for name in sorted(run.series):
        key = re.sub(r"^(?:train|training)[/_]", "", name, flags=re.I)
        if _TOKEN_COUNT.match(key):
            return name
    return None


# A perplexity beside the loss it exponentiates: PyTorch's word language model
# ("loss 5.15 | ppl 172"), a plain loop's "val ppl", OLMo's train/Perplexity.
_PERPLEXITY = re.compile(
    r"^(?:(train|training|eval|val|valid|validation|dev|test)[_/ ])?(?:ppl|perplexity)$", re.I
)
# How far ln(ppl) may sit from the loss (in nats): both are printed rounded, 1% of the
# loss plus 0.01 covers four significant digits of either.
_PPL_REL, _PPL_ABS = 0.01, 0.01


def perplexity_of_loss(run: Run) -> str | None:
    """The perplexity series that is exp of the logged loss (base^loss for a loss in
    bits) wherever both are logged, or None.

    A perplexity is exp of a mean cross-entropy per token: a plain loop that prints one
    beside its loss, and whose values agree, says its loss is a language model's
    per-token cross-entropy, with a floor ln(V), though it names no trainer or
    vocabulary. One value off the relation (a perplexity of another quantity, a loss
    with a regulariser added) and the log says nothing.
    """
    k = math.log(run.loss_base)
    for name in sorted(run.series):
        m = _PERPLEXITY.match(name.strip())
        if m is None:
            continue
        held_out = m.group(1) is not None and m.group(1).lower() not in ("train", "training")
        loss = run.get("eval_loss" if held_out else "loss")
        ppl = run.get(name)
        if loss is None or ppl is None or loss.source.startswith("derived: ln("):
            continue  # a loss derived from the perplexity agrees with it by construction
        _, i, j = np.intersect1d(ppl.steps, loss.steps, return_indices=True)
        p, c = ppl.values[i], loss.values[j] * k
        ok = np.isfinite(p) & np.isfinite(c) & (p > 1.0) & (c > 0.0)
        if not ok.any():
            continue
        off = np.abs(np.log(p[ok]) - c[ok]) > _PPL_REL * c[ok] + _PPL_ABS
        if not off.any():
            return name
    return None


# Metrics that name an objective other than one cross-entropy over the output's classes.
# A regression's (a num_labels=1 head, STS-B) loss is an MSE in its targets' units, which
# ln(C) does not measure; a detector's (mAP) is a sum of box and class terms; a
# segmenter's (IoU / Dice / pixel accuracy) is usually CE + Dice, or a decode head plus
# 0.4x an auxiliary head, over pixels: each a multiple of any one floor at the start.
_REGRESSION = frozenset({"mse", "rmse", "mae", "r2", "mape", "smape", "rmsle", "msle"})
_CLASSIFIES = frozenset({"acc", "accuracy", "f1", "top1", "ppl", "perplexity", "bleu", "wer"})
_DENSE = frozenset({"map", "map50", "map75", "iou", "miou", "mdice", "dice", "pixacc", "aacc"})
_NAME_PREFIX = re.compile(r"^(?:eval|val|valid|validation|test|train|training)[_/]")


def other_objective(run: Run) -> str | None:
    """The task the logged metrics name when it is not a plain cross-entropy's:
    "regression" (mse / rmse / mae / r2 and no accuracy, F1, perplexity, ...), or
    "detection / segmentation" (mAP, IoU, Dice); None otherwise."""
    words: set[str] = set()
    for name in run.series:
        low = _NAME_PREFIX.sub("", name.lower().rsplit("/", 1)[-1])
        words.update(w for w in re.split(r"[_\-.\s@()]", low) if w)
    if words & _DENSE:
        return "detection / segmentation"
    if words & _REGRESSION and not words & _CLASSIFIES:
        return "regression"
    return None


def loss_dtype(run: Run) -> str:
    """Precision of the logged loss; unknown -> bf16, the coarsest common one."""
    d = str(run.fact("loss_dtype") or "").lower()
    return d if d in ("bf16", "fp16", "fp32") else "bf16"


def on_bf16_grid(values: np.ndarray) -> np.ndarray:
    """True where a value is exactly representable in bfloat16."""
    v = np.asarray(values, np.float64)
    f32 = v.astype(np.float32)
    bits = f32.view(np.uint32)
    return ((bits & np.uint32(0xFFFF)) == 0) & (f32.astype(np.float64) == v)


def band(run: Run, floor: float) -> tuple[float, float]:
    """(lo, hi) of losses that count as "at the uniform floor ln(V)".

    One quantum of the logged dtype either side (10.8125 is ln(50257) in bf16);
    above the floor a little more room, since a fresh init starts 1-2% above ln(V);
    below it only a little, since a loss clearly under ln(V) has learned something.
    """
    q = quantum(floor, loss_dtype(run))
    return floor - max(q, 0.005 * floor), floor + max(q, 0.02 * floor)


def known(run: Run) -> Floor | None:
    """The floor from the run's facts: ln(C) for a classifier, else ln(V)."""
    v = run.vocab_size
    if v and v > 1:
        return Floor(int(v), log_of(run, v), "fact")
    return None


def log_of(run: Run, count: float) -> float:
    """ln(count) in the units the run logs its loss in (log2 for a loss in bits)."""
    return math.log(count) / math.log(run.loss_base)


def log_name(run: Run) -> str:
    """How the floor is written for this run's loss: "ln", or "log2" for bits."""
    return "ln" if run.loss_base == math.e else f"log{run.loss_base:g}"


def infer(level: float, spread: float, run: Run) -> Floor | None:
    """The count a flat level at `level` = ln(count) implies, or None. A loss logged in
    bits is read in nats here and its floor given back in bits."""
    k = math.log(run.loss_base)
    got = _infer(level * k, spread * k, run)
    return got if got is None or k == 1.0 else Floor(got.count, got.value / k, got.how)


def _infer(level: float, spread: float, run: Run) -> Floor | None:
    """The count a flat level at `level` = ln(count) nats implies, or None.

    `spread` is the plateau's own noise (a robust sigma). The uncertainty on the
    level is the larger of half a quantum of the logged dtype (when the values may be
    quantised), the spread and the 4-decimal rounding of older logs.
    """
    if not math.isfinite(level) or level <= 0.5 or level > math.log(2_000_000):
        return None
    half_q = 0.5 * quantum(level, loss_dtype(run))
    if run.fact("loss_dtype") is None and not bool(on_bf16_grid(np.array([level]))[0]):
        half_q = 0.0  # an off-grid value was not logged in bf16
    tol = max(half_q, spread, 5e-5)
    lo, hi = math.exp(level - tol), math.exp(level + tol)
    if level >= math.log(1000):
        for v in KNOWN_VOCABS:
            if lo <= v <= hi:
                return Floor(v, math.log(v), "known-tokenizer")
        if hi - lo <= 16:
            for m in (128, 64):
                k = math.ceil(lo / m) * m
                if k <= hi:
                    return Floor(int(k), math.log(k), "padded-multiple")
        # A model that is nearly, not exactly, uniform scores a hair above ln(V)
        # (10.8259 for ln(50304) = 10.82584): the nearest known size under the level.
        near = [v for v in KNOWN_VOCABS if level - tol - ABOVE <= math.log(v) <= level]
        if near:
            v = min(near, key=lambda v: level - math.log(v))
            return Floor(v, math.log(v), "known-tokenizer")
    # a class count: any up to 20 (their logs are far apart), else a round one
    tol_c = max(tol, 2e-3)
    for c in (*range(2, MAX_SMALL_CLASSES + 1), *ROUND_CLASSES):
        if -tol_c <= level - math.log(c) <= tol_c + ABOVE:
            return Floor(c, math.log(c), "classes")
    return None


def at_chance(values: np.ndarray, count: int, error: bool = False) -> bool:
    """True when an accuracy (an error rate, with `error`) sits at chance for `count`
    classes: 1/C (1 - 1/C).

    A model whose output ignores its input still scores whatever its tie-break or the
    label mix gives (28% on a 4-choice set whose first answer is right 28% of the
    time), and a finite eval set scatters: the median must lie within 0.02 or a third
    of 1/C, whichever is wider (0.00094-0.00126 for 1000 classes). Percentages are
    read as such.
    """
    v = np.asarray(values, np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0 or count < 2:
        return False
    if np.median(v) > 1.5:  # printed in percent
        v = v / 100.0
    p = 1.0 - v if error else v
    if not ((p >= 0) & (p <= 1)).all():
        return False
    tol = max(0.02, 0.35 / count) if count <= MAX_SMALL_CLASSES else 0.35 / count
    return bool(abs(float(np.median(p)) - 1.0 / count) <= tol)


# Accuracy-like and error-like metric names (canonical series names, lower case).
_ACC = ("acc", "rec@1", "top1", "top-1", "precision@1", "prec@1")
_ERR = ("error", "err@1", "top1_err", "top-1-err")


def chance_metric(run: Run, count: int, since: int | None = None) -> str | None:
    """The first accuracy / error series at chance for `count` classes (from step
    `since` on), or None: a model that ignores its input scores chance on all of them.
    """
    return next(chance_metrics(run, count, since), None)


def chance_metrics(run: Run, count: int, since: int | None = None) -> Iterator[str]:
    """Every accuracy / error series at chance for `count` classes, by name."""
    for name in sorted(run.series):
        low = name.lower()
        error = any(t in low for t in _ERR)
        if not error and not any(t in low for t in _ACC):
            continue
        if any(t in low for t in ("@5", "top5", "top-5", "acc5", "_5")):
            continue
        s = run.get(name)
        if s is None:
            continue
        f = s.finite()
        vals = f.values if since is None else f.values[f.steps >= since]
        if vals.size and at_chance(vals, count, error):
            yield name


@dataclass(frozen=True)
class AtFloor:
    """A stretch of a loss curve at the uniform floor."""

    signal: str
    floor: Floor
    onset: int
    end: int
    median: float
    spread: float
    points: int
    fraction: float  # of the curve's (binned) points
    to_end: bool
    band: tuple[float, float]
    corroborated_by: str | None = None  # an accuracy at chance, when one agrees


# When the floor is inferred, the curve must be this flat (robust sigma / level)
# for exp(level) landing on a vocabulary size to mean something; a class count
# (closer together) needs an accuracy at chance, or this much flatter.
MAX_REL_SPREAD = 0.005
MAX_REL_SPREAD_CLASSES = 0.001
# Change points differenced per numpy call in _identical_stretch (bounded temporaries).
_PART = 1 << 17


def at_floor(
    run: Run, signal: str, *, min_points: int = 3, min_fraction: float = 0.15
) -> AtFloor | None:
    """The longest stretch where `signal` sits at the uniform floor, or None.

    The floor is the run's own (ln of its vocabulary or class count) or, when unknown,
    the one the curve's flat tail implies (`infer`). The curve is binned and median-
    smoothed so one odd batch does not split a stretch; the stretch must hold
    `min_points` points and `min_fraction` of the curve. Two points suffice when they
    are equal to the printed precision (a loss identical at iteration 1 and 400 has
    not moved).
    """
    s = run.get(signal)
    if s is None:
        return None
    f = s.finite()
    n = len(f)
    if n < 2:
        return None
    st, vals = bins(f)
    sm = rolling_median(vals, 5) if vals.size >= 5 else vals
    nb = vals.size
    floor, corroborated = known(run), None
    if floor is None:
        k = min(nb, max(min_points, 5, int(0.3 * nb)))
        tail = f.values[f.steps >= st[-k]]
        level, spread = float(np.median(tail)), mad(tail)
        chance = None
        if not math.isfinite(spread) or spread > MAX_REL_SPREAD * abs(level):
            # Not a flat tail; but a value printed identically for a long stretch
            # (SwAV at 2.3026 for 64 epochs, then escaping) is as flat as a curve gets.
            same = _identical_stretch(f.values, max(min_points, 5, int(min_fraction * n)))
            if same is not None:
                level, spread, tail = same, 0.0, f.values[f.values == same]
            else:
                # ... or an accuracy at chance 1/C names C, and the band decides.
                chance = classes_at_chance(run, level)
                if chance is None:
                    return None
        floor = chance[0] if chance else infer(level, spread, run)
        if floor is None:
            return None
        if chance:
            corroborated = chance[1]
        elif floor.how == "classes":
            corroborated = chance_metric(run, floor.count, int(st[-k]))
            if corroborated is None and (
                spread > MAX_REL_SPREAD_CLASSES * abs(level) or tail.size < 3
            ):
                return None
    lo, hi = band(run, floor.value)
    inside = (sm >= lo) & (sm <= hi)
    if not inside.any():
        return None
    edges = np.diff(np.r_[0, inside.astype(np.int8), 0])
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    i = int(np.argmax(ends - starts))
    a, b = int(starts[i]), int(ends[i]) - 1
    length = b - a + 1
    prev = st[a - 1] if a > 0 else -np.inf
    seg = (f.steps > prev) & (f.steps <= st[b])
    in_raw = seg & (f.values >= lo) & (f.values <= hi)
    onset = int(f.steps[np.argmax(in_raw)]) if in_raw.any() else int(st[a])
    end = int(f.steps[-1]) if b == nb - 1 else int(st[b])
    stretch = f.values[(f.steps >= onset) & (f.steps <= end)]
    equal = stretch.size >= 2 and float(np.ptp(stretch)) == 0.0
    if length < min_fraction * nb or (length < min_points and not equal):
        return None
    spread = mad(stretch)
    if spread > hi - lo:
        return None  # wanders across the band rather than sitting at the floor
    if corroborated is None and floor.how != "classes":
        corroborated = chance_metric(run, floor.count, onset) if floor.count <= 1024 else None
    return AtFloor(
        signal,
        floor,
        onset,
        end,
        float(np.median(stretch)),
        spread,
        int(stretch.size),
        length / nb,
        b == nb - 1,
        (lo, hi),
        corroborated,
    )


def classes_at_chance(run: Run, level: float) -> tuple[Floor, str] | None:
    """(ln C, the metric) for the class count C that an accuracy logged at chance 1/C
    (to within 0.01) and the loss's level in ln(C)'s band both point to, or None: with
    a noisy or short loss, the metric names C and the loss need only agree with it."""
    for c in range(2, MAX_SMALL_CLASSES + 1):
        lo, hi = band(run, log_of(run, c))
        if not lo <= level <= hi:
            continue
        name = chance_metric(run, c)
        s = run.get(name) if name else None
        if s is None:
            continue
        v = s.finite().values
        v = v / 100.0 if np.median(v) > 1.5 else v
        p = 1.0 - v if any(t in name.lower() for t in _ERR) else v
        if abs(float(np.median(p)) - 1.0 / c) <= 0.01:
            return Floor(c, log_of(run, c), "classes"), name
    return None


def _identical_stretch(values: np.ndarray, at_least: int) -> float | None:
    """The value of the longest run of identical consecutive points, if it has at least
    `at_least` of them."""
    if values.size < at_least:
        return None
    # Runs end where the value changes: run 0 is [0, change[0]], run k+1 starts at
    # change[k] + 1. Lengths from the change points alone (a noisy curve changes at
    # every point: the starts and lengths arrays would be 3 more copies of it).
    change = np.flatnonzero(values[1:] != values[:-1])
    if not change.size:
        return float(values[0])
    head, tail = int(change[0]) + 1, values.size - 1 - int(change[-1])
    inner, at = 0, -1  # the first longest inner run (argmax's pick), a part at a time
    for a in range(0, change.size - 1, _PART):
        d = np.diff(change[a : a + _PART + 1])
        j = int(np.argmax(d))
        if d[j] > inner:
            inner, at = int(d[j]), a + j
    best = max(head, inner, tail)
    if best < at_least:
        return None
    if head == best:
        return float(values[0])
    if inner == best:
        return float(values[int(change[at]) + 1])
    return float(values[int(change[-1]) + 1])


# What one sample costs when the model outputs 0.5 for a 0/1 target, the same whatever
# the label: squared error 0.25, absolute error 0.5 (cross-entropy's ln 2 is the C = 2
# floor above). At that output every batch scores exactly this, so the batch-to-batch
# scatter that any other output shows vanishes: a loss pinned at one of these values to
# its 4th significant digit is a model that outputs 0.5 for every input.
LABEL_BLIND = ((0.25, "squared error of an output of 0.5 on 0/1 targets (MSE)"),)
LABEL_BLIND += ((0.5, "absolute error of an output of 0.5 on 0/1 targets (MAE / L1)"),)


def label_blind(values: np.ndarray, rel_tol: float) -> tuple[float, str] | None:
    """(level, what it is) when every value lies within `rel_tol` of a loss that an
    output of 0.5 scores on every 0/1 target alike (`LABEL_BLIND`), else None."""
    v = np.asarray(values, np.float64)
    if v.size == 0 or not np.isfinite(v).all():
        return None
    for level, what in LABEL_BLIND:
        if float(np.abs(v - level).max()) <= rel_tol * level:
            return level, what
    return None
