"""The format-agnostic text reader: any console log or pasted excerpt -> runs.

One pass over the file in blocks of whole lines; memory is bounded by the
numbers kept, not the file. Each line (each carriage-return state of a
progress bar is a line) is keyed by its text with every digit made `0` (one C
call); lines with the same key have the same shape, so the shape's plan
(shapes.py: which number is the step, which are metrics and under what names)
and a regex made of that shape (records.py) are found once per key. Records
are kept as flat numbers per shape, never a dict per line. At the end,
steps.py resolves the steps the lines did not print, cuts the file where a
second run starts, and makes each part a `Run`.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import re
import sys
from array import array
from collections import Counter, deque
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from traindoc.model import Event, Note, Run
from traindoc.model.numbers import count
from traindoc.model.signals import METRIC_KINDS, STEP_UNITS, TEXT_STEP_KEYS, canonical, kind
from traindoc.readers._base import ReadError
from traindoc.readers.logs import events, lines, profiles, settings, steps
from traindoc.readers.logs.layouts import Layouts
from traindoc.readers.logs.numbers import SPLIT, nonfinite_text, parse, to_num
from traindoc.readers.logs.pattern import MAX_LINE, compile_pattern
from traindoc.readers.logs.progress import Progress, bar_numbers, bar_of, tqdm_numbers
from traindoc.readers.logs.prose import StatedLR
from traindoc.readers.logs.records import (
    CONFIG_NAMES,
    Loose,
    Program,
    apply_scales,
    as_eval,
    compile_program,
    eval_marked,
    metric_name,
    power_of_ten,
    to_row,
)
from traindoc.readers.logs.shapes import Plan, analyse, analyse_whole, current, is_clock
from traindoc.readers.logs.tables import (
    axis_steps,
    columns_for,
    md_cells,
    phase_column,
    phase_prefix,
    row_cells,
)

_DIGITS = bytes.maketrans(b"123456789", b"000000000")
# The log's last non-blank lines kept (what follows its last loss-scaler message).
TAIL = 8
_CACHE_MAX = 100_000  # keys kept; past that the key cache starts over
# A line longer than this is a dump (a printed tensor, a minified JSON blob), not a
# metric record, whose lines run to a few hundred bytes: it is not analysed, for the
# shape analysis and its regex cost ~5 us a byte (a 400 KB line of brackets took 2 s).
_MAX_SHAPED = 16 << 10
_MAX_BAD = 100_000
_DUMP = Plan("other")
_SWEEP = Plan("sweep")  # a sweep's comparison header: the arms' settings, no run's
_NUMBERED = ("numbered",)  # a key whose lines print "Recall 1: 0.40": renamed, then read
_SAMPLE = 2_000  # records per shape whose step totals and LR decimals are looked at
_STEP_RANK = {k: i for i, k in enumerate(TEXT_STEP_KEYS)}
# PyTorch's ReduceLROnPlateau(verbose=True) prints one line per param group ("Epoch 3:
# reducing learning rate of group 1 to 1.0000e-05."): the LR series is group 0's (a second
# group's, a backbone's lower LR, would read as a drop at the same step).
_LATER_GROUP = re.compile(rb"reducing learning rate of group (?!0 )\d+ to ")
# A lone one-token loss line is a loop's record once it is printed this often.
_PART_REPEATS = 3
# A pandas DataFrame row: its integer index flush left, then the row's values.
_INDEX_CELL = re.compile(rb"\d+ +[-+\d.]")
_STAMP = re.compile(rb"(\d{4}-\d\d-\d\d|\d{4}/\d\d/\d\d)[ T](\d\d:\d\d:\d\d)(?:[,.](\d{1,6}))?")
# "key: value" lines with a word as value (YAML, argparse dumps): config, not metrics.
_CONFIG_TEXT = re.compile(
    rb"^\s*-{0,2}([A-Za-z_][\w.\-]{0,60})\s*[:=]\s*([\w./\-]{1,120})\s*,?\s*$"
)
# A logger's prefix before the message: "12/11/2023 05:14:10 - INFO - __main__ -   ",
# "[2024-01-02 10:00:00,123] [INFO] ", "INFO:root:".
_LOG_PREFIX = re.compile(
    rb"^.{0,80}?\b(?:INFO|WARNING|WARN|DEBUG)\b(?:\]|:[\w.]*:|\s+-\s+[\w.<>]+\s+-|\s*-)?\s*"
)


_BULLETS = (b"- ", b"* ", "• ".encode())
# A loop's line pasted as a comment ("# Epoch: 001/010 | Train: 10.000% | Loss: 2.520%",
# rasbt's notebooks' output in an issue, and its final "# Test accuracy: 10.00%"): the
# record after the `#`, not program source.
_COMMENTED = re.compile(
    rb"#+[ \t]+(?=(?i:epoch|iter|iteration|step)\b\s*:?\s*\d[^|\n]*\|"
    rb"|(?i:test|valid|validation|val)\s+(?i:accuracy|acc|loss)\s*:\s*[\d.]+%?\s*$)"
)
# A split's accuracy on a lone eval line ("Test accuracy: 10.00%"): the eval accuracy,
# the name the split's share on the epoch lines takes ("Valid: 9.800%").
# A wall-clock cell of a table row (fastai's "00:10", "1:02:03"; Flair's loss.tsv
# TIMESTAMP "21:09:11"), and the names of the header columns that hold one.
_CLOCK_CELL = re.compile(rb"(?<![\d:.])\d{1,3}:\d\d(?::\d\d)?(?![\d:.])")
_CLOCK_COLUMNS = frozenset({"time", "timestamp", "duration", "wall", "wall_time", "epoch_time"})
_NOT_AVAILABLE = b"#na#"


def _unmeasured_bar(text: bytes) -> bool:
    """A bar drawn at 0/N whose every postfix value is inf measured nothing yet: a loop
    that shows running averages (or a best-so-far) from before its first batch starts
    them at inf ("0/1541 [00:00<?, ?it/s, total_loss=inf, rpn_class_loss=inf]", a
    Faster R-CNN loop at each epoch's start). A finite value or a NaN at 0/N is a real
    first batch's (tqdm counts a batch only when the next is drawn) and is kept."""
    got = tqdm_numbers(text)
    if got is None or got[0] != 0:
        return False
    postfix = text[text.rfind(b"[") + 1 :].rstrip(b"] \r\n").split(b",")
    vals = [kv.partition(b"=")[2].strip().lower() for kv in postfix if b"=" in kv]
    return bool(vals) and all(v in (b"inf", b"+inf") for v in vals)


def _without_placeholders(text: bytes, header: tuple[str, ...]) -> tuple[str, ...]:
    """The header less the columns whose cell on this row is fastai's "#na#" (a metric it
    did not compute: the valid loss of a run without a validation set), when the row's
    cells line up one to one with the header's names."""
    cells = text.split()
    if len(cells) != len(header):
        return header
    return tuple(h for h, c in zip(header, cells, strict=True) if c != _NOT_AVAILABLE)


_SPLIT_ACC = re.compile(r"(?:test|valid|validation|val|dev)_(?:accuracy|acc)")


def _message(text: bytes) -> bytes:
    """The message of a logged line, without its logger's prefix (the line if none)."""
    m = _LOG_PREFIX.match(text)
    return text[m.end() :] if m else text


# `--flag value` / `--flag=value` of a launch command, also inside prose. The next
# `--flag` is no value (`--do_train --model_name_or_path gpt2`: do_train has none). A
# backslash ends a value as a line continuation, but not a Windows path's
# (`--model_name_or_path C:\models\Llama-2-13b-chat-hf`).
_CLI_FLAG = re.compile(
    rb"(?<![\w-])--([A-Za-z][\w\-]{1,60})(?:\s*=\s*|\s+)(?!--)(\"[^\"]{1,120}\"|'[^']{1,120}'"
    rb"|[A-Za-z]:\\[^\s,\"'\xef]{1,117}|[^\s,\\\"'\xef]{1,120})"
)
# A precision switch given bare (`--fp16`, `--bf16`: HF TrainingArguments, fairseq,
# DeepSpeed and most scripts' store_true flags), at the end of the command, before a
# `\` continuation or before the next flag: the run trains in that precision.
_CLI_BARE = re.compile(rb"(?<![\w-])--(fp16|bf16)(?=\s*(?:\\|--[A-Za-z]|$))", re.MULTILINE)
# Single-dash flags (`-optim adam -learning_rate 1.0`: OpenNMT, Lua Torch, fairseq-era
# scripts) count only on a launch command: elsewhere `-0.5` or `-v` mean other things.
_LAUNCH = re.compile(rb"(?:^|[\s+$>])(?:python[\d.]*|th|torchrun|deepspeed)\s+\S+\.(?:py|lua)\b")
_CLI_SHORT = re.compile(
    rb"(?<![\w-])-([A-Za-z][A-Za-z_]{1,40})\s+(\"[^\"]{1,120}\"|'[^']{1,120}'|[^\s,\\\"'-][^\s,\\\"']{0,119})"
)
# fairseq's task setup: "| [en] dictionary: 43881 types" per language (source, then
# target), "| dictionary: 50264 types" for a language model.
# A precision the user says they set, in words or code: "Setting the config to
# `float16`", "switched the dtype to fp16", Keras' `K.set_floatx('float16')`. A report of
# the run's own setting, not advice ("try bf16") or a question ("should I use fp16?").
_PROSE_PRECISION = re.compile(
    rb"(?i)(?:\b(?:set|setting|sets|changed|changing|switched|switching)\s+(?:the\s+)?"
    rb"(?:config|floatx|dtype|precision|default\s+float\s*type)\s+to\s+[`'\"]?"
    rb"|\bset_floatx\(\s*['\"])(float16|fp16|half)\b"
)
_DICTIONARY = re.compile(rb"(?:\[[\w-]{1,20}\] )?dictionary: (\d{2,7}) types\s*$")
# A printed torch module's Linear layer ("  (fc): Linear(in_features=512, out_features=10,
# bias=True)"): the last one printed is the model's output layer, a classifier's head.
_LINEAR = re.compile(rb"^\s*\([\w.-]{1,60}\): Linear\(in_features=\d+, out_features=(\d{1,7})\b")
# Keras' directory iterators ("Found 2000 images belonging to 2 classes.", tf.data's "Found
# 3670 files belonging to 5 classes."): the class count of the data the run trains on.
_FOUND_CLASSES = re.compile(
    rb"Found \d+ (?:images|files|validated image filenames) belonging to (\d{1,6}) classes\b"
)
# A script's own print of its class count: "Number of classes: 10", "num of labels = 3".
_CLASS_COUNT = re.compile(
    rb"(?i)^(?:total\s+)?(?:number|num|no\.?)\s+of\s+(?:classes|labels|categories)\s*[:=]\s*(\d{1,6})\.?$"
)
_PROSE_BATCH = re.compile(
    rb"(?i)\b(?:set|use|using|with)\s+(?:the\s+|a\s+)?batch(?:[ _-]?size)?\s*(?:to|of|=|:)?\s*(\d{1,5})\b"
)
# A line of a titled metrics block, after the title's prefix: "  eval_loss = 1.2086438".
_BLOCK_PAIR = re.compile(rb"\s+([A-Za-z_][\w./\-]{0,80})\s*=\s*(\S{1,60})\s*$")
# A heading that names the epoch of the lines under it ("Epoch 4: ", "=== Epoch 2/12 ==="),
# not a setting ("epochs: 400", "epoch: 100").
# Keras callbacks' messages name an epoch zero-padded to five digits ("Epoch 00018: early
# stopping", 0-based in Keras 1), where a heading is "Epoch 19/50": such a line is about
# the epoch that ended, and the metric line after it is still the next epoch's.
_CALLBACK_EPOCH = re.compile(rb"\s*Epoch 0\d{4}: [A-Za-z]")
# A logger's timestamp may lead it (nnU-Net's "2024-04-26 10:29:10.945759: Epoch 22"), and
# Python's print("epoch: ", n) spaces its number twice (nnU-Net v1's "epoch:  18"), where a
# setting printed as "epoch: 100" has one space.
_EPOCH_HEADING = re.compile(
    rb"(?i)(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,6})?:?\s+)?"
    rb"\W*(?:epoch|ep)(?:\s+|:\s{2,})\d+(?:\s*/\s*\d+)?\s*:?\W*"
)
# A settings table's "Epochs            : 20" line (bart-trzynadlowski's Faster R-CNN prints
# its "Training Parameters" so): the plural names how many epochs the run plans, where a
# heading names the one starting ("Epoch 3", "Epoch 3/20").
_EPOCHS_SETTING = re.compile(rb"(?i)\s*Epochs\s*[:=]\s*(\d{1,6})\s*")
# A lone eval line under a train record ("[Epoch 1] Train Loss=0.95 T=207s" then "Test
# loss=0.90"): an eval of that record's epoch, as are the lone metric lines after it
# ("Accuracy=0.65") until the next record. An arrow or rule may lead it: the PyTorch VAE
# example's "====> Test set loss: 103.2" after its "====> Epoch: 3 Average loss" line.
_EVAL_PREFIX = re.compile(rb"(?i)[\s=>*#|-]*(?:test|val|valid|validation|dev)\b")
_WANDB_PAIR = re.compile(rb"^\s*(\S+)\s+(\S+)\s*$")
_WANDB_STEPS = ("_step", "step", "global_step", "train/global_step", "trainer/global_step")
# Program source printed before a log (record .txt files, scripts in an issue): not a log line.
_CODE = re.compile(
    rb"^\s*(?:def |class |import |from \S+ import|if |elif |else\b|for |while |return\b|with "
    rb"|try:|except\b|raise |assert |@\w|#|print\()|\b(?:self|torch|args|np|F|nn|math)\.\w"
    rb"|:\s*(?:int|float|str|bool)\s*=|\w\($"
)
# A checkpoint hook's notice that it kept the best model so far, repeating the score the
# val line before it logged: mmengine's CheckpointHook "The best checkpoint with 0.8150
# coco/bbox_mAP at 5 epoch is saved to best_coco_bbox_mAP_epoch_5.pth.", mmcv 1.x's
# EvalHook "Best bbox_mAP is 0.0057 at 1 epoch.", PaddleSeg's "[EVAL] The model with the
# best validation mIoU (0.5000) was saved at iter 200.", GluonCV / AutoGluon's "[Epoch 1]
# Current best top-1: 0.750000 vs previous 0.425000, saved to .../best_checkpoint.pkl",
# fairseq's checkpoint_utils "saved checkpoint checkpoints/checkpoint2.pt (epoch 2 @ 695
# updates, score 9.393)" (the score is the valid line's best_checkpoint_metric again).
# Understood: no metric is missed.
_BEST_SAVED = re.compile(
    rb"\bThe best checkpoint with -?[\d.]+ \S+ at \d+ (?:epoch|iter) is saved to \S"
    rb"|\bsaved checkpoint \S+ \(epoch \d+ @ \d+ updates, score -?[\d.]+\)"
    rb"|\bCurrent best \S+: -?[\d.]+ vs previous \S+, saved to \S"
    rb"|\bBest \S+ is -?[\d.]+ at \d+ (?:epoch|iter)\.\s*$"
    rb"|\bThe model with the best validation \w+ \(-?[\d.]+\) was saved at iter \d+"
)
# A tqdm bar up to the end of its "[elapsed<left, rate, postfix]" (the postfix is inside).
# (the bar fills the terminal's width: up to 400 columns on a wide screen)
_TQDM = re.compile(rb"\d%\|[^|\n]{0,400}\|\s*\d+/\d+\s*\[[^\]\n]{0,300}\]")
# A bar whose stats bracket a pasted dict record cut before its "]" ("| 2/13000
# [00:28<54:33:11, 15.11s/it{'loss': 0.2527, ...}"): tqdm never prints "{" inside it, so
# the bar ends where the dict opens.
_TQDM_CUT = re.compile(rb"\d%\|[^|\n]{0,400}\|\s*\d+/\d+\s*\[[^\]\n{]{0,300}?(?=\{['\"])")
# Where a bar is drawn: "Epoch 0:   3%|▎         | 565/20101 [" (its postfix may be cut).
_BAR_START = re.compile(rb"\d{1,3}%\|[^|\n]{0,200}\|\s*\d+/\d+\s*\[")
# A logger's timestamped line ("[2023-06-07 22:16:00,018] [INFO] ..."), as printed on a bar's line.
_LOGGER_LINE = re.compile(rb"\s*\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d")
# A value in a message after a bar ("Accuracy: 62.50%", "loss=0.3").
_VALUE_AFTER = re.compile(rb"[:=]\s*-?\.?\d")
# The blanks a closing bar is padded with before the next print on the same line.
_PADDED = re.compile(rb" {24,}(?=\S)")
# The rank a record line ends in ("... lr 0.00001905 rank 0"), a word of its own.
_RANK_LAST = re.compile(rb"(?<![\w.-])rank[ :=]\s*(\d{1,3})\s*$")
# A logging module's message: a date-time stamp, then its level word ("2021-07-07
# 04:50:33,734 WARNING ...", "[2023-06-07 22:16:00,018] [INFO] ...", "... - root - ERROR - ").
_LOGGED = re.compile(
    rb"\s*\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\n]{0,40}?\b"
    rb"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b"
)
# Python logging's default "LEVEL:name:" prefix glued to the number a progress line ends
# in (Keras' bar, left without its newline, then "INFO:tensorflow:Assets written to: ..."
# from a checkpoint callback): the bar ends at the number, the message is another line.
_GLUED_LOGGER = re.compile(rb"(?<=\d)(?=(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.]+:)")
# Full-width punctuation a CJK input method types ("训练次数：100, Loss：1.98"): read as
# its ASCII form, or the key before it is glued to a word of another script.
_FW_COLON, _FW_COMMA = "：".encode(), "，".encode()
_MARKUP = frozenset(b"[>-*+`~ \t")
_BLANK = frozenset(b" \t")
_STRONG = frozenset((b"[", b">", b"-", b"*", b"+", b"`", b"~"))


def _refreshes(text: bytes) -> list[bytes]:
    """A line drawn with several bars, cut before each one's description: after the ", "
    that ends the previous refresh's postfix ("..., throughput=19.00, Epoch 0:   3%|"),
    else at the bar itself. The text before the first bar (a refresh cut at its start)
    stays a piece of its own. One piece when one bar is drawn."""
    bars = list(_BAR_START.finditer(text))
    if len(bars) < 2:
        return [text]
    cuts, prev = [0], 0
    for i, m in enumerate(bars):
        comma = text.rfind(b", ", prev, m.start())
        if comma >= 0:
            cuts.append(comma + 2)
        elif i:
            cuts.append(m.start())
        prev = m.end()
    pieces = [text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)]
    return [p for p in pieces if p.strip()]


