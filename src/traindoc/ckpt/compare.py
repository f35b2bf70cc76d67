"""`traindoc ckpt A --against B`: what changed between two checkpoints of one model.

Per tensor: relative update ||B - A|| / ||A||, whether it is bit-identical
(frozen), and how its scale moved; then the same per role and block. Both
files are streamed side by side in chunks, so memory stays bounded.
"""

from __future__ import annotations

import math
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from traindoc.ckpt.api import _plan, summarize_checkpoint
from traindoc.ckpt.stats import CHUNK, NUMPY_DTYPE, Entry
from traindoc.model.checkpoint import CheckpointSummary, TensorStats

# A tensor whose RMS grew this much between the two checkpoints "exploded in between".
GROWTH = 10.0


@dataclass(frozen=True)
class TensorDelta:
    name: str
    role: str
    layer: int | None
    rel_update: float  # ||B - A|| / ||A|| (inf when A is all zero and B is not)
    identical: bool
    rms_a: float
    rms_b: float

    @property
    def growth(self) -> float:
        return self.rms_b / self.rms_a if self.rms_a else math.inf


@dataclass(frozen=True)
class GroupDelta:
    role: str
    layer: int | None
    tensors: int
    rel_update: float
    frozen: int  # identical tensors in the group


@dataclass(frozen=True)
class Comparison:
    a: CheckpointSummary
    b: CheckpointSummary
    tensors: tuple[TensorDelta, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]

    @property
    def frozen(self) -> tuple[TensorDelta, ...]:
        return tuple(t for t in self.tensors if t.identical)

    @property
    def exploded(self) -> tuple[TensorDelta, ...]:
        """Tensors whose scale grew GROWTH-fold (or went non-finite) from A to B."""
        bad_b = {t.name for t in self.b.tensors if t.nonfinite}
        return tuple(t for t in self.tensors if t.growth >= GROWTH or t.name in bad_b)

    def groups(self) -> tuple[GroupDelta, ...]:
        acc: dict[tuple[str, int | None], list[TensorDelta]] = {}
        for t in self.tensors:
            acc.setdefault((t.role, t.layer), []).append(t)
        out = []
        sizes = {t.name: t.numel for t in self.a.tensors}
        for (role, layer), ts in acc.items():
            num = sum(
                (t.rel_update * t.rms_a) ** 2 * sizes[t.name]
                for t in ts
                if math.isfinite(t.rel_update)
            )
            den = sum(t.rms_a**2 * sizes[t.name] for t in ts)
            rel = math.sqrt(num / den) if den else math.nan
            out.append(GroupDelta(role, layer, len(ts), rel, sum(t.identical for t in ts)))
        return tuple(sorted(out, key=lambda g: (g.layer if g.layer is not None else -1, g.role)))

    def to_dict(self) -> dict:
        return {
            "a": self.a.name,
            "b": self.b.name,
            "steps": [self.a.step, self.b.step],
            "groups": [g.__dict__ for g in self.groups()],
            "frozen": [t.name for t in self.frozen],
            "exploded": [
                {"tensor": t.name, "rms_a": t.rms_a, "rms_b": t.rms_b, "growth": t.growth}
                for t in self.exploded
            ],
            "only_in_a": list(self.only_in_a),
            "only_in_b": list(self.only_in_b),
            "tensors": [t.__dict__ for t in self.tensors],
        }


def compare(a: str | Path, b: str | Path) -> Comparison:
    """Compare two checkpoints (files or checkpoint dirs) tensor by tensor."""
    sa, sb = summarize_checkpoint(a, workers=1), summarize_checkpoint(b, workers=1)
    ea, eb = _entries(Path(sa.path)), _entries(Path(sb.path))
    stats_a = {t.name: t for t in sa.tensors}
    stats_b = {t.name: t for t in sb.tensors}
    deltas = []
    for name, (pa, xa) in ea.items():
        if name not in eb:
            continue
        pb, xb = eb[name]
        ta, tb = stats_a[name], stats_b[name]
        if xa.shape != xb.shape or xa.dtype not in NUMPY_DTYPE or xb.dtype not in NUMPY_DTYPE:
            continue
        same, sq = _diff(pa, xa, pb, xb)
        na = ta.rms * math.sqrt(ta.numel - ta.nonfinite) if ta.read else math.nan
        rel = 0.0 if same else (math.sqrt(sq) / na if na else math.inf)
        deltas.append(TensorDelta(name, ta.role, ta.layer, rel, same, ta.rms, tb.rms))
    return Comparison(
        sa,
        sb,
        tuple(deltas),
        tuple(sorted(set(ea) - set(eb))),
        tuple(sorted(set(eb) - set(ea))),
    )


def _entries(p: Path) -> dict[str, tuple[str, Entry]]:
    from traindoc.ckpt import peft
    from traindoc.ckpt.api import WEIGHT_NAMES

    if p.is_dir():
        if peft.is_adapter_dir(p):
            p = peft.weights_file(p)
        else:
            p = next(p / w for w in WEIGHT_NAMES if (p / w).is_file())
    _, jobs, _ = _plan(p)
    return {e.name: (path, e) for path, es in jobs for e in es}


def _diff(pa: str, ea: Entry, pb: str, eb: Entry) -> tuple[bool, float]:
    """(bit-identical, sum of squared differences over finite pairs)."""
    with open(pa, "rb") as fa, open(pb, "rb") as fb:
        ma = mmap.mmap(fa.fileno(), 0, access=mmap.ACCESS_READ)
        mb = mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            same, sq = True, 0.0
            for ra, rb in _chunks(ma, ea, mb, eb):
                if same and np.array_equal(ra.view(np.uint8), rb.view(np.uint8)):
                    continue
                same = False
                d = _f32(rb, eb.dtype) - _f32(ra, ea.dtype)
                d = d[np.isfinite(d)]
                sq += float(np.dot(d, d))
                del d
            return same, sq
        finally:
            import contextlib

            with contextlib.suppress(BufferError):
                ma.close()
                mb.close()


def _chunks(
    ma: mmap.mmap, ea: Entry, mb: mmap.mmap, eb: Entry
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    xa = np.frombuffer(ma, np.uint8, ea.end - ea.begin, ea.begin).view(NUMPY_DTYPE[ea.dtype])
    xb = np.frombuffer(mb, np.uint8, eb.end - eb.begin, eb.begin).view(NUMPY_DTYPE[eb.dtype])
    for i in range(0, xa.size, CHUNK):
        yield xa[i : i + CHUNK], xb[i : i + CHUNK]


def _f32(raw: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "BF16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float32 if dtype != "F64" else np.float64)


def tensor_changes(c: Comparison) -> list[TensorStats]:
    """The B-side statistics of tensors that exploded in between (for reports)."""
    names = {t.name for t in c.exploded}
    return [t for t in c.b.tensors if t.name in names]
