"""A text log as a stream of cleaned lines, read in chunks with bounded memory.

What users have is rarely a clean log: a console capture has ANSI colours,
carriage-return progress bars and `[rankN]:` prefixes; a paste from an issue
has Markdown fences, `>` quotes, list bullets, `[... gap ...]` markers, lines
wrapped by the terminal (a dict split over lines, a `\\` continuation) and CRLF.
`stream` undoes all of that and yields one `Line` per visible line (each
carriage-return state of a progress bar is a line of its own, with the same
line number), so the layout readers only ever see one line of log text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

CHUNK = 4 << 20
# A single line longer than this is cut (a minified JSON blob is not a log line).
MAX_LINE = 64 << 10
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07|\x1b[()][A-Z0-9]|\^\[")
RANK = re.compile(rb"^\s*\[(?:rank|RANK)\s*(\d+)\]\s*:?\s*")
FENCE = re.compile(rb"^\s*(?:```|~~~)")
GAP = re.compile(rb"^\s*\[?\s*(?:\.\.\.|\xe2\x80\xa6)[^\]\n]{0,60}\]?\s*$|^\s*\[\s*\.\.\..*\]\s*$")
# "> " quotes, "- " / "* " bullets and "1. " numbered items wrap pasted lines.
_WRAPPERS = re.compile(rb"^\s*(?:>\s?)+|^\s*[-*+]\s+(?=\S)")
_OPEN_DICT = re.compile(rb"[{\[]\s*['\"]")


@dataclass(slots=True)
class Line:
    no: int  # 1-based line number in the file
    text: bytes  # cleaned: no ANSI, no rank prefix, no quote marker
    rank: int = -1  # torchrun's [rankN] prefix, -1 when none
    kind: str = ""  # "" for text, "fence" or "gap" for paste markup
    seq: int = 0  # order of the piece in the file (the \r states of one line in order)


Block = Callable[[bytes, int], None]


def stream(f: BinaryIO, chunk: int = CHUNK, on_block: Block | None = None) -> Iterator[Line]:
    """Every line of `f`, cleaned; reads `chunk` bytes at a time.

    `on_block(body, first_line_no)` sees each block of whole lines (ANSI removed)
    before its lines are yielded: for searches that are cheaper over a block.
    """
    for seq, line in enumerate(_joined(_split(f, chunk, on_block))):
        line.seq = seq
        yield line


def _split(f: BinaryIO, chunk: int, on_block: Block | None) -> Iterator[Line]:
    rest, no = b"", 0
    while True:
        block = f.read(chunk)
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n")
        if cut < 0:
            if len(block) > MAX_LINE:  # one enormous line: cut it, keep going
                block, rest = block[:MAX_LINE] + b"\n", b""
                cut = len(block) - 1
            else:
                rest = block
                continue
        rest = block[cut + 1 :]
        body = block[: cut + 1]
        if b"\x1b" in body or b"^[" in body:
            body = ANSI.sub(b"", body)
        if on_block is not None:
            on_block(body, no + 1)
        for raw in body.split(b"\n")[:-1]:
            no += 1
            yield from _pieces(raw, no)
    if rest:
        rest = ANSI.sub(b"", rest)
        if on_block is not None:
            on_block(rest, no + 1)
        no += 1
        yield from _pieces(rest, no)


def _pieces(raw: bytes, no: int) -> Iterator[Line]:
    if len(raw) > MAX_LINE:
        raw = raw[:MAX_LINE]
    if b"\r" not in raw:
        yield _clean(raw, no)
        return
    for piece in raw.split(b"\r"):
        if piece.strip():
            yield _clean(piece, no)


def _clean(raw: bytes, no: int) -> Line:
    rank = -1
    if raw[:1] in (b"[", b" ") and b"rank" in raw[:12].lower():
        m = RANK.match(raw)
        if m:
            rank, raw = int(m.group(1)), raw[m.end() :]
    if raw[:1] in (b">", b"-", b"*", b"+", b" "):
        raw = _WRAPPERS.sub(b"", raw, count=1)
    kind = ""
    if raw[:3] in (b"```", b"~~~") or (raw.lstrip()[:3] in (b"```", b"~~~")):
        kind = "fence"
    elif (b"..." in raw[:8] or b"\xe2\x80\xa6" in raw[:8]) and GAP.match(raw):
        kind = "gap"
    return Line(no, raw, rank, kind)


def _joined(lines: Iterator[Line]) -> Iterator[Line]:
    """Undo terminal wrapping: `\\` continuations and a dict or JSON object cut over lines."""
    held: Line | None = None
    joins = 0
    for line in lines:
        if held is not None:
            starts_new = line.kind or _OPEN_DICT.match(line.text.lstrip())
            if held.text.endswith(b"\\"):
                held.text = held.text[:-1] + line.text.strip()
            elif not starts_new:
                held.text = held.text + b" " + line.text.strip()
            else:  # a new record begins: the held one was cut, not wrapped
                yield held
                held = None
            if held is not None:
                joins += 1
                if held.text.endswith(b"\\") and joins < _MAX_JOINS:
                    continue
                if _depth(held.text) > 0 and joins < _MAX_JOINS and len(held.text) < _MAX_JOIN:
                    continue
                yield held
                held = None
                continue
        if line.kind:
            yield line
            continue
        text = line.text
        if (text.endswith(b"\\") and not text.endswith(b"\\\\")) or (
            (b"{" in text or b"[" in text) and _OPEN_DICT.search(text) and _depth(text) > 0
        ):
            held, joins = line, 0
            continue
        yield line
    if held is not None:
        yield held


# A dict is rejoined over at most this many lines / bytes; past that the bracket
# was part of a message, not a wrapped record.
_MAX_JOINS = 6
_MAX_JOIN = 8 << 10


def _depth(text: bytes) -> int:
    return text.count(b"{") + text.count(b"[") - text.count(b"}") - text.count(b"]")