def _after_bar(rest: bytes) -> bool:
    """Text after a bar's "]" that is a print of its own: a record (a dict), a message
    that opens by quoting an identifier (Lightning's "`Trainer.fit` stopped:
    `max_epochs=2` reached.", whose `max_epochs=2` is a setting), or prose with no value
    in it (diffusers' "Model weights saved in /workspace/..."). A value there stays on
    the bar's record, numbered by it (a callback's "Baseline Accuracy: 62.50% (5/8)")."""
    rest = rest.lstrip()
    if lines.starts_record(rest) or rest[:1] == b"`":
        return True
    return rest[:1].isalpha() and _VALUE_AFTER.search(rest) is None


class TextLog:
    """What one pass over a text log collected (steps.py turns it into runs)."""

    def __init__(self, path: Path, pattern: re.Pattern[bytes] | None = None) -> None:
        self.path = path
        self.pattern = pattern
        # one entry per record, in file order
        self.rec_line, self.rec_seq = array("i"), array("i")
        self.rec_plan, self.rec_rank = array("h"), array("b")
        self.programs: list[Program] = []
        self.ctx_seq, self.ctx_val = array("i"), array("d")  # "Epoch 3/10" lines: order, epoch
        self.loose = Loose()
        self.bar_seq, self.bar_n, self.bar_total = array("i"), array("d"), array("d")
        self.own_bar_seq = array("i")  # the bars drawn on their record's own line
        # the last bar drawn before a record (HF draws the bar to a step, then prints that
        # step's dict): numbers a record that no bar follows
        self.pre_seq, self.pre_n = array("i"), array("d")
        self.bars_after = 0  # progress updates after the last record
        self.progress = Progress(bar_numbers)  # how far the training bar moved between records
        self.last_bar: tuple | None = None  # (line, text, bar) of the last progress bar
        self._bar_pending = False  # a record without a step waits for the next bar
        self.config: dict[str, tuple[object, int]] = {}
        self.namespaces: list[tuple[int, dict[str, object]]] = []  # (line, its settings)
        self.stated_lr = StatedLR()  # an LR said in words (used when no setting gives one)
        self._bullet = False  # the line being read was a list item ("- Loss: 0.45")
        self.totals: Counter[int] = Counter()  # step totals printed ("step 120/5000")
        self.epoch_totals: Counter[int] = Counter()  # epoch totals printed ("Epoch 3/10")
        self.lr_decimals: Counter[int] = Counter()
        self.breaks: list[int] = []  # line numbers of gap markers and prose blocks
        self.fences: list[int] = []  # line numbers of Markdown code fences (```)
        self.summaries: list[dict[str, float]] = []
        self.events: list[Event] = []
        # the log's last non-blank lines (number, text): whether it goes on past its last
        # loss-scaler message (steps.build's lines_after_overflow)
        self.tail: deque[tuple[int, bytes]] = deque(maxlen=TAIL)
        self.lines = 0
        self.not_understood = 0
        self.bad_lines = array("q")  # the first _MAX_BAD of them
        self.bad_examples: list[tuple[int, bytes]] = []
        self.shapes: Counter[str] = Counter()  # a sample of the shapes that gave records
        self._keys: dict[bytes, tuple] = {}
        self._by_shape: dict[bytes, tuple] = {}
        self._seq = 0
        self._epoch_ctx = math.nan
        # the epoch heading's finished bar: (epoch, its total, its names)
        self._done_bar: tuple[float, float, tuple[str, ...]] | None = None
        # the totals of finished bars printed on a record's own line beside the epoch the
        # line prints ("Epoch 3, training loss 0.227: 100%|...| 709/709"): epoch bars
        # (steps._train_bars numbers no record by them)
        self.epoch_bars: set[float] = set()
        self._rec_epoch = math.nan  # the epoch the last record printed
        self._lone_eval = False  # a lone eval line was read since that record
        self._eval_epoch = math.nan  # the epoch of the last "Eval epoch: N" heading
        self._skeleton = False  # such a heading was seen
        self._nnunet_epoch = math.nan  # the epoch of the last nnU-Net "epoch:  N" heading
        self._pose_iter = math.nan  # the iteration of the last lightweight-pose "Iter: N"
        self._optim_head: tuple[bytes, int] | None = None  # a torch optimizer repr's "Adam ("
        self._pose_terms: list[tuple[str, float]] = []  # its stage losses read so far
        self._pose_no = 0
        self._header: tuple[str, ...] | None = None
        # (line, cells) of the last Markdown row of bare words and gaps: a group row that
        # may name the halves of the header under it ("| train | ... | validate | ...")
        self._md_groups: tuple[int, list[str]] | None = None
        self._bounded = False  # the header's columns are fixed (Plan.bounded)
        self._starts: tuple[int, ...] = ()  # where each column of a space-aligned header starts
        self._md = False  # the header is a Markdown table's: rows are split on |
        # the last Markdown header row: (line, its cells, blanks kept)
        self._md_head: tuple[int, list[str]] | None = None
        # a long-format table's phase column ("epoch,phase,loss"): (its index, the header line)
        self._phase: tuple[int, str] | None = None
        # lone loss lines named in full, held (line, name, value, rank, seq), and how many
        # of each name were printed so far
        self._part_buf: list[tuple[int, str, float, int, int]] = []
        self._part_n: Counter[str] = Counter()
        # the Training Loss cell of the last row of a Trainer results table (beside a
        # Validation Loss): the same cell again is the same log carried forward, not a new one
        self._md_last_loss: bytes | None = None
        # a Markdown table whose columns are steps: (line, counts epochs, step per column)
        # and its rows so far, made records column by column when the table ends
        self._axis: tuple[int, bool, list[float]] | None = None
        self._axis_rows: list[tuple[str, list[float | None]]] = []
        self._prose_run = 0
        # a step line whose metrics follow one per indented line (OLMo's [step=1/N] block)
        self._blk: tuple[int, float, float] | None = None
        self._blk_vals: list[tuple[str, float]] = []
        self._blk_lines: list[bytes] = []  # the block's config lines, as read
        self._blk_total: int | None = None  # the step total its line printed
        self._wandb: dict[str, float] | None = None  # W&B's "Run summary:" being read
        self._wandb_line = 0
        self._held: tuple[int, bytes, int] | None = None  # a dict wrapped over lines
        self._wandb_seen = False
        # a titled metrics block ("***** Eval results *****"): (title line, prefix shape)
        self._titled: tuple[int, bytes] | None = None
        self._titled_vals: list[tuple[bytes, float]] = []
        # lines are first offered to a stateful reader (--pattern, a W&B block, a table)
        self._slow = pattern is not None
        self._joins = 0
        self.layouts = Layouts(self)  # SB3 tables, vertical epoch blocks, darknet, comma pairs

    def release(self) -> None:
        """Free the per-record bookkeeping arrays (steps.build calls it once they are read)."""
        self.rec_line, self.rec_seq = array("i"), array("i")
        self.rec_plan, self.rec_rank = array("h"), array("b")
        self.bar_seq, self.bar_n, self.bar_total = array("i"), array("d"), array("d")
        self.own_bar_seq = array("i")
        self.pre_seq, self.pre_n = array("i"), array("d")

    def _keep_tail(self, body: bytes, first: int) -> None:
        """The block's last non-blank lines onto self.tail (a block is whole lines)."""
        parts = body.rsplit(b"\n", TAIL + 1)
        last = first + body.count(b"\n") - (1 if body.endswith(b"\n") else 0)
        if body.endswith(b"\n"):
            parts.pop()
        cut = len(parts) > TAIL  # the first part holds the lines before the ones kept
        kept = [(last - k, t) for k, t in enumerate(reversed(parts[1:] if cut else parts))]
        for no, text in reversed(kept):
            if text.strip():
                self.tail.append((no, text.strip()[:200]))

    # -- the pass ---------------------------------------------------------------------------
    def feed(self, f: BinaryIO) -> None:
        for body, first in lines.blocks(f):
            self.events.extend(events.find(body, first, self.path))
            self._block(body, first)
            self._keep_tail(body, first)
        if self._held is not None:  # the file ends inside a record
            no, text, rank = self._held
            self._held = None
            if lines.opens_record(text):
                self._cut(no, text, rank)
            else:  # a `key: value,` line held for its rest
                self._line(no, text, rank)
        self.layouts.close()
        self._close_pose()
        self._close_block()
        self._close_titled()
        self._close_axis()
        if self._wandb:
            self._emit_wandb()
        self._flush_parts()

    def _block(self, body: bytes, no: int) -> None:
        no -= 1
        if b"\x00" in body:
            # NUL bytes are what a crash leaves of a write that never landed (a file
            # extended, its bytes not written); the text after them was written later,
            # as a bar's next state is after a carriage return: a piece of its own.
            body = body.replace(b"\x00", b"\r")
        for raw in body.split(b"\n"):
            no += 1
            if not raw:
                continue
            if b"\r" in raw:
                # a bar's redraws: each is a line of its own (a long fit's bar is one
                # line of megabytes), cut one by one
                for piece in raw.split(b"\r"):
                    if piece.strip():
                        self._piece(no, piece[: lines.MAX_LINE])
                continue
            # lines.blocks cuts only a line filling a block
            self._piece(no, raw[: lines.MAX_LINE])
        self.lines = max(self.lines, no - 1 if body.endswith(b"\n") else no)

    def _piece(self, no: int, text: bytes) -> None:
        if b"%|" in text and (m := _PADDED.search(text)) and _BAR_START.search(text, 0, m.start()):
            # a bar closed by padding it to the terminal's width, the next print glued
            # after the blanks (fairseq's last refresh, then "| epoch 009 | loss 11.869 |
            # ..." with the carriage return lost): two lines, not one record's postfix
            self._piece(no, text[: m.start()])
            self._piece(no, text[m.end() :])
            return
        if text.count(b"%|") > 1 and len(parts := _refreshes(text)) > 1:
            # a bar's refreshes pasted as one line (the carriage returns lost): each is a
            # record of its own, as after a "\r"; read as one line, the repeated postfix
            # keys became suffixed copies (loss_5, loss_12) of one point
            for part in parts:
                self._piece(no, part)
            return
        if b"%|" in text and (m := _TQDM.search(text)) and _LOGGER_LINE.match(text, m.end()):
            # a logger's line printed after the bar on its line ("| 378/2724 [13:58:09<86:18:35,
            # 132.44s/it][2023-06-07 22:16:00,018] [INFO] ... OVERFLOW! ..."): tqdm prints
            # nothing after its "]", so the bar is one piece and the message another
            self._piece(no, text[: m.end()])
            self._piece(no, text[m.end() :])
            return
        if (b"INFO:" in text or b"WARNING:" in text) and (m := _GLUED_LOGGER.search(text)):
            self._piece(no, text[: m.start()])
            self._piece(no, text[m.start() :])
            return
        if (
            b"%|" in text
            and ((m := _TQDM.search(text)) or (b"{" in text and (m := _TQDM_CUT.search(text))))
            and _after_bar(text[m.end() :])
        ):
            # a print on the bar's line (see `_after_bar`): a dict ("| 0/1 [00:00<?,
            # ?it/s]{'loss': 2.03, ..."), Lightning's "...kl_loss=0.543]`Trainer.fit`
            # stopped: `max_epochs=2` reached.": tqdm prints nothing after its "]", so it
            # is a line of its own (a dict is a record numbered as any stepless record is;
            # the bar that counts to 1 is not the training's)
            self._piece(no, text[: m.end()])
            self._piece(no, text[m.end() :])
            return
        if b"\xef\xbc" in text:  # a full-width colon / comma ("Loss：1.98", a Chinese print)
            text = text.replace(_FW_COLON, b": ").replace(_FW_COMMA, b", ")
        rank = -1
        if text[:1] == b"#" and (m := _COMMENTED.match(text)):
            text = text[m.end() :]
        c = text[0]
        self._bullet = text[:8].lstrip().startswith(_BULLETS)  # before the markup goes
        if c in _MARKUP and (c not in _BLANK or text[:16].lstrip()[:1] in _STRONG):
            text, rank, what = lines.clean(text)
            if what:
                if what == "fence":
                    self.fences.append(no)
                if what == "gap":
                    self.breaks.append(no)
                    self._eval_epoch = math.nan  # its epoch's lines may be cut out
                    if self.ctx_val:  # the epochs cut out: the last heading no longer holds
                        self.ctx_seq.append(self._seq + 1)  # from the next line on
                        self.ctx_val.append(math.nan)
                return
        if rank < 0 and b") " in text[:160]:
            text, rank = lines.inline_rank(text)
        if self._held is not None or (b"{" in text or text.endswith((b"\\", b",", b", "))):
            joined = self._join(no, text, rank)
            if joined is None:
                return
            no, text, rank = joined
        self._line(no, text, rank)

    def _join(self, no: int, text: bytes, rank: int) -> tuple[int, bytes, int] | None:
        """Undo terminal wrapping: a `\\` continuation, a dict or JSON object cut over lines,
        a `key: value,` record line whose last fields went on to the next line."""
        held = self._held
        if held is None:
            if lines.opens_record(text) or lines.ends_in_field(text):
                self._held, self._joins = (no, text, rank), 0
                return None
            return no, text, rank
        hno, htext, hrank = held
        if not lines.opens_record(htext):  # held by ends_in_field
            self._held = None
            if not lines.only_fields(text):  # a line of its own: the held one was whole
                self._line(hno, htext, hrank)
                return self._join(no, text, rank)
            htext = htext + b" " + text.strip()
            self._joins += 1
            if self._joins < lines.MAX_JOINS and lines.ends_in_field(htext):
                self._held = (hno, htext, hrank)
                return None
            return hno, htext, hrank
        if htext.endswith(b"\\") and lines.own_line(htext, text):
            self._held = None
            self._line(hno, htext, hrank)
            return self._join(no, text, rank)
        if htext.endswith(b"\\"):
            htext = htext[:-1] + text.strip()
        elif lines.starts_record(text):  # a new record: the held one was cut, not wrapped
            self._held = None
            self._cut(hno, htext, hrank)
            return self._join(no, text, rank)
        else:
            htext = htext + b" " + text.strip()
        self._joins += 1
        if lines.still_open(htext, self._joins):
            self._held = (hno, htext, hrank)
            return None
        self._held = None
        return hno, htext, hrank

    def _cut(self, no: int, text: bytes, rank: int) -> None:
        """A dict the file ends in, or the next record starts inside: its whole fields are
        a record even when only one is left (`{'loss': 631.02, 'learning_rate': 0.0004`
        is the loss; a lone quoted key is otherwise a config value)."""
        kept = lines.drop_cut_value(text)
        plan, _ = self._shape_of(kept)
        vals = _values(kept, plan) if plan.kind == "config" else []
        if not vals or not any(kind(k) in METRIC_KINDS for k, _ in vals):
            self._line(no, kept, rank)
            return
        self._seq += 1
        self.add_loose(no, vals, math.nan, steps.SRC_NONE, math.nan, rank)

    def _line(self, no: int, text: bytes, rank: int) -> None:
        if b"kipping step" in text and events.SKIP_MESSAGE.search(text):
            return  # a loss scaler's skipped step: an event (events.find), not a record
        if text.lstrip()[:2] == b"##":  # a Markdown heading ("#### Epoch 3/19")
            bare = lines.drop_heading(text)
            if bare != text and self._shape_of(bare)[0].kind in ("epoch", "record"):
                text = bare  # a note's own heading ("## Results (lr=4e-4)") stays a note
        if text.endswith(b"**"):  # a line the user set in Markdown bold
            text = lines.drop_bold(text)
        if b"**" in text:  # values the user set in bold inside the line
            text = lines.drop_bold_values(text)
        if b" <-" in text:  # a note the user pointed at the line ("mfu 0.05% <- huge")
            text = lines.drop_arrow_note(text)
        if b"logging_ops.cc" in text:  # TF's tf.Print: "eval/Accuracy[0.001]"
            text = lines.tf_print_value(text)
        if b"grad_fn=<" in text:  # PyTorch's `print(loss)`: "tensor(2.30, grad_fn=<...>)"
            text = lines.grad_tensor_loss(text)
        if b"(" in text:  # a named scalar in its array's repr: "loss: Array(nan, ...)"
            text = lines.scalar_wrapper_value(text)
        if b"Batch [" in text:  # MXNet's Speedometer range "Batch [60-80]"
            text = lines.batch_range_end(text)
        if b"epoch:" in text and b"batch:" in text:  # ESPnet2's "1epoch:train:1-100batch:"
            text = lines.espnet_range(text)
        if text[:1].isdigit() and text.count(b" ") == 2:  # build-nanogpt's "0 val 10.9499"
            text = lines.build_nanogpt(text)
        if b" || " in text and b" T: " in text:  # YOLACT's "[ 1]  1440 || B: 5.4 | T: 17.6 ||"
            text = lines.yolact_losses(text)
        if text.lstrip()[:1] == b"(" and b") = (" in text:  # Julia's `@show i, loss(x)`
            text = lines.julia_show_tuple(text)
        if b":" in text[:24] and text.lstrip()[:1].isalnum():  # WaveGlow's "123873:\t-5.48"
            text = lines.iter_loss(text)
        if b"@" in text:  # YOLOv6's "mAP@0.50:0.95: 0.22"
            text = lines.iou_range_name(text)
        if b" is " in text and len(text) < 200:  # "Epoch 3: the loss is 0.512"
            text = lines.sentence_metrics(text)
        if b" for " in text[:40]:  # a GAN's "loss for generator ... is: 559.8"
            text = lines.player_sentence(text)
        if b" loss " in text[:24]:  # tacotron2's "Train loss 12 0.5 Grad Norm 3.1"
            text = lines.loss_at_iter(text)
        if b"coco/A" in text:  # mmpose's "coco/AP .5: 0.0029  coco/AP (M): -1.0"
            text = lines.mmpose_coco_names(text)
        if b"]:" in text:  # a loop's "train_batch_loss[ 10 ]:  1.57"
            text = lines.indexed_value(text)
        if b"torch.Size(" in text:  # a shape field ("img shape: =torch.Size([80, 3])")
            text = lines.drop_shape_field(text)
        if b"Invalid loss" in text or b"improve" in text:  # a Keras callback's message
            text = lines.drop_keras_stop(text)  # on a bar's line
            if not text.strip():
                return
        if b"learning rate of group " in text:
            if _LATER_GROUP.search(text):
                return  # PyTorch's plateau message for another param group: the run's LR is group 0's
            if b"reducing learning rate of group" in text:
                # only ReduceLROnPlateau(verbose=True) prints it: the scheduler is named,
                # and its cuts follow the metric, not a horizon
                self.config.setdefault("lr_scheduler", ("ReduceLROnPlateau", no))
        self._seq += 1
        if text[-1:].isalpha() and b" - " in text[-40:]:  # a Keras line cut mid-name
            text = lines.drop_cut_name(text)
        if self._phase is not None and self._phase_row(no, text, rank):
            return
        if self._slow and self._slow_line(no, text, rank):
            return
        if self.pattern is None and self.layouts.offer(no, text):
            return
        if (b"Eval epoch: " in text or b"Mean test loss of " in text or b"Top" in text[:40]) and (
            self._skeleton_eval(no, text, rank)
        ):
            return
        if b"dictionary: " in text and (m := _DICTIONARY.search(text)):
            # the loss is over the target side: the last dictionary printed is its size
            self.config["vocab_size"] = (int(m.group(1)), no)
            return
        if b" (" in text[-6:] and (m := _TORCH_OPTIM_HEAD.match(text)):
            self._optim_head = (m.group(1), no)  # an optimizer only if the next line says so
        if b"Parameter Group 0" in text[:40] and self._optim_head is not None:
            name, at = self._optim_head
            if at == no - 1 and _TORCH_OPTIM_GROUP.match(text):
                # `print(optimizer)`: "Adam (" then "Parameter Group 0" then its settings
                # ("    lr: 0.01", read as config lines): the optimizer is named only here
                self.config.setdefault("optimizer", (name.decode().lower(), no))
                return
        if b"optimizer" in text[:40] and (said := settings.mm_optimizer(text)):
            # an OpenMMLab config's `optimizer=dict(type='SGD', lr=0.1, ...)`: its keys
            # would read as a record's (lr, weight_decay), its name not at all
            for key, value in said:
                self.config.setdefault(key, (value, no))
            return
        if b" belonging to " in text and (m := _FOUND_CLASSES.search(text)):
            if (c := int(m.group(1))) >= 2:  # train and validation print the same count
                self.config.setdefault("num_classes", (c, no))
            return
        if b" of " in text[:80] and (m := _CLASS_COUNT.match(_message(text).strip())):
            if (c := int(m.group(1))) >= 2:
                self.config.setdefault("num_classes", (c, no))
            return
        if b"out_features=" in text and (m := _LINEAR.match(text)):
            self.config["head_outputs"] = (int(m.group(1)), no)  # the last one printed wins
            return
        if b"_loss:" in text[:40] and (term := profiles.pose_term(text)) is not None:
            if self._pose_iter == self._pose_iter:  # under an "Iter: N" heading
                self._pose_terms.append(term)
                self._pose_no = no
                return
        elif self._pose_terms:
            self._close_pose()
        if b"Iter: " in text and (it := profiles.pose_iter(text)) is not None:
            self._pose_iter = it  # the heading; the line itself is read as any line is
        if (self._nnunet_epoch == self._nnunet_epoch or b"epoch:" in text[:40]) and (
            self._nnunet(no, text, rank)
        ):
            return
        key = text.translate(_DIGITS)
        got = self._keys.get(key)
        if got is _NUMBERED or (got is None and (renamed := lines.numbered_names(text))):
            # "Recall 1: 0.40": its cutoff joins the name (looked for once per key)
            if got is None:
                self._keys[key] = _NUMBERED
            else:
                renamed = lines.numbered_names(text)
            text = renamed or text
            key = text.translate(_DIGITS)
            got = self._keys.get(key)
        if got is None:
            if text[:6] == b"wandb:":  # a W&B console block: from now on lines are offered
                self._wandb_seen = self._slow = True  # to _wandb_summary first
                if self._wandb_summary(no, text):
                    return
            got = self._learn(key, text)
        plan, prog = got
        k = plan.kind
        if k == "sweep":
            return  # the arms' LRs: neither a record nor an LR stated for this run
        if k == "record" and _states_the_plan(plan):
            self.stated_lr.scan(no, text)  # the run's LR and length, stated in words
            return
        if k == "other" and text[:1] == b"|" and (groups := _group_row(text)) is not None:
            self._md_groups = (no, groups)  # "| train | | | validate | |" over a header
        if k == "settings":
            self._namespace(no, text)
            return
        if (
            k in ("record", "config", "other")
            and _LAUNCH.search(text)
            and self._cli_flags(no, text)
        ):
            return  # `python train.py -lr 1.0 -epochs 20`: the run's settings, not a record
        if k not in ("record", "progress") and (said := profiles.setting(text)):
            # a setting in words ("num epochs / epoch数: 30", "... Apex, opt level O1")
            for key, value in said:
                self.config.setdefault(key, (value, no))
            return
        if self._blk is not None and self._blk[1] == self._blk[1] and _unnumbered(k, plan, text):
            # the record printed right under a step heading that held no metric: the TF2
            # Object Detection API's "Step 100 per-step time 0.512s", then its
            # {'Loss/total_loss': ..., 'learning_rate': ...} dict. The dict is that step's
            self._blk_vals.extend(_values(text, plan))
            self._blk_lines.append(text)
            self._close_block()
            return
        if self._blk is not None and not (
            k == "config" and (text[:1] in (b" ", b"\t") or _has_metric(plan))
        ):
            self._close_block()
        if k == "record" and (b"best" in text or b"Best" in text) and _BEST_SAVED.search(text):
            return  # a best-so-far notice repeats the eval logged before it: no record
        if k == "record" and prog is not None:
            m = prog.rx.fullmatch(text)
            if m is None:  # a key shared by two shapes (rare): read this line the slow way
                plan, prog = self._shape_of(text)
                m = prog.rx.fullmatch(text) if prog is not None else None
                if m is None:
                    return
            if b"%|" in text:
                if _unmeasured_bar(text):
                    return
                if self._bar_pending:
                    self._bar_of_record(text)
                self.progress.bar_record(no, text)
            self._record(no, text, m.groups(), prog, rank)
        elif k == "progress":
            self._progress(no, text, plan, prog)
        elif k == "epoch":
            if _CALLBACK_EPOCH.match(text):
                return
            if m := _EPOCHS_SETTING.fullmatch(text):
                # the plan's epoch count, not a heading: read as one, every record after it
                # would sit in epoch 20 (and the run's first real heading, "Epoch 13/20",
                # would send the steps back to a new run)
                self.config.setdefault("num_train_epochs", (int(m.group(1)), no))
                if self.ctx_val:  # a run's settings printed again: a new run, no heading yet
                    self._epoch_ctx = math.nan
                    self.ctx_seq.append(self._seq + 1)  # from the next line on
                    self.ctx_val.append(math.nan)
                return
            self._epoch(text, plan)
            if _EPOCH_HEADING.fullmatch(text):  # "Epoch 4: " then "Train loss 0.16" lines
                self._open_block(no, text, plan)
        elif k == "title":
            self._open_titled(no, text)
        elif k == "header":
            self._header, self._md = plan.columns, _md_header(text, plan.columns)
            if self._md:
                self._header = self._md_continued(no, text)
            at = phase_column(self._header)
            self._phase = None if at is None else (at, text.decode("utf-8", "replace"))
            if self._md and any("\x00" in c for c in self._header):
                # names that carry a number ("0 Precision"): the shape has it as a slot
                named = tuple(c for c in md_cells(text.decode("utf-8", "replace")) if c)
                if len(named) == len(self._header):
                    self._header = named
            self._md_last_loss = None
            if self._md and self._md_groups is not None and no - self._md_groups[0] <= 2:
                self._header = _grouped(text, self._header, self._md_groups[1])
            self._bounded = plan.bounded
            self._starts = _column_starts(text, self._header)
            self._close_axis()
            self._slow = self._slow or self._md
        elif k == "axis":
            self._close_axis()
            cells = md_cells(text.decode("utf-8", "replace"))
            self._axis, self._header, self._md = (no, *axis_steps(cells)), None, True
            self._slow = True
        elif k == "row":
            self._row(no, text, plan, rank)
        elif k == "config":
            # The key cache is blind to digits, and a name may carry one: TF-Slim's
            # "eval/Recall_4[0.004]" then "eval/Recall_5[0.005]" share a key, but not a
            # name. A record's own pattern catches that (above); a config line has none,
            # so its plan is checked against the line's own shape.
            plan = self._shape_of(text)[0]
            self._cli_flags(no, text)
            vals = _values(text, plan)
            if self._blk is not None:
                self._blk_vals.extend(vals)
                self._blk_lines.append(text)
            elif self._lone_eval_line(no, text, plan, vals, rank):
                return
            elif plan.loose and len(vals) == 1 and not self._bullet:
                # a lone "train loss:1.10886" is a loop's record: its step is the order
                # of the lines (a bullet is a list of results: a model card's "- Loss: 0.45"
                # under "results on the evaluation set" is an eval value)
                name, v = vals[0]
                if plan.named:
                    # under its whole name, when the word before the loss is part of it (a
                    # "WARNING: Loss is NaN" message's level is not)
                    whole = _values(text, analyse_whole(_shape(text)))
                    if len(whole) == 1 and kind(whole[0][0]) != "loss":
                        self._lone_part(no, current(whole[0][0]), v, rank)
                    else:
                        self.config.setdefault(name, (v, no))
                elif kind(name) in ("component_loss", "eval_component_loss"):
                    self._lone_part(no, current(name), v, rank)
                else:
                    self.add_loose(
                        no, [(current(name), v)], math.nan, steps.SRC_NONE, math.nan, rank
                    )
            else:
                for name, v in vals:
                    self.config.setdefault(name, (v, no))
        elif k == "other" and plan.has_step and not _has_metric(plan):
            self._open_block(no, text, plan)
        else:
            self._other(no, text, plan)

    def _lone_part(self, no: int, name: str, v: float, rank: int) -> None:
        """A lone loss line named in full ("grpo_loss is 0.0123", "CE loss: 2.1"): held
        until the next other record or the end, then read when its name was printed
        _PART_REPEATS times (a loop prints it again and again, a config once: "z_loss:
        1e-4" in a config dump is no record)."""
        self._part_n[name] += 1
        self._part_buf.append((no, name, v, rank, self._seq))
        self.config.setdefault(name, (v, no))

    def _flush_parts(self) -> None:
        """The held lone loss lines, in file order, before any record after them: one
        record per round of names ("Reconstruction loss" then "KL loss" each epoch), a
        new one where a name comes again."""
        held, self._part_buf = self._part_buf, []
        now = self._seq
        group: list[tuple[str, float]] = []
        first: tuple[int, int, int] = (0, -1, 0)
        for no, name, v, rank, seq in held:
            if self._part_n[name] < _PART_REPEATS:
                continue
            if any(n == name for n, _ in group):
                self._seq = first[2]
                self.add_loose(first[0], group, math.nan, steps.SRC_NONE, math.nan, first[1])
                group = []
            if not group:
                first = (no, rank, seq)
            group.append((name, v))
        if group:
            self._seq = first[2]
            self.add_loose(first[0], group, math.nan, steps.SRC_NONE, math.nan, first[1])
        self._seq = now

    def _lone_eval_line(
        self, no: int, text: bytes, plan: Plan, vals: list[tuple[str, float]], rank: int
    ) -> bool:
        """A lone `Test loss=0.90` (or the `Accuracy=0.65` after it) under a record that
        printed its epoch: an eval point at that epoch, not a setting."""
        ep = self._rec_epoch
        if ep != ep or len(vals) != 1 or self._bullet or kind(vals[0][0]) not in METRIC_KINDS:
            return False
        if not self._lone_eval:
            # the split is a free word ("Test loss=0.90") or opens the key ("Test accuracy")
            split = plan.context == "eval" or _SPLIT_ACC.fullmatch(vals[0][0]) is not None
            if not split or not _EVAL_PREFIX.match(_message(text)):
                return False
            self._lone_eval = True
        name = "eval_acc" if _SPLIT_ACC.fullmatch(vals[0][0]) else as_eval(vals[0][0])
        self.add_loose(
            no,
            [(name, vals[0][1])],
            ep,
            steps.SRC_EPOCH_ONLY,
            ep,
            rank,
            is_eval=True,
        )
        return True

    def _skeleton_eval(self, no: int, text: bytes, rank: int) -> bool:
        """An MS-G3D / 2s-AGCN eval line (profiles.skeleton_eval): its `Eval epoch: N`
        heading, or a value under it as an eval point at that epoch."""
        got = profiles.skeleton_eval(text)
        if got is None:
            return False
        name, v = got
        if name == "epoch":
            self._eval_epoch, self._skeleton = v, True
            return True
        ep = self._eval_epoch
        if ep != ep:
            # after a gap no heading says which epoch it is: no point (before any heading
            # it is not this trainer's line: left to the generic reader)
            return self._skeleton
        self.add_loose(no, [(name, v)], ep, steps.SRC_EPOCH_ONLY, ep, rank, is_eval=True)
        return True

    def _close_pose(self) -> None:
        """The lightweight-pose terms under the last `Iter: N`: a point at N of each, and
        of their sum, the loss its train.py optimises."""
        terms, self._pose_terms = self._pose_terms, []
        if terms:
            vals = [*terms, ("loss", sum(v for _, v in terms))]
            self.add_loose(self._pose_no, vals, self._pose_iter, steps.SRC_STEP, math.nan)

    def _nnunet(self, no: int, text: bytes, rank: int) -> bool:
        """An nnU-Net line (profiles.nnunet_line): its `epoch:  N` heading, or a value
        under it as a point at that epoch (train loss, eval loss, Dice, LR)."""
        got = profiles.nnunet_line(text)
        if got is None:
            return False
        name, v = got
        if name == "epoch":
            if b":" not in text:
                return False  # "epoch 3" alone is another trainer's
            self._nnunet_epoch = v
            return True
        ep = self._nnunet_epoch
        if ep != ep:
            return False  # before any heading: not nnU-Net's, left to the generic reader
        vals = [(name, v), ("epoch", ep)] if name == "loss" else [(name, v)]
        self.add_loose(
            no, vals, ep, steps.SRC_EPOCH_ONLY, ep, rank, is_eval=name.startswith("eval")
        )
        return True

    def _namespace(self, no: int, text: bytes) -> None:
        """An argparse Namespace dump: its settings, kept per dump as well, for a file
        that holds several runs prints one before each (steps.py gives each run its own)."""
        said = settings.namespace(text)
        if said:
            self.namespaces.append((no, said))
            for key, value in said.items():
                self.config.setdefault(key, (value, no))

    def _slow_line(self, no: int, text: bytes, rank: int) -> bool:
        if self.pattern is not None:
            self._user(no, text, rank)
            return True
        if self._titled is not None and self._titled_line(text):
            return True
        if (text[:6] == b"wandb:" or self._wandb is not None) and self._wandb_summary(no, text):
            return True
        if self._axis is not None:
            if text.lstrip()[:1] == b"|" and self._axis_row(text):
                return True
            self._close_axis()  # the table ended
        return bool(self._md and b"|" in text and self._md_row(no, text, rank))

    def _learn(self, key: bytes, text: bytes) -> tuple:
        if len(self._keys) >= _CACHE_MAX:
            self._keys.clear()
        got = self._shape_of(text)
        self._keys[key] = got
        return got

    def _shape_of(self, text: bytes) -> tuple[Plan, Program | None]:
        if len(text) > _MAX_SHAPED:
            return _DUMP, None
        parts = SPLIT.split(text)
        shape = b"\x00".join(parts[0::2]) if len(parts) > 1 else text
        got = self._by_shape.get(shape)
        if got is None:
            plan = analyse(shape.decode("utf-8", "replace"))
            if plan.kind == "record" and _lr_sweep_header(plan):
                plan = _SWEEP
            prog = None
            if plan.kind == "record" and len(self.programs) < 30_000:
                prog = compile_program(len(self.programs), plan, shape)
                self.programs.append(prog)
            if plan.kind == "progress":
                prog = bar_of(plan, shape)
            got = self._by_shape[shape] = (plan, prog)
            if len(self._by_shape) > _CACHE_MAX:
                self._by_shape.clear()
        return got

    def _record(
        self, no: int, text: bytes, groups: tuple[bytes, ...], prog: Program, rank: int
    ) -> None:
        if self._part_buf:
            self._flush_parts()
        try:
            row = list(map(float, prog.take(groups)))
        except ValueError:
            row = to_row(prog.take(groups))
        if prog.scales:
            apply_scales(row, prog.scales)
        if prog.special:
            self._special(no, row, prog)
            return
        nv = len(prog.names)
        if (
            prog.needs_ctx
            and "inner_total" in prog.extras
            and self._second_bar(row, nv, prog, groups)
        ):
            # another loader's pass after the epoch's own finished bar: model.evaluate()
            self._seq += 1
            # named as the fit bar names its held-out values (val_loss), so the two are one
            # series; else eval_<name>
            fit = self._done_bar[2] if self._done_bar is not None else ()
            vals = [
                (f"val_{n}" if f"val_{n}" in fit else as_eval(n), v)
                for n, v in zip(prog.names, row, strict=False)
            ]
            self.add_loose(no, vals, math.nan, steps.SRC_NONE, math.nan, rank, is_eval=True)
            return
        if prog.seen < _SAMPLE:
            self._sample(groups, prog)
        prog.seen += 1
        if prog.ncounters:
            prog.counters.extend(row[nv:])
            del row[nv:]
        g = prog.epoch_group
        self._rec_epoch = _num([groups[g]], 0) if g is not None else math.nan
        self._lone_eval = False
        if prog.has_stamp:
            m = _STAMP.search(text, 0, 80)
            row.append(steps.stamp(m) if m else math.nan)
        prog.rows.extend(row)
        if rank < 0 and b"rank" in text[-16:] and (m := _RANK_LAST.search(text)):
            # WeNet ends each rank's line in "... lr 0.00004021 rank 3": the process that
            # printed it (the same step once per rank), not a step of its own
            rank = int(m.group(1))
        self.rec_line.append(no)
        self.rec_seq.append(self._seq)
        self.rec_plan.append(prog.pid)
        self.rec_rank.append(rank)
        self._bar_before()
        self.progress.record(self.last_bar if self.bars_after else None)
        self._prose_run = self.bars_after = 0
        self._bar_pending = prog.needs_ctx

    def _second_bar(
        self, row: list[float], nv: int, prog: Program, groups: tuple[bytes, ...]
    ) -> bool:
        """A finished bar ("31/31 [====] - loss: 0.37") in an epoch whose own finished bar
        ("126/126 [====] - ... - val_loss: 0.37") was already printed, of another length:
        Keras' fit prints one bar an epoch, so a second one that counts other batches is
        another loader's pass (model.evaluate() on a held-out set after fit), an eval of
        the step before. Read as training, it is a point of the wrong loss at a step of
        its own (epoch x 31 batches) among the epochs' steps.

        The epoch is the one the line prints where it prints one (GluonCV's tqdm
        descriptions, "Epoch 3, training loss 0.227: 100%|...| 709/709" then "Epoch 3,
        validation pixAcc: 0.870, mIoU: 0.582: 100%|...| 179/179"), else the heading's
        ("Epoch 3/10"): a single "Starting Epoch: 0" line above such lines is not the
        epoch of each of them (read so, every train bar of another length than the first,
        710 beside 709 under a distributed sampler, would be an eval)."""
        inner = row[nv + prog.extras["inner"]] if "inner" in prog.extras else math.nan
        total = row[nv + prog.extras["inner_total"]]
        g = prog.epoch_group
        epoch = _num([groups[g]], 0) if g is not None else math.nan
        if epoch == epoch and inner == total and total > 1:
            self.epoch_bars.add(total)
        if epoch != epoch:
            epoch = self._epoch_ctx
        if not (inner == total and total > 0) or epoch != epoch:
            return False
        done = self._done_bar
        if done is None or done[0] != epoch or done[1] == total:
            self._done_bar = (epoch, total, prog.names)
            return False
        return True

    def _special(self, no: int, row: list[float], prog: Program) -> None:
        vals = dict(zip(prog.names, row, strict=False))
        if prog.summary:
            ep = row[len(prog.names) + prog.extras["epoch"]] if "epoch" in prog.extras else math.nan
            self.summaries.append({**vals, "epoch": ep, "_seq": self._seq})
        else:
            for name, v in vals.items():
                self.config.setdefault(name, (v, no))

    def _mark(self, no: int, pid: int, rank: int) -> None:
        if self._part_buf:
            self._flush_parts()
        self.rec_line.append(no)
        self.rec_seq.append(self._seq)
        self.rec_plan.append(pid)
        self.rec_rank.append(rank)
        self._bar_before()
        self.progress.record(self.last_bar if self.bars_after else None)
        self._prose_run = self.bars_after = 0
        self._bar_pending = True

    def _bar_before(self) -> None:
        """Note the n of the bar drawn right before this record, if any was."""
        if self.bars_after and self.last_bar is not None:
            got = bar_numbers(self.last_bar[1], self.last_bar[2])
            if got is not None:
                self.pre_seq.append(self._seq)
                self.pre_n.append(got[0])

    def _sample(self, groups: tuple[bytes, ...], prog: Program) -> None:
        """Facts read off the first records of a shape: the step total, the LR's decimals."""
        if prog.seen == 0 and len(self.shapes) < 64:
            self.shapes[prog.shape] += 1
        g = prog.total_group
        if g is not None and (total := count(parse(groups[g]), 0, 10**15 - 1)) is not None:
            self.totals[total] += 1
        g = prog.epoch_total_group
        if g is not None and (total := count(parse(groups[g]), 1, 10**6 - 1)) is not None:
            self.epoch_totals[total] += 1
        if prog.epoch_group is not None and b"." in groups[prog.epoch_group]:
            prog.float_epoch = True
        if prog.lr_group is not None:
            raw = groups[prog.lr_group]
            if b"e" not in raw and b"E" not in raw and b"." in raw:
                d = len(raw) - raw.index(b".") - 1
                if prog.lr_scale_group is not None:  # 0.010 in units of 1e-4: 7 decimals
                    k = power_of_ten(_num([groups[prog.lr_scale_group]], 0))
                    d -= k or 0
                self.lr_decimals[d] += 1

    def add_loose(
        self,
        no: int,
        vals: list[tuple[str, float]],
        step: float,
        src: int,
        epoch: float,
        rank: int = -1,
        time: float = math.nan,
        is_eval: bool = False,
    ) -> None:
        """A record whose names are not those of a shape (tables, summaries, blocks)."""
        if not vals:
            return
        self.loose.add(vals, step, src, epoch, time, is_eval)
        self._mark(no, -1, rank)

    # -- the other kinds of line -----------------------------------------------------------
    def _progress(self, no: int, text: bytes, plan: Plan, bar: tuple | None) -> None:
        """A progress bar. Only the first one after a record without a step is read as a
        step (HF numbers its printed dicts by the bar drawn after them); every one counts
        towards how far the loop got between records, and after the last one."""
        if bar is None:
            return
        self.bars_after += 1
        self.last_bar = (no, text, bar)
        if not self.bars_after % Progress.SAMPLE:
            self.progress.sample(self.last_bar)
        if not self._bar_pending:
            return
        self._bar_pending = False
        got = bar_numbers(text, bar)
        if got is not None:
            self.bar_seq.append(self._seq)
            self.bar_n.append(got[0])
            self.bar_total.append(got[1])

    def _bar_of_record(self, text: bytes) -> None:
        """A record printed on a tqdm bar's line ("| 6/1404 [00:38<1:13:23, 3.15s/it]  Baseline
        Accuracy: 50.00%") is the bar drawn after the record before it, which it numbers."""
        i = text.rfind(b"| ")
        j = text.find(b" [", i + 2) if i >= 0 else -1
        a, _, b = text[i + 2 : j].strip().partition(b"/") if j > 0 else (b"", b"", b"")
        if a.isdigit() and b.isdigit():
            self._bar_pending = False
            self.bar_seq.append(self._seq)
            self.bar_n.append(float(a))
            self.bar_total.append(float(b))
            self.own_bar_seq.append(self._seq)
            self._seq += 1  # the record comes after its bar: the bar numbers the one before

    def _epoch(self, text: bytes, plan: Plan) -> None:
        self._done_bar = None  # a new heading: its own bars to come (a second fit() too)
        nums = SPLIT.split(text)[1::2]
        for f in plan.fields:
            if f.role == "epoch":
                self._epoch_ctx = _num(nums, f.slot)
                self.ctx_seq.append(self._seq)
                self.ctx_val.append(self._epoch_ctx)
                return

    def _row(self, no: int, text: bytes, plan: Plan, rank: int) -> None:
        if self._header is None:
            return
        nums = SPLIT.split(text)[1::2]
        cells = [f for f in plan.fields if f.role != "inner_total"]  # "1/99" is one cell
        header = self._header
        if _NOT_AVAILABLE in text:
            header = _without_placeholders(text, header)
        if len(header) > len(cells) and (k := len(_CLOCK_CELL.findall(text))):
            # fastai's "epoch train_loss valid_loss accuracy time" over "0 0.69 0.69 0.5
            # 00:10": the clock is no value of the row, nor is its column one of the plan's
            timed = tuple(h for h in header if h.lower() in _CLOCK_COLUMNS or is_clock(h.lower()))
            if len(timed) == k:
                header = tuple(h for h in header if h not in timed)
        cols = columns_for(header, len(cells))
        if (
            cols is None
            and len(cells) == len(header) + 1
            and _INDEX_CELL.match(text)
            and profiles.is_xgb_cv(header)
        ):
            # xgb.cv's result printed as a pandas DataFrame: the row index, a first column
            # whose header is blank, is the boosting round
            cols = ("step", *header)
        if self._bounded and len(cells) < len(header) and header is self._header:
            cols = _aligned(text, [f.slot for f in cells], header, self._starts)
        if cols is None or (self._bounded and len(cells) != len(cols)):
            return
        rename = profiles.table_renames(header)
        self._named_row(
            no, [(n, _num(nums, f.slot)) for n, f in zip(cols, cells, strict=True)], rank, rename
        )

    def _md_continued(self, no: int, text: bytes) -> tuple[str, ...]:
        """The header a second header row completes: MATLAB's trainNetwork prints each name
        over two rows ("| Mini-batch |" over "|    Loss    |", "| Base Learning |" over
        "|     Rate      |", blank under "Epoch"), one name per column when joined."""
        assert self._header is not None
        cells = md_cells(text.decode("utf-8", "replace"))
        prev, self._md_head = self._md_head, (no, cells)
        if (
            prev is None
            or prev[0] != no - 1
            or len(prev[1]) != len(cells)
            or all(cells)
            or not all(prev[1])
        ):
            return self._header
        joined = tuple(f"{a} {b}".strip() for a, b in zip(prev[1], cells, strict=True))
        self._md_head = (no, list(joined))
        return joined

    def _phase_row(self, no: int, text: bytes, rank: int) -> bool:
        """A row of a long-format table under its header: its phase cell ("train", "val")
        names whose metrics the other cells are; the step and epoch cells stay the row's."""
        assert self._phase is not None and self._header is not None
        at, head = self._phase
        cells = row_cells(text.decode("utf-8", "replace"), head)
        if len(cells) != len(self._header) or (prefix := phase_prefix(cells[at])) is None:
            return False
        pairs = []
        for i, (name, cell) in enumerate(zip(self._header, cells, strict=True)):
            v = parse(cell.encode())
            if i == at or v is None:
                continue
            low = name.strip().lower()
            axis = low in _STEP_RANK or low in ("epoch", "epochs")
            pairs.append((name if axis else prefix + name, v))
        self._named_row(no, pairs, rank, {})
        return True

    def _md_row(self, no: int, text: bytes, rank: int) -> bool:
        """A Markdown table row: cells split on |; a text cell ("No log") is not logged.

        In a Trainer results table (a model card's "Training results": a training loss
        beside an eval loss on each row) the Training Loss cell is the last training
        loss logged before that eval (`parse_log_history` carries it forward), so when
        evals come more often than `logging_steps` one logged value fills several rows
        (3.2831 at epochs 5-8 of a card whose run logged the loss once). A cell equal
        to the row above's is that same log again: only its first row is a reading."""
        cells = [c.strip().strip(b"*").strip() for c in text.strip().strip(b"|").split(b"|")]
        if self._header is None or len(cells) != len(self._header):
            return False
        if all(set(c) <= set(b"-: ") for c in cells):
            return True  # the |---|---| rule under the header
        if (
            self._md_head is not None
            and self._md_head[0] == no - 1
            and b"" in cells
            and all(parse(c) is None for c in cells)
        ):
            self._header = self._md_continued(no, text)  # the second row of its names
            return True
        names = [h.lower() for h in self._header]
        results = "training loss" in names and "validation loss" in names
        pairs = []
        for name, cell in zip(self._header, cells, strict=True):
            if results and name.lower() == "training loss":
                stale, self._md_last_loss = cell == self._md_last_loss, cell
                if stale:
                    continue
            v = parse(cell)
            if v is not None:
                pairs.append((name, v))
        self._named_row(no, pairs, rank, {})
        return True

    def _axis_row(self, text: bytes) -> bool:
        """A row of a table laid out by step: its first cell names the metric, each
        column under a step is one point ("…" and "epoch avg" columns are none)."""
        assert self._axis is not None
        at = self._axis[2]
        cells = md_cells(text.decode("utf-8", "replace"))
        if len(cells) != len(at) + 1:
            return False
        if all(set(c) <= set("-: ") for c in cells):
            return True  # the |---|---| rule under the header
        name = metric_name(cells[0], "", "")
        if name is not None:  # else a row of counters, not measurements ("| GPU | 0 | 1 |")
            self._axis_rows.append((name, [parse(c.encode()) for c in cells[1:]]))
        return True

    def _close_axis(self) -> None:
        """One record per step column, in step order: the rows of a table are its
        metrics, so emitting them row by row would send the steps back at each row."""
        if self._axis is None:
            return
        (no, by_epoch, at), rows = self._axis, self._axis_rows
        self._axis, self._axis_rows = None, []
        src = steps.SRC_EPOCH_ONLY if by_epoch else steps.SRC_STEP
        for j, step in enumerate(at):
            vals = [(name, v) for name, got in rows if (v := got[j]) is not None]
            if step == step and vals:
                self.add_loose(no, vals, step, src, step if by_epoch else math.nan)

    def _named_row(
        self, no: int, pairs: list[tuple[str, float]], rank: int, rename: dict[str, str]
    ) -> None:
        step, src, epoch = math.nan, steps.SRC_NONE, math.nan
        vals: list[tuple[str, float]] = []
        for name, v in pairs:
            low = rename.get(name, name).strip().lower()
            if low in _STEP_RANK:
                step, src = v, steps.SRC_STEP
            elif low in ("epoch", "epochs"):
                epoch = v
            elif (key := metric_name(rename.get(name, name), "", "")) is not None:
                vals.append((key, v))
        if step != step and epoch == epoch:
            step, src = epoch, steps.SRC_EPOCH_ONLY
        self.add_loose(no, vals, step, src, epoch, rank)

    def _open_block(self, no: int, text: bytes, plan: Plan) -> None:
        nums = SPLIT.split(text)[1::2]
        step = epoch = math.nan
        best = 1 << 30
        total = None
        for f in plan.fields:
            v = _num(nums, f.slot)
            if f.role == "step" and v == v:
                r = _STEP_RANK.get(f.key.strip().lower(), len(_STEP_RANK))
                if r < best:
                    step, best = v, r
            elif f.role == "epoch":
                epoch = v
            elif f.role == "inner" and step != step and best > len(_STEP_RANK):
                step = v  # composer's "[batch=12/100]:" numbers its block
            elif f.role in ("total", "inner_total") and (t := count(v, 0, 10**15)) is not None:
                total = t
        if plan.context == "eval":  # an eval block sits at the train step before it
            step = math.nan
        self._blk, self._blk_vals, self._blk_total = (no, step, epoch), [], total
        self._blk_lines = []

    def _close_block(self) -> None:
        if self._blk is None:
            return
        no, step, epoch = self._blk
        vals, self._blk, self._blk_vals = self._blk_vals, None, []
        if len({n for n, _ in vals}) < len(vals):
            # "Reconstruction loss: 0.51" then "KL loss: 0.01" under one "Epoch 3" heading:
            # each line alone names "the" loss, together they are two terms of it (the last
            # read would stand for the loss): named in full
            vals = [v for t in self._blk_lines for v in _values(t, analyse_whole(_shape(t)))]
        self._blk_lines = []
        if vals and self._blk_total is not None:
            # the step total of a block that held metrics ("[step=1/739328,epoch=0]"); a
            # script's own stage header ("[Step 1/5] 生成数据集...") holds none
            self.totals[self._blk_total] += 1
        if {n for n, _ in vals} & CONFIG_NAMES and not _any_loss(vals):
            for k, v in vals:
                self.config.setdefault(k, (v, no))
            return
        src = steps.SRC_STEP if step == step else steps.SRC_NONE
        if step != step and epoch == epoch:
            step, src = epoch, steps.SRC_EPOCH_ONLY
        self.add_loose(no, vals, step, src, epoch)

    def _open_titled(self, no: int, text: bytes) -> None:
        """A metrics block's title: the lines after it, with the same prefix (a logger's
        `INFO:tensorflow:`) and an indented `key = value`, are its metrics."""
        self._close_titled()
        prefix = text[: text.index(b"***")].rstrip()
        self._titled, self._titled_vals = (no, prefix.translate(_DIGITS)), []
        self._slow = True

    def _titled_line(self, text: bytes) -> bool:
        assert self._titled is not None
        prefix = self._titled[1]
        m = None
        if text[: len(prefix)].translate(_DIGITS) == prefix:
            m = _BLOCK_PAIR.match(text, len(prefix))
        if m is None:
            self._close_titled()
            return False
        v = parse(m.group(2))
        if v is not None:
            self._titled_vals.append((m.group(1), v))
        return True

    def _close_titled(self) -> None:
        """The block's record: an eval record at its own step (global_step = 83) or the
        step before; a key already named eval (`eval_loss`) wins over a bare `loss`."""
        if self._titled is None:
            return
        no = self._titled[0]
        pairs, self._titled, self._titled_vals = self._titled_vals, None, []
        self._slow = self.pattern is not None or self._wandb_seen or self._md
        step = epoch = math.nan
        got: dict[str, tuple[float, bool]] = {}
        for raw, v in pairs:
            key = raw.decode("utf-8", "replace")
            low = key.lower()
            if low in _STEP_RANK:
                step = v if step != step else step
            elif low in ("epoch", "epochs"):
                epoch = v
            elif (name := metric_name(key, "", "eval")) is not None:
                own = name == low  # printed under its eval name
                if name not in got or (own and not got[name][1]):
                    got[name] = (v, own)
        vals = [(name, v) for name, (v, _) in got.items()]
        src = steps.SRC_STEP if step == step else steps.SRC_NONE
        if step != step and epoch == epoch:
            step, src = epoch, steps.SRC_EPOCH_ONLY
        self.add_loose(no, vals, step, src, epoch, is_eval=True)

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
            # every metric the run logged (a summary lists them on purpose; unknown
            # names such as verl's critic/advantages/max are kept as their own series),
            # but not W&B's own bookkeeping (_runtime, _timestamp, _wandb)
            if k not in _WANDB_STEPS and not k.startswith("_") and (name := metric_name(k, "", ""))
        ]
        src = steps.SRC_STEP if step == step else steps.SRC_NONE
        self.add_loose(self._wandb_line, vals, step, src, math.nan)

    def _cli_flags(self, no: int, text: bytes) -> bool:
        """A launch command pasted with the log (`--lr_scheduler_type cosine \\`, or
        inline in prose): its flags are the run's config. True when it had some."""
        flags = _CLI_FLAG.findall(text) if b"--" in text else []
        if b"--" in text:
            flags += [(name, b"true") for name in _CLI_BARE.findall(text)]
        if _LAUNCH.search(text):
            flags += _CLI_SHORT.findall(text)
        for key, value in flags:
            self.config.setdefault(
                key.decode("utf-8", "replace").lower().replace("-", "_"),
                (value.strip(b"\"'").decode("utf-8", "replace"), no),
            )
        return bool(flags)

    def _other(self, no: int, text: bytes, plan: Plan) -> None:
        if plan.kind == "prose" and not _LOGGED.match(text):
            # (a timestamped logger message between the records, WeNet's "2021-11-30
            # 17:25:56,021 WARNING NaN or Inf found in input tensor.", is the program's
            # own output, not a user's words where the paste leaves lines out)
            self._prose_run += 1
            if self._prose_run == 1:
                self.breaks.append(no)
        if b"=" in text and (said := settings.mm_schedule(_message(text))):
            for key, value in said.items():
                self.config.setdefault(key, (value, no))
            return
        if b"\x00" not in text and (m := _CONFIG_TEXT.match(_message(text))):
            key = m.group(1).decode("utf-8", "replace").lower()
            self.config.setdefault(key, (m.group(2).decode("utf-8", "replace"), no))
            return
        if b"=" in text and (said := settings.assignment(_message(text))):
            self.config.setdefault(said[0], (said[1], no))
            return
        if self._cli_flags(no, text):
            return
        self.stated_lr.scan(no, text)
        if plan.kind == "prose" and (m := _PROSE_BATCH.search(text)):
            # "I set the batch to 1": the one setting users state in words that matters
            # to the diagnosis (noise of a single-sample step).
            self.config.setdefault("batch_size", (m.group(1).decode(), no))
        if m := _PROSE_PRECISION.search(text):
            self.config.setdefault("mixed_precision", (m.group(1).decode().lower(), no))
        if plan.hint and not _CODE.search(text) and not _BEST_SAVED.search(text):
            self.not_understood += 1
            if len(self.bad_lines) < _MAX_BAD:
                self.bad_lines.append(no)
            if len(self.bad_examples) < 20:
                self.bad_examples.append((no, text[:300]))

    def _user(self, no: int, text: bytes, rank: int) -> None:
        assert self.pattern is not None
        m = self.pattern.search(text, 0, MAX_LINE)
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
        src = steps.SRC_STEP if step == step else steps.SRC_NONE
        self.add_loose(no, vals, step, src, math.nan, rank)


