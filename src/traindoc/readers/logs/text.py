"""The format-agnostic text reader: any console log or pasted excerpt -> runs.

One pass over the file in chunks (memory bounded by the kept series, not the
file). Each line is split into its numbers and its shape (shapes.py); the
shape's plan, analysed once, says which number is the step, which are metrics
and under what names. Records are kept as columns of numbers (never a dict per
line). At the end the steps that the lines did not print are resolved
(steps.py), the file is cut where a second run starts, and each part becomes a
`Run` whose `Input` says what was read and what was not understood.
"""

from __future__ import annotations

import contextlib
import math
import re
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from traindoc.model import Event, Run
from traindoc.model.signals import METRIC_KINDS, TEXT_STEP_KEYS, canonical, is_eval, kind
from traindoc.readers._base import ReadError
from traindoc.readers.logs import events, profiles, steps
from traindoc.readers.logs import lines as textlines
from traindoc.readers.logs.numbers import SPLIT, to_num
from traindoc.readers.logs.shapes import Field, Plan, analyse
from traindoc.readers.logs.tables import columns_for

_STEP_RANK = {k: i for i, k in enumerate(TEXT_STEP_KEYS)}
_CACHE_MAX = 50_000
# "key: value" lines with a word as value (YAML, argparse dumps): config, not metrics.
_CONFIG_TEXT = re.compile(
    rb"^\s*-{0,2}([A-Za-z_][\w.\-]{0,60})\s*[:=]\s*([\w./\-]{1,120})\s*,?\s*$"
)
_STAMP = re.compile(rb"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[,.](\d{1,6}))?")
_RATE = {"it/s", "it/sec", "tok/s", "tokens/s", "tokens/sec", "samples/s", "step/s"}
_TIME = {"ms", "s", "sec", "secs", "min", "mins", "h", "hr", "us", "ms/step"}
_SUMMARY_KEYS = ("train_runtime", "total_flos")
_MAX_BAD = 100_000
# Names that mean more than they say: DeepSpeed's "skipped=3" counts fp16-skipped steps.
_RENAMES = {"skipped": "skipped_steps"}
# Counters printed beside metrics that are not measurements of the training.
_NOT_METRICS = frozenset(
    {
        "rank",
        "local_rank",
        "global_rank",
        "pid",
        "tid",
        "gpu",
        "gpus",
        "node",
        "nodes",
        "device",
        "worker",
        "workers",
        "seed",
        "v_num",
        "version",
        "port",
        "thread",
        "cuda",
        "num_zeros",
    }
)
# Hyperparameter names: a line that carries them and no loss is a config dump.
_CONFIG_NAMES = frozenset(
    {
        "per_device_train_batch_size",
        "gradient_accumulation_steps",
        "adam_beta1",
        "adam_beta2",
        "adam_epsilon",
        "weight_decay",
        "warmup_steps",
        "warmup_ratio",
        "max_steps",
        "max_iters",
        "num_train_epochs",
        "seed",
        "batch_size",
        "micro_batch_size",
        "lr_decay_iters",
        "min_lr",
        "warmup_iters",
        "max_grad_norm",
        "grad_clip",
        "beta1",
        "beta2",
        "eval_interval",
        "log_interval",
        "eval_iters",
        "momentum",
        "dropout",
        "drop_path",
        "lora_r",
        "lora_alpha",
        "lora_dropout",
        "logging_steps",
        "save_steps",
        "eval_steps",
        "num_epochs",
        "epochs",
        "max_epochs",
        "warmup_epochs",
        "label_smoothing",
        "block_size",
        "n_layer",
        "n_head",
        "n_embd",
    }
)
_WANDB_PAIR = re.compile(rb"^\s*(\S+)\s+(\S+)\s*$")
_WANDB_STEPS = ("_step", "step", "global_step", "train/global_step", "trainer/global_step")
# Program source printed before a log (record .txt files, scripts in an issue): not a log line.
_CODE = re.compile(
    rb"^\s*(?:def |class |import |from \S+ import|if |elif |else\b|for |while |return\b|with "
    rb"|try:|except\b|raise |assert |@\w|#|print\()|\b(?:self|torch|args|np|F|nn|math)\.\w"
    rb"|:\s*(?:int|float|str|bool)\s*=|\w\($"
)


@dataclass
class _Cols:
    recs: array = field(default_factory=lambda: array("q"))
    vals: array = field(default_factory=lambda: array("d"))


