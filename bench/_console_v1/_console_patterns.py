"""The regexes behind the console reader: one per trainer's printed line (FORMATS.md 1.4, 6).

All work on bytes and search rather than anchor: a log line can be glued to the
end of a tqdm bar, or prefixed by a timestamp or torchrun's `[rankN]:`.
A metric pattern either has named groups (step + metric names; its matches'
groupdicts are the records, converted by numpy in bulk: the fast path for
formats that print one fixed layout millions of times) or a `parse` that turns
a match into (step or None, {key: value}) for variable layouts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from traindoc.model.signals import ALIASES
from traindoc.readers._base import to_float

NUM = rb"[-+]?(?:\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|-?inf|-?Inf(?:inity)?)"
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07")
RANK = re.compile(rb"(?m)^\[rank(\d+)\]:")
# 2024-04-06 03:02:12[,.]511 anywhere on the line (Megatron, DeepSpeed, torchtitan, logging).
STAMP = re.compile(rb"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[,.](\d{1,6}))?")
# tqdm's "| 12/60 [" counter: HF prints a dict just before the bar that shows its step.
BAR = re.compile(rb"\|\s*(\d+)/(\d+) \[")

Parse = Callable[["re.Match[bytes]"], tuple[int | None, dict[str, float]]] | None


def num(raw: bytes) -> float | None:
    return to_float(raw.replace(b",", b"").decode("ascii", "replace"))


def stamp(m: re.Match[bytes]) -> float | None:
    try:
        d = datetime.fromisoformat(f"{m.group(1).decode()} {m.group(2).decode()}")
    except ValueError:
        return None
    return d.timestamp() + (float(b"0." + m.group(3)) if m.group(3) else 0.0)


def _pairs(rx: re.Pattern[bytes], text: bytes, skip: tuple[str, ...] = ()) -> dict[str, float]:
    out = {}
    for k, v in rx.findall(text):
        key = k.decode("utf-8", "replace").strip().lower()
        f = num(v)
        if f is not None and key not in skip:
            out[key if key in ALIASES else key.replace(" ", "_")] = f
    return out


_DICT_PAIR = re.compile(rb"'([^']+)':\s*(?:'([^']*)'|([^,}]+))")


def _hf(m: re.Match[bytes]) -> tuple[int | None, dict[str, float]]:
    out = {}
    for k, quoted, bare in _DICT_PAIR.findall(m.group(0)):
        f = num((quoted or bare).strip())
        if f is not None:
            out[k.decode("utf-8", "replace")] = f
    return None, out


_KV_COLON = re.compile(rb"([A-Za-z][\w /()-]*?):\s*(" + NUM + rb")")
_KV_TIGHT = re.compile(rb"(\S+?):(" + NUM + rb")(?=\s|$)")
_KV_TITAN = re.compile(rb"(\w+):\s+(" + NUM + rb")")


def _megatron(m: re.Match[bytes]) -> tuple[int | None, dict[str, float]]:
    out = _pairs(_KV_COLON, m.group(2), skip=("consumed samples",))
    return int(m.group(1)), out


def _torchtune(m: re.Match[bytes]) -> tuple[int | None, dict[str, float]]:
    return int(m.group(1)), _pairs(_KV_TIGHT, m.group(2))


def _titan(m: re.Match[bytes]) -> tuple[int | None, dict[str, float]]:
    return int(m.group(1)), _pairs(_KV_TITAN, m.group(2))


_ANY = rb"[^\n\r]*"
# (name, pattern, parse). Order matters only for reporting which formats were seen.
METRICS: tuple[tuple[str, re.Pattern[bytes], Parse], ...] = (
    (
        "hf",
        re.compile(
            rb"\{'(?:loss|eval_[\w/]+|train_runtime|learning_rate|grad_norm|epoch|rewards?/[\w/]+)'"
            rb":[^{}\n\r]*\}"
        ),
        _hf,
    ),
    (
        "nanogpt",
        re.compile(
            rb"iter (?P<step>\d+): loss (?P<loss>" + NUM + rb")"
            rb"(?:, time (?P<iter_time_ms>" + NUM + rb")ms)?(?:, mfu (?P<mfu>" + NUM + rb")%)?"
        ),
        None,
    ),
    (
        "nanogpt",
        re.compile(
            rb"step (?P<step>\d+): train loss (?P<eval_train_loss>" + NUM + rb"), "
            rb"val loss (?P<eval_loss>" + NUM + rb")"
        ),
        None,
    ),
    ("megatron", re.compile(rb"iteration\s+(\d+)/\s*\d+\s*\|(" + _ANY + rb")"), _megatron),
    (  # lr=[...] holds one LR per param group: the first is kept
        "deepspeed",
        re.compile(
            rb"step=(?P<step>\d+), skipped=(?P<skipped_steps>\d+), lr=\[(?P<lr>" + NUM + rb")?"
        ),
        None,
    ),
    (
        "deepspeed",
        re.compile(
            rb"global_step=(?P<step>\d+), RunningAvgSamplesPerSec=(?P<samples_per_second>"
            + NUM
            + rb")"
        ),
        None,
    ),
    ("torchtune", re.compile(rb"Step (\d+) \| (" + _ANY + rb")"), _torchtune),
    ("torchtitan", re.compile(rb"step:\s*(\d+)\s+(loss:" + _ANY + rb")"), _titan),
)

# Lines that are evidence by themselves: (Event kind, pattern); group 1, if any, is the value.
# KEYS: literals one of which the line must contain; a memchr-speed find() skips the
# regex (which has no literal prefix to speed its scan) on the many logs without them.
EVENTS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    # apex/fairseq/Megatron "Gradient overflow.  Skipping step, ... reducing loss scale to X";
    # DeepSpeed "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"
    (
        "fp16-overflow",
        re.compile(
            rb"(?:Gradient overflow\.?\s+Skipping step|OVERFLOW! Rank \d+ Skipping step|"
            rb"[Oo]verflow detected\.? [Ss]kipping step)"
            rb"(?:[^\n\r]*?(?:reducing to|reducing loss scale to)\s*(" + NUM + rb"))?"
        ),
    ),
    (
        "loss-scale-minimum",
        re.compile(rb"(?:loss scale already at minimum|[Mm]inimum loss scale reached)"),
    ),
    # HF v4 "Will skip the first 0 epochs then the first 4000 batches in the first epoch."
    # HF v5 "Fast-forwarding the dataloader past 0 epochs and 10 batches to resume ..."
    (
        "resume-skip-batches",
        re.compile(
            rb"(?:Will skip the first \d+ epochs then the first|"
            rb"Fast-forwarding the dataloader past \d+ epochs and) (\d+) batches"
        ),
    ),
    # HF v4 "Continuing training from global step 300"; v5 "... with epoch 0 and global step 10"
    (
        "resume",
        re.compile(
            rb"(?:Continuing training from global step|"
            rb"Resuming training from checkpoint with epoch \d+ and global step) (\d+)"
        ),
    ),
    (
        "nccl-timeout",
        re.compile(
            rb"(?:Watchdog caught collective operation timeout|"
            rb"NCCL[^\n\r]{0,120}?(?:timed out|[Tt]imeout\b(?!\s*=)))"
        ),
    ),
    # PEFT print_trainable_parameters(): "trainable params: 0 || all params: 124,439,808 || ..."
    ("trainable-params", re.compile(rb"trainable params: ([\d,]+) \|\| all params")),
)

KEYS = {
    "fp16-overflow": (b"verflow", b"OVERFLOW"),
    "loss-scale-minimum": (b"inimum",),
    "resume-skip-batches": (b" batches",),
    "resume": (b"global step",),
    "nccl-timeout": (b"NCCL", b"Watchdog"),
    "trainable-params": (b"trainable params",),
}