def _num(nums: list[bytes], slot: int) -> float:
    try:
        return to_num(nums[slot])
    except (ValueError, IndexError, OverflowError):
        return math.nan


def _shape(text: bytes) -> str:
    """A line's shape: its numbers as NUL."""
    parts = SPLIT.split(text)
    return (b"\x00".join(parts[0::2]) if len(parts) > 1 else text).decode("utf-8", "replace")


def _values(text: bytes, plan: Plan) -> list[tuple[str, float]]:
    nums = SPLIT.split(text)[1::2]
    out = []
    for f in plan.fields:  # a plan found by key can have more slots than this line
        if f.slot >= len(nums):
            continue
        if f.role == "value" and (name := metric_name(f.key, f.unit, plan.context)):
            v = _num(nums, f.slot)
            if v == v or nonfinite_text(nums[f.slot]):
                out.append(("lr" if canonical(name) == "lr" else name, v))
    if eval_marked(n for n, _ in out):
        out = [(as_eval(n), v) for n, v in out]
    return out


def _lr_sweep_header(plan: Plan) -> bool:
    """Whether a line's only values are one LR name given again and again ("Metric
    lr=0.0001  lr=0.001  lr=0.01", the header of a sweep's comparison table): the arms'
    LRs, none of them the LR this run was at. A record prints its LR once."""
    names = [metric_name(f.key, f.unit, plan.context) for f in plan.fields if f.role == "value"]
    return len(names) > 1 and len(set(names)) == 1 and canonical(names[0] or "") == "lr"