class TextLog:
    """What one pass over a text log collected (steps.py turns it into runs)."""

    def __init__(self, path: Path, pattern: re.Pattern[bytes] | None = None) -> None:
        self.path = path
        self.pattern = pattern
        self.rec_line = array("q")
        self.rec_seq = array("q")  # the order of records and bars (several per \r line)
        self.rec_step = array("d")
        self.rec_src = array("b")  # steps.SRC_*
        self.rec_rank = array("b")
        self.rec_epoch = array("d")
        self.rec_time = array("d")
        self.rec_eval = array("b")
        self.rec_total = array("d")  # batches per epoch when the step is epoch x batches
        self.cols: dict[str, _Cols] = {}
        self.bar_line = array("q")
        self.bar_seq = array("q")
        self.bar_n = array("d")
        self.bar_total = array("d")
        self.bars_after = 0  # progress updates after the last record
        self.config: dict[str, tuple[object, int]] = {}
        self.totals: Counter[int] = Counter()  # step totals printed ("step 120/5000")
        self.lr_decimals: Counter[int] = Counter()
        self.breaks: list[int] = []  # line numbers of gap markers and prose blocks
        self.summaries: list[dict[str, float]] = []
        self.events: list[Event] = []
        self.lines = 0
        self.not_understood = 0
        self.bad_examples: list[tuple[int, bytes]] = []
        self.bad_lines = array("q")  # the first _MAX_BAD of them (evidence lines are not bad)
        self.shapes: Counter[str] = Counter()
        self._cache: dict[bytes, tuple[Plan, tuple]] = {}
        self._epoch_ctx = math.nan
        self._epoch_base: float | None = None
        self._header: tuple[str, ...] | None = None
        self._prose_run = 0
        self._seq = 0
        # a step line whose metrics follow one per indented line (OLMo's [step=1/N] block)
        self._blk: tuple[int, float, float] | None = None
        self._blk_vals: list[tuple[str, float]] = []
        self._wandb: dict[str, float] | None = None  # W&B's "Run summary:" being read
        self._wandb_line = 0

    # -- the pass ---------------------------------------------------------------------------
    def feed(self, f: BinaryIO) -> None:
        for line in textlines.stream(f, on_block=self._chunk):
            self.lines = line.no
            self._seq = line.seq
            if line.kind:
                if line.kind == "gap":
                    self.breaks.append(line.no)
                continue
            text = line.text
            if self.pattern is not None:
                self._user(line.no, text, line.rank)
                continue
            if (text[:6] == b"wandb:" or self._wandb is not None) and self._wandb_summary(
                line.no, text
            ):
                continue
            parts = SPLIT.split(text)
            shape = b"\x00".join(parts[0::2]) if len(parts) > 1 else text
            got = self._cache.get(shape)
            if got is None:
                if len(self._cache) >= _CACHE_MAX:
                    self._cache.clear()
                plan = analyse(shape.decode("utf-8", "replace"))
                got = self._cache[shape] = (plan, _program(plan))
            plan, prog = got
            k = plan.kind
            if self._blk is not None and not (k == "config" and text[:1] in (b" ", b"\t")):
                self._close_block()
            if k == "record":
                if len(self.shapes) < 64:
                    self.shapes[shape.decode("utf-8", "replace")] += 1
                self._record(line.no, text, parts[1::2], plan, prog, line.rank)
            elif k == "progress":
                self._progress(line.no, parts[1::2], prog)
            elif k == "epoch":
                self._epoch(parts[1::2], prog)
            elif k == "header":
                self._header = plan.columns
            elif k == "row":
                self._row(line.no, parts[1::2], plan, line.rank)
            elif k == "config":
                if self._blk is not None:
                    self._blk_vals.extend(_values(parts[1::2], prog))
                else:
                    self._config_pair(line.no, parts[1::2], prog)
            elif k == "other" and plan.has_step and not _has_metric(prog):
                self._open_block(line.no, parts[1::2], prog)
            else:
                self._other(line.no, text, plan)
        self._close_block()
        if self._wandb:
            self._emit_wandb()

    def _open_block(self, no: int, nums: list[bytes], prog: tuple) -> None:
        step = epoch = math.nan
        best = 1 << 30
        for slot, op, arg in prog:
            try:
                v = to_num(nums[slot])
            except (ValueError, IndexError):
                continue
            if op == 1 and arg < best:
                step, best = v, arg
            elif op == 2:
                epoch = v
            elif op == 5 and v == v and v < 1e15:
                self.totals[int(v)] += 1
        self._blk, self._blk_vals = (no, step, epoch), []

    def _close_block(self) -> None:
        if self._blk is None:
            return
        no, step, epoch = self._blk
        vals, self._blk, self._blk_vals = self._blk_vals, None, []
        if _is_config(vals):
            for k, v in vals:
                self.config.setdefault(k, (v, no))
        elif vals:
            src = steps.SRC_STEP if step == step else steps.SRC_NONE
            if step != step and epoch == epoch:
                step, src = epoch, steps.SRC_EPOCH_ONLY
            self._append(no, step, src, -1, epoch, math.nan, False, vals)

    def _wandb_summary(self, no: int, text: bytes) -> bool:
        """W&B's console summary: `wandb: Run summary:` then `wandb:   loss nan` lines."""
        body = text[6:] if text[:6] == b"wandb:" else None
        if body is None or not body.strip() or b"Synced" in body or b"View run" in body:
            if self._wandb:
                self._emit_wandb()
            self._wandb = None
            return body is not None
        if b"Run summary" in body:
            self._wandb, self._wandb_line = {}, no
            return True
        if self._wandb is None:
            return b"Run history" in body or not SPLIT.search(body)
        m = _WANDB_PAIR.match(body)
        if m:
            with contextlib.suppress(ValueError):
                self._wandb[m.group(1).decode("utf-8", "replace")] = to_num(m.group(2))
        return True

    def _emit_wandb(self) -> None:
        summary, self._wandb = self._wandb or {}, None
        step = next((summary[k] for k in _WANDB_STEPS if k in summary), math.nan)
        vals = [
            (name, v)
            for k, v in summary.items()
            if k not in _WANDB_STEPS and (name := metric_name(k, "", "")) and kind(name) != "other"
        ]
        if vals:
            src = steps.SRC_STEP if step == step else steps.SRC_NONE
            self._append(self._wandb_line, step, src, -1, math.nan, math.nan, False, vals)

    def _chunk(self, body: bytes, first_line: int) -> None:
        """Evidence lines (fp16 overflow, resume skips, ...) found per raw chunk."""
        self.events.extend(events.find(body, first_line, self.path))

    def _record(
        self, no: int, text: bytes, nums: list[bytes], plan: Plan, prog: tuple, rank: int
    ) -> None:
        step = epoch = inner = inner_total = math.nan
        best = 1 << 30
        vals: list[tuple[str, float]] = []
        for slot, op, arg in prog:
            try:
                v = to_num(nums[slot])
            except (ValueError, IndexError):
                continue
            if op == 0:  # a metric
                vals.append((arg, v))
            elif op == 1:  # a step counter; the most trusted key wins
                if arg < best and v == v:
                    step, best = v, arg
            elif op == 2:  # the first counter of a kind on a line is the line's own
                epoch = v if epoch != epoch else epoch
            elif op == 3:
                inner = v if inner != inner else inner
            elif op == 4:
                inner_total = v if inner_total != inner_total else inner_total
            elif op == 5 and v == v and v < 1e15:
                self.totals[int(v)] += 1
            elif op == 6:  # LR printed in fixed point: its resolution is a fact
                raw = nums[slot]
                if b"e" not in raw and b"E" not in raw and b"." in raw:
                    self.lr_decimals[len(raw) - raw.index(b".") - 1] += 1
                vals.append(("lr", v))
        if not vals:
            return
        if any(k in _SUMMARY_KEYS for k, _ in vals):
            self.summaries.append({**dict(vals), "epoch": epoch, "_seq": self._seq})
            return
        if _is_config(vals):  # a printed hyperparameter dict: configuration, not a curve point
            for k, v in vals:
                self.config.setdefault(k, (v, no))
            return
        self._prose_run = 0
        if epoch != epoch and self._epoch_ctx == self._epoch_ctx:
            epoch = self._epoch_ctx
        src = steps.SRC_NONE
        if step == step:
            src = steps.SRC_STEP
        elif epoch == epoch and inner == inner and inner_total == inner_total and inner_total > 0:
            if self._epoch_base is None:
                self._epoch_base = math.floor(epoch)
            step, src = (
                (math.floor(epoch) - self._epoch_base) * inner_total + inner,
                steps.SRC_EPOCH,
            )
        elif inner == inner:
            step, src = inner, steps.SRC_PROGRESS
        elif epoch == epoch and epoch == math.floor(epoch):
            step, src = epoch, steps.SRC_EPOCH_ONLY
        t = math.nan
        if b"-" in text[:40] and (m := _STAMP.search(text, 0, 60)):
            t = steps.stamp(m)
        total = inner_total if src == steps.SRC_EPOCH else math.nan
        self._append(no, step, src, rank, epoch, t, plan.context == "eval", vals, total)

    def _append(
        self,
        no: int,
        step: float,
        src: int,
        rank: int,
        epoch: float,
        t: float,
        is_eval_line: bool,
        vals: list[tuple[str, float]],
        total: float = math.nan,
    ) -> None:
        i = len(self.rec_line)
        self.rec_total.append(total)
        self.rec_line.append(no)
        self.rec_seq.append(self._seq)
        self.rec_step.append(step)
        self.rec_src.append(src)
        self.rec_rank.append(max(min(rank, 127), -1))
        self.rec_epoch.append(epoch)
        self.rec_time.append(t)
        self.rec_eval.append(1 if is_eval_line else 0)
        self.bars_after = 0
        cols = self.cols
        for name, v in vals:
            c = cols.get(name)
            if c is None:
                c = cols[name] = _Cols()
            c.recs.append(i)
            c.vals.append(v)

    def _progress(self, no: int, nums: list[bytes], prog: tuple) -> None:
        n = total = math.nan
        for slot, op, _ in prog:
            try:
                v = to_num(nums[slot])
            except (ValueError, IndexError):
                continue
            if op == 3:
                n = v
            elif op == 4:
                total = v
        if n == n and total == total:
            self.bar_line.append(no)
            self.bar_seq.append(self._seq)
            self.bar_n.append(n)
            self.bar_total.append(total)
            self.bars_after += 1

    def _epoch(self, nums: list[bytes], prog: tuple) -> None:
        for slot, op, _ in prog:
            if op == 2:
                with contextlib.suppress(ValueError, IndexError):
                    self._epoch_ctx = to_num(nums[slot])

    def _row(self, no: int, nums: list[bytes], plan: Plan, rank: int) -> None:
        if self._header is None:
            return
        cells = [f for f in plan.fields if f.role != "inner_total"]  # "1/99" is one cell
        cols = columns_for(self._header, len(cells))
        if cols is None:
            return
        step, src, epoch = math.nan, steps.SRC_NONE, math.nan
        vals: list[tuple[str, float]] = []
        rename = profiles.table_renames(self._header)
        for name, f in zip(cols, cells, strict=True):
            try:
                v = to_num(nums[f.slot])
            except (ValueError, IndexError):
                continue
            low = name.strip().lower()
            if low in _STEP_RANK:
                step, src = v, steps.SRC_STEP
            elif low in ("epoch", "epochs"):
                epoch = v
            elif (key := metric_name(rename.get(name, name), "", "")) is not None:
                vals.append((key, v))
        if step != step and epoch == epoch:
            step, src = epoch, steps.SRC_EPOCH_ONLY
        if vals:
            self._append(no, step, src, rank, epoch, math.nan, False, vals)

    def _config_pair(self, no: int, nums: list[bytes], prog: tuple) -> None:
        for slot, op, arg in prog:
            if op in (0, 6):
                with contextlib.suppress(ValueError, IndexError):
                    self.config.setdefault(arg, (to_num(nums[slot]), no))

    def _other(self, no: int, text: bytes, plan: Plan) -> None:
        if plan.kind == "prose":
            self._prose_run += 1
            if self._prose_run == 1:
                self.breaks.append(no)
        if b"\x00" not in text and (m := _CONFIG_TEXT.match(text)):
            key = m.group(1).decode("utf-8", "replace").lower()
            self.config.setdefault(key, (m.group(2).decode("utf-8", "replace"), no))
            return
        if plan.hint and not _CODE.search(text):
            self.not_understood += 1
            if len(self.bad_lines) < _MAX_BAD:
                self.bad_lines.append(no)
            if len(self.bad_examples) < 20:
                self.bad_examples.append((no, text[:300]))

    def _user(self, no: int, text: bytes, rank: int) -> None:
        assert self.pattern is not None
        m = self.pattern.search(text)
        if m is None:
            return
        vals, step = [], math.nan
        for key, raw in m.groupdict().items():
            if raw is None:
                continue
            try:
                v = to_num(raw)
            except ValueError:
                continue
            if key == "step":
                step = v
            elif key != "time":
                vals.append((canonical(key), v))
        if vals:
            src = steps.SRC_STEP if step == step else steps.SRC_NONE
            self._append(no, step, src, rank, math.nan, math.nan, False, vals)


