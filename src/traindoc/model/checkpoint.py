"""Checkpoint summaries: per-tensor statistics, grouped by role and layer. No I/O here.

`traindoc.ckpt` streams a checkpoint's tensors once and fills these; the
checkpoint rules read only them, never the files. A summary is small (a few
hundred bytes per tensor) whatever the size of the model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Roles a tensor name maps to (traindoc.model.roles). "bias" is the bias of a
# linear layer (zero at init, so never "exploded" or "zero" by itself).
ROLES = (
    "embed",
    "pos_embed",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_qkv",
    "attn_o",
    "mlp_in",
    "mlp_out",
    "norm",
    "lm_head",
    "bias",
    "lora_a",
    "lora_b",
    "buffer",
    "other",
)

FLOAT_DTYPES = ("F64", "F32", "F16", "BF16")


@dataclass(frozen=True)
class TensorStats:
    """One tensor's statistics. Moments are over the finite values only.

    `mean`, `std`, `rms`, `min`, `max` and `absmax` are NaN when the tensor has
    no finite value or was not read (an integer / fp8 tensor: see `note`).
    `m2` (sum of squared deviations) is kept so identical tensors give
    identical summaries, which is how two checkpoints are compared without
    reopening them.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    role: str = "other"
    layer: int | None = None
    mean: float = math.nan
    std: float = math.nan
    rms: float = math.nan
    min: float = math.nan
    max: float = math.nan
    absmax: float = math.nan
    nan: int = 0
    inf: int = 0
    zeros: int = 0
    m2: float = math.nan
    note: str = ""

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_SIZE.get(self.dtype, 1)

    @property
    def read(self) -> bool:
        """Whether statistics were computed (float dtype, not skipped)."""
        return self.dtype in FLOAT_DTYPES and not self.note

    @property
    def nonfinite(self) -> int:
        return self.nan + self.inf

    @property
    def zero_frac(self) -> float:
        n = self.numel
        return self.zeros / n if n else 0.0

    @property
    def is_matrix(self) -> bool:
        return len(self.shape) >= 2 and self.numel > 1

    def fingerprint(self) -> tuple:
        """Equal for byte-identical tensors; different (in practice) after any update."""
        return (
            self.dtype,
            self.shape,
            self.mean,
            self.m2,
            self.min,
            self.max,
            self.nan,
            self.zeros,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "role": self.role,
            "layer": self.layer,
        }
        for k in ("mean", "std", "rms", "min", "max", "absmax"):
            v = getattr(self, k)
            out[k] = None if math.isnan(v) else v
        out.update(nan=self.nan, inf=self.inf, zero_frac=self.zero_frac)
        if self.note:
            out["note"] = self.note
        return out


DTYPE_SIZE = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U64": 8,
    "U32": 4,
    "U16": 2,
    "U8": 1,
    "BOOL": 1,
    "F8_E4M3": 1,
    "F8_E4M3FNUZ": 1,
    "F8_E5M2": 1,
    "F8_E5M2FNUZ": 1,
    "C64": 8,
}


@dataclass(frozen=True)
class RoleGroup:
    """Tensors of one role in one layer (layer None: not in a numbered block)."""

    role: str
    layer: int | None
    tensors: tuple[str, ...]
    numel: int
    rms: float  # over all finite values of the group
    max_std: float
    nonfinite: int


@dataclass(frozen=True)
class CheckpointSummary:
    """What a checkpoint holds, as statistics.

    `name` is the directory (or file) name the user sees ("checkpoint-500",
    "best"); `labelled_best` says why the checkpoint is called best, if it is
    ("name" or "best_model_checkpoint"). `metric` is the evaluation metric
    recorded for its step (`metric_name`, lower is better unless
    `greater_is_better`). `at_start` marks a checkpoint a run started from.
    `config` keeps the few config.json keys the rules use.
    """

    path: str
    name: str
    format: str  # safetensors | safetensors-sharded | torch-zip | peft-lora
    tensors: tuple[TensorStats, ...] = ()
    notes: tuple[str, ...] = ()
    step: int | None = None
    metric: float | None = None
    metric_name: str | None = None
    greater_is_better: bool = False
    labelled_best: str | None = None
    at_start: bool = False
    adapter: Mapping[str, Any] | None = None  # r, lora_alpha, target_modules, ...
    config: Mapping[str, Any] = field(default_factory=dict)
    nbytes: int = 0
    seconds: float = 0.0

    def tensor(self, name: str) -> TensorStats | None:
        for t in self.tensors:
            if t.name == name:
                return t
        return None

    def by_role(self, role: str) -> tuple[TensorStats, ...]:
        return tuple(t for t in self.tensors if t.role == role)

    @property
    def is_adapter(self) -> bool:
        return self.adapter is not None or any(t.role in ("lora_a", "lora_b") for t in self.tensors)

    def groups(self) -> tuple[RoleGroup, ...]:
        """Per (role, layer): pooled RMS, largest std, non-finite count."""
        acc: dict[tuple[str, int | None], list[TensorStats]] = {}
        for t in self.tensors:
            acc.setdefault((t.role, t.layer), []).append(t)
        out = []
        for (role, layer), ts in acc.items():
            read = [t for t in ts if t.read and not math.isnan(t.rms)]
            n = sum(t.numel - t.nonfinite for t in read)
            ss = sum(t.rms**2 * (t.numel - t.nonfinite) for t in read)
            out.append(
                RoleGroup(
                    role,
                    layer,
                    tuple(t.name for t in ts),
                    sum(t.numel for t in ts),
                    math.sqrt(ss / n) if n else math.nan,
                    max((t.std for t in read), default=math.nan),
                    sum(t.nonfinite for t in ts),
                )
            )
        return tuple(sorted(out, key=lambda g: (g.layer if g.layer is not None else -1, g.role)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "format": self.format,
            "step": self.step,
            "metric": self.metric,
            "metric_name": self.metric_name,
            "labelled_best": self.labelled_best,
            "at_start": self.at_start,
            "adapter": dict(self.adapter) if self.adapter is not None else None,
            "nbytes": self.nbytes,
            "seconds": round(self.seconds, 4),
            "notes": list(self.notes),
            "tensors": [t.to_dict() for t in self.tensors],
        }
