"""Perturbation audit of the healthy DEV runs: each one re-diagnosed as the other logs
a user of that same healthy run could equally have handed us.

A rule tuned on the corpus holds at the length, logging interval and set of series the
cases happen to have. A healthy run stays healthy when its log is cut short, logged more
sparsely, averaged per epoch, resumed part-way, or when only its train (or only its eval)
curve was kept; a warning on such a variant is a false alarm waiting for the run that has
that shape. Prints, per variant and per rule, how many variants get a warning or error
(and how many of those the uncut log did not have). Only dev cases are read (`split` in
meta.json); the holdout stays unread.

    PYTHONPATH=src .venv/bin/python scripts/audit_healthy.py [--sample N] [--seed S] [-v]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from traindoc.corpus import real_cases, target
from traindoc.engine import diagnose
from traindoc.measure.metrics import is_train_name, task_metrics
from traindoc.model import Run, Series, Severity
from traindoc.pipeline import load_all

ROOT = Path(__file__).resolve().parents[1]
_EVAL_PREFIX = ("eval_", "val_", "valid_", "validation_", "test_", "eval/", "val/", "test/")
_TRAIN_SIDE = ("loss", "grad_norm")


def _span(run: Run) -> tuple[float, float] | None:
    steps = [s.steps for s in run.series.values() if len(s)]
    if not steps:
        return None
    allst = np.concatenate(steps)
    return float(allst.min()), float(allst.max())


def _window(run: Run, lo: float, hi: float) -> Run:
    """The run's series restricted to steps in [lo, hi] (a log cut or a resume)."""
    keep = {}
    for n, s in run.series.items():
        m = (s.steps >= lo) & (s.steps <= hi)
        if m.any():
            keep[n] = _take(s, m)
    return replace(run, series=keep)


def _take(s: Series, m: np.ndarray | slice) -> Series:
    times = s.times[m] if s.times is not None else None
    return replace(s, steps=s.steps[m], values=s.values[m], times=times)


def cut(frac: float) -> Callable[[Run], Run | None]:
    def f(run: Run) -> Run | None:
        span = _span(run)
        if span is None:
            return None
        lo, hi = span
        return _window(run, lo, lo + frac * (hi - lo))

    return f


def resumed(frac: float) -> Callable[[Run], Run | None]:
    def f(run: Run) -> Run | None:
        span = _span(run)
        if span is None:
            return None
        lo, hi = span
        return _window(run, lo + frac * (hi - lo) + 1e-9, hi)

    return f


def thin(k: int) -> Callable[[Run], Run | None]:
    """Every k-th point of each series long enough to keep a shape (a sparser interval)."""

    def f(run: Run) -> Run | None:
        keep = {
            n: s if len(s) < 2 * k + 6 else _take(s, slice(None, None, k))
            for n, s in run.series.items()
        }
        return replace(run, series=keep)

    return f


def epoch_means(run: Run) -> Run | None:
    """The per-batch train series replaced by their per-epoch means (logged at each
    epoch's last step), as a logger that prints one line per epoch would have them."""
    ep = run.get("epoch")
    loss = run.get("loss")
    if ep is None or loss is None:
        return None
    e = np.floor(np.interp(loss.steps, ep.steps, ep.values) + 1e-9)
    if len(np.unique(e)) < 3 or len(np.unique(e)) * 2 > len(loss):
        return None  # not per-batch, or under three epochs
    keep = dict(run.series)
    for n in _TRAIN_SIDE:
        s = run.get(n)
        if s is None:
            continue
        es = np.floor(np.interp(s.steps, ep.steps, ep.values) + 1e-9)
        steps, vals = [], []
        for u in np.unique(es):
            m = es == u
            v = s.values[m]
            steps.append(s.steps[m][-1])
            vals.append(float(np.mean(v)) if np.isfinite(v).all() else float("nan"))
        keep[n] = Series(s.name, np.asarray(steps), np.asarray(vals), None, s.source)
    return replace(run, series=keep)


def _is_loss(name: str) -> bool:
    """A loss value (not fp16's loss scale, which is no loss)."""
    low = name.lower()
    return ("loss" in low and "scale" not in low) or low in ("ppl", "perplexity")