def _states_the_plan(plan: Plan) -> bool:
    """A line whose only measure-like value is an LR and whose step is a count closing it
    ("Baseline 1, N=50, LR=0.001, 10,000 iterations", a note's or a launcher's summary of
    the experiment) says what the run is set to do: train at that LR for that many
    iterations. It is the plan, not a record of a step reached (read as one, the run
    would seem to start at its last step and start over at the first logged one)."""
    fields = plan.fields
    if not fields or fields[-1].role != "step" or fields[-1].key:
        return False
    if fields[-1].unit.lower() not in STEP_UNITS:
        return False
    kinds = {kind(n) for f in fields if f.role == "value" and (n := metric_name(f.key, f.unit, ""))}
    return "lr" in kinds and not (kinds - {"lr"}) & METRIC_KINDS


def _unnumbered(k: str, plan: Plan, text: bytes) -> bool:
    """A record that prints metrics and no counter of its own (no step, epoch or batch)."""
    return (
        k == "record"
        and b"%|" not in text
        and not plan.has_step
        and all(f.role in ("value", "skip") for f in plan.fields)
        and _has_metric(plan)
    )


def _has_metric(plan: Plan) -> bool:
    return any(
        f.role == "value"
        and (n := metric_name(f.key, f.unit, plan.context))
        and kind(n) in METRIC_KINDS
        for f in plan.fields
    )