def _is_config(vals: list[tuple[str, float]]) -> bool:
    names = {k for k, _ in vals}
    return bool(names & _CONFIG_NAMES) and not any(
        kind(k) in ("loss", "eval_loss", "component_loss", "eval_component_loss") for k in names
    )


def _has_metric(prog: tuple) -> bool:
    return any(op == 6 or (op == 0 and kind(arg) in METRIC_KINDS) for _, op, arg in prog)


def _values(nums: list[bytes], prog: tuple) -> list[tuple[str, float]]:
    out = []
    for slot, op, arg in prog:
        if op in (0, 6):
            with contextlib.suppress(ValueError, IndexError):
                out.append((arg, to_num(nums[slot])))
    return out


def metric_name(key: str, unit: str, context: str) -> str | None:
    """The column a value goes to: its key normalised (eval context applied), or a name
    from its unit when it has no key ("512.3ms", "206859 tok/s"); None to drop it."""
    if not key:
        u = unit.lower()
        if u in _RATE:
            return "throughput"
        if u in _TIME:
            return "time_" + u.replace("/", "_per_")
        return None
    base = key.strip().strip("'\"")
    if base.endswith(")") and "(" in base:
        base = base[: base.index("(")]
    name = base.lower().replace(" ", "_")
    if name in _NOT_METRICS:
        return None
    name = _RENAMES.get(name, name)
    if context == "eval" and not is_eval(name) and kind(name) in ("loss", "component_loss", "task"):
        name = "eval_" + name
    return name