def _on_losses(run: Run, fn: Callable[[Series], Series | None]) -> Run | None:
    keep, changed = dict(run.series), False
    for n, s in run.series.items():
        if _is_loss(n) and len(s) and (t := fn(s)) is not None:
            keep[n], changed = t, True
    return replace(run, series=keep) if changed else None


def scaled(c: float) -> Callable[[Run], Run | None]:
    """Every loss times a constant: a sum instead of a mean, a loss weight, a
    per-token loss summed over the sequence. The shape is the same healthy shape."""
    return lambda run: _on_losses(run, lambda s: replace(s, values=s.values * c))


def shifted(c: float) -> Callable[[Run], Run | None]:
    """Every loss plus a constant: a multi-term total with a flat term (a weight
    decay or KL term logged into the total), or (c < 0) a loss that lives below zero
    like a GAN's, an RL objective's or a contrastive bound's."""
    return lambda run: _on_losses(run, lambda s: replace(s, values=s.values + c))


def below_zero(run: Run) -> Run | None:
    """Every loss shifted so that its largest value is -1: same shape, all negative."""

    def f(s: Series) -> Series | None:
        fin = s.values[np.isfinite(s.values)]
        if not len(fin):
            return None
        return replace(s, values=s.values - float(fin.max()) - 1.0)

    return _on_losses(run, f)


