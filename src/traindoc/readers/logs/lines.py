"""A text log read in blocks of whole lines, and what a pasted line needs undone.

What users have is rarely a clean log: a console capture has ANSI colours,
carriage-return progress bars and `[rankN]:` prefixes; a paste from an issue
has Markdown fences, `>` quotes, list bullets, `[... gap ...]` markers, lines
wrapped by the terminal (a dict split over lines, a `\\` continuation) and
CRLF. `blocks` reads the file in chunks with bounded memory and drops ANSI
codes; `clean` (only for lines that start with markup) strips quotes,
bullets and rank prefixes; the join helpers tell a wrapped record from a
cut one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from traindoc.model.signals import TEXT_STEP_KEYS
from traindoc.readers.logs.numbers import NUM_SRC

CHUNK = 4 << 20
# A single line longer than this is cut (a minified JSON blob is not a log line).
MAX_LINE = 64 << 10
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07|\x1b[()][A-Z0-9]|\^\[")
# A launcher's per-process prefix: torch's "[rank3]:",
# Open MPI --tag-output's "[1,3]<stdout>:" (SageMaker's "[1,mpirank:3,algo-1]<stdout>:"),
# torchrun --tee's "[default0]:" (the worker role, "default" unless named, and local rank).
RANK = re.compile(
    rb"^\s*\[(?:(?:rank|RANK)\s*(\d+)\]\s*:?"
    rb"|\d+,(?:mpirank:)?(\d+)(?:,[^\]\s]{1,40})?\]<std(?:out|err)>:"
    rb"|default(\d+)\]:)\s*"
)
# The rank/world tag lhotse / icefall loggers print after the "[file:line]" source tag:
# "INFO [train.py:908] (1/4) Epoch 1, batch 5950, ...". Read as a counter, "1/4" would be
# the step, and the four ranks' lines of one batch four runs. Only after a source tag: a
# "[train] (1/3)" elsewhere is a counter.
INLINE_RANK = re.compile(rb":\d{1,6}\] \((\d{1,4})/(\d{1,4})\) ")
GAP = re.compile(rb"^\s*\[?\s*(?:\.\.\.|\xe2\x80\xa6)[^\]\n]{0,60}\]?\s*$|^\s*\[\s*\.\.\..*\]\s*$")
# "> " quotes, "- " / "* " bullets wrap pasted lines.
_WRAPPERS = re.compile(rb"^\s*(?:>\s?)+|^\s*[-*+]\s+(?=\S)")
_OPEN_DICT = re.compile(rb"[{\[]\s*['\"]")
# A dict is rejoined over at most this many lines / bytes; past that the bracket
# was part of a message, not a wrapped record.
MAX_JOINS = 6
MAX_JOIN = 8 << 10


def blocks(f: BinaryIO, chunk: int = CHUNK) -> Iterator[tuple[bytes, int]]:
    """(block of whole lines, number of its first line), ANSI codes removed."""
    rest, no = b"", 1
    while True:
        block = f.read(chunk)
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n")
        if cut < 0:
            if len(block) <= MAX_LINE:
                rest = block
                continue
            r = block.rfind(b"\r")
            if r > 0:
                # a console bar's redraws, each after a carriage return: tqdm writes no
                # newline until the bar closes, so a whole fit is one "line" of megabytes.
                # Its redraws are the lines: end the block at the last one begun
                rest = block[r:]
                body = _clean_block(block[:r] + b"\n")
                yield body, no
                continue
            block, cut = block[:MAX_LINE] + b"\n", MAX_LINE  # one enormous line: cut it
        rest = block[cut + 1 :]
        body = _clean_block(block[: cut + 1])
        yield body, no
        no += body.count(b"\n")
    if rest:
        yield _clean_block(rest[:MAX_LINE]), no


def _clean_block(body: bytes) -> bytes:
    if b"\x1b" in body or b"^[" in body:
        body = ANSI.sub(b"", body)
    return body


def clean(text: bytes) -> tuple[bytes, int, str]:
    """(text, rank, what) for a line starting with markup: what is "fence", "gap" or ""."""
    rank = -1
    if text.lstrip()[:1] == b"[":
        m = RANK.match(text)
        if m:
            rank, text = int(m.group(1) or m.group(2) or m.group(3)), text[m.end() :]
    if text[:1] in (b">", b"-", b"*", b"+", b" ", b"\t"):
        text = _WRAPPERS.sub(b"", text, count=1)
    head = text.lstrip()[:3]
    if head in (b"```", b"~~~"):
        return text, rank, "fence"
    if (b"..." in text[:8] or b"\xe2\x80\xa6" in text[:8]) and GAP.match(text):
        return text, rank, "gap"
    return text, rank, ""


def inline_rank(text: bytes) -> tuple[bytes, int]:
    """(text without the tag, rank) for a line with a logger's "(rank/world)" tag, else
    (text, -1)."""
    m = INLINE_RANK.search(text, 0, 160)
    if m is None or int(m.group(1)) >= int(m.group(2)):
        return text, -1
    cut = text.index(b"] (", m.start()) + 2
    return text[:cut] + text[m.end() :], int(m.group(1))


def opens_record(text: bytes) -> bool:
    """A dict / JSON object left open at the end of the line, or a `\\` continuation."""
    if text.endswith(b"\\") and not text.endswith(b"\\\\"):
        return True
    return bool(_OPEN_DICT.search(text)) and depth(text) > 0


def starts_record(text: bytes) -> bool:
    return bool(_OPEN_DICT.match(text.lstrip()))


_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_PREFIX = 12  # bytes of a logger's prefix compared (a Ray worker's "(main_task pid=9260")


def own_line(held: bytes, text: bytes) -> bool:
    """The line after a `\\` was printed by itself, not wrapped: it opens with the held
    line's own prefix (the same Ray worker tag, a timestamp of the same form), which a
    terminal does not repeat on the rest of a wrapped line."""
    a = held.lstrip()[:_PREFIX].translate(_DIGITS)
    return len(a) == _PREFIX and text.lstrip()[:_PREFIX].translate(_DIGITS) == a


def still_open(text: bytes, joins: int) -> bool:
    """Whether the joined text goes on: another `\\`, or a dict / JSON object still open.
    An unbalanced bracket outside a dict is text (LaTeX's `\\[` in a printed answer),
    which would otherwise swallow the metric lines after it."""
    if joins >= MAX_JOINS or len(text) >= MAX_JOIN:
        return False
    return text.endswith(b"\\") or (depth(text) > 0 and bool(_OPEN_DICT.search(text)))


# A `key: value, key: value` record (mmcv's TextLoggerHook: "Epoch [3][50/1000]\tlr:
# 2.000e-02, eta: ..., loss_cls: 0.4, loss: 1.2") wrapped by a terminal or a paste at a
# field boundary: the line ends in a whole `key: number,` field, and the next line holds
# nothing but the remaining `key: number` fields (no step, no prefix of its own).
_FIELD = rb"[A-Za-z_][\w./-]{0,60}: -?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_ENDS_IN_FIELD = re.compile(rb"(?:^|[\s,])" + _FIELD + rb",\s*\Z")
_ONLY_FIELDS = re.compile(rb"\s*" + _FIELD + rb"(?:,\s*" + _FIELD + rb")*,?\s*\Z")


def ends_in_field(text: bytes) -> bool:
    """A `key: value, ...` record line cut after a field's comma (it may go on below)."""
    return text.rstrip()[-1:] == b"," and bool(_ENDS_IN_FIELD.search(text[-120:]))


_KEY = re.compile(rb"([A-Za-z_][\w./-]{0,60}):")
_COUNTERS = frozenset(k.encode() for k in (*TEXT_STEP_KEYS, "epoch", "iter", "batch"))


def only_fields(text: bytes) -> bool:
    """A line of nothing but `key: number` fields, none a step or epoch counter: the rest
    of a wrapped record, not a record of its own."""
    if not _ONLY_FIELDS.match(text):
        return False
    return not any(k.lower() in _COUNTERS for k in _KEY.findall(text))


_ENDS_IN_NUMBER = re.compile(NUM_SRC + rb"\s*\Z")


def drop_cut_value(text: bytes) -> bytes:
    """A record cut off before its closing bracket (a paste or a crash ends inside it, or
    the next record starts): the number it ends in may be cut mid-digits ("9.9879" of
    9.9879e-06), so that field goes; the fields closed by a comma are whole."""
    if not _ENDS_IN_NUMBER.search(text[-64:]):
        return text
    return text[: max(text.rfind(b","), text.rfind(b"{"), text.rfind(b"[")) + 1]


# A pasted line the user set in Markdown bold to point at it ("    **Test net output #0:
# accuracy = 0.12484**"): the emphasis closes at the end of the line and opens after a
# space or at its start, so "2**10" inside a message and a "***** Eval results *****"
# banner are left alone.
_BOLD = re.compile(rb"(^|\s)\*\*(?=[^\s*])(.*?[^\s*])\*\*(\s*)\Z")


# A Markdown heading a run's notes or a README-style log wraps each epoch in ("#### Epoch
# 3/19", then the epoch's metric lines): the heading's text, an "Epoch 3/19" heading. Only
# two to six hashes then a blank then a word: "# resume = ..." (a code comment, one hash)
# and "#NumIters,Seconds" (a CSV header) stay as printed.
_HEADING = re.compile(rb"^[ \t]*#{2,6}[ \t]+(?=[A-Za-z])")


def drop_heading(text: bytes) -> bytes:
    """A line set as a Markdown heading: the heading's text."""
    return _HEADING.sub(b"", text, count=1)


def drop_bold(text: bytes) -> bytes:
    """A line wrapped in Markdown bold: the line itself."""
    return _BOLD.sub(rb"\1\2\3", text, count=1)


# A note the user wrote after a pasted line, pointed at it with an arrow (nanoGPT's
# "iter 8: loss 3.8626, time 21.99ms, mfu 0.05% <- steady state looks 1.5~2X faster"):
# not the program's output. Only after a number (or its unit) and before a word, so R's
# `x <- 5` and a `<-5` in a line stay as printed.
_ARROW_NOTE = re.compile(rb"(?<=[0-9%a-zA-Z)\]])[ \t]+<-{1,2}[ \t]+[^\d\s-].*\Z", re.DOTALL)


def drop_arrow_note(text: bytes) -> bytes:
    """A line with an `<- note` appended by the user: the line without the note."""
    return _ARROW_NOTE.sub(b"", text, count=1)


# A value the user set in bold inside a pasted line ("Loss is **6.907648**. Current
# learning rate is 0.0896", "[Iteration **61997**]" of a BigDL issue): the number itself.
# Only a number between the marks goes, so "2**10" and "**Note**" stay as printed.
_BOLD_VALUE = re.compile(rb"\*\*(" + NUM_SRC + rb")\*\*")


def drop_bold_values(text: bytes) -> bytes:
    """Markdown bold around numbers inside a line: the numbers alone."""
    return _BOLD_VALUE.sub(rb"\1", text)


# TF1's tf.Print (kernels/logging_ops.cc) writes its message and then the tensor in
# brackets: TF-Slim's evaluation prints each metric so, "... logging_ops.cc:79]
# eval/Accuracy[0.001]". A name followed by one bracketed number is a name=value pair;
# the glog header before it ("2018-09-15 13:15:04.595803: I tensorflow/core/kernels/
# logging_ops.cc:79]") says where it was printed, not what.
_TF_PRINT = re.compile(
    rb"logging_ops\.cc:\d+\]\s*([A-Za-z_][\w/.\-]*)\[\s*(" + NUM_SRC + rb")\s*\]\s*\Z"
)


def tf_print_value(text: bytes) -> bytes:
    """`... logging_ops.cc:79] eval/Accuracy[0.001]` -> `eval/Accuracy=0.001`."""
    m = _TF_PRINT.search(text)
    return m.group(1) + b"=" + m.group(2) if m else text


# MXNet's Speedometer with auto_reset prints the batches its speed and metrics cover, "Epoch[0]
# Batch [60-80]\tSpeed: 606.04 samples/sec\tacc=nan lossvalue=nan" (insightface, GluonCV):
# the range's end is the batch counter its plain form ("Batch [80]") prints.
_BATCH_RANGE = re.compile(rb"(Batch \[)\d+-(\d+)\]")


def batch_range_end(text: bytes) -> bytes:
    """`Batch [60-80]` -> `Batch [80]`."""
    return _BATCH_RANGE.sub(rb"\1\2]", text)


# ESPnet2's trainer reports each stretch of batches as "1epoch:train:6376-6750batch: loss=
# 2.386, ...": the epoch and the range of batches within it, glued to their units. Read as
# printed, no counter is found (the steps become the order of the lines); the stretch's
# last batch is where its averages were taken.
_ESPNET_RANGE = re.compile(rb"\b(\d+)epoch:(train|valid|[a-z_]+):(\d+)-(\d+)batch:")


def espnet_range(text: bytes) -> bytes:
    """`1epoch:train:6376-6750batch:` -> `epoch 1 train batch 6750:`."""
    return _ESPNET_RANGE.sub(rb"epoch \1 \2 batch \4:", text)


# Karpathy's build-nanogpt (the "Let's reproduce GPT-2" train_gpt2.py, forked widely) writes
# its log.txt as "<step> <split> <value>" lines: "0 val 10.9499", "0 hella 0.2476" (the
# HellaSwag accuracy), "0 train 10.955003". Read as printed, a bare number opens each line
# and no value has a key; the split names it: train and val are the losses.
_NANOGPT_SPLIT = re.compile(rb"^(\d+) (train|val|hella) (" + NUM_SRC + rb")\s*\Z")
_NANOGPT_NAMES = {b"train": b"train loss", b"val": b"val loss", b"hella": b"hellaswag acc"}


def build_nanogpt(text: bytes) -> bytes:
    """`0 val 10.9499` -> `step 0 | val loss: 10.9499` (and `hella` -> `hellaswag acc`)."""
    m = _NANOGPT_SPLIT.match(text)
    if m is None:
        return text
    return b"step " + m.group(1) + b" | " + _NANOGPT_NAMES[m.group(2)] + b": " + m.group(3)


# YOLACT's train.py prints its moving-average losses under one-letter names between
# "||" bars, after the epoch in brackets and the iteration: "[  1]    1440 || B: 5.495 |
# C: 3.668 | M: 6.919 | S: 1.564 | T: 17.647 || ETA: ... || timer: 0.298" (its
# `loss_types`: B box, C class confidence, M mask, P prototype, D coefficient diversity,
# E class existence, S semantic segmentation, I mask IoU; T their total, the loss).
# Read as printed, "S" looks like a step and the letters name no metric.
_YOLACT = re.compile(rb"^(\s*`?)\[\s*(\d+)\]\s+(\d+) \|\|((?: [A-Z]: [^|]+\|)+ T: [^|]+)\|\|")
_YOLACT_TERM = re.compile(rb"(?<= )([A-Z])(?=: )")
_YOLACT_NAMES = {
    b"B": b"box_loss",
    b"C": b"conf_loss",
    b"M": b"mask_loss",
    b"P": b"proto_loss",
    b"D": b"diversity_loss",
    b"E": b"class_existence_loss",
    b"S": b"semantic_loss",
    b"I": b"maskiou_loss",
    b"T": b"loss",
}


def yolact_losses(text: bytes) -> bytes:
    """`[  1]    1440 || B: 5.4 | T: 17.6 ||` -> `epoch 1 iter 1440 || box_loss: 5.4 |
    loss: 17.6 ||` (the rest of the line as printed)."""
    m = _YOLACT.match(text)
    if m is None:
        return text
    terms = _YOLACT_TERM.sub(lambda t: _YOLACT_NAMES.get(t.group(1), t.group(1)), m.group(4))
    head = m.group(1) + b"epoch " + m.group(2) + b" iter " + m.group(3) + b" ||"
    return head + terms + text[m.end(4) :]


# Keras' TerminateOnNaN callback prints "Batch 5: Invalid loss, terminating training" when a
# batch's loss is NaN or Inf, on the progress bar's own line (the bar redraws with "\r", no
# newline): "6/1000 [...] - ETA: 9:26:20 - loss: nan    Batch 5: Invalid loss, ...", even
# glued to the last value ("loss: 44.4110Batch 3: ..."). The message is no metric: it goes,
# and the bar before it is read as any bar is (its own loss token says NaN / Inf).
_KERAS_STOP = re.compile(rb"\s*Batch \d+: Invalid loss, terminating training\b.*\Z", re.DOTALL)


# Keras' ModelCheckpoint (verbose=1) lands on the bar's line the same way: "12299/12300
# [====>.] - ETA: 0s - loss: 1.6080Epoch 00001: val_loss improved from inf to 1.55635,
# saving model to ./backup/best-01-1.56.weights" (keras-yolo2, tests/real). The numbers in
# the message are the monitored value the epoch's finished bar prints next: it goes too.
_KERAS_CHECKPOINT = re.compile(
    rb"(?<=\d)\s*Epoch \d{5}: \w+ (?:improved from|did not improve)\b.*\Z", re.DOTALL
)


def drop_keras_stop(text: bytes) -> bytes:
    """A Keras bar line with TerminateOnNaN's or ModelCheckpoint's message on it: the bar
    alone."""
    m = _KERAS_STOP.search(text) or _KERAS_CHECKPOINT.search(text)
    return text[: m.start()] if m else text


# Julia's `@show i, loss(x, y)` prints the tuple of expressions, then the tuple of values:
# "(i, loss(dataset[1]...)) = (1, 0.29602579662457984 (tracked))" (Flux's tracked numbers
# carry a "(tracked)" tag). Names and values pair up by position; an expression's name is
# the function or variable it starts with ("loss(x, y)" is the loss). A one-letter name
# over a whole number is the loop's counter (`for i in 1:10 ... @show i, loss(x)`): "iter".
_SHOW_TUPLE = re.compile(rb"^\s*\((.+?)\)\s*=\s*\((.+)\)\s*$")
_SHOW_NAME = re.compile(rb"\s*([A-Za-z_][\w.]*)")
_SHOW_VALUE = re.compile(rb"\s*(" + NUM_SRC + rb")(?:\s*\(tracked\))?\s*$")


def _top_level(inner: bytes) -> list[bytes]:
    """`inner` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == 44 and depth == 0:  # ","
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return parts


def julia_show_tuple(text: bytes) -> bytes:
    """`(i, loss(x)) = (1, 0.29 (tracked))` -> `iter = 1, loss = 0.29`; else unchanged."""
    m = _SHOW_TUPLE.match(text)
    if m is None:
        return text
    names, values = _top_level(m.group(1)), _top_level(m.group(2))
    if len(names) < 2 or len(names) != len(values):
        return text
    pairs = []
    for name, value in zip(names, values, strict=True):
        n, v = _SHOW_NAME.match(name), _SHOW_VALUE.match(value)
        if n is None or v is None:
            return text
        key = n.group(1)
        if len(key) == 1 and v.group(1).isdigit():
            key = b"iter"
        pairs.append(key + b" = " + v.group(1))
    return b", ".join(pairs)


# WaveGlow's (and tacotron2's warm-start scripts') train.py prints each iteration as
# `print("{}:\t{:.9f}".format(iteration, reduced_loss))`: "123873:\t-5.480178833", an
# iteration counter and the loss, nothing else on the line (negative: a flow's NLL). A
# line of exactly a whole number, a colon and one number is that print. Forks that glue
# each name to its value ("step_78540:\tloss_-4.065555573") print the same pair.
_ITER_LOSS = re.compile(rb"^\s*(\d+):\s+(" + NUM_SRC + rb")\s*$")
_GLUED_ITER_LOSS = re.compile(
    rb"^\s*(?:step|iter|iteration)_(\d+):\s*loss_([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    rb"|[-+]?(?:nan|inf))\s*$",
    re.I,
)
# The same print with the counter named, `print(f"Iter {i}: {loss:.6f}")`: "Iter 1600:
# 0.075390", "Step 200: 2.31". One number per iteration after an iteration counter is the
# loop's loss, as above. A note the user wrote after it in a paste ("(53% improvement)",
# "<- BEST POINT", "← FINAL") is not the program's and goes; another number the program
# printed ("Iter 5: 0.3 0.9", "Step 5: 0.3, acc: 0.9") keeps the line as it was. An epoch
# counter is not one of these: one number per epoch is as often the accuracy.
_COUNTED_LOSS = re.compile(
    rb"^\s*(?:iter|iteration|it|step)\s+(\d+)\s*:\s*(" + NUM_SRC + rb")"
    rb"(?:\s*|\s+(?:\(|<-|\xe2\x86\x90)[^\n]*?[A-Za-z]{3}[^\n]*)$",
    re.I,
)


def iter_loss(text: bytes) -> bytes:
    """`123873:\t-5.48` (WaveGlow's print), `step_78540:\tloss_-4.06` or `Iter 123873:
    -5.48 (note)` -> `iter 123873 loss: -5.48`; any other line unchanged."""
    m = _ITER_LOSS.match(text) or _GLUED_ITER_LOSS.match(text) or _COUNTED_LOSS.match(text)
    return b"iter " + m.group(1) + b" loss: " + m.group(2) if m else text


# A detector's mAP over an IoU range, YOLOv6's "Epoch: 9 | mAP@0.5: 0.41 | mAP@0.50:0.95:
# 0.22" (YOLOv7's "mAP@.5:.95"): read as printed, the range's upper end after the colon
# is a value. With a hyphen for the colon ("mAP@0.50-0.95") the range is the name's, as
# the lower end after the "@" already is (numbers._NOT_IN_NAME).
_IOU_RANGE = re.compile(rb"(@\d?\.\d{1,2}):(\d?\.\d{1,2})(?=:)")


def iou_range_name(text: bytes) -> bytes:
    """`mAP@0.50:0.95: 0.22` -> `mAP@0.50-0.95: 0.22`; any other line unchanged."""
    return _IOU_RANGE.sub(rb"\1-\2", text)


# NVIDIA tacotron2's train.py (and its forks: mellotron, the GST and multi-speaker ports)
# prints each iteration's loss with the iteration between the name and the value,
# `print("Train loss {} {:.6f} Grad Norm {:.6f} {:.2f}s/it".format(iteration, ...))`, and
# each validation as `print("Validation loss {}: {:9f}  ".format(iteration, val_loss))`:
# "Train loss 64998 0.302735 Grad Norm 0.958112 4.36s/it", "Validation loss 61000:
# 0.325403". A split's loss name followed by a whole number and then a number is that
# loss at that iteration: read as printed, the iteration would be the loss.
_LOSS_AT_ITER = re.compile(
    rb"^(\s*(?:Train|Training|Validation|Valid|Val|Eval|Test) loss) (\d+):? +(?=[-+.\dni])"
)


def loss_at_iter(text: bytes) -> bytes:
    """`Train loss 12 0.5 Grad Norm 3.1` -> `iter 12 Train loss 0.5 Grad Norm 3.1`,
    `Validation loss 12: 0.4` -> `iter 12 Validation loss 0.4`; any other line unchanged."""
    m = _LOSS_AT_ITER.match(text)
    return (
        b"iter " + m.group(2) + b" " + m.group(1).lstrip() + b" " + text[m.end() :] if m else text
    )


# A GAN script's sentence naming whose loss it prints: medSynthesis' "average running loss
# for generator between iter [201, 300] is: 559.80874", "lossG_D for generator is -6.8e10",
# "loss for discriminator is 1.38e12". The player after "for" owns the loss (a generic
# "loss" becomes loss_generator / loss_discriminator, the two players derived.py keeps
# apart); a window "iter [a, b]" is the span the running mean covers: its point is b.
_PLAYER_SENTENCE = re.compile(
    rb"^\s*(?:(?:average |mean )?(?:running )?(loss)|(\w*loss\w*)) for "
    rb"(generator|discriminator|critic)(?: between iter \[(\d+), (\d+)\])? is:? +(?=[-+.\dni])"
)


def player_sentence(text: bytes) -> bytes:
    """`average running loss for generator between iter [201, 300] is: 559.8` ->
    `iter 300: loss_generator: 559.8`; any other line unchanged."""
    m = _PLAYER_SENTENCE.match(text)
    if m is None:
        return text
    name = m.group(2) or b"loss_" + m.group(3)
    at = b"iter " + m.group(5) + b": " if m.group(5) else b""
    return at + name + b": " + text[m.end() :]


# A loop's record printed as a sentence: "Epoch 3: the loss is 0.512", "At step 100 the
# loss is 2.31", "epoch 2, the train loss is 0.41 and the val loss is 0.55". The article
# before a metric that "is" a number, and the "and" between two such clauses, are words of
# the sentence, not of the names: without them the line reads as "train loss is 0.41, val
# loss is 0.55" does. Up to two words may qualify the metric ("the train loss"); a step or
# epoch comes first.
_METRIC_IS = (
    rb"(?:[A-Za-z][\w/-]*\s+){0,2}?(?:loss|accuracy|acc|reward|return|perplexity|ppl|lr"
    rb"|learning rate|error|score)\s+(?:is|was)\s+(?=[-+.\dni])"
)
_ARTICLE = re.compile(rb"(?<=[\s,:;|])(?:the|The|our|my|My|Our)\s+(?=" + _METRIC_IS + rb")")
_AND_METRIC = re.compile(rb"(?<=[\d%])\s*,?\s+and\s+(?=(?:the\s+)?" + _METRIC_IS + rb")")


def sentence_metrics(text: bytes) -> bytes:
    """`Epoch 3: the loss is 0.5 and the val loss is 0.6` -> `Epoch 3: loss is 0.5, val
    loss is 0.6`; any other line unchanged. Only after a number (the step or epoch the
    sentence reports): "The loss is nan" alone is a user's words about the run."""
    m = _ARTICLE.search(text)
    if m is None or not any(c in b"0123456789" for c in text[: m.start()]):
        return text
    return _ARTICLE.sub(b"", _AND_METRIC.sub(b", ", text))


# mmpose 1.x's CocoMetric names its stats with a space before the IoU or the area:
# "coco/AP .5: 0.002970  coco/AP .75: 0.000000  coco/AP (M): -1.000000". Read as printed,
# ".5" is a value and "(M)" a word apart. Joined ("coco/AP50", "coco/AP_M"), each name is
# one key (readers/_coco.py names the headline APs).
_MMPOSE_COCO = re.compile(rb"(coco/A[PR]) (\.5|\.75|\(M\)|\(L\))(?=:)")
_MMPOSE_PART = {b".5": b"50", b".75": b"75", b"(M)": b"_M", b"(L)": b"_L"}


def mmpose_coco_names(text: bytes) -> bytes:
    """`coco/AP .5: 0.3` -> `coco/AP50: 0.3`, `coco/AR (M): -1` -> `coco/AR_M: -1`."""
    return _MMPOSE_COCO.sub(lambda m: m.group(1) + _MMPOSE_PART[m.group(2)], text)


# A metric printed with its step as an array index, a loop's
# `print(f"train_batch_loss[ {step} ]: ", loss)`: "train_batch_loss[ 6590 ]:  nan" (CRNN
# trainers print it every N batches). Read as printed, the index is a list of one number
# inside the name, and the value has no step. The whole line is that one pair, nothing else.
_INDEXED_VALUE = re.compile(
    rb"^\s*([A-Za-z_][\w.]{0,60})\[\s*(\d+)\s*\]\s*:\s*(" + NUM_SRC + rb")\s*$"
)


def indexed_value(text: bytes) -> bytes:
    """`train_batch_loss[ 10 ]:  1.57` -> `step 10 | train_batch_loss: 1.57`; any other
    line unchanged."""
    m = _INDEXED_VALUE.match(text)
    return b"step " + m.group(2) + b" | " + m.group(1) + b": " + m.group(3) if m else text


# A tensor's shape printed as a field, tqdm's postfix `img shape: =torch.Size([80, 3, 32,
# 32])` or a `shape: torch.Size([8, 512])` print: a shape, never a metric, and its commas
# inside the brackets split the record's fields wrongly. The field (and the separator
# before it) goes; the rest of the line is read as printed.
_SHAPE_FIELD = re.compile(
    rb"(?:,\s*)?(?<![\w.])[A-Za-z_][\w .]{0,40}?\s*[:=]\s*=?\s*torch\.Size\(\[[\d,\s]*\]\)"
)


def drop_shape_field(text: bytes) -> bytes:
    """The line without its `name=torch.Size([...])` fields (see _SHAPE_FIELD)."""
    return _SHAPE_FIELD.sub(b"", text)


# A Keras line cut mid-name (" - loss: 0.7657 - acc: 0.7393 - val" where a paste ends):
# the dangling name would mark the whole line an eval (its "val" is a word of the line).
_CUT_NAME = re.compile(rb"(:\s*" + NUM_SRC + rb")\s+-\s+[A-Za-z_]\w*\s*\Z")


def drop_cut_name(text: bytes) -> bytes:
    """A `- name: value` line whose last name lost its colon and value: the name goes."""
    if b" - " not in text[-40:]:
        return text
    m = _CUT_NAME.search(text[-200:])
    return text[: len(text) - len(text[-200:]) + m.end(1)] if m else text


def depth(text: bytes) -> int:
    return text.count(b"{") + text.count(b"[") - text.count(b"}") - text.count(b"]")


# A ranking or top-k metric whose cutoff is printed as a word of its own before the value:
# "Recall 1: 0.40 | Recall 5: 0.60", "Top 1: 0.30", "mAP 50: 0.52". The cutoff is part of
# the name (Recall@1, Top1), not the value of "Recall" (which would leave 0.40 nameless and
# read Recall=1, Recall=5 as one series). Only before a `:` or `=` and a number, and only
# for the measures that take a cutoff: "Epoch 3: 0.69" keeps its counter.
_NUMBERED = re.compile(
    rb"(?<![\w.@\-])(?i:(recall|precision|top|hits?|ndcg|map|mrr|acc|accuracy|cmc))"
    rb" (\d{1,3})(?=\s*[:=]\s*[-+]?(?:\d|\.\d|nan|inf))"
)


def numbered_names(text: bytes) -> bytes | None:
    """The line with each "Measure K:" written "Measure@K:" ("Top1" for top-k), or None
    when it has none."""
    if _NUMBERED.search(text) is None:
        return None
    return _NUMBERED.sub(
        lambda m: m.group(1) + (b"" if m.group(1).lower() == b"top" else b"@") + m.group(2),
        text,
    )


# PyTorch's print of a scalar tensor that carries a grad_fn, "tensor(2.3026, device='cuda:0',
# grad_fn=<NllLossBackward0>)": a differentiable scalar, which in a training loop's print is
# the loss (the scalar one backpropagates). Named ("loss: tensor(0.69, ...)") it is that
# name's value, the wrapper dropped; unnamed (a bare `print(loss)`, maybe after a step or
# epoch counter) it is read as the loss. A tensor without a grad_fn (`tensor(3)`,
# `tensor([0.1, 0.2])`) is not rewritten: nothing says it is a loss.
_GRAD_TENSOR = re.compile(rb"tensor\(\s*(" + NUM_SRC + rb")\s*,[^()\n]*?grad_fn=<\w+>\s*\)")
# a name before it ("loss: ", "'loss_cls': ", "loss "); "step 5: " ends in a counter
_NAMED_BEFORE = re.compile(rb"[A-Za-z_'\"\]]\s*[:=]?\s*\Z")


def grad_tensor_loss(text: bytes) -> bytes:
    """`5 tensor(nan, grad_fn=<DivBackward0>)` -> `5 loss: nan`; `loss: tensor(0.69,
    grad_fn=<MeanBackward0>)` -> `loss: 0.69`. Only one unnamed tensor on a line is the
    loss: several unnamed are left as they are (which would be the loss is unknown)."""
    found = list(_GRAD_TENSOR.finditer(text))
    if not found:
        return text
    named = [bool(_NAMED_BEFORE.search(text[: m.start()])) for m in found]
    lone = named.count(False) == 1
    out, at = [], 0
    for m, nm in zip(found, named, strict=True):
        out.append(text[at : m.start()])
        if nm:
            out.append(m.group(1))
        elif lone:
            out.append(b"loss: " + m.group(1))
        else:
            out.append(m.group(0))
        at = m.end()
    out.append(text[at:])
    return b"".join(out)


# A scalar printed in its array type's repr: JAX's `Array(2.30, dtype=float32)` (older
# `DeviceArray(...)`), TensorFlow's eager `tf.Tensor(2.30, shape=(), dtype=float32)`,
# NumPy 2's `np.float32(2.30)`, PyTorch's `tensor(2.30, device='cuda:0')` (no grad_fn: a
# `.detach()`ed loss). After a name ("loss: Array(nan, dtype=float32)") it is that name's
# value, the wrapper dropped. Unnamed it is left alone (nothing says what it is), and so is
# an array of several values (`Array([0.1, 0.2], ...)`): only a scalar is a logged value.
_SCALAR_WRAPPER = re.compile(
    rb"(?<![\w.])(?:tf\.Tensor|Tensor|DeviceArray|Array|np\.float(?:16|32|64)"
    rb"|numpy\.float(?:16|32|64)|tensor)\(\s*(" + NUM_SRC + rb")\s*(?:,(?:[^()\n]|\(\))*)?\)"
)
_WRAPPER_WORDS = (b"Array(", b"Tensor(", b"np.float", b"numpy.float", b"tensor(")


def scalar_wrapper_value(text: bytes) -> bytes:
    """`loss: Array(nan, dtype=float32)` -> `loss: nan`; `'loss': tf.Tensor(2.3, shape=(),
    dtype=float32)` -> `'loss': 2.3` (a named scalar only; see _SCALAR_WRAPPER)."""
    if not any(w in text for w in _WRAPPER_WORDS):
        return text
    out, at = [], 0
    for m in _SCALAR_WRAPPER.finditer(text):
        if not _NAMED_BEFORE.search(text[: m.start()]):
            continue
        out.append(text[at : m.start()])
        out.append(m.group(1))
        at = m.end()
    if not out:
        return text
    out.append(text[at:])
    return b"".join(out)