def _any_loss(vals: list[tuple[str, float]]) -> bool:
    return any(
        kind(k) in ("loss", "eval_loss", "component_loss", "eval_component_loss") for k, _ in vals
    )


# Bare "<step> <value>" lines, a custom loop's `print(step, loss.item())` ("76930 2.6496577",
# "76980 nan"): read only when nothing else in the file is a metric line, and only as a
# block of 5+ such lines whose steps rise. No name stands beside the number, but the one
# number a training log prints per step, pasted as the log, is its loss (a note says so).
_BARE_NUM = rb"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|NaN|NAN|inf|Inf|INF)"
_BARE_PAIR = re.compile(rb"^[ \t]*(\d{1,9})[ \t]+(?:" + _BARE_NUM + rb")[ \t]*\r?$", re.MULTILINE)
_BARE_RECORD = re.compile(rb"^[ \t]*(?P<step>\d{1,9})[ \t]+(?P<loss>" + _BARE_NUM + rb")[ \t]*\r?$")
_BARE_MIN = 5


def bare_pairs(body: bytes) -> bool:
    """Whether these bytes hold 5+ bare `<step> <value>` lines whose steps rise."""
    found = [int(m.group(1)) for m in _BARE_PAIR.finditer(body)]
    return len(found) >= _BARE_MIN and all(b > a for a, b in itertools.pairwise(found))