def own_noise(seed: int) -> Callable[[Run], Run | None]:
    """Each loss plus a bootstrap of its own point-to-point residuals (the run as a
    second seed of it, or at a smaller batch, would have logged it)."""

    def f(s: Series) -> Series | None:
        v = s.values
        if len(v) < 8 or not np.isfinite(v).all():
            return None
        k = max(3, len(v) // 20) | 1
        pad = np.pad(v, k // 2, mode="edge")
        smooth = np.array([np.median(pad[i : i + k]) for i in range(len(v))])
        res = v - smooth
        rng = np.random.default_rng(seed + len(v))
        out = v + rng.choice(res, size=len(v))
        if (v > 0).all():
            out = np.maximum(out, 0.5 * v.min())
        return replace(s, values=out)

    return lambda run: _on_losses(run, f)


def head(n: int) -> Callable[[Run], Run | None]:
    """The first n points of every series (a log that ends early)."""

    def f(run: Run) -> Run | None:
        keep = {k: _take(s, slice(0, n)) for k, s in run.series.items() if len(s)}
        return replace(run, series=keep)

    return f


def resample(n: int) -> Callable[[Run], Run | None]:
    """n points of every series, evenly spaced over the run (a coarse logging interval
    over the whole run)."""

    def f(run: Run) -> Run | None:
        keep = {}
        for k, s in run.series.items():
            if len(s) > n:
                idx = np.unique(np.linspace(0, len(s) - 1, n).round().astype(int))
                keep[k] = _take(s, idx)
            elif len(s):
                keep[k] = s
        return replace(run, series=keep)

    return f


def lr_rounded(run: Run) -> Run | None:
    """The LR printed with 4 decimals, as many console loggers do: a 2e-5 LR reads 0."""
    s = run.get("lr")
    if s is None or not len(s):
        return None
    keep = dict(run.series)
    keep["lr"] = replace(s, values=np.round(s.values, 4))
    return replace(run, series=keep)


def multi_term(run: Run) -> Run | None:
    """The total loss logged as the sum of the run's loss and a second term with the
    same shape at a third of its size and its own lag (a detector's box + cls, a
    VAE's recon + KL): a healthy total of healthy terms."""

    def f(s: Series) -> Series | None:
        v = s.values
        if len(v) < 4:
            return None
        lag = max(1, len(v) // 10)
        other = np.concatenate([np.full(lag, v[0]), v[:-lag]])
        return replace(s, values=v + other / 3.0)

    return _on_losses(run, f)


def _is_eval(run: Run, name: str, evals: set[int]) -> bool:
    return name == "eval_loss" or name.startswith(_EVAL_PREFIX) or id(run.series[name]) in evals


def train_only(run: Run) -> Run | None:
    evals = {id(s) for s, _ in task_metrics(run)}
    keep = {n: s for n, s in run.series.items() if not _is_eval(run, n, evals)}
    return replace(run, series=keep) if len(keep) < len(run.series) and "loss" in keep else None


def eval_only(run: Run) -> Run | None:
    if run.get("eval_loss") is None and not task_metrics(run):
        return None
    keep = {n: s for n, s in run.series.items() if n not in _TRAIN_SIDE and not is_train_name(n)}
    return replace(run, series=keep)


VARIANTS: dict[str, Callable[[Run], Run | None]] = {
    "cut20": cut(0.2),
    "cut50": cut(0.5),
    "thin3": thin(3),
    "thin10": thin(10),
    "epoch_means": epoch_means,
    "train_only": train_only,
    "eval_only": eval_only,
    "resumed30": resumed(0.3),
    "first_third": cut(1 / 3),
    "last_third": resumed(2 / 3),
    "head5": head(5),
    "head10": head(10),
    "head20": head(20),
    "resample5": resample(5),
    "resample12": resample(12),
    "resample20": resample(20),
    "noise": own_noise(0),
    "x0.01": scaled(0.01),
    "x10": scaled(10.0),
    "x1000": scaled(1000.0),
    "plus5": shifted(5.0),
    "below_zero": below_zero,
    "lr_round4": lr_rounded,
    "multi_term": multi_term,
}


def _warned(runs: list[Run], least: Severity = Severity.WARNING) -> set[str]:
    return {
        f.rule + (" (error)" if f.severity >= Severity.ERROR else "")
        for r in runs
        for f in diagnose(r).findings
        if f.severity >= least
    }


def _healthy_dev() -> list[tuple[Path, dict]]:
    out = []
    for case in real_cases(ROOT / "tests/real"):
        meta = json.loads((case / "meta.json").read_text())
        if meta.get("split") != "dev" or meta.get("confidence") == "low":
            continue
        if tuple(meta.get("labels", ())) == ("healthy",):
            out.append((case, meta))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=0, help="audit a random N of the cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-v", action="store_true", help="list each warned variant")
    ap.add_argument("--only", default="", help="comma-separated variants")
    ap.add_argument("--errors", action="store_true", help="count errors only")
    a = ap.parse_args()
    cases = _healthy_dev()
    if a.sample:
        cases = random.Random(a.seed).sample(cases, min(a.sample, len(cases)))
    variants = {k: v for k, v in VARIANTS.items() if not a.only or k in a.only.split(",")}
    t0 = time.time()
    made: Counter[str] = Counter()
    warned: Counter[str] = Counter()
    by_rule: Counter[tuple[str, str]] = Counter()
    new_rule: Counter[str] = Counter()
    for case, meta in cases:
        try:
            runs = load_all(target(case, meta.get("files", [])), checkpoints=False)
        except Exception:
            continue
        least = Severity.ERROR if a.errors else Severity.WARNING
        base = _warned(runs, least)
        for vname, fn in variants.items():
            vr = [
                x
                for r in runs
                if (x := fn(r)) is not None and any(len(s) for s in x.series.values())
            ]
            if not vr:
                continue
            made[vname] += 1
            got = _warned(vr, least)
            if got:
                warned[vname] += 1
            for rule in got:
                by_rule[(vname, rule)] += 1
                if rule not in base:
                    new_rule[rule] += 1
            if a.v and got - base:
                print(f"  {vname:<12} {', '.join(sorted(got - base)):<40} {case.name}")
    print(f"{len(cases)} healthy dev cases, {time.time() - t0:.0f} s")
    print(f"{'variant':<12} {'made':>5} {'warned':>6}  rules")
    for vname in variants:
        rules = ", ".join(
            f"{r} {n}" for (v, r), n in sorted(by_rule.items(), key=lambda x: -x[1]) if v == vname
        )
        print(f"{vname:<12} {made[vname]:>5} {warned[vname]:>6}  {rules}")
    total = Counter()
    for (_, r), n in by_rule.items():
        total[r] += n
    print("per rule, variants warned (of them new vs the uncut log):")
    for r, n in total.most_common():
        print(f"  {r:<32} {n:>4} ({new_rule[r]} new)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
