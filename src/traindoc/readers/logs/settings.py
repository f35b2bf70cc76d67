"""Settings a plain-PyTorch script prints at the top of its log: an argparse
`Namespace(lr=20, model='LSTM', data='./data/wikitext-2', ...)` dump, or a config
module echoed line by line (nanoGPT's `init_from = 'gpt2'`).

Read as a metric line, a Namespace is a record: its `lr=20` and `epochs=6` become a
curve point at step 6, and its strings are lost. Read here, each value is parsed as a
Python literal (`ast.literal_eval`, one value at a time: never eval), and a value that
is not a literal (`device=device(type='cuda')`, `act=<function relu at 0x7f>`) is
skipped while the rest are kept. Which keys become facts is configs.py's alias table.
"""

from __future__ import annotations

import ast
import contextlib
import re

from traindoc.readers import configs

_NAMESPACE = b"Namespace("
# A config dataclass's repr printed the same way (`print(config)`: nanoGPT-style
# `GPTConfig(block_size=256, vocab_size=32768, ...)`, llama's `ModelArgs(dim=4096, ...)`,
# `TrainConfig(lr=3e-4, ...)`): keyword fields in one pair of parentheses on one line.
CONFIG_REPR = re.compile(r"(?<![\w.])[A-Z][A-Za-z0-9]{0,40}(?:Config|Args|Arguments)\((?=\w+=)")
_CONFIG_REPR_B = re.compile(CONFIG_REPR.pattern.encode())
_MAX_VALUE = 400  # longer than any setting a fact is taken from
_KEY = re.compile(r"\s*([A-Za-z_]\w{0,60})\s*=(.*)", re.DOTALL)
# `key = 'text'` (a quoted literal, a comment after it): a config module's line
_ASSIGN = re.compile(
    rb"^\s*([A-Za-z_]\w{0,60})\s*=\s*('[^'\n]{0,300}'|\"[^\"\n]{0,300}\")\s*,?\s*(?:#.*)?$"
)
_PAIRS = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSERS = frozenset(_PAIRS.values())


def is_namespace(text: bytes) -> bool:
    return _NAMESPACE in text or _CONFIG_REPR_B.search(text) is not None


def namespace(text: bytes) -> dict[str, object]:
    """The well-known settings of the argparse Namespace (or config dataclass repr)
    printed on this line (its literal values only; empty when it holds none)."""
    at = text.find(_NAMESPACE)
    if at >= 0:
        at += len(_NAMESPACE)
    elif (m := _CONFIG_REPR_B.search(text)) is not None:
        at = m.end()
    else:
        return {}
    out: dict[str, object] = {}
    nested: list[str] = []
    for piece in _split(text[at:].decode("utf-8", "replace")):
        m = _KEY.match(piece)
        if m is None:
            continue
        if (sub := _NESTED.match(m.group(2))) is not None:
            nested.append(m.group(2)[sub.end() :])
            continue
        if (key := m.group(1).lower()) not in configs.SETTING_KEYS:
            continue
        value = _literal(m.group(2))
        if value is not _NOT:
            out.setdefault(key, value)
    # One level down, after the top level's own: OLMo's TrainConfig(...) holds
    # model=ModelConfig(vocab_size=50280, ...) and optimizer=OptimizerConfig(learning_rate=...)
    # (a config inside a list, an evaluator's, is another loop's and is not read).
    for body in nested:
        for piece in _split(body):
            m = _KEY.match(piece)
            if m is None or (key := m.group(1).lower()) not in configs.SETTING_KEYS:
                continue
            value = _literal(m.group(2))
            if value is not _NOT:
                out.setdefault(key, value)
    return out


# A field whose value is itself a config dataclass's repr (`model=ModelConfig(`).
_NESTED = re.compile(r"\s*[A-Z][A-Za-z0-9]{0,40}(?:Config|Args|Arguments)\((?=\w+=)")