def _bare_pairs(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return bare_pairs(f.read(4 << 20))
    except OSError:
        return False


def read(path: str | Path, pattern: str | None = None) -> list[Run]:
    """Every run in a text log: one, or several when a paste holds more than one."""
    path = Path(path)
    rx = _compile(pattern, path) if pattern is not None else None
    log = _feed(path, rx)
    nothing = not len(log.rec_line) and not log.events
    bare = nothing and rx is None and str(path) != "-" and _bare_pairs(path)
    if bare:
        log = _feed(path, _BARE_RECORD)
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
    stated = log.stated_lr.value()
    if stated is not None and not any(k in log.config for k in _LR_SETTINGS):
        log.config["learning_rate"] = stated
    runs = steps.build(log)
    if bare:
        said = Note(
            str(path),
            "no metric is named: its bare '<step> <value>' lines are read as the step and the loss",
        )
        runs = [replace(r, notes=(*r.notes, said)) for r in runs]
    return runs


def _feed(path: Path, rx: re.Pattern[bytes] | None) -> TextLog:
    log = TextLog(path, rx)
    try:
        if str(path) == "-":
            log.feed(sys.stdin.buffer)
        elif (parsed := json_log(path)) is not None:
            flat, stated = parsed
            log.feed(io.BytesIO(flat))
            for key, value in stated.items():  # the run's settings, below anything it printed
                log.config.setdefault(key, (value, 0))
        else:
            with path.open("rb") as f:
                log.feed(f)
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc.strerror or exc}") from None
    return log


