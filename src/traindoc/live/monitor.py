"""The online engine: the offline rules, run incrementally inside training.

Per step the monitor does O(1) work: append to growing numpy buffers (amortised
doubling), and two checks on scalars - the first few losses (absurd-initial-loss)
and a non-finite loss or grad norm. Only when such a scalar check trips does it
run the matching rule, on the buffers, so the decision comes from the same code
as offline. The full rule set runs on a doubling schedule (after 8, 16, 32, ...
steps, then every `full_every`), and never more often than keeps its cost under
`full_budget` of the training time: the history is never re-scanned per step.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from traindoc.engine import diagnose
from traindoc.live.persist import Sink
from traindoc.live.policy import Policy
from traindoc.live.watchdog import Stall, Watchdog
from traindoc.model import Fact, Finding, Run, Series, Severity
from traindoc.model.numbers import MAX_STEP, count, number
from traindoc.rules.api import Hit, RuleSpec
from traindoc.rules.registry import load_all
from traindoc.settings import Settings, resolve

log = logging.getLogger("traindoc")

# Rules that the per-step scalar checks run (the ones where seconds matter).
EARLY = ("absurd-initial-loss", "nonfinite-loss", "nonfinite-gradients")
# Not run by the periodic full pass: the watchdog owns stalls (with the clock,
# the stack and the GPU state); checkpoint rules need files a live run has not read.
NOT_PERIODIC = ("stalled-training",)


class TrainingStopped(RuntimeError):
    """Raised by Monitor.step in a plain loop when a finding's policy is "stop"."""

    def __init__(self, finding: Finding) -> None:
        self.finding = finding
        super().__init__(
            f"traindoc stopped training at step {finding.step}: [{finding.id}] {finding.title}. "
            f"{finding.prescription}"
        )


class _Buf:
    """A growing (step, value, time) buffer with amortised O(1) append."""

    __slots__ = ("n", "steps", "times", "values")

    def __init__(self, cap: int = 256) -> None:
        self.n = 0
        self.steps = np.empty(cap, np.int64)
        self.values = np.empty(cap, np.float64)
        self.times = np.empty(cap, np.float64)

    def append(self, step: int, value: float, t: float) -> None:
        if self.n == self.steps.size:
            cap = 2 * self.n
            self.steps = np.resize(self.steps, cap)
            self.values = np.resize(self.values, cap)
            self.times = np.resize(self.times, cap)
        self.steps[self.n], self.values[self.n], self.times[self.n] = step, value, t
        self.n += 1

    def series(self, name: str, last: int | None = None) -> Series:
        lo = 0 if last is None else max(0, self.n - last)
        sl = slice(lo, self.n)
        return Series.from_arrays(name, self.steps[sl], self.values[sl], self.times[sl], "live")