def assignment(text: bytes) -> tuple[str, object] | None:
    """A well-known setting given a quoted value on a line of its own
    (`dataset = 'shakespeare'`, `init_from = 'gpt2' # a comment`)."""
    m = _ASSIGN.match(text)
    if m is None:
        return None
    key = m.group(1).decode().lower()
    if key not in configs.SETTING_KEYS:
        return None
    value = _literal(m.group(2).decode("utf-8", "replace"))
    return None if value is _NOT else (key, value)


_NOT = object()

# An OpenMMLab config dumped at the head of its log (mmcv's `Config.pretty_text`,
# mmengine's): the schedule and the loop length, each a `name = dict(...)` on one line.
_MM_LINE = re.compile(
    rb"^\s*(lr_config|runner|train_cfg|param_scheduler|total_epochs)\s*=\s*(.{1,400}?)\s*$"
)


def mm_schedule(text: bytes) -> dict[str, object]:
    """Settings an OpenMMLab config line states about the run's epochs and its step
    schedule: `num_train_epochs` (runner / train_cfg `max_epochs`, `total_epochs`) and
    `lr_first_decay_epoch`, the epoch index at which a step schedule first cuts the LR
    (mmcv `lr_config = dict(policy='step', step=N or [a, b])`: the LR is multiplied by
    gamma once the 0-based epoch reaches min(step); mmengine `MultiStepLR` milestones /
    `StepLR` step_size, counted by epoch from begin 0). Steps counted in iterations
    (`by_epoch=False`, an iteration-based loop) give nothing: their unit is not epochs."""
    m = _MM_LINE.match(text)
    if m is None:
        return {}
    name = m.group(1).decode()
    try:
        node = ast.parse(m.group(2).decode("utf-8", "replace"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    if name == "total_epochs":
        value = _literal(ast.unparse(node))
        return {"num_train_epochs": value} if _whole(value) else {}
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    dicts = [d for d in (_call_dict(n) for n in items) if d is not None]
    out: dict[str, object] = {}
    for d in dicts:
        if name in ("runner", "train_cfg"):
            if "Iter" not in str(d.get("type", "")) and _whole(d.get("max_epochs")):
                out["num_train_epochs"] = d["max_epochs"]
        elif name == "lr_config" and str(d.get("policy", "")).lower() == "step":
            if d.get("by_epoch", True) is True and (first := _first_cut(d.get("step"))) is not None:
                out["lr_first_decay_epoch"] = first
        elif name == "param_scheduler" and d.get("by_epoch", True) is True:
            kind, begin = str(d.get("type", "")), d.get("begin", 0)
            if begin != 0:
                continue
            key = {"MultiStepLR": "milestones", "StepLR": "step_size"}.get(kind)
            if key is not None and (first := _first_cut(d.get(key))) is not None:
                out.setdefault("lr_first_decay_epoch", first)
    return out


# The optimizer of an OpenMMLab config dump: mmcv's one line `optimizer = dict(type='SGD',
# lr=0.02, momentum=0.9, weight_decay=0.0001)`, mmengine's `    optimizer=dict(type='AdamW',
# lr=0.004, weight_decay=0.05),` inside its `optim_wrapper = dict(` (keys sorted by newer
# mmengine: `optimizer=dict(lr=0.01, momentum=0.9, type='SGD', ...)`), or all on one line.
_MM_OPTIMIZER = re.compile(
    rb"\s*(?:optim_wrapper\s*=\s*dict\([^\n]{0,300}?\b)?optimizer\s*=\s*dict\(([^\n]{1,400})"
)


def mm_optimizer(text: bytes) -> list[tuple[str, object]]:
    """(config key, value) pairs of an OpenMMLab config's optimizer line: its name
    (`optimizer`, lower-cased: `sgd`, `adamw`), its `lr` (the base LR the warmup rises to
    and the schedule decays from: the run's peak) and `weight_decay`. A dict of
    optimizers (mmagic's `optimizer = dict(generator=dict(...), discriminator=...)`) names
    no one optimizer and gives nothing."""
    m = _MM_OPTIMIZER.match(text)
    if m is None:
        return []
    said: dict[str, object] = {}
    for piece in _split(m.group(1).decode("utf-8", "replace")):
        if (kv := _KEY.match(piece)) is not None:
            said.setdefault(kv.group(1), _literal(kv.group(2)))
    out: list[tuple[str, object]] = []
    kind = said.get("type")
    if isinstance(kind, str) and re.fullmatch(r"[A-Za-z][\w.]{0,60}", kind):
        out.append(("optimizer", kind.rsplit(".", 1)[-1].lower()))
    for key in ("lr", "weight_decay"):
        v = said.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            out.append((key, v))
    return out if {"optimizer", "lr"} & {key for key, _ in out} else []


# HF Trainer's plan, printed in words under "***** Running training *****" (trainer.py
# `_inner_training_loop`), after a logger's prefix or none: "  Num Epochs = 24",
# "  Instantaneous batch size per device = 2", "  Total train batch size (w. parallel,
# distributed & accumulation) = 16", "  Gradient Accumulation steps = 8",
# "  Total optimization steps = 1,548" (thousands grouped by commas).
_HF_PLAN = re.compile(
    rb"(?:.{0,120}?\s)?(Num Epochs|Instantaneous batch size per device|Gradient Accumulation steps"
    rb"|Total optimization steps|Total train batch size \(w\. parallel, distributed "
    rb"& accumulation\)) = (\d{1,3}(?:,\d{3})*|\d+)\s*"
)
_HF_KEYS = {
    b"Num Epochs": "num_train_epochs",
    b"Instantaneous batch size per device": "per_device_train_batch_size",
    b"Gradient Accumulation steps": "gradient_accumulation_steps",
    b"Total optimization steps": "max_steps",
    b"Total train batch size (w. parallel, distributed & accumulation)": "total_train_batch_size",
}


def hf_plan(text: bytes) -> list[tuple[str, object]]:
    """The (config key, count) an HF Trainer "Running training" line states, else none."""
    m = _HF_PLAN.fullmatch(text) if b" = " in text else None
    if m is None:
        return []
    return [(_HF_KEYS[m.group(1)], int(m.group(2).replace(b",", b"")))]


def _call_dict(node: ast.expr) -> dict[str, object] | None:
    """The keyword literals of a `dict(k=v, ...)` call (non-literal values left out)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != "dict" or node.args:
        return None
    out: dict[str, object] = {}
    for kw in node.keywords:
        if kw.arg is None:
            continue
        with contextlib.suppress(ValueError, TypeError, SyntaxError, RecursionError):
            out[kw.arg] = ast.literal_eval(kw.value)
    return out


def _first_cut(step: object) -> int | None:
    """The first epoch a step schedule cuts the LR at: `step` itself when whole (every
    N epochs), the smallest milestone of a list."""
    if _whole(step):
        return int(step)  # type: ignore[arg-type]
    if isinstance(step, (list, tuple)) and step and all(_whole(s) for s in step):
        return int(min(step))  # type: ignore[type-var]
    return None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _literal(src: str) -> object:
    src = src.strip()
    if not src or len(src) > _MAX_VALUE:
        return _NOT
    try:
        return ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT


def _split(body: str) -> list[str]:
    """The `key=value` pieces of a call's arguments: split at the commas outside
    brackets and quotes, up to the parenthesis that closes the call (or the end of
    the line, when the dump was cut)."""
    pieces, depth, start, quote, i = [], [], 0, "", 0
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif ord(c) in _PAIRS:
            depth.append(_PAIRS[ord(c)])
        elif ord(c) in _CLOSERS:
            if not depth:  # the Namespace's own ")"
                pieces.append(body[start:i])
                return pieces
            if depth[-1] == ord(c):
                depth.pop()
        elif c == "," and not depth:
            pieces.append(body[start:i])
            start = i + 1
        i += 1
    pieces.append(body[start:])  # cut short: its last value is dropped if not whole
    return pieces