# A space-aligned table whose rows leave cells blank: Chainer's PrintReport prints each
# value left-aligned under its column's name and nothing where a value was not reported
# ("validation/main/loss" between evaluations). Counted, the row has fewer numbers than the
# header has names; placed, each number starts where its column's name starts.
_SPACED_COLUMN = re.compile(rb"\S+(?: \S+)*")


def _column_starts(text: bytes, header: tuple[str, ...]) -> tuple[int, ...]:
    """The offset of each header name in its line, when the names are the line's
    space-separated columns in order (else nothing)."""
    found = [
        (m.start(), m.group().decode("utf-8", "replace")) for m in _SPACED_COLUMN.finditer(text)
    ]
    if [n for _, n in found] != list(header):
        return ()
    return tuple(o for o, _ in found)


def _md_header(text: bytes, columns: tuple[str, ...]) -> bool:
    """A Markdown table's header: "| Step | Loss |", or the same without the outer pipes
    ("Step | Training Loss | Validation Loss", over "-- | -- | --"), as a Trainer's notebook
    table pasted into a GitHub issue renders. Its rows are then cut on the pipes, so a text
    cell ("No log") stays in its column."""
    if text.lstrip()[:1] == b"|":
        return True
    return b" | " in text and len(text.strip().split(b"|")) == len(columns)


