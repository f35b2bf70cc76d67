"""What one log line says: its layout read once, then reused for every line like it.

A line's *shape* is its text with every number replaced by a slot (NUL):
`iter 1200 step 150: loss 2.3456, iter time: 980.12ms` has the shape
`iter \\0 step \\0: loss \\0, iter time: \\0ms`. Logs repeat a handful of shapes
millions of times, so `analyse` (which finds each number's key, unit and role)
runs once per shape and the reader only maps numbers through the cached `Plan`.

The grammar covers what trainers and users print: `key: v`, `key=v`, `key v`,
multi-word keys (`Train Loss 2.31`, `Learning Rate 1e-05`), quoted keys of dicts
and JSON (`'loss': 2.3`, `"lr": "1e-4"`), tight `k:v` (`s:120 trl:3.21`),
`|`-separated fields, fractions as counters (`Epoch 3/10`, `step:120/5000`,
`(100/44160)`, tqdm's `| 12/240 [`), a leading counter (`420 | loss ...`),
units (`512.3ms`, `6.9 GB`, `45%`, `250 iterations`), per-group LR lists
(`lr: [1e-4, 1e-5]`), printed `('accuracy', 0.65)` pairs, `tensor(nan)` values, and eval context words
(`valid | loss 6.5`, `Epoch(val)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from traindoc.model.signals import (
    METRIC_KINDS,
    STEP_UNITS,
    TEXT_STEP_KEYS,
    canonical,
    is_eval,
    kind,
)
from traindoc.readers.logs.settings import CONFIG_REPR
from traindoc.readers.logs.tables import is_axis_header, md_cells

SLOT = "\x00"
_TOKEN = re.compile(
    r"(?P<slot>\x00)"
    r"|(?P<qslot>'\x00'|\"\x00\")"
    r"|(?P<quoted>'[\w./@%|() -]{1,80}'|\"[\w./@%|() -]{1,80}\")"
    r"|(?P<word>\|g\||[A-Za-z_](?:[A-Za-z0-9_./@%\-]*[A-Za-z0-9_%])?(?:\([A-Za-z]+\))?)"
    r"|(?P<text>[^\x00-\x7f]+)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)",
    re.DOTALL,
)
_STEP_KEYS = frozenset(TEXT_STEP_KEYS)
_CANONICAL = frozenset(
    {"loss", "eval_loss", "grad_norm", "lr", "throughput", "reward", "reward_std"}
)
_EPOCH_KEYS = frozenset({"epoch", "epochs", "ep", "train/epoch", "round", "pass"})
# A round counted out of the run's planned total, as "Epoch 3/40" is: lwnet's and other
# cyclic-LR trainers' "Cycle 3/40" heading (only as a fraction: a bare "cycle: 2" may be
# the schedule's setting)
_ROUND_OF_TOTAL_KEYS = frozenset({"cycle"})
_INNER_KEYS = frozenset({"batch", "batches", "iter_in_epoch", "it_in_epoch"})
_EVAL_WORDS = frozenset(
    {
        "valid",
        "validation",
        "validate",
        "validating",
        "val",
        "eval",
        "evaluation",
        "evaluating",
        "test",
        "testing",
        "dev",
    }
)
# The train split a "k=v" key may carry as one word before it ("Train Loss=0.07"); an
# eval word there stays free and makes the line's eval context, as it always did
_TRAIN_WORDS = frozenset({"train", "training"})
_TIME_UNITS = frozenset({"ms", "s", "sec", "secs", "min", "mins", "h", "hr", "us", "ms/step"})
_MEM_UNITS = frozenset({"g", "gb", "gib", "m", "mb", "mib", "k", "kb", "b", "t", "tb"})
_RATE_UNITS = frozenset(
    {"it/s", "s/it", "tok/s", "tokens/s", "samples/s", "tokens/sec", "it/sec", "step/s"}
)
# Words that a number may follow after a space and still be its unit ("6.9 GB").
_SPACED_UNITS = _TIME_UNITS | _MEM_UNITS | _RATE_UNITS | set(STEP_UNITS) | {"tokens", "%"}
# Log furniture that is neither a key nor prose.
_FURNITURE = frozenset(
    {
        "info",
        "warning",
        "warn",
        "debug",
        "error",
        "critical",
        "train",
        "training",
        "iter",
        "step",
        "epoch",
        "rank",
        "wandb",
        "main",
        "root",
        "log",
        "trainer",
        "__main__",
    }
)
# A logger's level as `%(levelname)s` prints it: the line's furniture, never a word of the
# key after it ("INFO: 1epoch:train:...", "INFO Train: [0/300]").
# PaddleClas's all-caps "END" that opens its summary of an epoch or an evaluation ("END
# epoch:4   train  loss: 10.51 top1: ...", "END valid top1: 0.0127 ...") is furniture too.
_LEVELS = frozenset(
    {"INFO", "WARNING", "WARN", "DEBUG", "ERROR", "CRITICAL", "FATAL", "TRACE", "END"}
)
# A source file named before a number is where the line was logged ("main.py:310",
# "(main_prune.py 310):"), not what was measured.
_SOURCE = re.compile(r"\w\.(?:py|pyx|cc|cpp|cxx|c|h|hpp|cu|rs|go|java|scala|lua|jl|js|ts)$")
MAX_KEY_WORDS = 4


def is_furniture(name: str) -> bool:
    """A logger's furniture alone ("trainer" of "(trainer:737)", "info", "root"): no
    measurement's name, unless it names one ("error") or counts the run ("step")."""
    low = name.lower()
    return (
        low in _FURNITURE
        and low not in _STEP_KEYS
        and low not in _EPOCH_KEYS
        and kind(low) == "other"
    )


# A time of arrival, or the time gone or left, is a clock on the run, never a metric:
# printed as "eta: 0:12:34", "eta: 1 day, 2:03:04" (PaddleOCR, mmdet), "ETA: 2s" (Keras),
# "elapsed_time": "1m 30s" (swift), "6907 sec elapsed" (cxxnet), its number is a part of
# a duration (the days, the minutes), and so are the numbers after it that carry a
# duration's unit ("30s" of "1m 30s"). A time per step ("elapsed time per iteration") is
# a rate, and stays.
# time.ctime()'s weekday and month ("Sun Oct 20 09:00:31 2019", MS-G3D's and 2s-AGCN's
# log prefix): the day after them is a date's, never a value named "Sun Oct".
_CTIME = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
)
_CLOCK_NAME = re.compile(
    r"(?:\w+/)?(?:total_|time_)?(?:eta|elapsed|left|remaining|remain|to_go)"
    r"(?:_time|_s|_sec|_secs|_seconds)?"
    r"|time_cost"  # MXNet's "Epoch[5] Time cost=1.147": the epoch's wall time
    r"|wall_clock"  # BigDL's "[Wall Clock 197331.83s]": the seconds since the run began
)


def is_clock(name: str) -> bool:
    """`name` (lower case, `_` for spaces) is an ETA, elapsed or time-left field."""
    return _CLOCK_NAME.fullmatch(name) is not None


_DURATION_UNITS = frozenset({"d", "day", "days", "h", "hr", "hrs", "m", "min", "mins", "s", "sec"})


# Words of a sentence, never part of a metric's name: a key ends where they are
# ("the loss is 2.3" has no key; "Num of training step: 4092" is "training step").
_FILLER = frozenset(
    {
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "for",
        "and",
        "or",
        "of",
        "to",
        "at",
        "in",
        "on",
        "with",
        "after",
        "before",
        "it",
        "its",
        "this",
        "that",
        "i",
        "we",
        "my",
        "our",
        "you",
        "but",
        "so",
        "then",
        "when",
        "from",
        "by",
        "about",
        "around",
        "get",
        "got",
        "gets",
        "have",
        "has",
        "had",
        "stuck",
        "still",
        "only",
        "just",
        "not",
        "no",
        "very",
        "also",
        "took",
        "takes",
        "reached",
        "reaches",
        "goes",
        "went",
        "becomes",
        "became",
        "stays",
        "than",
        "as",
        "like",
        "if",
        "into",
        "over",
        "under",
        "between",
        "up",
        "down",
        "even",
        "now",
        "since",
        "until",
        "while",
        "because",
        "which",
        "where",
        "there",
        "here",
        "will",
        "would",
        "can",
        "could",
        "should",
        "does",
        "did",
        "do",
        "set",
        "using",
        "use",
        "used",
        "see",
        "shows",
    }
)
# Program source (a record .txt starts with the training script; issues paste code). A
# "#" glued to a number opens no comment: "#100 loss: 0.53" numbers its record.
_CODE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import|if |elif |else\b|for |while |return\b|with "
    r"|try:|except\b|raise |assert |@\w|#(?!\x00)|print\d?\(|\w+ = \w+\()|\b(?:self|torch|args|np|F|nn|"
    r"math|os|sys)\.\w|:\s*(?:int|float|str|bool)\s*=|\w\($|\{\w+(?::[^}]*)?\}"
)


@dataclass(frozen=True, slots=True)
class Field:
    slot: int  # index of the number in the line
    key: str  # the key as printed ("" when the number has none)
    # value | step | total | epoch | epoch_total | inner | inner_total | skip | scale
    # (scale: the bracketed unit the value of the same key is printed in)
    role: str
    unit: str = ""


@dataclass(frozen=True, slots=True)
class Plan:
    # record | progress | epoch | header | axis | row | config | title | prose | summary
    # | settings | other
    kind: str
    fields: tuple[Field, ...] = ()
    context: str = ""  # "eval" for a validation / test line
    columns: tuple[str, ...] = ()  # a header's column names
    hint: bool = False  # names a metric next to a number (counted when not read)
    # a config-shaped line that is a loop's record outside a block: one loss and no
    # other words ("train loss:1.10886"); no config prints a loss
    loose: bool = False
    # ... whose loss is named by words the key dropped ("CE loss: 2.1", "Dice Loss: 0.61"):
    # a loop's record under its whole name once the line repeats (text.py)
    named: bool = False
    # a header whose columns the separators bound (tabs, pipes, 2+ spaces): a row with
    # fewer numbers is cut short (a truncated last line), not one to re-segment
    bounded: bool = False

    @property
    def has_step(self) -> bool:
        return any(f.role in ("step", "inner", "epoch") for f in self.fields)


@dataclass(slots=True)
class _Tok:
    kind: str
    text: str


def tokens(shape: str) -> list[_Tok]:
    return [_Tok(m.lastgroup or "punct", m.group()) for m in _TOKEN.finditer(shape)]


# A quoted string literal with a number inside it, Python's bytes b'...' or a plain
# '...' / "..." with a letter in it and no space ("image_name:b'70844.jpg'", a file
# name 'img_0042.png'): text the line printed, never a metric's value, and the letter
# before the quote no metric's name. A quoted number alone ('0.5') is a value and stays.
_LITERAL = re.compile(
    r"(?<![A-Za-z0-9_])[bBuUrRfF]{0,2}(['\"])"
    r"(?:[^'\"\s\x00]*\x00)+[^'\"\s\x00]*\1"
)


def _in_literals(shape: str, toks: list[_Tok]) -> set[int]:
    """The indices of the tokens inside a quoted literal, its prefix too (see _LITERAL)."""
    spans = [
        m.span()
        for m in _LITERAL.finditer(shape)
        if m.group()[:1] not in "'\"" or re.search(r"[A-Za-z]", m.group()[1:])
    ]
    if not spans:
        return set()
    out, pos = set(), 0
    for i, t in enumerate(toks):
        if any(a <= pos < b for a, b in spans):
            out.add(i)
        pos += len(t.text)
    return out


def analyse(shape: str) -> Plan:
    """The plan for every line of this shape (see the module docstring)."""
    return _weights_norm(_bare_players(_bracket_ranges(shape, _slash_pairs(shape, _plan(shape)))))


