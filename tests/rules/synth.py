"""Builds a Run from a compact YAML description, for the rules' threshold cases.

Real runs from tiny trainings live in tests/corpus (see `make eval`); these
cases pin each rule's thresholds with near-misses on both sides, which real
runs cannot do precisely. A series is a list of segments:

    loss:
      start: 1          # first step (default 1)
      every: 1          # step interval (default 1)
      steps: [12, 95]   # or the steps themselves, one per value (an excerpt's gap)
      segments:
        - {n: 40, from: 96, to: 10.82, shape: exp}   # exp | linear (default)
        - {n: 260, const: 10.8125}
        - {n: 100, const: 1.1, wave: {amp: 0.03, period: 17}}
        - {n: 100, const: 1.1, wave: {amp: 0.1, period: 25, shape: saw}}  # ramps up, drops
        - {values: [1.0, 2.0, .nan]}
      noise: 0.01       # absolute Gaussian sigma over the whole series
      noise_rel: 0.0    # relative sigma
      running_mean: 40  # log the mean of the last 40 values (kohya's avr_loss), after noise
      decimals: 3       # round to what a logger prints (after noise and running mean)
      seed: 0
      set: {150: .nan}  # overwrite values at these steps
      source: "train.log: lm_loss"  # where a reader got it (default "synthetic")
      times: {every: 1.0, gap_before_last: 60}  # wall-clock seconds

Console evidence lines go under `events:` (model.Event fields), e.g.
    events: [{kind: resume-skip-batches, step: 100, value: 4000, time: 1700000100.5}]
    (`repeat: N, every: K` makes N copies, K steps apart: many overflow lines.)

Data rules read `data:`, the fields of a model.data.DataSummary (example
pairs as {a: {row, path, line, label}, b: {...}, similarity}).

Checkpoint rules read `checkpoints:` instead, each a GPT-2-like tensor set
with healthy statistics, then overridden (see `checkpoint` below).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from traindoc.model import Event, Fact, Run, Series


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
        period = float(wave["period"])
        if wave.get("shape") == "saw":  # -amp -> +amp over each period, then back at once
            y = y + float(wave["amp"]) * (2 * (idx % period) / max(period - 1, 1) - 1)
        else:
            y = y + float(wave["amp"]) * np.sin(2 * np.pi * idx / period)
    return y


def series(name: str, spec: dict[str, Any]) -> Series:
    values = np.concatenate([segment(s) for s in spec["segments"]])
    n = values.size
    start, every = int(spec.get("start", 1)), int(spec.get("every", 1))
    steps = start + every * np.arange(n)
    if "steps" in spec:  # explicit steps: an excerpt with a gap (epoch 12, then 95-100)
        steps = np.asarray(spec["steps"], dtype=np.int64)
        assert steps.size == n, f"{name}: {steps.size} steps for {n} values"
    rng = np.random.default_rng(int(spec.get("seed", 0)))
    if spec.get("noise"):
        values = values + rng.normal(0, float(spec["noise"]), n)
    if spec.get("noise_rel"):
        values = values * (1 + rng.normal(0, float(spec["noise_rel"]), n))
    if spec.get("running_mean"):  # the mean of the last W values (kohya's avr_loss)
        w = int(spec["running_mean"])
        c = np.concatenate([[0.0], np.cumsum(values)])
        i = np.arange(1, n + 1)
        lo = np.maximum(0, i - w)
        values = (c[i] - c[lo]) / (i - lo)
    if spec.get("decimals") is not None:  # a logger that prints N decimals (Lightning's bar: 3)
        values = np.round(values, int(spec["decimals"]))
    for step, v in (spec.get("set") or {}).items():
        values[np.flatnonzero(steps == int(step))] = float(v)
    times = None
    if spec.get("times"):
        t = spec["times"]
        dt = np.full(n, float(t.get("every", 1.0)))
        if t.get("dts"):  # per-interval seconds, as segments (a run that slows down)
            dt = np.concatenate([segment(s) for s in t["dts"]])[:n]
        if t.get("gap_before_last"):
            dt[-1] = float(t["gap_before_last"])
        times = 1_700_000_000.0 + np.cumsum(dt)
        if t.get("whole_seconds"):  # a console's "10:00:01" stamps
            times = np.floor(times)
    # the reader's "<file>: <key as the log spelled it>"
    return Series.from_arrays(name, steps, values, times, source=spec.get("source", "synthetic"))


def build_run(case: dict[str, Any]) -> Run:
    ser = {name: series(name, spec) for name, spec in (case.get("series") or {}).items()}
    facts = {k: Fact(v, "case file") for k, v in (case.get("facts") or {}).items()}
    cks = tuple(checkpoint(c) for c in case.get("checkpoints") or ())
    events = tuple(event(e) for spec in case.get("events") or () for e in _repeat(spec))
    data = None
    if case.get("data") is not None:
        from traindoc.model.data import DataSummary

        data = DataSummary.from_dict(case["data"])
    return Run(
        name=case.get("name", "case"),
        series=ser,
        facts=facts,
        checkpoints=cks,
        events=events,
        data=data,
    )


def _repeat(spec: dict[str, Any]) -> list[dict[str, Any]]:
    spec = dict(spec)
    n, every = int(spec.pop("repeat", 1)), int(spec.pop("every", 1))
    step = spec.get("step")
    return [spec if step is None else {**spec, "step": int(step) + i * every} for i in range(n)]


def event(spec: dict[str, Any]) -> Event:
    return Event(**{"text": spec.get("kind", ""), **spec})


def checkpoint(spec: dict[str, Any]) -> Any:
    """A CheckpointSummary from a compact description:

    - name: best            # "best" in the name labels it best (labelled_best: name)
      step: 40              # optional; metric, metric_name, labelled_best, at_start too
      model: {layers: 2, hidden: 16, vocab: 256, dtype: BF16}   # GPT-2 names
      lora: {layers: 2, r: 4}   # an adapter instead of a model (lora_B non-zero)
      frozen: [h.0.]        # tensors whose name contains these keep step-0 values
      set:                  # per-tensor overrides: std, mean, nan, inf, zeros (fraction)
        lm_head.weight: {std: 13.87}
      config: {tie_word_embeddings: true}
      add: {classifier.weight: [2, 16]}   # extra tensors (other architectures' names)
      drop: [lm_head.weight]              # tensors this checkpoint does not hold
    """
    from traindoc.model.checkpoint import CheckpointSummary, TensorStats
    from traindoc.model.roles import classify

    m = {"layers": 2, "hidden": 16, "vocab": 256, "dtype": "F32", **(spec.get("model") or {})}
    layers, d, v = int(m["layers"]), int(m["hidden"]), int(m["vocab"])
    shapes: dict[str, tuple[int, ...]] = {}
    if "lora" in spec:
        lo = {"layers": layers, "r": 4, **(spec["lora"] or {})}
        for i in range(int(lo["layers"])):
            pre = f"base_model.model.transformer.h.{i}.attn.c_attn"
            shapes[f"{pre}.lora_A.weight"] = (int(lo["r"]), d)
            shapes[f"{pre}.lora_B.weight"] = (3 * d, int(lo["r"]))
    else:
        shapes["transformer.wte.weight"] = (v, d)
        shapes["transformer.wpe.weight"] = (32, d)
        for i in range(layers):
            h = f"transformer.h.{i}."
            for ln in ("ln_1", "ln_2"):
                shapes[h + ln + ".weight"] = (d,)
                shapes[h + ln + ".bias"] = (d,)
            shapes[h + "attn.c_attn.weight"] = (d, 3 * d)
            shapes[h + "attn.c_attn.bias"] = (3 * d,)
            shapes[h + "attn.c_proj.weight"] = (d, d)
            shapes[h + "mlp.c_fc.weight"] = (d, 4 * d)
            shapes[h + "mlp.c_proj.weight"] = (4 * d, d)
        shapes["transformer.ln_f.weight"] = (d,)
        shapes["lm_head.weight"] = (v, d)
    for name, shape in (spec.get("add") or {}).items():
        shapes[name] = tuple(int(x) for x in shape)
    for name in spec.get("drop") or ():
        shapes.pop(name, None)
    step = spec.get("step")
    frozen = tuple(spec.get("frozen") or ())
    overrides = spec.get("set") or {}
    tensors = []
    for k, (name, shape) in enumerate(shapes.items()):
        role, layer = classify(name)
        version = 0 if any(f in name for f in frozen) else int(step or 0)
        jitter = 1 + 0.01 * ((k * 7 + version * 13) % 17) / 17 + 0.001 * version
        if role == "norm" and name.endswith(".weight"):
            mean, std = 1.0, 0.01 * jitter
        elif role in ("bias", "norm"):
            mean, std = 0.0, 0.002 * jitter
        else:
            mean, std = 0.0, 0.02 * jitter
        o = dict(overrides.get(name) or {})
        mean, std = float(o.get("mean", mean)), float(o.get("std", std))
        n = int(np.prod(shape))
        zeros = round(float(o.get("zeros", 0.0)) * n)
        if zeros == n:
            mean = std = 0.0
        tensors.append(
            TensorStats(
                name=name,
                dtype=str(m["dtype"]),
                shape=tuple(shape),
                role=role,
                layer=layer,
                mean=mean,
                std=std,
                rms=float(np.hypot(mean, std)),
                min=mean - 4 * std,
                max=mean + 4 * std,
                absmax=abs(mean) + 4 * std,
                nan=int(o.get("nan", 0)),
                inf=int(o.get("inf", 0)),
                zeros=zeros,
                m2=std * std * n,
            )
        )
    name = str(spec.get("name", f"checkpoint-{step}"))
    return CheckpointSummary(
        path=f"/synthetic/{name}",
        name=name,
        format="peft-lora" if "lora" in spec else "safetensors",
        tensors=tuple(tensors),
        step=step,
        metric=spec.get("metric"),
        metric_name=spec.get("metric_name", "eval_loss" if "metric" in spec else None),
        labelled_best=spec.get("labelled_best", "name" if "best" in name.lower() else None),
        at_start=bool(spec.get("at_start", False)),
        adapter={"r": spec["lora"].get("r", 4) if spec["lora"] else 4} if "lora" in spec else None,
        config=spec.get("config") or {},
    )