def _program(plan: Plan) -> tuple[tuple[int, int, object], ...]:
    """(slot, opcode, argument) per field: the plan flattened for the hot loop."""
    out = []
    for f in plan.fields:
        op = _op(f, plan.context)
        if op is not None:
            out.append((f.slot, *op))
    return tuple(out)


def _op(f: Field, context: str) -> tuple[int, object] | None:
    if f.role == "value":
        name = metric_name(f.key, f.unit, context)
        if name is None:
            return None
        return (
            (6, "lr") if canonical(name) == "lr" and name in ("lr", "learning_rate") else (0, name)
        )
    if f.role == "step":
        base = f.key.strip().strip("'\"").lower()
        if "(" in base:
            base = base[: base.index("(")]
        return 1, _STEP_RANK.get(base, len(_STEP_RANK))
    if f.role == "total":
        return 5, None
    if f.role == "epoch":
        return 2, None
    if f.role == "inner":
        return 3, None
    if f.role == "inner_total":
        return 4, None
    return None


def read(path: str | Path, pattern: str | None = None) -> list[Run]:
    """Every run in a text log: one, or several when a paste holds more than one."""
    path = Path(path)
    rx = _compile(pattern, path) if pattern is not None else None
    log = TextLog(path, rx)
    try:
        if str(path) == "-":
            import sys

            log.feed(sys.stdin.buffer)
        else:
            with path.open("rb") as f:
                log.feed(f)
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not len(log.rec_line) and not log.events:
        what = f"no line matches {pattern!r}" if pattern else "no metric line understood"
        raise ReadError(
            path,
            f"{what} in {log.lines} lines (looked for key/value pairs such as 'loss: 2.3', "
            "'step=5', dicts, JSON objects and tables with a header row)"
            + (
                f"; first line naming a metric: {_show(log.bad_examples[0])}"
                if log.bad_examples
                else ""
            ),
        )
    return steps.build(log)


def _compile(pattern: str, path: Path) -> re.Pattern[bytes]:
    try:
        rx = re.compile(pattern.encode())
    except re.error as exc:
        raise ReadError(path, f"--pattern is not a valid regex: {exc}") from None
    if not rx.groupindex:
        raise ReadError(path, "--pattern needs named groups, e.g. (?P<step>\\d+) (?P<loss>\\S+)")
    return rx


def _show(bad: tuple[int, bytes]) -> str:
    no, text = bad
    return f"line {no}: {text.decode('utf-8', 'replace').strip()[:120]!r}"
