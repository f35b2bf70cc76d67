"""How far a console's progress bar moved between logged steps, and after the last one.

The exploded-head run's resume hang printed no error: the loop kept drawing its tqdm bar over
micro-batches while the step condition never fired, so no step was logged again.
A bar that advances many times its usual distance between two logged records,
with no record after it, is that evidence (steps.py turns it into an event).

Only the training bar counts: the bar total seen most often at a record (an
eval bar has its own total, and HF prints the eval dict right after it). A
bar whose count falls back on the same total is a new epoch's bar.

The (n, total) of a bar line is read here too, for the reader and for steps.py.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable

import numpy as np

from traindoc.readers.logs.records import compile_shape
from traindoc.readers.logs.shapes import Plan

# the silence rule's ratio (rules/resume/stalled_training.py): 20 usual intervals
RATIO = 20.0
MIN_RECORDS = 3  # intervals with bar movement needed for a usual distance


class Progress:
    """The text reader hands over a bar at each record (the last one drawn before it)
    and every SAMPLE-th redraw in between: one parse per record, not one per redraw.
    A bar whose count falls back on the same total is the next epoch's (at most one
    boundary per sample is seen, which can only under-count: the safe side)."""

    SAMPLE = 32
    KEEP = 4096

    def __init__(self, numbers: Callable[[bytes, tuple], tuple[float, float] | None]) -> None:
        self.numbers = numbers  # (n, total) of a bar line, or None
        # bar units moved between consecutive records: the last KEEP that moved (the usual
        # distance near the end is what the stretch after the last record is held to;
        # memory stays bounded however many records a log has)
        self.between: deque[float] = deque(maxlen=self.KEEP)
        self._records = 0
        self.last: tuple[int, bytes] | None = None  # (line, text) of the last counted bar
        self._moved = 0.0  # units counted since the last record
        self._n: float | None = None
        self._total: float | None = None
        self._totals: Counter[float] = Counter()
        self._train: float | None = None  # the training bar's total, once a record saw one
        self.on_bar = 0  # records drawn on the bar's own line (its postfix)

    def sample(self, bar: tuple[int, bytes, tuple]) -> None:
        line, text, shape = bar
        got = self.numbers(text, shape)
        if got is not None:
            self._place(line, text, *got)

    def bar_record(self, line: int, text: bytes) -> None:
        """A record drawn on the bar's own line (a tqdm postfix, Lightning's "| 74/100
        [01:29<00:31, 0.82it/s, v_num=0, train_loss=3.13]"): where the bar stood at that
        record. Such a log has no bar lines between its records, so without this no
        usual distance between records would be known."""
        got = tqdm_numbers(text)
        if got is not None:
            self.on_bar += 1
            self._place(line, text, *got)

    @property
    def records_on_bar(self) -> bool:
        """Most records were drawn on the bar itself: a redraw without one drew nothing
        logged (not a record printed elsewhere and left out)."""
        return self._records > 0 and 2 * self.on_bar > self._records

    def _place(self, line: int, text: bytes, n: float, total: float) -> None:
        if self._train is not None and total != self._train:
            return  # another bar (eval, a dataloader's): not the training loop
        if self._n is not None and total == self._total:
            # a count that fell back is the next epoch's bar: the rest of this one, then n
            self._moved += n - self._n if n >= self._n else total - self._n + n
        self._n, self._total, self.last = n, total, (line, bytes(text[:300]))

    def record(self, bar: tuple[int, bytes, tuple] | None) -> None:
        """A record was logged; `bar` is the last bar drawn since the previous one."""
        if bar is not None:
            self.sample(bar)
        if self._total is not None:
            self._totals[self._total] += 1
            if self._totals[self._total] > self._totals.get(self._train, 0):
                self._train = self._total
        if self._records and self._moved > 0:  # before the first record: not an interval
            self.between.append(self._moved)
        self._records += 1
        self._moved = 0.0

    def stranded(
        self, bar: tuple[int, bytes, tuple] | None
    ) -> tuple[float, float, tuple[int, bytes]] | None:
        """(units after the last record, usual units between records, last bar) when the
        bar went on for RATIO x its usual distance after the last logged record."""
        if bar is not None:
            self.sample(bar)
        moved = np.fromiter(self.between, dtype=np.float64, count=len(self.between))
        if moved.size < MIN_RECORDS or self.last is None:
            return None
        usual = float(np.median(moved))
        if self._moved < RATIO * usual:
            return None
        return self._moved, usual, self.last


def bar_numbers(text: bytes, bar: tuple) -> tuple[float, float] | None:
    """(n, total) of a bar: tqdm's "| n/N [" by a few byte searches, else the shape's regex."""
    got = tqdm_numbers(text)
    if got is not None:
        return got
    rx, gi, gj = bar
    m = rx.fullmatch(text)
    if m is None:
        return None
    try:
        return float(m.group(gi)), float(m.group(gj))
    except ValueError:
        return None


def tqdm_numbers(text: bytes) -> tuple[float, float] | None:
    """(n, total) of tqdm's "| n/N [" by a few byte searches, or None."""
    i = text.rfind(b"| ")
    j = text.find(b" [", i + 2) if i >= 0 else -1
    if j > 0:
        a, _, b = text[i + 2 : j].strip().partition(b"/")
        if a.isdigit() and b.isdigit():
            return float(a), float(b)
    return None


def bar_of(plan: Plan, shape: bytes) -> tuple | None:
    """(regex of the shape, group of n, group of N) for a progress bar's shape."""
    inner = next((f.slot for f in plan.fields if f.role == "inner"), None)
    total = next((f.slot for f in plan.fields if f.role == "inner_total"), None)
    if inner is None or total is None:
        return None
    return compile_shape(shape), inner + 1, total + 1
