"""Console lines that are evidence by themselves (console.py): found, placed, made facts.

fp16 overflow and loss-scale messages, resume data skipping, NCCL timeouts and
PEFT's trainable-parameter count become `Run.events`, each at the step logged
just before it (a resume at its own step), and facts where they state one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from bench._console_v1 import _console_patterns as patterns
from traindoc.model import Event, Fact, Series


def find(data: bytes, nl: np.ndarray, path: Path) -> list[tuple[int, Event]]:
    out = []
    for kind, rx in patterns.EVENTS:
        if not any(k in data for k in patterns.KEYS[kind]):
            continue
        for m in rx.finditer(data):
            a = max(data.rfind(b"\n", 0, m.start()), data.rfind(b"\r", 0, m.start())) + 1
            b = min(
                x
                for x in (data.find(b"\n", m.end()), data.find(b"\r", m.end()), len(data))
                if x >= 0
            )
            text = data[a:b].decode("utf-8", "replace").strip()[:300]
            value = patterns.num(m.group(1)) if rx.groups and m.group(1) else None
            line = int(np.searchsorted(nl, m.start())) + 1
            ts = patterns.STAMP.search(data, a, b)
            t = patterns.stamp(ts) if ts else None
            out.append((m.start(), Event(kind, text, str(path), line, None, value, t)))
    return sorted(out, key=lambda e: e[0])


def place(events: list[tuple[int, Event]], pos: np.ndarray, steps: np.ndarray) -> list[Event]:
    """Each event's step: a resume's own step, else the last step logged before it."""
    known = list(zip(pos.tolist(), steps.astype(np.int64).tolist(), strict=True))
    kp = np.array([k[0] for k in known], np.int64)
    out, resumed = [], None
    for p, e in events:
        if e.kind == "resume":
            resumed = int(e.value) if e.value is not None else None
            out.append(replace(e, step=resumed))
            continue
        j = int(np.searchsorted(kp, p)) - 1
        step = known[j][1] if j >= 0 else (known[0][1] if known else None)
        if e.kind == "resume-skip-batches" and resumed is not None:
            step = resumed
        out.append(replace(e, step=step))
    return out


def add_facts(events: list[Event], facts: dict[str, Fact], series: dict, path: Path) -> None:
    src = lambda e: f"console: {path.name}:{e.line}"  # noqa: E731
    counts = [e for e in events if e.kind == "trainable-params" and e.value is not None]
    if counts:
        facts["trainable_params"] = Fact(
            int(counts[-1].value), f"{src(counts[-1])}: {counts[-1].text}"
        )
    starts = [int(e.step) for e in events if e.kind in ("resume", "resume-skip-batches") and e.step]
    if starts:
        old = tuple(facts["resume_steps"].value) if "resume_steps" in facts else ()
        first = next(e for e in events if e.kind in ("resume", "resume-skip-batches"))
        facts["resume_steps"] = Fact(tuple(sorted({*old, *starts})), f"{src(first)}: {first.text}")
    over = [e for e in events if e.kind in ("fp16-overflow", "loss-scale-minimum")]
    if over:
        facts["precision"] = Fact(
            "fp16", f"{src(over[0])}: {len(over)} fp16 loss-scale message(s), e.g. {over[0].text!r}"
        )
    scale = [(e.step, e.value) for e in over if e.value is not None and e.step is not None]
    if scale and "loss_scale" not in series:
        arr = np.array(scale, np.float64)
        series["loss_scale"] = Series.from_arrays(
            "loss_scale", arr[:, 0], arr[:, 1], None, "console: overflow lines"
        )
