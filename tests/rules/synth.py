"""Builds a Run from a compact YAML description, for the rules' threshold cases.

Real runs from tiny trainings live in tests/corpus (see `make eval`); these
cases pin each rule's thresholds with near-misses on both sides, which real
runs cannot do precisely. A series is a list of segments:

    loss:
      start: 1          # first step (default 1)
      every: 1          # step interval (default 1)
      segments:
        - {n: 40, from: 96, to: 10.82, shape: exp}   # exp | linear (default)
        - {n: 260, const: 10.8125}
        - {n: 100, const: 1.1, wave: {amp: 0.03, period: 17}}
        - {values: [1.0, 2.0, .nan]}
      noise: 0.01       # absolute Gaussian sigma over the whole series
      noise_rel: 0.0    # relative sigma
      seed: 0
      set: {150: .nan}  # overwrite values at these steps
      times: {every: 1.0, gap_before_last: 60}  # wall-clock seconds
"""

from __future__ import annotations

from typing import Any

import numpy as np

from traindoc.model import Fact, Run, Series


def segment(seg: dict[str, Any]) -> np.ndarray:
    if "values" in seg:
        return np.asarray(seg["values"], dtype=np.float64)
    n = int(seg["n"])
    if "const" in seg:
        y = np.full(n, float(seg["const"]))
    else:
        a, b = float(seg["from"]), float(seg["to"])
        t = np.linspace(0.0, 1.0, n)
        if seg.get("shape") == "exp":
            k = float(seg.get("rate", 5.0))
            y = b + (a - b) * np.exp(-k * t) if n > 1 else np.array([a])
        else:
            y = a + (b - a) * t
    wave = seg.get("wave")
    if wave:
        idx = np.arange(n)
        y = y + float(wave["amp"]) * np.sin(2 * np.pi * idx / float(wave["period"]))
    return y


def series(name: str, spec: dict[str, Any]) -> Series:
    values = np.concatenate([segment(s) for s in spec["segments"]])
    n = values.size
    start, every = int(spec.get("start", 1)), int(spec.get("every", 1))
    steps = start + every * np.arange(n)
    rng = np.random.default_rng(int(spec.get("seed", 0)))
    if spec.get("noise"):
        values = values + rng.normal(0, float(spec["noise"]), n)
    if spec.get("noise_rel"):
        values = values * (1 + rng.normal(0, float(spec["noise_rel"]), n))
    for step, v in (spec.get("set") or {}).items():
        values[np.flatnonzero(steps == int(step))] = float(v)
    times = None
    if spec.get("times"):
        t = spec["times"]
        dt = np.full(n, float(t.get("every", 1.0)))
        if t.get("gap_before_last"):
            dt[-1] = float(t["gap_before_last"])
        times = 1_700_000_000.0 + np.cumsum(dt)
    return Series.from_arrays(name, steps, values, times, source="synthetic")


def build_run(case: dict[str, Any]) -> Run:
    ser = {name: series(name, spec) for name, spec in (case.get("series") or {}).items()}
    facts = {k: Fact(v, "case file") for k, v in (case.get("facts") or {}).items()}
    return Run(name=case.get("name", "case"), series=ser, facts=facts)
