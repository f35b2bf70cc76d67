"""What "normal" means for a tensor of a given role, shared by the checkpoint rules."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from traindoc.model import Run
from traindoc.model.checkpoint import CheckpointSummary, TensorStats

# Roles whose tensors are weight matrices initialised around zero.
MATRIX_ROLES = ("attn_q", "attn_k", "attn_v", "attn_qkv", "attn_o", "mlp_in", "mlp_out",
                "lm_head", "other", "lora_a", "lora_b")  # fmt: skip
EMBED_ROLES = ("embed", "pos_embed")


def checkpoints(run: Run) -> tuple[CheckpointSummary, ...]:
    return tuple(c for c in run.checkpoints if isinstance(c, CheckpointSummary))


def expected_scale(t: TensorStats) -> float | None:
    """An upper bound on the tensor's RMS at any common initialisation (None: no opinion).

    Linear weights: GPT-2/BERT/LLaMA init at std 0.02, torch's default at
    ~1/sqrt(3 fan_in); max(0.02, 1/sqrt(smaller dim)) covers both. Embeddings:
    torch's nn.Embedding draws N(0, 1). Norm weights sit at 1. Biases start at 0,
    so 1.0 is already generous.
    """
    if not t.read or t.role == "buffer":
        return None
    if t.role in EMBED_ROLES:
        return 1.0
    if t.role in ("norm", "bias"):
        return 1.0
    if t.is_matrix:
        return max(0.02, 1.0 / math.sqrt(min(t.shape[-2:])))
    return None


@dataclass(frozen=True)
class Exploded:
    tensor: TensorStats
    expected: float
    siblings_rms: float | None
    ratio_init: float
    ratio_siblings: float | None


def exploded(ckpt: CheckpointSummary, ratio: float, ratio_alone: float) -> Iterator[Exploded]:
    """Tensors whose RMS is `ratio`x above both their init bound and their siblings'
    median, or `ratio_alone`x above the init bound whatever the siblings say."""
    read = [t for t in ckpt.tensors if t.read and math.isfinite(t.rms)]
    for t in read:
        exp = expected_scale(t)
        if exp is None or t.rms < ratio * exp:
            continue
        sib = _siblings(t, read)
        sib_rms = median(s.rms for s in sib) if sib else None
        r_sib = t.rms / sib_rms if sib_rms else None
        if t.rms >= ratio_alone * exp or (r_sib is not None and r_sib >= ratio):
            yield Exploded(t, exp, sib_rms, t.rms / exp, r_sib)


def _siblings(t: TensorStats, read: list[TensorStats]) -> list[TensorStats]:
    """Same role in other layers; for one-off tensors (lm_head), the other weight matrices."""
    same = [s for s in read if s.role == t.role and s.name != t.name and s.rms > 0]
    if len(same) >= 2:
        return same
    return [
        s for s in read
        if s.name != t.name and s.rms > 0 and (s.role in MATRIX_ROLES or s.role in EMBED_ROLES)
        and s.is_matrix
    ]  # fmt: skip


def nonfinite(ckpt: CheckpointSummary) -> list[TensorStats]:
    return [t for t in ckpt.tensors if t.nonfinite]


def zeroed(ckpt: CheckpointSummary) -> list[TensorStats]:
    """All-zero tensors that a trained (or freshly initialised) model never has."""
    out = []
    for t in ckpt.tensors:
        if not t.read or t.numel < 2 or t.zero_frac < 1.0:
            continue
        if t.role in ("bias", "buffer", "lora_b") or t.name.endswith(".bias"):
            continue
        if t.is_matrix or t.role == "norm":
            out.append(t)
    return out


def at_start(run: Run, ckpt: CheckpointSummary) -> bool:
    """Did the run start from this checkpoint (by its name, step 0, or the base_model fact)?"""
    if ckpt.at_start:
        return True
    base = run.fact("base_model")
    if not base:
        return False
    b = Path(str(base))
    return b.name == ckpt.name or str(b) in (ckpt.path, str(Path(ckpt.path).parent))


def where(t: TensorStats) -> str:
    return t.name if t.layer is None else f"{t.name} (block {t.layer})"


def names(ts: list[TensorStats], n: int = 5) -> str:
    head = ", ".join(t.name for t in ts[:n])
    return head + (f" and {len(ts) - n} more" if len(ts) > n else "")