class Monitor:
    """Watch a training run from inside it.

    >>> monitor = Monitor(vocab_size=50257, regime="pretraining", output_dir="out")
    >>> for step in range(1, n + 1):
    ...     loss = train_step()
    ...     monitor.step(step, loss=loss, grad_norm=gn, lr=lr)  # raises TrainingStopped

    Or as a context manager (`with Monitor(...) as monitor:`), which closes the
    files and stops the watchdog on exit. Findings go to the `traindoc` logger
    (warn / info) and, when `output_dir` is given, to
    <output_dir>/traindoc/findings.jsonl with every metric seen in metrics.jsonl.
    A bug of the monitor's own is caught, reported once and disables it (unless
    `strict`): it never crashes training.

    `settings` (a traindoc.settings.Settings, a settings file, or None: the
    traindoc.toml / [tool.traindoc] found upward from `output_dir`, else the cwd)
    selects the rules and their thresholds, as for `traindoc diagnose`; an error
    in it raises SettingsError here, listing every problem.
    """

    def __init__(
        self,
        vocab_size: int | None = None,
        regime: str | None = None,
        *,
        num_classes: int | None = None,
        output_dir: str | Path | None = None,
        policy: Policy | None = None,
        facts: Mapping[str, Any] | None = None,
        watchdog: bool = True,
        stall_factor: float = 3.0,
        stall_floor_s: float = 10.0,
        full_every: int = 500,
        full_budget: float = 0.005,
        raise_on_stop: bool = True,
        rank: int | None = None,
        world_size: int | None = None,
        strict: bool = False,
        name: str = "live",
        settings: Settings | str | Path | None = None,
    ) -> None:
        from traindoc.model.signals import REGIMES

        if regime is not None and regime not in REGIMES:
            raise ValueError(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
        if full_every < 1:
            raise ValueError(f"full_every must be >= 1 (got {full_every})")
        # Bad settings fail here, before training starts, never inside a step.
        self.settings = resolve(settings, output_dir)
        known = load_all()
        self.rules: dict[str, RuleSpec] = {s.id: s for s in self.settings.apply(known.values())}
        self.policy = policy or Policy()
        unknown = sorted(set(self.policy.rules) - set(known))
        if unknown:
            raise ValueError(
                f"policy names unknown rule id(s) {', '.join(unknown)}; valid: {', '.join(known)}"
            )
        # An argument wins over the settings file, as a CLI flag does.
        args = {"vocab_size": vocab_size, "num_classes": num_classes, "regime": regime}
        given = {k: getattr(self.settings, k) if v is None else v for k, v in args.items()}
        given |= facts or {}
        self.facts = {k: v for k, v in given.items() if v is not None}
        self.rank = _env_int("RANK", 0) if rank is None else rank
        self.world_size = _env_int("WORLD_SIZE", 1) if world_size is None else world_size
        self.name = name
        self.strict = strict
        self.raise_on_stop = raise_on_stop
        self.full_every = full_every
        self.full_budget = full_budget
        self.findings: list[Finding] = []
        self.actions: dict[str, str] = {}
        self.stop_finding: Finding | None = None
        self.disabled = False
        self.errors: list[str] = []
        self.stall: Stall | None = None
        self._bufs: dict[str, _Buf] = {}
        self._progress = _Buf()
        self._last_step: int | None = None
        self._next_full = 8
        self._full_cost = 0.0
        self._full_at = time.monotonic()
        self._reported: dict[str, Severity] = {}
        self._lock = threading.Lock()  # findings come from the watchdog thread too
        # The training thread never waits on the lock (the watchdog may hold it): a
        # finding it cannot record now waits here, recorded at the next step.
        self._deferred: deque[Finding] = deque()
        self.skipped = 0  # values that were not numbers (step "x", loss "abc"), skipped
        self.sink = Sink(output_dir, self.facts) if output_dir and self.rank == 0 else None
        self.watchdog: Watchdog | None = None
        if watchdog and "stalled-training" in self.rules:  # an ignored rule costs no thread
            self.watchdog = Watchdog(
                self._on_stall, stall_factor, stall_floor_s, on_error=self._internal
            )
            self.watchdog.start()

    # --- the per-step API ----------------------------------------------------
    def step(
        self,
        step: int,
        loss: float | None = None,
        grad_norm: float | None = None,
        lr: float | None = None,
        **metrics: float,
    ) -> list[Finding]:
        """One optimizer step's numbers; returns the findings it raised.

        Raises TrainingStopped when a finding's action is "stop" (unless the
        monitor was built with raise_on_stop=False: then see `should_stop`).
        """
        if self.disabled:
            return []
        n = self._counter(step)
        if n is None:
            return []
        if self.watchdog is not None:
            self.watchdog.beat(n)
        try:
            new = self._step(n, loss, grad_norm, lr, metrics, progress=True)
        except Exception as exc:
            self._internal(exc)
            return []
        if self.stop_finding is not None and self.raise_on_stop:
            raise TrainingStopped(self.stop_finding)
        return new

    def record(self, step: int, **metrics: float) -> list[Finding]:
        """Numbers that are not a training step (eval_loss, per-layer samples)."""
        if self.disabled:
            return []
        n = self._counter(step)
        if n is None:
            return []
        try:
            return self._step(n, None, None, None, metrics, progress=False)
        except Exception as exc:
            self._internal(exc)
            return []

    def heartbeat(self) -> None:
        """Alive but between steps (an eval batch): keeps the watchdog quiet."""
        if self.watchdog is not None:
            self.watchdog.alive()

    def expect_pause(self, reason: str) -> None:
        """A long pause comes next (checkpoint save, evaluation)."""
        if self.watchdog is not None:
            self.watchdog.pause(reason)

    def _counter(self, step: Any) -> int | None:
        try:  # ints, numpy integers and 0-d tensors; "x", 2**64 and NaN are not steps
            n = count(step if isinstance(step, (int, float, str)) else float(step), -MAX_STEP)
        except (TypeError, ValueError, OverflowError, RuntimeError):
            n = None
        if n is None:
            self._skip(f"step {_show(step)}")
        return n

    def _skip(self, what: str) -> None:
        """A value that is not a number: counted, warned about once; monitoring goes on."""
        self.skipped += 1
        if self.skipped == 1:
            log.warning(
                "traindoc: skipped %s: not a number; monitoring continues "
                "(later ones are only counted, in Monitor.skipped)",
                what,
            )

    @property
    def should_stop(self) -> bool:
        return self.stop_finding is not None

    def _step(
        self,
        step: int,
        loss: float | None,
        grad_norm: float | None,
        lr: float | None,
        metrics: dict[str, float],
        progress: bool,
    ) -> list[Finding]:
        t = time.time()
        for _ in range(len(self._deferred)):  # kept back by the watchdog's lock earlier
            self._report(self._deferred.popleft(), wait=False)  # re-deferred if still held
        values = {"loss": loss, "grad_norm": grad_norm, "lr": lr, **metrics}
        record: dict[str, Any] = {"step": step}
        trip: list[str] = []
        for key, v in list(values.items()):
            if v is None:
                continue
            v = _value(v)
            if v is None:
                self._skip(f"{key}={_show(values[key])} at step {step}")
                values[key] = None
                continue
            record[key] = v
            buf = self._bufs.get(key)
            if buf is None:
                buf = self._bufs[key] = _Buf()
            buf.append(step, v, t)
            if not math.isfinite(v):
                if key == "loss":
                    trip.append("nonfinite-loss")
                elif key == "grad_norm":
                    trip.append("nonfinite-gradients")
        loss = values["loss"]
        if loss is not None and self._bufs["loss"].n <= 3:
            trip.append("absurd-initial-loss")  # reads only the first 3 points
        record["time"] = t
        if self.rank and self.world_size > 1:
            record["rank"] = self.rank
        if self.sink is not None:
            self.sink.metrics(record)
        new: list[Finding] = []
        # A rule already reported at error has nothing to add: no O(n) re-run per
        # step of a run that keeps going with NaNs (policy "warn").
        trip = [r for r in trip if self._reported.get(r) != Severity.ERROR]
        if trip:
            new += self._run(trip, self._run_view())
        if progress:
            self._progress.append(step, loss if loss is not None else math.nan, t)
            self._last_step = step
            n = self._progress.n
            if n >= self._next_full and self._budget_ok():
                new += self.check_all()
                self._next_full = n + min(n, self.full_every)
        return new

    def _budget_ok(self) -> bool:
        spent = time.monotonic() - self._full_at
        return self._full_cost <= self.full_budget * spent

    # --- running rules ---------------------------------------------------------
    def run_view(self, now: float | None = None, last: int | None = None) -> Run:
        """The run so far, as the offline rules see it."""
        return self._run_view(now, last)

    def _run_view(self, now: float | None = None, last: int | None = None) -> Run:
        series = {k: b.series(k, last) for k, b in self._bufs.items() if b.n}
        facts = {k: Fact(v, f"Monitor({k}=...)") for k, v in self.facts.items()}
        if now is not None:
            facts["now"] = Fact(now, "watchdog clock")
        return Run(self.name, series, facts)

    def check_all(self) -> list[Finding]:
        """The full rule set on the buffers (what the periodic pass runs)."""
        t0 = time.monotonic()
        ids = [i for i in self.rules if i not in NOT_PERIODIC]
        new = self._run(ids, self._run_view())
        self._full_cost = time.monotonic() - t0
        self._full_at = time.monotonic()
        return new

    def diagnose(self) -> Any:
        """A full offline-style Diagnosis of the run so far."""
        return diagnose(self._run_view(), [s for s in self.rules.values()])

    def _run(
        self, ids: Iterable[str], run: Run, specs: list[RuleSpec] | None = None
    ) -> list[Finding]:
        specs = specs if specs is not None else [self.rules[i] for i in ids if i in self.rules]
        d = diagnose(run, specs)
        for err in d.errors:
            if err not in self.errors:
                self.errors.append(err)
                log.warning("traindoc: %s", err)
        return [f for f in d.findings if self._report(f, wait=False)]

    def _report(self, f: Finding, wait: bool = True) -> bool:
        """Report a finding once per id (again only if its severity rises): a second
        resume's jump is news, the same jump seen by the next full pass is not.

        wait=False (the training thread): when the watchdog holds the lock, the finding
        is deferred to the next step instead of blocking training.
        """
        if not self._lock.acquire(blocking=wait):
            self._deferred.append(f)
            return False
        try:
            seen = self._reported.get(f.id)
            if seen is not None and f.severity <= seen:
                return False
            self._reported[f.id] = f.severity
            if self.world_size > 1 and "rank" not in f.evidence:  # a straggler names its own
                f = replace(f, evidence={**f.evidence, "rank": self.rank})
            action = self.policy.action(f)
            self.findings.append(f)
            self.actions[f.id] = action
        finally:
            self._lock.release()
        where = f" (rank {self.rank})" if self.world_size > 1 else ""
        text = f"traindoc{where}: [{f.id}] {f.title}"
        if action == "stop":
            if self.stop_finding is None:
                self.stop_finding = f
            log.error("%s - stopping training. %s", text, f.prescription)
        elif action == "warn":
            log.warning("%s. %s", text, f.prescription)
        else:
            log.info("%s", text)
        if self.sink is not None:
            self.sink.finding(f, action, time.time())
        return True

    def report(self, rule: str, hit: Hit) -> bool:
        """Report what an adapter saw and no buffer holds (another rank's NaN) as rule
        `rule`'s finding: its spec stamps the id, family and severity, as the engine does,
        so an adapter cannot mislabel one. False when it was reported already, or the
        settings ignore the rule."""
        try:
            spec = self.rules.get(rule)
            if spec is None:
                if rule in load_all():
                    return False  # ignored by the settings: not judged, not reported
                raise ValueError(f"unknown rule id {rule!r}; valid: {', '.join(load_all())}")
            return self._report(spec.finding(hit), wait=False)
        except Exception as exc:
            self._internal(exc)
            return False

    def judge(self, run: Run, specs: Iterable[RuleSpec]) -> list[Finding]:
        """Run these rules on a view an adapter assembled (the ranks' step times) and
        report what they find, as the periodic pass does on the buffers."""
        if self.disabled:
            return []
        try:
            return self._run((), run, list(specs))
        except Exception as exc:
            self._internal(exc)
            return []

    # --- stalls -------------------------------------------------------------
    def _on_stall(self, stall: Stall) -> None:
        """Watchdog thread: publish the stall only once its finding is recorded.

        Whoever polls `stall` (a test, a notebook) may then read `findings`
        without racing the report.
        """
        try:
            self._confirm_stall(stall)
        finally:
            self.stall = stall

    def _confirm_stall(self, stall: Stall) -> None:
        """Confirm with the stalled-training rule and add the stacks."""
        spec = self.rules.get("stalled-training")
        wd = self.watchdog
        if spec is None or wd is None:
            return
        params = replace(
            spec.params,
            ratio=wd.factor * (wd.pause_factor if stall.paused else 1.0),
            min_gap_s=wd.floor_s,
            periodic_ratio=0.0,
            min_points=wd.min_intervals,
        )
        # Same window as the watchdog's median, so both agree on "usual".
        prog = self._progress.series("loss", last=len(wd._intervals) + 1)
        run = Run(self.name, {"loss": prog}, {"now": Fact(time.time(), "watchdog clock")})
        findings = diagnose(run, [replace(spec, params=params)]).findings
        if not findings:
            return
        f = findings[0]
        evidence = {
            **f.evidence,
            "stuck_thread_stack": stall.stuck_thread,
            "all_threads": stall.all_threads,
        }
        if stall.gpu:
            evidence["gpu"] = stall.gpu
        if stall.paused:
            evidence["during"] = stall.paused
        explanation = f.explanation + " The stack of the training thread is in the evidence."
        if stall.gpu and all(g["util_pct"] == 0 for g in stall.gpu):
            explanation += " GPU utilisation is 0%: the process is alive but not computing."
        # Reported again if the run stalls again after recovering.
        with self._lock:
            self._reported.pop(f.id, None)
        self._report(replace(f, evidence=evidence, explanation=explanation))
        if self.sink is not None:
            self.sink.flush()

    # --- lifecycle -------------------------------------------------------------
    def _internal(self, exc: BaseException) -> None:
        if self.strict:
            raise exc
        msg = f"traindoc live monitor failed and is now disabled: {type(exc).__name__}: {exc}"
        if msg not in self.errors:
            self.errors.append(msg)
            log.warning("%s", msg, exc_info=exc)
        self.disabled = True
        if self.watchdog is not None:
            self.watchdog.stop()

    def close(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
        if self.sink is not None:
            self.sink.close()

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten close must not leave the thread polling
        wd = getattr(self, "watchdog", None)
        if wd is not None:
            wd._stop.set()


def _value(v: Any) -> float | None:
    """A metric as a float (a 0-d tensor or numpy scalar too); None when not a number."""
    if isinstance(v, (int, float)):  # the common case: no conversion cost
        return number(v)
    try:
        return number(float(v))
    except (TypeError, ValueError, OverflowError, RuntimeError):
        return number(v) if isinstance(v, str) else None


def _show(v: Any) -> str:
    text = repr(v) if isinstance(v, (str, int, float)) else type(v).__name__
    return text[:40]


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default