# A bare "Norm" on a line that describes the weights - their count of non-zeros and the
# bias - is the weight vector's norm: scikit-learn's SGD / Perceptron / passive-aggressive
# verbose epoch line ("Norm: 22.63, NNZs: 4, Bias: -4.052612, T: 150, Avg. loss:
# 6.542938"). llm.c's bare "norm" beside a loss and an LR stays the gradient's.
_WEIGHT_WORDS = frozenset({"nnzs", "nnz", "bias", "intercept"})


def _weights_norm(plan: Plan) -> Plan:
    """Name a bare `norm` `weight norm` where the record also describes the weights."""
    if plan.kind != "record" or not any(f.key.strip().lower() == "norm" for f in plan.fields):
        return plan
    if not any(f.key.strip().lower() in _WEIGHT_WORDS for f in plan.fields):
        return plan
    fields = tuple(
        replace(f, key="weight norm") if f.key.strip().lower() == "norm" else f for f in plan.fields
    )
    return replace(plan, fields=fields)


def analyse_whole(shape: str) -> Plan:
    """The plan with every loss named in full ("KL loss" stays "KL loss", not "loss"): for
    the lines of one block that each name a term of the loss on a line of its own."""
    global _WHOLE
    _WHOLE = True
    try:
        return analyse(shape)
    finally:
        _WHOLE = False


# A GAN's players under their bare letters, as a tqdm postfix prints them: musika's
# "DR=713, DF=nan, G=nan, GP=2.16e+4, LR=0.0001" (the discriminator's loss on real and
# on fake samples, the generator's). A bare G or D alone is no player (a math answer's
# "D: 4"); both sides on one record line are the two losses of a GAN, named as the
# common code names them so that they read as losses and as opponents (derived.py).
_PLAYER_LETTERS = {"G": "G_loss", "D": "D_loss", "DR": "D_real", "DF": "D_fake"}


def _bare_players(plan: Plan) -> Plan:
    if plan.kind != "record":
        return plan
    keys = {f.key.strip().upper() for f in plan.fields if f.role == "value"}
    if "G" not in keys or not keys & {"D", "DR", "DF"}:
        return plan
    fields = tuple(
        replace(f, key=_PLAYER_LETTERS[k])
        if f.role == "value" and (k := f.key.strip().upper()) in _PLAYER_LETTERS
        else f
        for f in plan.fields
    )
    return replace(plan, fields=fields)


# Words before a loss that make it one value of the curve, not a term of the loss: a
# running extreme ("Best loss: 0.31" each epoch), an end point, a target.
_NOT_A_TERM = frozenset(
    {"best", "min", "minimum", "lowest", "max", "maximum", "highest", "final", "initial"}
    | {"init", "previous", "prev", "last", "target", "expected", "baseline", "reference"}
)
_NAMED_LOSS = re.compile(r"[a-z][a-z0-9]*(?:[ _-][a-z][a-z0-9]*){0,2}[ _]loss", re.IGNORECASE)


def _named_loss(f: Field) -> bool:
    """A key that names a loss by one to three words before it ("grpo_loss", "Generator
    loss", "KL loss")."""
    key = f.key.strip()
    words = set(re.split(r"[ _-]", key.lower())[:-1])
    return _NAMED_LOSS.fullmatch(key) is not None and not words & _NOT_A_TERM


def _plan(shape: str) -> Plan:
    global _WHOLE
    plan = _analyse(shape)
    bare = _bare_losses(plan) if plan.kind == "record" else 0
    if bare and _losses(plan) > 1:
        # "Total Loss: 2.14, CTC Loss: 2.14, ErrorCls Loss: 0.10": each "X Loss" taken as
        # the loss leaves one line with three losses, the first (the CTC term) read as
        # the run's loss and the total as another column. Named in full they are the
        # total and its terms.
        _WHOLE = True
        try:
            whole = _analyse(shape)
        finally:
            _WHOLE = False
        if whole.kind == "record" and _bare_losses(whole) < bare:
            return whole
    return plan


# Two statistics of one quantity printed as a pair, "mean/median reward -20.4/-20.0,
# min/max reward -21.0/-19.0" (pytorch-a2c-ppo-acktr-gail's update line): each number is
# the statistic in its place, not the quantity and a total. A colon may follow the name:
# lwnet's "Train/Val Loss: 0.41/0.52 -- Train/Val AUC: 0.90/0.87" names a train and an
# eval value each.
_SLASH_PAIR = re.compile(r"\b([A-Za-z]+)/([A-Za-z]+) ([A-Za-z][A-Za-z_]*):? \x00/\x00")


def _slash_pairs(shape: str, plan: Plan) -> Plan:
    """Name the two numbers of each `a/b name X/Y` pair `a name` and `b name`."""

    def name(m: re.Match[str], at: list[int], fields: list[Field]) -> None:
        for i, stat in zip(at, m.group(1, 2), strict=True):
            fields[i] = Field(fields[i].slot, f"{stat} {m.group(3)}", "value", fields[i].unit)

    return _rename(shape, plan, "/\x00", _SLASH_PAIR, 3, 2, name)


# A mean with the range it was taken over, "name: X [MIN, MAX]": keras-rl's interval
# summary ("episode_reward: -1479.559 [-1726.207, -826.488]") and its per-episode lines
# ("mean reward: 1.000 [1.000, 1.000]"), printed as '{}: {:.3f} [{:.3f}, {:.3f}]'.
_BRACKET_RANGE = re.compile(r"([A-Za-z][\w ]*?): \x00 \[\x00, \x00\]")


def _bracket_ranges(shape: str, plan: Plan) -> Plan:
    """Name the bracketed pair after a `name: X` value `name min` and `name max`."""

    def name(m: re.Match[str], at: list[int], fields: list[Field]) -> None:
        key = fields[at[0]].key or m.group(1).strip()
        for i, stat in zip(at[1:], ("min", "max"), strict=True):
            fields[i] = Field(fields[i].slot, f"{key} {stat}", "value", "")

    return _rename(shape, plan, " [\x00, \x00]", _BRACKET_RANGE, 1, 3, name)


def _rename(
    shape: str,
    plan: Plan,
    marker: str,
    pattern: re.Pattern[str],
    group: int,
    width: int,
    name: Callable[[re.Match[str], list[int], list[Field]], None],
) -> Plan:
    """Rename, with `name`, the fields of the `width` numbers from the first one after
    each match's `group` (given as their indices in the field list); a match whose
    numbers are not all fields, or whose first is not a value, is left as read."""
    if plan.kind != "record" or marker not in shape:
        return plan
    fields = list(plan.fields)
    by_slot = {f.slot: i for i, f in enumerate(fields)}
    for m in pattern.finditer(shape):
        slot = shape.count("\x00", 0, m.end(group))
        if not all(slot + k in by_slot for k in range(width)):
            continue
        at = [by_slot[slot + k] for k in range(width)]
        if fields[at[0]].role == "value":
            name(m, at, fields)
    return replace(plan, fields=tuple(fields))


# While set, a loss-like phrase keeps all its words ("ctc loss" is not cut to "loss"),
# but for the words that say how the loss was averaged ("Average Loss" is the loss beside
# pytorch-ssd's "Average Regression Loss" and "Average Classification Loss").
_WHOLE = False
_MEAN_WORDS = frozenset({"average", "avg", "mean", "running", "smoothed", "batch", "epoch"})


def _bare_losses(plan: Plan) -> int:
    """How many of the plan's values are keyed by a bare "loss"."""
    return sum(1 for f in plan.fields if f.role == "value" and f.key.strip().lower() == "loss")


def _losses(plan: Plan) -> int:
    """How many of the plan's values are keyed by a loss or a term of one (an entropy
    bonus, PPO's "entropy loss", is neither: "policy loss" beside it stays the loss)."""
    return sum(
        1
        for f in plan.fields
        if f.role == "value"
        and f.key.strip().lower().endswith("loss")
        and kind(f.key) in ("loss", "eval_loss", "component_loss", "eval_component_loss")
    )


# PyTorch's ReduceLROnPlateau(verbose=True) message, "Epoch    29: reducing learning rate
# of group 0 to 7.8125e-04." (newer: "Epoch 00029: ..."): the LR the next epoch runs at,
# read at the step it follows as "Updating learning rate to" is (its epoch is the
# scheduler's count of step() calls, no run's heading; text.py drops the lines of groups
# after the first).
_PLATEAU_LR = re.compile(
    r"(?:^|\s)Epoch\s+\x00: reducing learning rate of group \x00 to \x00\.?\s*$"
)


# Informer2020's and the Time-Series-Library's `adjust_learning_rate` (copied into many
# forecasting repos) prints "Updating learning rate to 7.220777503459319e-280" after each
# epoch's summary: the LR the next epoch runs at, read at the step it follows (the LR the
# scheduler just set, as an HF trainer logs it). Its only number is the LR; a line of its
# own or after a logger's prefix, never inside a sentence.
_SET_LR = re.compile(r"(?:^|\s)Updating learning rate to \x00\.?\s*$")


# Keras' LearningRateScheduler(verbose=1) message, "Epoch 00002: LearningRateScheduler
# setting learning rate to 0.001." (Keras 2.x; newer: "Epoch 2: ..."), printed under the
# "Epoch 2/120" heading before that epoch's bar: the LR the epoch runs at. Its epoch is
# the heading's already, so the number is skipped: printed on a record of its own it would
# be an epoch column beside the bars' counted one (steps.build), and its line, placed at
# the step before, would take that step's epoch.
_KERAS_SET_LR = re.compile(
    r"(?:^|\s)Epoch \x00: LearningRateScheduler setting learning rate to \x00\.?\s*$"
)

# Keras' ReduceLROnPlateau(verbose=1) message, "Epoch 00003: ReduceLROnPlateau reducing
# learning rate to 0.00010000000474974513." (newer: "Epoch 3: ..."), printed when the
# epoch it names ends: the LR from the next epoch on, read at the step it follows as
# PyTorch's is. Its epoch is skipped as LearningRateScheduler's is (the bars count them).
_KERAS_PLATEAU_LR = re.compile(
    r"(?:^|\s)Epoch \x00: ReduceLROnPlateau reducing learning rate to \x00\.?\s*$"
)