def _aligned(
    text: bytes, slots: list[int], header: tuple[str, ...], starts: tuple[int, ...]
) -> tuple[str, ...] | None:
    """The column names of a row's numbers placed by where each starts: every number must
    start exactly where a column's name starts, and the row must show it is whole (a
    blank cell inside it, or a number in the last column), else None."""
    if not starts:
        return None
    pieces = SPLIT.split(text)
    offsets, at = [], 0
    for i, piece in enumerate(pieces):
        if i % 2:
            offsets.append(at)
        at += len(piece)
    where = {o: n for o, n in zip(starts, header, strict=True)}
    names = [where.get(offsets[k]) if k < len(offsets) else None for k in slots]
    if not names or any(n is None for n in names) or len(set(names)) != len(names):
        return None
    cols = [header.index(n) for n in names if n is not None]
    if cols == list(range(len(cols))) and cols[-1] != len(header) - 1:
        # filled from the first column on and stopping short of the last, with no blank
        # inside: a row cut short (a paste ends mid-row) looks the same, its last number
        # perhaps cut mid-digits, so it is left unread as before
        return None
    return tuple(n for n in names if n is not None)


# A whole file that is one indented JSON array of records: Chainer's LogReport writes its
# `log` so ("[\n    {\n        \"main/loss\": 2.21, ..."), one key per line. Line by line
# no record is whole; read as one JSON value it is one record a line, as a JSONL log is.
_JSON_ARRAY = re.compile(rb"\A\s*\[\s*\{\s*\"")
_MAX_ARRAY = 64 << 20  # a bigger file is read line by line, as before


def json_array_lines(path: Path) -> bytes | None:
    """The records of a file that is one JSON array of flat objects, or one JSON object
    (or the same dict printed by Python, _as_json) holding per-epoch columns
    (_epoch_columns), one compact object a line; None for any other file (or one too big,
    or not valid JSON)."""
    parsed = json_log(path)
    return parsed[0] if parsed is not None else None


def json_log(path: Path) -> tuple[bytes, dict[str, object]] | None:
    """`json_array_lines`' records, with the settings a JSON object's config block states
    (_block_settings; empty for an array, or an object with no such block)."""
    try:
        with path.open("rb") as f:
            head = f.read(256)
            array = _JSON_ARRAY.match(head)
            printed = _PY_OBJECT.match(head)
            if not (array or printed or _JSON_OBJECT.match(head)):
                return None
            if path.stat().st_size > _MAX_ARRAY:
                return None
            data = head + f.read()
        items = json.loads(_as_json(data) if printed else data)
    except (OSError, ValueError, RecursionError):
        return None
    stated: dict[str, object] = {}
    if not array:
        stated = _block_settings(items) if isinstance(items, dict) else {}
        items = _epoch_columns(items) if isinstance(items, dict) else None
    if not isinstance(items, list) or not items or not all(isinstance(e, dict) for e in items):
        return None
    return b"".join(json.dumps(e).encode() + b"\n" for e in items), stated


# A JSON object whose metrics are columns: Keras' History.history saved with json.dump
# ({"loss": [...], "val_loss": [...]}), or a run's results file holding such a block under
# a key ({"training_history": {"epoch": [...], "train_loss": [...], "val_loss": [...]}}).
# The i-th value of every column belongs to the same epoch, so the block is the per-epoch
# log, a record an epoch.
_JSON_OBJECT = re.compile(rb"\A\s*\{\s*\"")

# The same History dict printed rather than dumped (print(history.history), str() into a
# .txt): Python's repr quotes the names with ' and writes a non-finite value as a bare
# nan / inf, which is all that keeps it from being JSON.
_PY_OBJECT = re.compile(rb"\A\s*\{\s*'")
_PY_NONFINITE = re.compile(rb"\b(nan|inf)\b")


def _as_json(printed: bytes) -> bytes:
    """A printed dict of numbers as JSON text: ' quotes become ", nan NaN and inf
    Infinity (a dict holding other strings may not survive, and is then not read)."""
    spelled = {b"nan": b"NaN", b"inf": b"Infinity"}
    return _PY_NONFINITE.sub(lambda m: spelled[m.group(1)], printed.replace(b"'", b'"'))


def _epoch_columns(obj: dict) -> list[dict] | None:
    """The records of the object's column block (the object itself, else the first of its
    values that is one): two or more equally long lists of numbers, one of them named as a
    loss; an `epoch` column is added (1, 2, ...) when the block has no counter."""
    for block in (obj, *(v for v in obj.values() if isinstance(v, dict))):
        cols = {
            str(k): v
            for k, v in block.items()
            if isinstance(v, list)
            and len(v) >= 2
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
        }
        lengths = {len(v) for v in cols.values()}
        if len(cols) < 2 or len(lengths) != 1 or not any("loss" in k.lower() for k in cols):
            continue
        (n,) = lengths
        cols = _singular_columns(cols)
        counter = any(k.lower() in ("epoch", "step", "iteration") for k in cols)
        rows = [{k: v[i] for k, v in cols.items()} for i in range(n)]
        return rows if counter else [{"epoch": i + 1, **r} for i, r in enumerate(rows)]
    return None


# A history block often names each column by the plural of what one record holds
# ({"steps": [...], "val_losses": [...], "learning_rates": [...]}): its i-th value is one
# step's val_loss. The plural ending is dropped so the column reads as the record's name
# (a name whose singular is also a column is kept as it is).
_PLURALS = (
    ("losses", "loss"),
    ("accuracies", "accuracy"),
    ("perplexities", "perplexity"),
    ("rates", "rate"),
    ("norms", "norm"),
    ("steps", "step"),
    ("epochs", "epoch"),
    ("iterations", "iteration"),
)


def _singular_columns(cols: dict[str, list]) -> dict[str, list]:
    """The columns under the names one record of them goes by (_PLURALS)."""
    out: dict[str, list] = {}
    for name, values in cols.items():
        lower = name.lower()
        plural = next((p for p in _PLURALS if lower.endswith(p[0])), None)
        single = name[: len(name) - len(plural[0])] + plural[1] if plural else name
        out[single if single not in cols and single not in out else name] = values
    return out


# A results file that keeps its per-epoch columns beside the run's own config (the BS-Data
# grid's results.json: "config": {"training": {"learning_rate": 0.1, ...}, "optimizer":
# {"type": "adamw", "lr": 0.1, ...}}) states the run's settings there, nested by topic. They
# are the run's as much as a printed settings dump is: the LR it trained at, its optimizer.
_SETTINGS_BLOCKS = ("config", "args", "hparams", "hyperparameters", "settings")
# A setting given as a dict ("optimizer": {"type": "adamw", ...}) is named by its type.
_NAMED_SETTINGS = frozenset({"optim", "optimizer", "opt", "lr_scheduler", "scheduler"})
_SETTINGS_DEPTH = 3


def _block_settings(obj: dict) -> dict[str, object]:
    """The settings under the object's config block (the first of _SETTINGS_BLOCKS that is a
    dict), each leaf under its own name (the shallowest first where names repeat), a
    `_NAMED_SETTINGS` dict as its type or name; empty when the object has no such block."""
    block = next((obj[k] for k in _SETTINGS_BLOCKS if isinstance(obj.get(k), dict)), None)
    out: dict[str, object] = {}
    level = [block] if block is not None else []
    for _ in range(_SETTINGS_DEPTH):
        deeper = []
        for d in level:
            for key, value in d.items():
                name = str(key).lower()
                if isinstance(value, dict):
                    kind = value.get("type", value.get("name"))
                    if name in _NAMED_SETTINGS and isinstance(kind, str):
                        out.setdefault(name, kind)
                    deeper.append(value)
                elif isinstance(value, int | float | str | bool):
                    out.setdefault(name, value)
        level = deeper
    return out


# Settings that give the LR: a value stated in words does not override them.
_LR_SETTINGS = ("lr", "learning_rate", "peak_lr", "max_lr")


def _compile(pattern: str, path: Path) -> re.Pattern[bytes]:
    try:
        return compile_pattern(pattern)
    except ValueError as exc:
        raise ReadError(path, str(exc)) from None


def _show(bad: tuple[int, bytes]) -> str:
    no, text = bad
    return f"line {no}: {text.decode('utf-8', 'replace').strip()[:120]!r}"


# PyTorch's optimizer repr (`print(optimizer)`): the class name and " (" on a line of
# their own, then "Parameter Group 0" (torch/optim/optimizer.py `__repr__`)
_TORCH_OPTIM_HEAD = re.compile(rb"[ \t]*([A-Z][A-Za-z]{1,15}) \([ \t]*\r?\n?\Z")
_TORCH_OPTIM_GROUP = re.compile(rb"[ \t]*Parameter Group 0[ \t]*\r?\n?\Z")


_EVAL_GROUPS = frozenset(
    {"validate", "validation", "val", "valid", "eval", "evaluation", "test", "dev"}
)


def _group_row(text: bytes) -> list[str] | None:
    """The cells of a Markdown row of group names over a header ("train", gaps,
    "validate", gaps), or None when the row is anything else."""
    cells = md_cells(text.decode("utf-8", "replace"))
    named = [c for c in cells if c]
    if len(named) < 2 or len(named) == len(cells):
        return None
    return cells if all(c.replace("_", "").isalpha() for c in named) else None


def _grouped(text: bytes, header: tuple[str, ...], groups: list[str]) -> tuple[str, ...]:
    """A header whose names repeat under a group row (apex's ImageNet table: "epoch Top1
    Top5 Loss" under "train" and again under "validate"): the names under an eval
    group become its eval metrics (val_Loss), so the second Loss is not read as the
    train loss. Unchanged when the header does not line up with the groups."""
    cells = md_cells(text.decode("utf-8", "replace"))
    if len(cells) != len(groups) or len(set(header)) == len(header):
        return header
    group, named = "", []
    for g, c in zip(groups, cells, strict=True):
        group = g.lower() or group
        if c:
            counter = c.lower() in ("epoch", "step", "iter", "iteration")  # the same count
            named.append(f"val_{c}" if group in _EVAL_GROUPS and not counter else c)
    return tuple(named) if len(named) == len(header) else header
