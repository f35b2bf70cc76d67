"""The normalised run: metric series plus facts, each fact with its source."""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from traindoc.model.finding import Finding, Severity


@dataclass(frozen=True, eq=False)
class Series:
    """One metric over steps. Arrays are sorted by step; duplicates already merged.

    `times` holds wall-clock seconds where the format records them, else None.
    Values may be NaN/Inf: that is evidence, never cleaned away.
    """

    name: str
    steps: np.ndarray
    values: np.ndarray
    times: np.ndarray | None = None
    source: str = ""

    def __len__(self) -> int:
        return int(self.steps.size)

    def finite(self) -> Series:
        """The finite points only (for statistics that NaN would poison).

        Computed once while in use: a long grad norm with a few NaN copies into two
        more series-long arrays, which live as long as a caller (a rule) holds them,
        not as long as the run: held by every rule after the first, they were a third
        of the kept series on a 1 GB log."""
        ref = _FINITE.get(self)
        f = ref() if ref is not None else None
        if f is None:
            ok = np.isfinite(self.values)
            if ok.all():
                f = self
            else:
                times = self.times[ok] if self.times is not None else None
                f = Series(self.name, self.steps[ok], self.values[ok], times, self.source)
            _FINITE[self] = weakref.ref(f)
        return f

    def after(self, step: int) -> Series:
        """The points at or after `step`: views (no copy) when they are a tail, as in
        any series in step order."""
        keep = self.steps >= step
        first = int(keep.argmax()) if keep.any() else keep.size
        take: slice | np.ndarray = slice(first, None) if keep[first:].all() else keep
        times = self.times[take] if self.times is not None else None
        return Series(self.name, self.steps[take], self.values[take], times, self.source)

    @staticmethod
    def build(
        name: str,
        points: list[tuple[float, float]] | list[tuple[float, float, float]],
        source: str = "",
    ) -> Series:
        """From (step, value[, time]) tuples, in any order; the last write of a step wins."""
        if not points:
            return Series(name, np.empty(0, np.int64), np.empty(0), None, source)
        arr = np.asarray(points, dtype=np.float64)
        return Series.from_arrays(
            name, arr[:, 0], arr[:, 1], arr[:, 2] if arr.shape[1] > 2 else None, source
        )

    @staticmethod
    def from_arrays(
        name: str,
        steps: np.ndarray,
        values: np.ndarray,
        times: np.ndarray | None = None,
        source: str = "",
    ) -> Series:
        steps = np.asarray(steps, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        if times is not None:
            times = np.asarray(times, dtype=np.float64)
        # Stable sort, then keep the last entry of each step: a resumed run re-logs
        # the same steps and the later write is the one that happened. A log already
        # in order (the usual case) costs one comparison pass and no copies.
        keep = order_and_dedup(steps)
        if keep is not None:
            steps, values = steps[keep], values[keep]
            times = times[keep] if times is not None else None
        if times is not None and np.isnan(times).all():
            times = None
        return Series(name, steps, values, times, source)


# Series -> its finite points, held weakly on both sides (see Series.finite).
_FINITE: weakref.WeakKeyDictionary[Series, weakref.ref[Series]] = weakref.WeakKeyDictionary()


def order_and_dedup(steps: np.ndarray) -> np.ndarray | None:
    """What to take from `steps` (`steps[keep]`) to sort them stably and keep each step's
    last write; None when they are already strictly increasing (nothing to do). A log in
    order with repeated steps gets a boolean mask, 1 byte a point where indices are 8."""
    if steps.size < 2:
        return None
    rises = steps[1:] > steps[:-1]
    if rises.all():
        return None
    if bool(np.all(steps[1:] >= steps[:-1])):  # in order, steps repeated (micro-batches)
        return np.r_[rises, True]
    del rises
    order = np.argsort(steps, kind="stable")
    s = steps[order]
    last = np.r_[s[1:] != s[:-1], True]
    return order[last]


@dataclass(frozen=True)
class Fact:
    """A run fact and where it came from ("config.json: vocab_size", "--regime")."""

    value: Any
    source: str


@dataclass(frozen=True)
class Input:
    """One file a reader used, and what it got from it (so a misread log shows at once).

    `series` counts the points read per series (None when the file holds none, a
    config); text logs also say how many lines they had, how many looked like
    metrics but were not understood (with the first one), and where the steps
    came from.
    """

    path: str
    kind: str
    series: Mapping[str, int] | None = None
    lines: int | None = None
    lines_not_understood: int | None = None
    first_not_understood: str | None = None
    steps_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "kind": self.kind}
        if self.series is not None:
            out["series"] = dict(self.series)
        for key in ("lines", "lines_not_understood", "first_not_understood", "steps_from"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Note:
    """A reader's message about its input: a skipped record, a missing file."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Event:
    """A log line that is evidence by itself ("Gradient overflow. Skipping step").

    `kind` is a short stable name the rules match on (fp16-overflow,
    loss-scale-minimum, resume, resume-skip-batches, resume-skip-epoch, nccl-timeout,
    trainable-params, nonfinite-loss, confusion-matrix, one-class-predictions,
    asr-score, empty-output, rl-not-training, margin-softmax, nonfinite-gradients,
    skipped-update, loss-exploding, empty-epoch, empty-prediction, sample-prediction);
    `value`
    carries its number when it has one (the resumed step, batches skipped, the epoch
    skipped, params count, the one predicted class's share of the samples, the reference
    word count of a decode that emitted nothing, or of a printed sample's reference
    beside an empty prediction).
    """

    kind: str
    text: str
    path: str = ""
    line: int | None = None
    step: int | None = None
    value: float | None = None
    time: float | None = None


@dataclass(frozen=True)
class Run:
    name: str
    series: Mapping[str, Series] = field(default_factory=dict)
    facts: Mapping[str, Fact] = field(default_factory=dict)
    inputs: tuple[Input, ...] = ()
    notes: tuple[Note, ...] = ()
    # Per-checkpoint tensor statistics (traindoc.model.checkpoint.CheckpointSummary),
    # filled when the run directory holds checkpoints; rules never open the files.
    checkpoints: tuple[Any, ...] = ()
    # Console lines that carry a diagnosis by themselves (see Event).
    events: tuple[Event, ...] = ()
    data: Any = None  # a dataset audit (traindoc.model.data.DataSummary), when one was run
    # Findings a live monitor recorded while the run trained (<run>/traindoc/findings.jsonl).
    live: tuple[Finding, ...] = ()
    # Findings of the symptom rules, handed by the engine to the cause rules that
    # declare them (RuleSpec.reads), so a cause judges from what was found.
    symptoms: tuple[Finding, ...] = ()

    def get(self, signal: str) -> Series | None:
        s = self.series.get(str(signal))
        return s if s is not None and len(s) else None

    def symptom(self, *rules: str, at_least: Severity = Severity.WARNING) -> Finding | None:
        """The most severe symptom finding of these rules at or above `at_least`."""
        found = [f for f in self.symptoms if f.rule in rules and f.severity >= at_least]
        return max(found, key=lambda f: f.severity) if found else None

    def fact(self, name: str, default: Any = None) -> Any:
        f = self.facts.get(name)
        return default if f is None or f.value is None else f.value

    @property
    def vocab_size(self) -> int | None:
        # A classifier's loss is over its C classes, even when its config also
        # carries the backbone's vocabulary (BERT: vocab 30522, 2 labels).
        v = self.fact("num_classes") or self.fact("vocab_size")
        return int(v) if v else None

    @property
    def loss_base(self) -> float:
        """The base of the logged cross-entropy: e (nats), or 2 where the trainer logs
        bits (fairseq divides every loss by ln 2; its `ppl` is 2^nll_loss)."""
        b = self.fact("loss_base")
        return float(b) if isinstance(b, (int, float)) and b > 1 else math.e

    @property
    def floor(self) -> float | None:
        """ln(V) (or ln(C)), in the loss's own units: the loss of a model that predicts
        uniformly (log2(V) for a loss logged in bits)."""
        if self.fact("margin_softmax"):
            return None  # scaled logits with a margin: an untrained model is far above ln(C)
        v = self.vocab_size
        return math.log(v) / math.log(self.loss_base) if v and v > 1 else None

    @property
    def regime(self) -> str | None:
        return self.fact("regime")

    @property
    def is_rl(self) -> bool:
        """An RL trainer (GRPO/PPO): its logged loss is a surrogate that sits near 0 or
        rises legitimately, so rules that read the loss as a learning curve skip it."""
        return (
            self.fact("task") == "rl"
            or any(
                self.get(k) is not None
                # an evaluation's return (SB3's eval/mean_reward, tianshou's test_reward) and
                # the spread of the episodes' returns (ml-agents) are an RL trainer's too
                for k in (
                    "reward",
                    "reward_std",
                    "frac_reward_zero_std",
                    "eval_reward",
                    "episode_reward_std",
                )
            )
            or self._actor_critic()
        )

    def _actor_critic(self) -> bool:
        """A value head's explained variance logged beside a policy's entropy or KL: what
        actor-critic trainers print (SB3's train/explained_variance with entropy_loss and
        approx_kl, AlphaZero's explained_var_new with kl and entropy) and nothing else."""
        names = [n.lower() for n in self.series]
        if not any("explained_var" in n for n in names):
            return False
        return any("entropy" in n or n.endswith("kl") or "approx_kl" in n for n in names)

    @property
    def last_step(self) -> int | None:
        ends = [int(s.steps[-1]) for s in self.series.values() if len(s)]
        return max(ends) if ends else None

    def summary(self) -> dict[str, Any]:
        """The `run` block of the JSON report."""
        out: dict[str, Any] = {"name": self.name}
        for key in ("vocab_size", "num_classes", "regime"):
            if self.fact(key) is not None:
                out[key] = self.fact(key)
        out["steps"] = self.last_step
        out["facts"] = {
            k: {"value": _plain(f.value), "source": f.source}
            for k, f in sorted(self.facts.items())
            if f.value is not None
        }
        out["series"] = {k: len(s) for k, s in sorted(self.series.items())}
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return list(value)
    return value