def _analyse(shape: str) -> Plan:
    if _CODE.search(shape):
        return Plan("code")
    if "reducing learning rate" in shape and _PLATEAU_LR.search(shape):
        fields = (Field(0, "Epoch", "skip"), Field(1, "group", "skip"), Field(2, "lr", "value"))
        return Plan("record", fields, hint=True)
    if "learning rate to" in shape and _SET_LR.search(shape):
        return Plan("record", (Field(0, "lr", "value"),), hint=True)
    if "ReduceLROnPlateau" in shape and _KERAS_PLATEAU_LR.search(shape):
        return Plan("record", (Field(0, "Epoch", "skip"), Field(1, "lr", "value")), hint=True)
    if "LearningRateScheduler" in shape and _KERAS_SET_LR.search(shape):
        return Plan("record", (Field(0, "Epoch", "skip"), Field(1, "lr", "value")), hint=True)
    if "Namespace(" in shape:  # an argparse dump: settings.py reads it, never a record
        return Plan("settings")
    if "(" in shape and CONFIG_REPR.search(shape):  # a config dataclass's repr, the same
        return Plan("settings")
    if "***" in shape and (title := _title(shape)) is not None:
        return title
    if is_axis_header(shape):
        return Plan("axis")
    if (numbered := _numbered_md_header(shape)) is not None:
        return numbered
    if "epoch results: [train] " in shape and (m := _RESULTS.search(shape)):
        return _epoch_results(shape, m.end())
    if _SWEEP_ROW.search(shape) and not _SWEEP_NOT.search(shape):
        return Plan("summary")
    toks = tokens(shape)
    slots = [i for i, t in enumerate(toks) if t.kind in ("slot", "qslot")]
    words = [t.text for t in toks if t.kind == "word"]
    if not slots:
        return _header(toks, words)
    slot_no = {t: n for n, t in enumerate(slots)}
    fields: list[Field] = []
    used: set[int] = set()  # token indices consumed as keys or units
    done: set[int] = set()
    inert = _in_literals(shape, toks) if "'" in shape or '"' in shape else set()
    used |= inert  # its words are the string's, neither keys nor free words
    spaced: set[int] = set()  # slots whose key is a word before them with no `:` or `=`
    list_open = False
    clock = False  # the last keyed number was an ETA / elapsed time: its parts follow
    for t in slots:
        if t in done:
            continue
        n = slot_no[t]
        if t in inert:  # inside a quoted literal: text, no value
            fields.append(Field(n, "", "skip"))
            continue
        nxt = _next(toks, t)
        # a date 2022-08-30 (its month and day are not numbers of ours) -> not a metric
        if _is_punct(toks, t + 1, "-") and t + 2 < len(toks) and toks[t + 2].text.isdigit():
            fields.append(Field(n, "", "skip"))
            continue
        # clock / date: 5:41:49, 00:10<03:00, 2024/01/02 -> not a metric
        if _is_punct(toks, t + 1, ":") and _is_slot(toks, t + 2):
            j = t
            while _is_slot(toks, j) and (
                _is_punct(toks, j + 1, ":") or _is_punct(toks, j + 1, ".")
            ):
                done.add(j)
                j += 2
            done.add(j)
            fields.append(Field(n, "", "skip"))
            continue
        if (scaled := _scale(toks, t)) is not None:  # verl's "actor/lr(1e-4):0.010"
            key, v = scaled
            used.add(t - 2)
            done.add(v)
            unit, unit_idx = _unit(toks, v)
            used.update(unit_idx)
            fields.append(Field(n, key, "scale"))
            fields.append(Field(slot_no[v], key, _role(key, unit, toks, v, _next(toks, v)), unit))
            continue
        frac = _fraction(toks, t)
        if frac is not None and _share_count(toks, t):  # "Accuracy: 50.00% (4/8)"
            done.add(frac)
            fields.extend((Field(n, "", "skip"), Field(slot_no[frac], "", "skip")))
            continue
        if (window := _window_qualifier(toks, t)) is not None:
            used.update(window)  # "Mean reward (100 ep): 22.6": 100 is the window, not a value
            fields.append(Field(n, "", "skip"))
            continue
        key, sep, opened, key_idx = _key_left(toks, t, used)
        if _CTIME.fullmatch(key):  # "[ Sun Oct 20 09:00:31 2019 ]": a date, not a metric
            used.update(key_idx)
            fields.append(Field(n, key, "skip"))
            continue
        if key and _is_punct(toks, key_idx[0] - 1, "#") and _role(key, "", toks, t, nxt) == "value":
            used.update(key_idx)  # "#Images: 200" (PaddleSeg's eval): a count, never a metric
            fields.append(Field(n, key, "skip"))
            continue
        if sep == "is" and kind(_base_key(key)) not in METRIC_KINDS:
            used.update(key_idx)  # "Current momentum is 0.9.": a setting's clause, no metric
            fields.append(Field(n, key, "skip"))
            continue
        if key == "cost" and (w := _time_before(toks, key_idx[0])) is not None:
            key, key_idx = "Time cost", [w, *key_idx]  # a two-word key before its `=`
        elif key == "Training cost" and text_starts(toks, "[Epoch"):
            key = "Time cost"  # GluonCV's `[Epoch 3] Training cost: 185.4`: the epoch's seconds
        used.update(key_idx)
        if key and not sep:
            spaced.add(n)
        if list_open and not key:
            role = "skip"
            fields.append(Field(n, "", role))
            if _closes_list(toks, t):
                list_open = False
            continue
        list_open = opened == "[" and not _closes_list(toks, t if frac is None else frac)
        last = frac if frac is not None else t
        unit, unit_idx = _unit(toks, last)
        used.update(unit_idx)
        if unit in ("e", "E"):  # a number cut mid-way: "7e" at the end of a pasted line
            fields.append(Field(n, key, "skip"))
            continue
        if frac is not None:
            done.add(frac)
            m = slot_no[frac]
            counted = key and _role(key, "", toks, t, nxt) == "value"
            if counted and (share := _count_share(toks, frac)) is not None:
                # "Accuracy: 9891/10000 (99%)": answers right of the total, then their share
                done.add(share)
                fields.extend((Field(n, key, "skip"), Field(m, key, "skip")))
                fields.append(Field(slot_no[share], key, "value", "%"))
                continue
            fields.extend(_fraction_fields(key, n, m, toks, t, fields))
            continue
        if key:
            clock = is_clock(_base_key(key).lower().replace(" ", "_"))
        elif clock and unit.lower() in _DURATION_UNITS:  # "30s" of "elapsed_time": "1m 30s"
            fields.append(Field(n, "", "skip", unit))
            continue
        fields.append(Field(n, key, _role(key, unit, toks, t, nxt), unit))
    unvalued = _unvalued_keys(toks, used)
    free = [
        toks[i].text
        for i, tk in enumerate(toks)
        if tk.kind == "word"
        and i not in used
        and i not in unvalued
        and toks[i].text.lower() not in _FURNITURE
        and not _placeholder_cell(toks, i)
    ]
    for i, tk in enumerate(toks):  # a run of CJK (or other non-ASCII) letters is prose
        if (
            i not in used
            and tk.kind == "text"
            and len(tk.text) > 1
            and any(ch.isalpha() for ch in tk.text)
        ):
            free.extend([tk.text] * max(1, len(tk.text) // 2))
    fields = _running_means(toks, slots, fields)
    fields = _grouped_means(toks, slots, fields)
    fields = _split_at_eval_word(toks, slots, fields, used, free)
    fields = _split_of_loss(fields)
    fields = _split_of_heading(toks, fields)
    fields = _split_scores(fields)
    fields = _joined_names(fields)
    fields = _prf_letters(fields)
    fields = _in_sentence(fields, free, spaced)
    plan = _classify(toks, fields, free, words)
    if plan.kind == "record" and _OPTIMIZER_DICT.match(shape):
        return Plan("config", plan.fields, plan.context)
    if plan.kind == "record" and _EVAL_LINE.search(shape):
        return replace(plan, context="eval")
    return plan


# Lines that are an evaluation's results by what prints them, with no split word of their
# own: TF Estimator's evaluate() logs "Saving dict for global step 200: accuracy = 0.6012,
# global_step = 200, loss = 1.8512" (the train lines are "loss = 1.90, step = 200"); the
# PyTorch quickstart tutorial's test loop prints "Test Error: \n Accuracy: 11.3%, Avg loss:
# 2.301234 \n", its heading on the line before (the train loop's "loss: 2.302585  [
# 64/60000]").
_EVAL_LINE = re.compile(
    r"Saving dict for global step \x00:|^\s*Accuracy: \x00%, Avg loss: \x00\s*$"
)


# A dict that is the value of an `optimizer` key is that optimizer's settings (a Keras
# model card's "- optimizer: {'name': 'Adam', 'learning_rate': 5e-05, ...}"), not a record.
_OPTIMIZER_DICT = re.compile(r"\s*['\"]?optimi[sz]er['\"]?\s*[:=]\s*\{")


# One row of a score-threshold sweep: an evaluator that scores the predictions at several
# confidence thresholds prints a row per threshold, all of one evaluation (mmocr's
# hmean-iou: "thr 0.30, recall: 0.764, precision: 0.749, hmean: 0.757", then 0.40 ...
# 0.90; mmocr 1.x: "prediction score threshold: 0.30, recall: ..."). Read as records the
# rows of one step overwrite each other and the last, most extreme threshold (recall 0 at
# thr 0.90) stands as the model's metric; the evaluator's own summary line
# ("Epoch(val) [3][1000]  0_hmean-iou:hmean: 0.5988") is the point. A row names a
# threshold with its value, then precision / recall / F-scores, and no loss or counter.
_SWEEP_ROW = re.compile(
    r"(?i)(?<![\w])(?:thr|thresh|threshold)\s*[:=]?\s*\x00\s*[,;|]?\s+.*?"
    r"\b(?:recall|precision|hmean|f1|f-score|fscore)\b\s*[:=]"
)
_SWEEP_NOT = re.compile(r"(?i)\b(?:loss|epoch|iter|iteration|step|batch)\b")


# ESPnet2's epoch summary: "(trainer:343) INFO: 3epoch results: [train] iter_time=..,
# loss=.., [valid] loss=.., acc=.., [att_plot] time=..". Its [train] part is the epoch's
# mean of the window lines ("3epoch:train:1-1000batch: ...") already read, not a point of
# their curve; its [valid] part is the epoch's validation, which ESPnet prints nowhere else.
_RESULTS = re.compile(r"\x00epoch results: \[train\] ")


def _epoch_results(shape: str, start: int) -> Plan:
    """The [valid] section as an eval record, every other number skipped; a "summary"
    (read as nothing, and not a line left unread) when the line has no [valid] part."""
    at = shape.find("[valid] ", start)
    sub = Plan("summary")
    if at >= 0:
        end = shape.find(" [", at + 8)  # the next section ("[att_plot]") ends it
        sub = analyse(shape[at : end if end >= 0 else len(shape)])
    if sub.kind != "record":
        return Plan("summary")
    before = shape.count(SLOT, 0, at)
    fields = [Field(i, "", "skip") for i in range(before)]
    fields += [Field(f.slot + before, f.key, f.role, f.unit) for f in sub.fields]
    return Plan("record", tuple(fields), "eval", hint=True)


def _split_at_eval_word(
    toks: list[_Tok], slots: list[int], fields: list[Field], used: set[int], free: list[str]
) -> list[Field]:
    """A line that prints the train metrics, then an eval word, then the same keys again
    (pytorch-kaldi's res.res: "ep=00 tr=['pretrain_train'] loss=2.532 err=0.573 valid=dev
    loss=1.701 err=0.432 lr_architecture1=0.0002"): the repeated keys after the word are
    the eval's, those before the train's, the others stay as they are; the eval words no
    longer mark the whole line an eval (in place on `free`)."""
    at = next(
        (
            i
            for i, tk in enumerate(toks)
            if tk.kind == "word" and i not in used and tk.text.lower() in _EVAL_WORDS
        ),
        None,
    )
    if at is None:
        return fields
    word = toks[at].text.lower()
    before = {_base_key(f.key).lower() for f in fields if f.role == "value" and slots[f.slot] < at}
    after = {_base_key(f.key).lower() for f in fields if f.role == "value" and slots[f.slot] > at}
    both = (before & after) - {""}
    if not both:
        return fields
    free[:] = [w for w in free if w.lower().strip("():") not in _EVAL_WORDS]  # "valid=dev"
    return [
        Field(f.slot, f"{word} {f.key}", f.role, f.unit)
        if f.role == "value" and slots[f.slot] > at and _base_key(f.key).lower() in both
        else f
        for f in fields
    ]


def _in_sentence(fields: list[Field], free: list[str], spaced: set[int]) -> list[Field]:
    """In a sentence ("Measured on an RTX 4090 ... seq 2048 on ..."), a word followed by a
    number with no `:` or `=` between is a word of the sentence (a product, a spec), not
    a metric, unless it names a known signal: dropped, and its words count as prose
    (in place on `free`). Function words tell a sentence from a log line's keys."""
    if sum(1 for w in free if w.lower() in _FILLER) < 2:
        return fields
    out = []
    for f in fields:
        if f.role == "value" and f.slot in spaced and kind(_base_key(f.key)) == "other":
            free.extend(f.key.split())
            f = Field(f.slot, f.key, "skip", f.unit)
        out.append(f)
    return out


# "***** Eval results *****" (TF Estimator, BERT), "***** eval metrics *****" (HF
# Trainer's log_metrics): the title of a block of indented `key = value` lines.
_TITLE = re.compile(r"\*{3,}\s*([A-Za-z][A-Za-z _-]{1,40}?)\s*\*{3,}\s*$")
_TITLE_WORDS = frozenset({"results", "metrics", "scores"})


def _title(shape: str) -> Plan | None:
    """A metrics block's title: its lines are eval metrics when the title says eval."""
    m = _TITLE.search(shape)
    if m is None:
        return None
    words = {w.lower() for w in re.split(r"[\s_-]+", m.group(1))}
    if not words & _TITLE_WORDS or not words & (_EVAL_WORDS | {"predict", "prediction"}):
        return None
    return Plan("title", context="eval")


def _classify(toks: list[_Tok], fields: list[Field], free: list[str], words: list[str]) -> Plan:
    context = "eval" if _eval_context(fields, free) else ""
    if not context and (led := _led_by_eval_word(fields)) is not None:
        context, fields = "eval", led
    if not context and (counted := _counted_by_eval_word(fields)) is not None:
        context, fields = "eval", counted
    fields = _episode_average(fields)
    values = [f for f in fields if f.role == "value"]
    # a bare "1.2it/s" is progress-bar furniture; a named rate is a metric
    metric = [f for f in values if f.key and _metric_kind(f) in METRIC_KINDS]
    keyed = [f for f in values if f.key]
    hint = any(_metric_kind(f) in METRIC_KINDS for f in keyed) or _named_number(toks)
    progress = _progress_bar(toks)
    dicts = sum(1 for f in keyed if _quoted_key(toks, f))
    # a launch command (`python run.py --learning_rate=2e-5 ...`, joined over `\` lines):
    # its flags are settings, not a metric record
    text = "".join(t.text for t in toks) if keyed else ""
    if "--" in text and len(_FLAG.findall(text)) >= len(keyed):
        return Plan("config", tuple(fields), context)
    named = len(keyed) + sum(1 for f in fields if f.role in ("step", "epoch") and f.key)
    if len(free) >= 4 and len(free) > 2 * named and not dicts:
        # a "cost" in a sentence ("multiply the total cost by 20%") is a word, not a metric
        # a reader missed: only a loss by that name in a log line's key
        cost_free = _named_number(toks) or any(
            _metric_kind(f) in METRIC_KINDS and not f.key.lower().endswith("cost") for f in keyed
        )
        return Plan("prose", tuple(fields), context, hint=cost_free)
    steps = [f for f in fields if f.role in ("step", "inner", "epoch")]
    if progress and not metric:
        pre = _before_bar(fields)
        if len(pre) >= 2 and not any(f.key for f in pre):
            return Plan("row", pre)  # "1/99  2.64G  nan  nan  4  416: 100%|###| 7/7 [..."
        return Plan("progress", tuple(fields), context)
    if not keyed and not any(f.key for f in fields) and len(fields) >= 2 and not free:
        return Plan("row", tuple(f for f in fields if f.role != "skip"))
    if metric and (steps or len(keyed) >= 2 or progress):
        return Plan("record", tuple(fields), context, hint=True)
    if steps and not keyed and all(f.role in ("epoch", "epoch_total", "skip") for f in fields):
        return Plan("epoch", tuple(fields))
    if len(keyed) == 1 and not steps:
        # (a quoted key is a printed dict cut short: "{'loss': 0.09" before a gap); a
        # reward alone on its line is a loop's too (DeepSpeed-Chat prints "average reward
        # score: -7.8" on the line after each step's losses)
        what = _metric_kind(keyed[0])
        # ... and so is a split's task metric alone on its line ("  curr val acc: 0.357"
        # after each epoch's Keras bar, "Validation Accuracy: 0.91"): an eval value is
        # never a setting
        lone_eval = what == "task" and is_eval(current(_base_key(keyed[0].key)))
        # the free words may only say which statistic the loop prints ("Average loss:
        # 2.31", "Mean Training loss : nan", "Running loss: 0.4"): still the loop's loss
        stat = all(w.lower() in _MEAN_WORDS for w in free)
        # ... and a loss named in full ("grpo_loss is 0.0123", "Generator loss: 2.1"): a
        # loop's record when the line repeats (text.py waits for its third line: a config
        # names "z_loss: 1e-4" once)
        part = what in ("component_loss", "eval_component_loss") and _named_loss(keyed[0])
        loose = (
            (what in ("loss", "eval_loss", "reward") or lone_eval or part) and stat and not dicts
        )
        # ... and so is "<Name> loss: x" alone on its line ("CE loss: 2.1", "KL loss: 0.01"),
        # once it repeats, under its whole name: one word before the loss's key (more are
        # words around it: "Dataset causing Loss=0")
        named = (
            what == "loss"
            and not stat
            and context != "eval"
            and len(free) == 1
            and free[0].isalpha()
            and free[0].lower() not in _NOT_A_TERM | _EVAL_WORDS | {"test", "testing"}
            and not dicts
        )
        return Plan("config", tuple(fields), context, hint=hint, loose=loose or named, named=named)
    if metric:
        return Plan("record", tuple(fields), context, hint=True)
    return Plan("other", tuple(fields), context, hint=hint)


# The average words an RL loop prints its running mean return under, beside the episode
# count: "Episode: 100   Avg: -118.904   BestAvg: -inf   σ: 13.980  |  Steps: 9135"
# (danielnbarbosa/angela, one line per 100 episodes). A bare "Avg" is no metric anywhere
# else; counted by episodes it is the mean score of the last episodes, read as the
# averaged score of Udacity DRLND's "Episode 100\tAverage Score: 0.50" (derived.py).
_EPISODE_AVERAGES = frozenset({"avg", "average"})


def _episode_average(fields: list[Field]) -> list[Field]:
    """The bare running average of a line keyed first by an episode counter, named as the
    averaged score it is; any other line as it was."""
    keyed = [f for f in fields if f.key and f.role == "value"]
    if not keyed or _base_key(keyed[0].key).lower() not in _EPISODE_WORDS:
        return fields
    return [
        replace(f, key="avg_score") if f in keyed[1:] and f.key.lower() in _EPISODE_AVERAGES else f
        for f in fields
    ]


_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*(?:=|\s+(?=\x00))")


def _led_by_eval_word(fields: list[Field]) -> list[Field] | None:
    """A record whose first name opens with an eval word as a word of its own
    ("Validation loss: 0.52, accuracy: 0.81", "Eval loss: 2.3 acc: 0.5", PaddleClas's
    "END valid top1: 0.0127 top5: 0.0569 loss: 8773.9"): the word says what the line
    reports, an evaluation, so every value on it is the eval's; the first name loses
    the word (its fields, else None). Not when another name on the line names a split
    of its own ("Test acc: 0.8 Train acc: 0.9") or repeats the first one's measure (a
    line printing both splits), nor for one-token names ("val_loss: 0.3 loss: 0.2",
    each carrying its own prefix)."""
    keyed = [f for f in fields if f.role == "value" and f.key]
    if len(keyed) < 2:
        return None
    first = keyed[0]
    words = first.key.split(" ")
    if len(words) < 2 or words[0].lower() not in _EVAL_WORDS:
        return None
    base = " ".join(words[1:])
    split_words = _EVAL_WORDS | _TRAIN_WORDS
    for f in keyed[1:]:
        parts = re.split(r"[\s_/]+", f.key.lower())
        if split_words & set(parts) or _base_key(f.key).lower() == _base_key(base).lower():
            return None
    return [Field(f.slot, base, f.role, f.unit) if f is first else f for f in fields]


def _counted_by_eval_word(fields: list[Field]) -> list[Field] | None:
    """A record whose first number is keyed by a bare eval word, with 2+ named values
    after it (PaddlePaddle's fluid examples: "Test:0, Cost:0.26778, Accuracy:0.92138"
    after "Pass:0, Batch:400, Cost:..., Accuracy:..."): the word says the line reports
    an evaluation and its number counts the pass evaluated, as "Pass" does on the train
    lines, so it is the epoch and every value after it is the eval's (its fields, else
    None). Not when a later name carries a split of its own (a line of both splits), nor
    for a counter with its total after the word (the eval loop's batches, not a pass)."""
    numbered = [f for f in fields if f.role != "skip"]
    if not numbered or numbered[0].role != "value":
        return None
    first = numbered[0]
    if _base_key(first.key).lower() not in _EVAL_WORDS:
        return None
    if any(f.key == first.key for f in fields if f is not first):
        return None  # a counter with its total ("Test: [ 60/196]", MetricLogger's batches)
    keyed = [f for f in numbered[1:] if f.role == "value" and f.key]
    if len(keyed) < 2:
        return None
    split_words = _EVAL_WORDS | _TRAIN_WORDS
    if any(split_words & set(re.split(r"[\s_/]+", f.key.lower())) for f in keyed):
        return None
    return [Field(f.slot, f.key, "epoch") if f is first else f for f in fields]


def _named_number(toks: list[_Tok]) -> bool:
    """A metric's name with a number a few words after it ("the loss is 2.0 here")."""
    for i, tk in enumerate(toks):
        if tk.kind != "word" or kind(tk.text) not in METRIC_KINDS:
            continue
        if tk.text.lower().endswith("cost"):
            continue  # "multiply the total cost by 20%": a word of a sentence, not a loss
        seen = 0
        for nxt in toks[i + 1 : i + 10]:
            if nxt.kind in ("slot", "qslot"):
                return True
            if nxt.kind == "word":
                seen += 1
                if seen > 3 or nxt.text.lower() not in _FILLER:
                    break
    return False


def _before_bar(fields: list[Field]) -> tuple[Field, ...]:
    """The table cells printed before a progress bar's percentage."""
    out = []
    for f in fields:
        if f.unit == "%":
            break
        if f.role != "skip":
            out.append(f)
    return tuple(out)


def _quoted_key(toks: list[_Tok], f: Field) -> bool:
    return any(t.kind == "quoted" and t.text[1:-1] == f.key for t in toks)


# MXNet names a metric by its split with a dash ("Train-accuracy", "Validation-accuracy",
# "Validation-cross-entropy"): the split is a prefix, as in train_accuracy, so an eval one
# reads as eval.
_SPLIT_DASH = re.compile(r"^(train|validation)-(?=[a-z])", re.IGNORECASE)


def split_dash(name: str) -> str:
    """`Train-accuracy` -> `Train_accuracy` (see _SPLIT_DASH)."""
    return _SPLIT_DASH.sub(r"\1_", name)


def _metric_kind(f: Field) -> str:
    if f.key:
        return kind(split_dash(_base_key(f.key)))
    u = f.unit.lower()
    return "throughput" if u in _RATE_UNITS else ""


# What a logger prints for a metric it has no value for yet: litgpt's `val: n/a` before
# its first validation, `None` / `null` of a dict-like line, a dash in a table cell.
_NO_VALUE = frozenset({"n/a", "na", "none", "null", "nil", "-", "--", "n.a."})


def _unvalued_keys(toks: list[_Tok], used: set[int]) -> set[int]:
    """Token indices of `key: n/a` pairs: a metric named with no value this time
    (litgpt's `loss train: 1.06, val: n/a`, its draft `val (prev val iter): None`). The key is a field without a number, not a
    free word of the line: "val" there does not make the line's other numbers eval ones."""
    out: set[int] = set()
    for i, tk in enumerate(toks):
        if tk.kind != "word" or i in used or tk.text.lower() not in _NO_VALUE:
            continue
        j = _prev(toks, i)
        if j < 0 or not (_is_punct(toks, j, ":") or _is_punct(toks, j, "=")):
            continue
        k = _prev(toks, j)
        qualifier: set[int] = set()
        if k >= 0 and _is_punct(toks, k, ")"):  # `val (prev val iter): None`
            o = k
            while o >= 0 and not _is_punct(toks, o, "("):
                qualifier.add(o)
                o -= 1
            if o < 0:
                continue  # a `)` with no `(` before it: no key to name
            qualifier.add(o)
            k = _prev(toks, o)
        if k >= 0 and toks[k].kind == "word" and k not in used:
            out |= {k, i, *qualifier}
    return out


def _eval_context(fields: list[Field], free: list[str]) -> bool:
    if any(w.lower().strip("():") in _EVAL_WORDS for w in free):
        return True
    return any(
        f.role in ("step", "epoch", "inner", "value")
        and "(" in f.key
        and _paren(f.key) in _EVAL_WORDS
        for f in fields
    )


def _paren(key: str) -> str:
    return key[key.find("(") + 1 : key.rfind(")")].lower()


_CURRENT = re.compile(r"(?i)^(?:curr|current)[ _]+")


def current(key: str) -> str:
    """`curr val acc` -> `val acc`: the value at this point is the metric itself."""
    return _CURRENT.sub("", key)


def _base_key(key: str) -> str:
    """`Epoch(train)` -> `Epoch`; quoted keys lose their quotes."""
    k = key.strip().strip("'\"")
    if k.endswith(")") and "(" in k and k.index("(") > 0:
        k = k[: k.index("(")]
    return k


def _role(key: str, unit: str, toks: list[_Tok], t: int, nxt: int) -> str:
    base = _base_key(key).lower()
    if unit == "%" and _is_punct(toks, t + 2, "|"):
        return "skip"  # a tqdm bar's share done, whatever its label ("steps:  12%|#  | 93/750")
    if base in _STEP_KEYS:
        # tqdm's "Step: 100%|###| 1827/1827"; a step's time, not its count: the
        # pytorch-cifar progress bar's "Step: 12ms | Tot: 5s | Loss: 1.23" (its format_time)
        return "skip" if unit == "%" or unit.lower() in _TIME_UNITS | _DURATION_UNITS else "step"
    if base in ("steps", "iterations") and not unit and ":" in (_at(toks, t - 1), _at(toks, t - 2)):
        # diffusion-pipe's "steps: 18 loss: nan iter time (s): 3.235", ESPnet-as-a-library's
        # "iterations:1, train acc:0.000, train loss:527.770": the key alone (not "Total
        # steps: 480", whose key keeps its words) counting the optimizer steps. After an
        # episode counter ("[Episode 12] steps: 31 reward: 31.0") it is that episode's
        # length, which rises and falls with the agent's play: the episode is the count.
        return "value" if _after_episode(toks, t) else "step"
    if base in _EPOCH_KEYS:
        return "epoch"
    if base in _INNER_KEYS:
        return "inner"
    if _CJK_STEP.search(base):
        return "step"  # "训练次数：100, Loss：1.98" (the training count), "迭代次数: 500"
    if not key:
        if unit.lower() in STEP_UNITS:
            return "step"
        glued = t + 1 < len(toks) and toks[t + 1].kind == "punct" and toks[t + 1].text != ":"
        if _leading(toks, t) and not glued and nxt < len(toks) and toks[nxt].text in ("|", ":"):
            return "step"  # "420 | loss 3.56 | ..."
        if _is_punct(toks, t - 1, "#") and _leading(toks, t) and not glued:
            return "step"  # "#100 loss: 0.53": the line's number opens it
        if _is_punct(toks, t - 1, "[") and _is_punct(toks, t + 1, "]"):
            k = _next(toks, t + 1)
            if k + 1 < len(toks) and toks[k].kind == "word" and _is_punct(toks, k + 1, "="):
                # clu's LoggingWriter (the Flax examples): "[1000] steps_per_second=1.76,
                # train_loss=6.52": the step in brackets opens its key=value pairs
                return "step"
    return "value"


_EPISODE_WORDS = frozenset({"episode", "episodes"})


def _after_episode(toks: list[_Tok], t: int) -> bool:
    """An episode counter's word comes earlier on the line: its numbers are per episode."""
    return any(k.kind == "word" and k.text.lower() in _EPISODE_WORDS for k in toks[:t])


# A CJK key that counts the run: "训练次数" (training count), "迭代次数" / "迭代" (iterations),
# "步数" (steps), as the Chinese PyTorch tutorials print them.
_CJK_STEP = re.compile(r"(?:训练次数|迭代次数|迭代|步数)$")


def _share_count(toks: list[_Tok], t: int) -> bool:
    """Slot t opens a fraction in brackets right after a percentage: the count the share
    is of (`50.00% (4/8)`: 4 of 8 right; `test accuracy: 20.78%, (512570/2466133)` with a
    comma between them), not a step or a batch counter."""
    j = _prev(toks, t)
    if not _is_punct(toks, j, "("):
        return False
    k = _prev(toks, j)
    if _is_punct(toks, k, ","):
        k = _prev(toks, k)
    return _is_punct(toks, k, "%") and _is_slot(toks, k - 1)


def _count_share(toks: list[_Tok], total: int) -> int | None:
    """The token of the percentage in brackets right after a count's total (PyTorch's
    MNIST example: "Accuracy: 9891/10000 (99%)"): the share the count is of its total,
    the metric's value; the count itself is no accuracy. None when there is none."""
    j = _next(toks, total)
    if not _is_punct(toks, j, "("):
        return None
    k = _next(toks, j)
    if not (_is_slot(toks, k) and _is_punct(toks, k + 1, "%") and _is_punct(toks, k + 2, ")")):
        return None
    return k


def _scale(toks: list[_Tok], t: int) -> tuple[str, int] | None:
    """(key, token of its value) when slot t is a scale in brackets glued to a key, the
    value after it printed in those units: verl's `actor/lr(1e-4):0.010` is 1e-6."""
    if t < 2 or toks[t - 2].kind != "word":
        return None
    if not (_is_punct(toks, t - 1, "(") and _is_punct(toks, t + 1, ")")):
        return None
    j = _next(toks, t + 1)
    if not (j < len(toks) and toks[j].kind == "punct" and toks[j].text in ":="):
        return None
    v = _next(toks, j)
    return (toks[t - 2].text, v) if _is_slot(toks, v) else None


# The verb of a sentence that states a value ("X is 1/19"), as model outputs and
# notes print them: a fraction after it is that value, never a progress counter.
_COPULA = frozenset({"is", "are", "was", "were", "be", "equals"})


def _fraction_fields(
    key: str, n: int, m: int, toks: list[_Tok], t: int, before: list[Field]
) -> list[Field]:
    base = _base_key(key).lower()
    if base in _STEP_KEYS and any(f.role == "epoch_total" for f in before):
        # "Epoch 0/7 itr 52/3489", "Epoch: [3/30] Iter: [120/500]": a counter with its
        # total after the epoch's own count and total counts that epoch's batches (the
        # plan is 7 x 3489); one that counts the run instead, climbing on across epochs,
        # is told apart where the steps are resolved (steps._counts_the_run)
        return [Field(n, key, "inner"), Field(m, key, "inner_total")]
    if base in _STEP_KEYS or base.endswith("max_steps"):
        return [Field(n, key, "step"), Field(m, key, "total")]
    if base in _EPOCH_KEYS or base in _ROUND_OF_TOTAL_KEYS:
        return [Field(n, key, "epoch"), Field(m, key, "epoch_total")]
    if base in _INNER_KEYS:
        return [Field(n, key, "inner"), Field(m, key, "inner_total")]
    if key and is_furniture(base) and _is_punct(toks, _prev(toks, t), "["):
        # a logger's word before a bracketed counter names no value: DINOv2's MetricLogger
        # "Training  [     40/5000000]  eta: ..." counts the iterations, as a bare one does
        key = ""
    if not key and _at(toks, _prev(toks, t)).lower() in _COPULA:
        # "The answer is 1/19", "the probability is 4/19": a sentence states a ratio as
        # its value; a counter stands bare after a bracket, a pipe or its own label
        return [Field(n, "", "skip"), Field(m, "", "skip")]
    if not key:
        # Two fractions in a row, "Train: [0/300][4050/5004]" (Swin, DeiT): the first is
        # the epoch, this one the batch within it.
        glued = _is_punct(toks, t - 1, "[") and _is_punct(toks, t - 2, "]")
        if glued and len(before) >= 2 and before[-1].slot == n - 1 and before[-2].slot == n - 2:
            prev = before[-2]
            if (prev.role, before[-1].role) in (("value", "skip"), ("inner", "inner_total")):
                before[-2:] = [
                    Field(prev.slot, prev.key, "epoch"),
                    Field(n - 1, prev.key, "epoch_total"),
                ]
        # (100/44160) after an epoch, fairseq's "epoch 001: 100 / 1000", tqdm's "| 12/240 ["
        return [Field(n, "", "inner"), Field(m, "", "inner_total")]
    return [Field(n, key, "value"), Field(m, key, "skip")]


def text_starts(toks: list[_Tok], prefix: str) -> bool:
    """The line's tokens, joined, begin with `prefix`."""
    out = ""
    for tk in toks:
        out += tk.text
        if len(out) >= len(prefix):
            break
    return out.startswith(prefix)


def _time_before(toks: list[_Tok], j: int) -> int | None:
    """The index of a "Time" word right before the word at j ("Time cost=1.147")."""
    k = j - 2
    if k >= 0 and toks[j - 1].text == " " and toks[k].kind == "word" and toks[k].text == "Time":
        return k
    return None


def _word_qualifier(toks: list[_Tok], close: int) -> int | None:
    """The "(" of a qualifier of one to three words in brackets ending at `close`, between
    a name and its value, else None: "(valid)", or Flair's "f1-score (micro avg)  0.81",
    the averaging of the score, not its name."""
    if close < 2 or toks[close].text != ")":
        return None
    k, words = close - 1, 0
    while k >= 0 and (toks[k].kind == "word" or (toks[k].kind == "space" and toks[k].text == " ")):
        words += toks[k].kind == "word"
        k -= 1
    if k < 1 or toks[k].text != "(" or not 1 <= words <= 3 or toks[k + 1].kind != "word":
        return None
    return k


def _key_left(toks: list[_Tok], t: int, used: set[int]) -> tuple[str, str, str, list[int]]:
    """(key, separator, opening bracket, token indices of the key) left of token t.

    A word glued to the number before it is that number's unit ("5s 3ms"), never
    the next number's key.
    """
    j = _prev(toks, t)
    if j >= 0 and toks[j].kind == "punct" and toks[j].text in "'\"":  # "1/438" quoted
        j = _prev(toks, j)
    if _is_punct(toks, j, "*") and _is_punct(toks, j - 1, "*") and _is_punct(toks, t + 1, "/"):
        # "**Final answer:** 1/19": markdown bold around the label of a fraction (a
        # model's output printed in the log) leaves it that label's value, not a counter
        j = _prev(toks, j - 1)
    if (
        _is_punct(toks, j, ",")
        and (q := _prev(toks, j)) >= 0
        and toks[q].kind == "quoted"
        and _is_punct(toks, _prev(toks, q), "(")
        and _is_punct(toks, _next(toks, t), ")")
    ):
        # a printed (name, value) pair: MXNet's `metric.get()` in a training loop's
        # print, "epoch 0 iter 20 metric ('accuracy', 0.65625)"
        return toks[q].text[1:-1], ",", "", [q]
    opened = ""
    while j >= 0 and toks[j].kind == "punct" and toks[j].text in "[(":  # "[[0.9, ..."
        opened = opened or toks[j].text
        j = _prev(toks, j)
        if j >= 0 and toks[j].kind == "word" and toks[j].text == "tensor" and opened == "(":
            j = _prev(toks, j)
    sep = ""
    spaced_eq = False
    if _is_punct(toks, j, "-") and j == t - 1 and j >= 1 and toks[j - 1].kind == "word":
        # "Epoch-12": a counter glued to its name by a hyphen (numbers.py reads it as a
        # value only after a counter's name)
        sep, j = "-", j - 1
    if j >= 0 and toks[j].kind == "punct" and toks[j].text in ":=":
        sep = toks[j].text
        # " = " with a space on both sides: a logger's "Name Of Value = 1.2 | ..." clause
        # (Acme's terminal logger: "Critic Loss = 0.097 | Param Norm = 48.7"), whose name
        # may have several words, not the glued "lr=1e-4 loss=2.1" of one word per key
        spaced_eq = sep == "=" and _at(toks, j - 1) == " " and _at(toks, j + 1) == " "
        j = _prev(toks, j)
        if j >= 0 and toks[j].kind == "punct" and toks[j].text in ":=":  # "key:=v", "a::b"
            j = _prev(toks, j)
    if j >= 0 and toks[j].kind == "slot" and (named := _at_step(toks, j, used)) is not None:
        return named[0], sep, opened, named[1]  # "Average loss at step 2000 : 4.37"
    if (
        not sep
        and _is_punct(toks, j, ".")
        and j >= 1
        and toks[j - 1].kind == "word"
        and (abbr := _ABBREVIATED.get(toks[j - 1].text)) is not None
        and j - 1 not in used
    ):
        return abbr, sep, opened, [j - 1, j]  # Marian's "Up. 14000", "L.r. 5.2e-05"
    if _bracketed(toks, j, used):
        return toks[j - 1].text, sep, opened, [j - 2, j - 1, j]  # "[loss]: 4.99", "[Loss] nan"
    # "elapsed time per iteration (ms): 5361.6": a unit in brackets after the name;
    # "Average Loss (valid) 0.0032": the split it is measured on, kept on the key
    qual, qual_idx = "", []
    if (opening := _window_open(toks, j)) is not None:
        # "Mean reward (100 ep): 22.6": the window the value averages over, not its name
        qual_idx = list(range(opening, j + 1))
        j = _prev(toks, opening)
    elif (opening := _word_qualifier(toks, j)) is not None:
        words = [tk.text for tk in toks[opening + 1 : j] if tk.kind == "word"]
        if len(words) == 1 and (
            words[0].lower() in _EVAL_WORDS or words[0].lower() in ("train", "training")
        ):
            qual = f"({words[0]})"
        qual_idx = list(range(opening, j + 1))
        j = _prev(toks, opening)
    if j < 0:
        return "", sep, opened, []
    tk = toks[j]
    if j in used or (j > 0 and toks[j - 1].kind in ("slot", "qslot")):
        return "", sep, opened, []
    if tk.kind == "text" and sep == ":" and _is_punct(toks, j + 1, ":") and _cjk_key(tk.text):
        return tk.text, sep, opened, [j]  # "训练次数: 100" (its colon full-width in the log)
    if tk.kind == "quoted":
        if not sep:
            return "", sep, opened, []
        return tk.text[1:-1], sep, opened, [j]
    if tk.kind != "word":
        return "", sep, opened, []
    if not sep and not opened and tk.text == "is" and (named := _is_key(toks, j, t, used)):
        return named[0], "is", opened, named[1]
    if sep == ":" and tk.text == "is" and (named := _is_key(toks, j, t, used)):
        # "X is: v": PaddlePaddle's tutorials and their copies print "epoch: 0, batch_id:
        # 100, loss is: [2.4925375], acc is: [0.1]" (a numpy array of one value): the
        # same clause as BigDL's "Loss is 1.26", its colon kept
        return named[0], "is", opened, named[1]
    if (tk.text.lower() in _FILLER and not _counter_word(toks, j, sep)) or tk.text in _LEVELS:
        return "", sep, opened, []
    if sep == ":" and t == j + 2 and ("." in tk.text or re.search(r"-\d", tk.text)):
        return "", sep, opened, [j]  # file.py:123, host-160750:0: where, not what
    if sep == ":" and t == j + 2 and _is_punct(toks, j - 1, ":") and "." in toks[j - 2].text:
        # loguru's "{name}:{function}:{line}": "trainers.base_trainer:train_epochs:256"
        return "", sep, opened, [j - 2, j]  # is the module, function and line, not a value
    if _SOURCE.search(tk.text):
        return "", sep, opened, [j]  # "(main_prune.py 310):": where, not what
    if (
        not sep
        and _is_punct(toks, j - 1, ":")
        and j >= 2
        and toks[j - 2].kind == "word"
        and j - 2 not in used
        and kind(toks[j - 2].text) in METRIC_KINDS
    ):
        # RETURNN's "cost:ctc nan, error:ctc 0.98": the measure glued before the output
        # layer it measures. "ctc" alone would name the CTC cost and its error alike
        # (the second one "ctc_2"), and a cost never read as one
        return f"{toks[j - 2].text}:{tk.text}", sep, opened, [j - 2, j - 1, j]
    idx = [j]
    if sep != "=" or spaced_eq:
        k = j - 1
        while (
            len(idx) < MAX_KEY_WORDS
            and k >= 1
            and toks[k].kind == "space"
            and toks[k].text == " "
            and toks[k - 1].kind == "word"
            and k - 1 not in used
            and not (k >= 2 and toks[k - 2].kind in ("slot", "qslot"))
            and toks[k - 1].text.lower() not in _FILLER
            and toks[k - 1].text not in _LEVELS
        ):
            idx.insert(0, k - 1)
            k -= 2
        idx = _of_phrase(toks, idx, used)
        idx = _abbreviated_head(toks, idx, used)
    elif (
        j >= 2
        and toks[j - 1].kind == "space"
        and toks[j - 1].text == " "
        and toks[j - 2].kind == "word"
        and j - 2 not in used
        and toks[j - 2].text.lower() in _TRAIN_WORDS
        and not (j >= 3 and toks[j - 3].kind in ("slot", "qslot"))
    ):
        # "k=v" pairs are one word each ("lr=1e-4 loss=2.1"), but "Train" before the
        # key is part of it: "Train Loss=0.07, Val Loss=0.08" is a train loss and an
        # eval loss, not two eval losses of a line that mentions "Val"
        idx.insert(0, j - 2)
    elif (
        j >= 2
        and len(tk.text) == 1
        and tk.text.isupper()
        and toks[j - 1].kind == "space"
        and toks[j - 1].text == " "
        and toks[j - 2].kind == "word"
        and j - 2 not in used
        and kind(toks[j - 2].text) in ("loss", "component_loss")
        and not (j >= 3 and toks[j - 3].kind in ("slot", "qslot"))
    ):
        # a one-letter tag after a loss's name is the stream it is measured on: the
        # lip-reading trainer's "CE V=6.21437" is the cross-entropy of the video stream,
        # never a metric named "V"
        idx.insert(0, j - 2)
    phrase = [toks[i].text for i in idx]
    keep = _best_suffix(phrase)
    idx = idx[len(idx) - keep :]
    key = " ".join(toks[i].text for i in idx)
    if keep == len(phrase) and (stat := _stat_of(toks, idx[0], used)) is not None:
        # ml-agents' "Mean Reward: -0.019. Std of Reward: 0.078.": the spread of the
        # reward over the summary's episodes, not a second reward column. It keeps its
        # whole phrase ("std_of_reward"): a group-relative trainer's reward_std (the
        # learning signal of GRPO) it is not, and one episode per summary prints 0.000
        return f"{toks[stat].text} of {key}", sep, opened, [stat, stat + 2, *idx, *qual_idx]
    return key + qual, sep, opened, idx + qual_idx


def _counter_word(toks: list[_Tok], j: int, sep: str) -> bool:
    """A word that is also a step counter's name ("it", the iteration) glued to its
    separator and not inside a sentence (no word right before it): "it: 100, loss: 0.53"
    counts the iterations, where prose would say "it is 100"."""
    if sep not in (":", "=") or toks[j].text.lower() not in _STEP_KEYS:
        return False
    k = _prev(toks, j)
    return _is_punct(toks, j + 1, sep) and (k < 0 or toks[k].kind != "word")


# Marian NMT's training line names its counters and the learning rate by abbreviations
# that end in a dot, then the number (src/training/scheduler.h): "Ep. 1 : Up. 14000 :
# Sen. 965,843 : Cost 5.20174599 : Time 359.59s : 3007.81 words/s : L.r. 5.1784e-05 :
# gNorm 1.32". The update count is the step; the epoch, the sentences seen and the LR
# are what their abbreviation says. Only these spellings: a word and a dot before a
# number elsewhere ("No. 3") name nothing.
_ABBREVIATED = {"Ep": "epoch", "Up": "updates", "Sen": "sentences", "L.r": "lr"}


# A statistic named before "of" and the metric it summarises: "Std of Reward".
_STATS_OF = frozenset({"std", "stddev", "stdev", "variance", "var"})


# The words of a window a value is averaged over, printed in brackets after its name:
# "(100 ep)", "(last 100)", "(100 episodes)", "(last 10 games)".
_WINDOW_WORDS = frozenset(
    {"ep", "eps", "episode", "episodes", "last", "games", "runs", "trials", "iters", "steps"}
)


def _window_open(toks: list[_Tok], close: int) -> int | None:
    """The index of the "(" of a window qualifier that ends at `close` (its ")"), when the
    brackets hold one count and one or two window words ("(100 ep)", "(last 100)")
    and a ":" or "=" follows them: the count is how many episodes the value after the
    colon averages, a setting of the printout, never a measurement."""
    if not _is_punct(toks, close, ")"):
        return None
    sep = _next(toks, close)
    if not (_is_punct(toks, sep, ":") or _is_punct(toks, sep, "=")):
        return None
    inner: list[int] = []
    j = _prev(toks, close)
    while j >= 0 and len(inner) < 4 and not _is_punct(toks, j, "("):
        inner.append(j)
        j = _prev(toks, j)
    if not _is_punct(toks, j, "(") or not inner:
        return None
    slots = [i for i in inner if _is_slot(toks, i)]
    words = [i for i in inner if toks[i].kind == "word"]
    if len(slots) != 1 or not words or len(slots) + len(words) != len(inner):
        return None
    if not all(toks[i].text.lower() in _WINDOW_WORDS for i in words):
        return None
    return j


def _window_qualifier(toks: list[_Tok], t: int) -> list[int] | None:
    """The token indices of the window qualifier slot `t` is the count of, else None."""
    j = _next(toks, t)
    while j < len(toks) and toks[j].kind == "word" and j - t < 6:
        j = _next(toks, j)
    opening = _window_open(toks, j)
    if opening is None or not opening < t < j:
        return None
    return list(range(opening, j + 1))


def _stat_of(toks: list[_Tok], first: int, used: set[int]) -> int | None:
    """The token index of the statistic word when the key starting at `first` is
    preceded by "<stat> of " (ml-agents' "Std of Reward"), else None."""
    k = first - 4
    if k < 0 or not all(toks[i].kind == "space" and toks[i].text == " " for i in (k + 1, k + 3)):
        return None
    if toks[k + 2].kind != "word" or toks[k + 2].text.lower() != "of":
        return None
    if toks[k].kind != "word" or k in used or toks[k].text.lower() not in _STATS_OF:
        return None
    return k


def _split_of_loss(fields: list[Field]) -> list[Field]:
    """litgpt's `loss train: 1.062, val: 1.057`: "loss" heads the phrase and each split
    after it names that split's loss, so a bare split word keyed beside a "loss train"
    field is the loss on that split ("val loss"), not a metric named "val"."""
    if not any(
        f.role == "value" and f.key.lower() in ("loss train", "loss training") for f in fields
    ):
        return fields
    return [
        replace(f, key=f"{f.key} loss") if f.role == "value" and f.key.lower() in _EVAL_WORDS else f
        for f in fields
    ]


def _split_scores(fields: list[Field]) -> list[Field]:
    """PyTorch Geometric's examples print "Epoch: 020, Loss: 0.6253, Train: 0.7535, Val:
    0.5000, Test: 0.5625" (`print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Train:
    {train_acc:.4f}, Val: {val_acc:.4f}, Test: {test_acc:.4f}')`): values keyed by a bare
    split word are the model's accuracy on each split - beside the line's own loss, or
    as the three splits train, val and test together on an epoch's line. Two of them
    alone may key a loss ("train: 1.42, val: 1.38"), and a line with no epoch may size
    the splits, so those are left as read."""
    bare = [
        f
        for f in fields
        if f.role == "value" and f.key.strip().lower() in _TRAIN_WORDS | _EVAL_WORDS
    ]
    if len(bare) < 2 or len({f.key.strip().lower() for f in bare}) < len(bare):
        return fields
    if any(f.unit for f in bare):
        return fields  # "Train=115 batches | Val=25 batches": sizes, not scores
    if not any(f.role == "value" and kind(f.key) == "loss" for f in fields):
        # without a loss, only an epoch's record of the three splits: a line that sizes
        # them ("[Split] Train=3667 | Val=786 | Test=787") counts no epoch
        splits = {_SPLIT_KIND.get(f.key.strip().lower()) for f in bare}
        if splits != {"train", "val", "test"} or not any(
            f.role in ("epoch", "step") for f in fields
        ):
            return fields
    return [replace(f, key=f"{f.key} acc") if f in bare else f for f in fields]


_SPLIT_KIND = {
    "train": "train",
    "training": "train",
    "val": "val",
    "valid": "val",
    "validation": "val",
    "dev": "val",
    "test": "test",
}


def _split_of_heading(toks: list[_Tok], fields: list[Field]) -> list[Field]:
    """mlpack's example print `3 - accuracy: train = 97.6%, valid = 96.5%`: a metric
    named once as a heading (its colon followed by a word, not a number), then one value
    per split keyed by the split alone. Each split word names that split's metric
    ("valid accuracy"), not a metric called "valid"."""
    splits = _TRAIN_WORDS | _EVAL_WORDS
    heading = ""
    for i, tk in enumerate(toks):
        if tk.kind != "word" or kind(tk.text) not in METRIC_KINDS:
            continue
        j = _next(toks, i)
        k = _next(toks, j) if _is_punct(toks, j, ":") else -1
        if 0 <= k < len(toks) and toks[k].kind == "word" and toks[k].text.lower() in splits:
            heading = tk.text
            break
    if not heading:
        return fields
    return [
        replace(f, key=f"{f.key} {heading}") if f.role == "value" and f.key.lower() in splits else f
        for f in fields
    ]


def _placeholder_cell(toks: list[_Tok], i: int) -> bool:
    """fastai's "#na#" in a table row: the cell of a metric it did not compute (the valid
    loss of a run with no validation set), no word of prose."""
    return toks[i].text == "na" and _is_punct(toks, i - 1, "#") and _is_punct(toks, i + 1, "#")


def _joined_names(fields: list[Field]) -> list[Field]:
    """A key of names joined by hyphens, then as many bare numbers, one per name:
    insightface's `print('lr-batch-epoch:', opt.lr, param.nbatch, param.epoch)` prints
    "lr-batch-epoch: 0.1 99 0", the learning rate, the batch in the epoch and the epoch.
    Each number takes its name (and a counter's role); at least one name must be a
    counter, so that a hyphenated metric ("cross-entropy: 0.5 0.4") is left as read."""
    for i, f in enumerate(fields):
        parts = f.key.lower().split("-")
        if f.role != "value" or len(parts) < 2 or not all(p.isalpha() for p in parts):
            continue
        run = fields[i : i + len(parts)]
        if len(run) < len(parts) or any(
            (g.key and k) or g.role != "value" or g.slot != f.slot + k for k, g in enumerate(run)
        ):
            continue
        roles = [_counter_role(p) for p in parts]
        if all(r == "value" for r in roles):
            continue
        named = [Field(g.slot, p, r) for g, p, r in zip(run, parts, roles, strict=True)]
        return fields[:i] + named + fields[i + len(parts) :]
    return fields


def _counter_role(name: str) -> str:
    """The role of a counter's name alone (step, epoch, inner), else "value"."""
    if name in _STEP_KEYS:
        return "step"
    if name in _EPOCH_KEYS:
        return "epoch"
    return "inner" if name in _INNER_KEYS else "value"


# Precision, recall and F-score under their initials, as sequence labellers print an
# evaluation (NCRF++: "Dev: time: 4.53s, speed: 724.57st/s; acc: 0.8325, p: 0.1667, r:
# 0.0002, f: 0.0003"; spaCy's "NER P."): one letter alone names nothing, the three in a
# row are the scores of one evaluation.
PRF = {"p": "precision", "r": "recall", "f": "f1"}


def _prf_letters(fields: list[Field]) -> list[Field]:
    """The keys p, r, f of three values in a row, renamed (see PRF)."""
    keyed = [f for f in fields if f.role == "value" and f.key]
    letters = "".join(f.key.lower() if len(f.key) == 1 else " " for f in keyed)
    if "prf" not in letters:
        return fields
    at = letters.index("prf")
    named = {id(f): PRF[f.key.lower()] for f in keyed[at : at + 3]}
    return [replace(f, key=named[id(f)]) if id(f) in named else f for f in fields]


def _of_phrase(toks: list[_Tok], idx: list[int], used: set[int]) -> list[int]:
    """The key's words with "<word> of" before them when the whole phrase names a known
    signal: ml-agents' "Mean Reward: -0.020. Std of Reward: 0.140." is the reward and the
    spread of the episodes' rewards, not two rewards ("of" is a filler word otherwise: a
    sentence's "the loss of 2.0" names no key)."""
    k = idx[0] - 1
    if (
        k < 3
        or toks[k].text != " "
        or toks[k - 1].kind != "word"
        or toks[k - 1].text.lower() != "of"
        or toks[k - 2].text != " "
        or toks[k - 3].kind != "word"
        or k - 3 in used
    ):
        return idx
    whole = " ".join([toks[k - 3].text, "of", *(toks[i].text for i in idx)])
    return [k - 3, k - 1, *idx] if kind(whole) != "other" else idx


def _abbreviated_head(toks: list[_Tok], idx: list[int], used: set[int]) -> list[int]:
    """The key's words with an abbreviated word before them ("<word>. ") when that word
    opens the clause (the line's start, or after ", " / "| " / "; "): HiFi-GAN's
    "Gen Loss Total : 30.2, Mel-Spec. Error : 0.61" names the mel-spectrogram error, not
    a bare "error". A word that ends a sentence ("Training done. Loss: 2.3") has words
    before it and stays out."""
    k = idx[0] - 1
    if (
        len(idx) >= MAX_KEY_WORDS
        or k < 2
        or toks[k].text != " "
        or not _is_punct(toks, k - 1, ".")
        or toks[k - 2].kind != "word"
        or k - 2 in used
    ):
        return idx
    before = k - 3
    opens = before < 0 or (
        toks[before].text == " " and before >= 1 and _is_punct(toks, before - 1, ",")
    )
    for sep in ("|", ";"):
        opens = opens or (toks[before].text == " " and _is_punct(toks, before - 1, sep))
    return [k - 2, *idx] if opens else idx


def _cjk_key(text: str) -> bool:
    """A short run of letters of another script glued to its colon is a name ("训练次数:
    100", "损失: 0.5"); a longer run is a sentence that ends in a colon."""
    return len(text) <= 12 and all(ch.isalpha() for ch in text)


def _bracketed(toks: list[_Tok], j: int, used: set[int]) -> bool:
    """A key in square brackets, its value after them ("[epoch]: 199, [loss]: 4.99" of a
    custom logger, "| [Loss] 51566519.44 | [step] 89 |"): the brackets are the key's
    markup, as quotes are; a level ("[INFO] 3") or a filler word never is one."""
    if j < 2 or not _is_punct(toks, j, "]") or not _is_punct(toks, j - 2, "["):
        return False
    word = toks[j - 1]
    return (
        word.kind == "word"
        and j - 1 not in used
        and word.text not in _LEVELS
        and word.text.lower() not in _FILLER
    )


def _at_step(toks: list[_Tok], j: int, used: set[int]) -> tuple[str, list[int]] | None:
    """(key, its token indices) when the number at j is a step named after the value's
    key: "Loss at step 100 : 5.2", "Average loss at step 2000: 4.37" (TensorFlow's
    word2vec tutorial), "loss at iteration 30: nan", "Loss after epoch 3: 0.69" (the
    value the step or epoch ended with). The key is the words before `at` / `after`."""
    k = _prev(toks, j)
    if k < 0 or toks[k].kind != "word" or toks[k].text.lower() not in _AT_STEP_WORDS:
        return None
    m = _prev(toks, k)
    if m < 0 or toks[m].kind != "word" or toks[m].text.lower() not in ("at", "after"):
        return None
    idx = _words_before(toks, _prev(toks, m), used)
    if not idx:
        return None
    keep = _best_suffix([toks[i].text for i in idx])
    idx = idx[len(idx) - keep :]
    return " ".join(toks[i].text for i in idx), [*idx, m]


_AT_STEP_WORDS = frozenset({"step", "iteration", "iter", "epoch", "batch", "update"})


def _words_before(toks: list[_Tok], n: int, used: set[int]) -> list[int]:
    """The token indices of the words (up to MAX_KEY_WORDS, single-spaced, no filler or
    log level) that end at token n: the name a logger's clause puts before its value."""
    idx: list[int] = []
    while (
        len(idx) < MAX_KEY_WORDS
        and n >= 0
        and toks[n].kind == "word"
        and n not in used
        and toks[n].text.lower() not in _FILLER
        and toks[n].text not in _LEVELS
    ):
        idx.insert(0, n)
        if n < 2 or toks[n - 1].text != " ":
            break
        n -= 2
    return idx


def _is_key(toks: list[_Tok], j: int, t: int, used: set[int]) -> tuple[str, list[int]] | None:
    """(key, its token indices, `is` included) when the `is` at j joins a name to the
    number t after it in a log's clauses, BigDL's DistriOptimizer: "Throughput is 408.4
    records/second. Loss is 1.2645824. Current learning rate is 0.0462... Current
    momentum is 0.9.". The words before `is` must end in a signal's name ("Current
    learning rate" -> the LR), or be a capitalised name whose number ends the clause
    ("Current momentum is 0.9.": a setting, read as nothing but no longer prose), so a
    sentence's "the loss is 2.0 here" or "my learning rate is 0.0001" stays prose: the
    clause must open the line or follow a stop, as the logger's clauses do."""
    idx = _words_before(toks, _prev(toks, j), used)
    if not idx:
        return None
    before = _prev(toks, idx[0])
    if before >= 0 and toks[before].kind not in ("punct", "slot", "qslot"):
        return None  # "the loss is 2.0 here": a clause opens the line or follows its stop
    keep = _best_suffix([toks[i].text for i in idx])
    idx = idx[len(idx) - keep :]
    key = " ".join(toks[i].text for i in idx)
    if kind(key) in METRIC_KINDS:
        return key, [*idx, j]
    ends = t + 1 >= len(toks) or (
        toks[t + 1].kind == "punct"
        and toks[t + 1].text in ".,;"
        and (t + 2 >= len(toks) or toks[t + 2].kind == "space")
    )
    if toks[idx[0]].text[:1].isupper() and ends:
        return key, [*idx, j]
    return None


def _best_suffix(words: list[str]) -> int:
    """How many trailing words name the value: the longest known name (a canonical
    loss inside a longer loss-like phrase: "steps loss" is the loss), else all of them.
    A reward after "Best" / "Max" / "Min" keeps that word: DeepRL-Grounding's "Avg Reward
    0.06, ..., Best Reward 0.184" prints a running extreme beside the reward, not a
    second reward."""
    if (
        len(words) >= 2
        and words[-1].lower() in ("reward", "return")
        and words[-2].lower() in ("best", "max", "min")
    ):
        return 2
    for k in range(len(words), 0, -1):
        name = " ".join(words[-k:])
        if k == 1 < len(words) and words[-1].lower() == "norm":
            # llm.c's bare "norm" is its gradient norm, but a qualified one names another
            # norm: Acme's "Param Norm = 48.7" is the weights' norm and "Param Updates
            # Norm" the update's, not a gradient norm ("Grad Norm" is found whole above)
            return len(words)
        base = _base_key(name).lower()
        if base in _STEP_KEYS or base in _EPOCH_KEYS or base in _INNER_KEYS:
            return k
        what = kind(name)
        if what == "other":
            continue
        if (
            what in ("component_loss", "eval_component_loss")
            and (not _WHOLE or {w.lower() for w in words[-k:-1]} <= _MEAN_WORDS)
            and not _player(words[-k:-1])
        ):
            for j in range(k - 1, 0, -1):
                if canonical(" ".join(words[-j:])) in ("loss", "eval_loss"):
                    return j
        return k
    return len(words)


# The word a GAN's log puts before a player's loss ("D loss: 0.52 G loss: 0.81", Keras-GAN's
# "[D loss: 0.52, acc.: 71.88%] [G loss: 0.81]"): the name of the player, whose loss it
# is - never "the" loss, which the two players' opposing objectives do not make.
_PLAYER_WORDS = frozenset({"g", "d", "gen", "disc", "dis", "generator", "discriminator"})


def _player(words: list[str]) -> bool:
    """The words before a loss's name are one GAN player's name (D, G, Disc, Gen)."""
    return len(words) == 1 and words[0].lower() in _PLAYER_WORDS


def _player_key(toks: list[_Tok], i: int) -> bool:
    """Token i is a GAN player's letter that opens the next key ("D loss: -0.36 G loss:
    -2.91"): the G is the generator's, not a gigabyte unit of the number before it."""
    return (
        _player([toks[i].text])
        and i + 2 < len(toks)
        and toks[i + 1].text == " "
        and toks[i + 2].text.lower() in ("loss", "cost")
    )


def _unit(toks: list[_Tok], t: int) -> tuple[str, list[int]]:
    j = t + 1
    if j < len(toks):
        tk = toks[j]
        if tk.kind == "word" and len(tk.text) <= 12:
            return tk.text, [j]
        if tk.kind == "punct" and tk.text == "%":
            return "%", []
        if tk.kind == "space" and j + 1 < len(toks):
            w = toks[j + 1]
            if (
                w.kind == "word"
                and w.text.lower() in _SPACED_UNITS
                and not _player_key(toks, j + 1)
            ):
                return w.text, [j + 1]
            if tk.text == " " and _is_punct(toks, j + 1, "%"):
                return "%", []  # CNN_sentence's "train perf: 62.92 %"
    return "", []


def _fraction(toks: list[_Tok], t: int) -> int | None:
    """Token index of N when token t starts a fraction n/N (spaces around '/' allowed)."""
    j = t + 1
    spaced = j < len(toks) and toks[j].kind == "space"
    if spaced and len(toks[j].text) <= 2:
        j += 1
    if not _is_punct(toks, j, "/"):
        return None
    j += 1
    # "100 / 1000" (fairseq), "71/     100" (Megatron pads the total)
    if j < len(toks) and toks[j].kind == "space" and len(toks[j].text) <= (2 if spaced else 12):
        j += 1
    if _is_slot(toks, j) and not (_is_punct(toks, j + 1, "/") and _is_slot(toks, j + 2)):
        # a date 11/01 followed by a clock is not a counter
        k = _next(toks, j)
        if k < len(toks) and _is_slot(toks, k) and _is_punct(toks, k + 1, ":"):
            return None
        return j
    return None


def _closes_list(toks: list[_Tok], t: int) -> bool:
    j = _next(toks, t)
    return j < len(toks) and toks[j].text == "]"


def _progress_bar(toks: list[_Tok]) -> bool:
    """tqdm ("45%|####  | 450/1000 [") or Keras ("450/1000 [====>....]") bars, and
    fastprogress's console bar ("71.39% [6930/9707 3:56:27<1:34:45 nan]", fastai's
    running loss last): not a row of the epoch table printed above it."""
    text = "".join(t.text for t in toks)
    return bool(_BAR.search(text))


_BAR = re.compile(
    r"\x00%\|[^|]*\|\s*\x00/\x00|^\s*\x00/\x00 \[[=>.\s]*\]|\x00/\x00 \[\x00:\x00"
    r"|\x00% \[\x00/\x00 \x00:\x00"
)


def _leading(toks: list[_Tok], t: int) -> bool:
    return all(tk.kind in ("space", "punct") and tk.text not in ":=" for tk in toks[:t])


# The suffix of a metric logger's running average: `loss: 0.7677 (0.8246)` is read as
# `loss` 0.7677 and `loss_avg` 0.8246.
AVG_SUFFIX = "_avg"


def _running_means(toks: list[_Tok], slots: list[int], fields: list[Field]) -> list[Field]:
    """Name the unnamed number in brackets right after a keyed value as that key's
    running average: maskrcnn_benchmark's / DINOv2's MetricLogger prints every meter as
    `name: {median:.4f} ({global_avg:.4f})`, timm / Swin / OpenPCDet as `name val (avg)`.

    The bracketed number is a different quantity (the mean since the start, or over a
    window), so it becomes its own series `<key>_avg` rather than a second point of the
    key: a NaN there (`loss: 5.2813 (nan)`) says a NaN entered the average at or before
    this log, even while the current value is finite. Only a bare number alone in its
    brackets qualifies: `Accuracy: 50.00% (4/8)`, verl's `lr(1e-4):` scale and
    `tensor(0.5)` keep their own readings."""
    out = list(fields)
    by_slot = {f.slot: i for i, f in enumerate(out)}
    for i, f in enumerate(out):
        if f.key or f.role != "value" or f.slot == 0:
            continue
        t = slots[f.slot]
        if not (_is_punct(toks, t - 1, "(") and _is_punct(toks, t + 1, ")")):
            continue
        before = _prev(toks, t - 1)
        if before != slots[f.slot - 1]:
            continue  # not right after the previous number: "(0.5)" after a word
        j = by_slot.get(f.slot - 1)
        if j is None:
            continue
        prev = out[j]
        if prev.role != "value" or not prev.key or prev.key.endswith(AVG_SUFFIX):
            continue
        out[i] = Field(f.slot, prev.key + AVG_SUFFIX, "value", f.unit)
    return out


# The first word of a bracketed group's name that says its members are running means:
# icefall's `tot_loss[loss=0.7444, simple_loss=1.489, ...]` (MetricsTracker's decayed sum
# over the recent batches, divided by its frames) beside the batch's `loss[loss=0.6028, ...]`.
_MEAN_GROUPS = frozenset({"tot", "total", "avg", "average", "running", "mean", "smoothed"})


def _grouped_means(toks: list[_Tok], slots: list[int], fields: list[Field]) -> list[Field]:
    """Name the members of a group `tot_loss[k=v, ...]` as running means `<k>_avg`.

    icefall prints each log line as `loss[loss=.., simple_loss=.., over N frames.],
    tot_loss[loss=.., simple_loss=.., over M frames.]`: the first group is this batch,
    the second the tracker's running totals over the recent batches divided by their
    frames, a smoothed curve of the same quantities. Read by key alone, the second group
    repeated the first's names and came out as `loss_3`, `simple_loss_4`. Only a group
    whose name starts with a word of averaging (tot, total, avg, running, mean, smoothed)
    qualifies; `loss[...]`, `train[...]` keep their members' own names."""
    out = list(fields)
    for i, f in enumerate(out):
        if f.role != "value" or not f.key or f.key.endswith(AVG_SUFFIX):
            continue
        group = _open_group(toks, slots[f.slot])
        if group is None:
            continue
        head = re.split(r"[_\-./]", group.lower(), maxsplit=1)[0]
        if head in _MEAN_GROUPS:
            out[i] = Field(f.slot, f.key + AVG_SUFFIX, f.role, f.unit)
    return out


def _open_group(toks: list[_Tok], t: int) -> str | None:
    """The word right before the `[` left open at token t (`tot_loss[`), else None."""
    depth = 0
    for j in range(t - 1, -1, -1):
        tk = toks[j]
        if tk.kind != "punct":
            continue
        if tk.text == "]":
            depth += 1
        elif tk.text == "[":
            if depth == 0:
                return toks[j - 1].text if j > 0 and toks[j - 1].kind == "word" else None
            depth -= 1
    return None


def _prev(toks: list[_Tok], i: int) -> int:
    j = i - 1
    while j >= 0 and toks[j].kind == "space":
        j -= 1
    return j


def _next(toks: list[_Tok], i: int) -> int:
    j = i + 1
    while j < len(toks) and toks[j].kind == "space":
        j += 1
    return j


def _is_slot(toks: list[_Tok], i: int) -> bool:
    return 0 <= i < len(toks) and toks[i].kind in ("slot", "qslot")


def _at(toks: list[_Tok], i: int) -> str:
    """The text of token i ("" outside the line)."""
    return toks[i].text if 0 <= i < len(toks) else ""


def _is_punct(toks: list[_Tok], i: int, ch: str) -> bool:
    return 0 <= i < len(toks) and toks[i].kind == "punct" and toks[i].text == ch


def _header(toks: list[_Tok], words: list[str]) -> Plan:
    """A line with names and no numbers: a table header when it names metric columns."""
    hint = False
    if len(words) < 2:
        return Plan("other")
    text = "".join(t.text for t in toks).strip()
    for sep in ("\t", "|", ","):
        if text.count(sep) >= 1:
            cols = [c.strip().strip("'\"") for c in text.strip(sep + " ").split(sep)]
            cols = [c for c in cols if c and set(c) - set("-: =")]
            if sep == "," and text.startswith(","):
                # pandas' to_csv / print of a DataFrame: the row index is a first column
                # with no name (",epoch,train_loss,mIOU" over "0,1,0.726,0.0576")
                cols = ["index", *cols]
            # between pipes or tabs a name may run longer ("Validation Sparse Categorical
            # Accuracy", a Keras card's column): the separator bounds it, not a sentence
            words_max = 6 if sep in "\t|" else 3
            if len(cols) >= 2 and _names_metrics(cols, words_max):
                return Plan("header", columns=tuple(cols), bounded=True)
            if all(set(c) <= set("-: =") for c in text.strip("| ").split("|")):
                return Plan("other")  # a markdown |---|---| rule
    cols = [c.strip() for c in re.split(r"\s{2,}", text) if c.strip()]
    if len(cols) >= 2 and (_names_metrics(cols) or _xgb_cv_columns(cols)):
        return Plan("header", columns=tuple(cols), bounded=True)
    if _names_metrics(words) and all(t.kind in ("word", "space") for t in toks):
        return Plan("header", columns=tuple(words))  # single-space header: segmented later
    return Plan("other", hint=hint)


def _numbered_md_header(shape: str) -> Plan | None:
    """A Markdown header row some of whose names carry a number ("| Training Loss | Epoch |
    Step | Validation Loss | 0 Precision | 0 Recall | 1 Precision |": a Trainer card's
    per-class columns, "top 5 acc"): every cell holds a word, so none is a value, and the
    names are metrics. The numbers are part of the names; the reader takes the names from
    the line itself (the shape has them as slots)."""
    if not shape.lstrip().startswith("|") or "\x00" not in shape:
        return None
    cells = [c for c in md_cells(shape) if c]
    numbered = [c for c in cells if "\x00" in c]
    # a class index before a name ("0 Precision", "1 F1-score"), never a value after its
    # key: "| epoch   1 | lr 20.00 | loss  6.95 |" (PyTorch's word LM, fairseq) is a record
    if len(cells) - len(numbered) < 2 or not all(
        re.fullmatch(r"\x00[ _-]?[A-Za-z][\w -]*", c) for c in numbered
    ):
        return None
    if _names_metrics([c.replace("\x00", "").strip() for c in cells], 6):
        return Plan("header", columns=tuple(cells), bounded=True)
    return None


# xgb.cv's DataFrame columns (`train-rmse-mean  train-rmse-std  test-rmse-mean ...`):
# names of metrics whatever the metric (profiles.py renames them)
_XGB_CV_COLUMN = re.compile(r"[A-Za-z_][\w.]*-[\w@.-]+-(?:mean|std)")


def _xgb_cv_columns(cols: list[str]) -> bool:
    return all(_XGB_CV_COLUMN.fullmatch(c) for c in cols)


def _names_metrics(cols: list[str], words_max: int = 3) -> bool:
    """Column names, not a sentence: short names, at least one a metric, step or epoch."""
    if any(len(c.split()) > words_max for c in cols):
        return False
    known = sum(
        1
        for c in cols
        if kind(c) in METRIC_KINDS or c.lower() in _STEP_KEYS or c.lower() in _EPOCH_KEYS
    )
    return known >= 1
