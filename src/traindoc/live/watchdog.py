"""Stall watchdog: a daemon thread that notices when steps stop arriving.

The training thread only calls `beat()` (two stores and a deque append: no
lock, no syscall), so the watchdog never blocks or slows it. The thread learns
the usual step interval (median of the last intervals) and reports a stall once
no step has arrived for `factor` times that interval and at least `floor_s`
seconds. The report carries every thread's stack (faulthandler, which works
even when the stuck thread holds the GIL in C code... as long as the watchdog
can run) and, when NVML is present, GPU utilisation and memory: GPU at 0% with
the process alive is the exploded-head run's resume hang.
"""

from __future__ import annotations

import faulthandler
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Stall:
    last_step: int | None
    silence_s: float
    usual_s: float
    threshold_s: float
    stuck_thread: str  # the stack of the thread that was calling step(), innermost last
    all_threads: str  # faulthandler's dump of every thread
    gpu: list[dict[str, Any]] = field(default_factory=list)
    paused: str | None = None  # what the run said it was doing (save, eval) when it stalled


class Watchdog:
    def __init__(
        self,
        on_stall: Callable[[Stall], None],
        factor: float = 3.0,
        floor_s: float = 10.0,
        min_intervals: int = 5,
        window: int = 64,
        pause_factor: float = 10.0,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        if factor <= 1:
            raise ValueError(f"stall factor must be > 1 (got {factor})")
        self.on_stall = on_stall
        self.factor = factor
        self.floor_s = floor_s
        self.min_intervals = min_intervals
        self.pause_factor = pause_factor
        self.on_error = on_error
        self._intervals: deque[float] = deque(maxlen=window)
        self._last: float | None = None
        self._step: int | None = None
        self._ident: int | None = None
        self._pause: str | None = None
        self._reported = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- training thread side: O(1), no locks -------------------------------
    def beat(self, step: int | None = None) -> None:
        now = time.monotonic()
        if self._last is not None and self._pause is None:
            self._intervals.append(now - self._last)
        self._last, self._step, self._pause = now, step, None
        self._ident = threading.get_ident()
        self._reported = False

    def alive(self) -> None:
        """Progress that is not a step (an eval batch): resets the silence only."""
        self._last = time.monotonic()

    def pause(self, reason: str) -> None:
        """A long pause is expected (checkpoint save, evaluation): allow pause_factor x more."""
        self._pause = reason
        self._last = time.monotonic()

    # --- watchdog thread ----------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="traindoc-watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def usual(self) -> float | None:
        if len(self._intervals) < self.min_intervals:
            return None
        return statistics.median(list(self._intervals))

    def threshold(self) -> float | None:
        usual = self.usual()
        if usual is None:
            return None
        t = max(self.factor * usual, self.floor_s)
        return t * self.pause_factor if self._pause is not None else t

    def _run(self) -> None:
        while not self._stop.is_set():
            limit = self.threshold()
            # Poll at a tenth of the threshold: the report comes at most 10% late.
            wait = 0.5 if limit is None else min(max(limit / 10, 0.02), 1.0)
            if self._stop.wait(wait):
                return
            try:
                self.check()
            except Exception as exc:  # never let the watchdog die noisily
                if self.on_error:
                    self.on_error(exc)
                return

    def check(self, now: float | None = None) -> Stall | None:
        limit, last = self.threshold(), self._last
        if limit is None or last is None or self._reported:
            return None
        silence = (now or time.monotonic()) - last
        if silence < limit:
            return None
        self._reported = True
        stall = Stall(
            last_step=self._step,
            silence_s=silence,
            usual_s=self.usual() or 0.0,
            threshold_s=limit,
            stuck_thread=_stack_of(self._ident),
            all_threads=_dump_all(),
            gpu=gpu_state(),
            paused=self._pause,
        )
        self.on_stall(stall)
        return stall


def _stack_of(ident: int | None) -> str:
    frame = sys._current_frames().get(ident) if ident is not None else None
    if frame is None:
        return ""
    return "".join(traceback.format_stack(frame))


def _dump_all() -> str:
    """faulthandler's dump of every thread (it needs a real file descriptor)."""
    with tempfile.TemporaryFile("w+") as f:
        faulthandler.dump_traceback(f, all_threads=True)
        f.seek(0)
        return f.read()


def gpu_state() -> list[dict[str, Any]]:
    """Utilisation and memory of each GPU via NVML (nvidia-ml-py); [] when absent."""
    try:
        import pynvml  # type: ignore[import-not-found]
    except Exception:
        return []
    out = []
    try:
        pynvml.nvmlInit()
        try:
            for i in range(pynvml.nvmlDeviceGetCount()):
                h = pynvml.nvmlDeviceGetHandleByIndex(i)
                util = pynvml.nvmlDeviceGetUtilizationRates(h)
                mem = pynvml.nvmlDeviceGetMemoryInfo(h)
                out.append(
                    {
                        "index": i,
                        "util_pct": int(util.gpu),
                        "mem_used_mib": int(mem.used) >> 20,
                        "mem_total_mib": int(mem.total) >> 20,
                    }
                )
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        return out
    return out
