"""Peak training memory: an estimate from the config and the model, and a GPU table.

The estimate adds up, in GiB (2^30 bytes):

- weights: params x bytes of the load dtype (fp32 4, bf16/fp16 2; 4-bit
  NF4 with double quantisation ~0.53 bytes: 4 bits + ~0.127 bits of constants,
  QLoRA paper). Mixed precision over fp32 weights adds the half-precision copy
  autocast keeps for the backward pass (2 bytes/param): HF's "model training
  anatomy" counts 6 bytes/param for mixed precision.
- gradients: trainable params x 4 (fp32 weights, or mixed precision: gradients
  follow the fp32 weights) or x 2 for weights loaded in bf16/fp16;
- optimizer states: trainable params x 8 (AdamW: two fp32 moments), 2 for
  8-bit Adam (bitsandbytes, one byte per moment), 4 for SGD with momentum,
  ~0.1 for Adafactor (factored second moment), 8 bytes x 0.5 for pure-bf16 AdamW
  (moments in the parameter dtype);
- activations per layer, per token of the micro-batch: 34 x hidden bytes with
  flash/SDPA attention in 16-bit (Korthikanti et al. 2022, "Reducing Activation
  Recomputation in Large Transformer Models", s·b·h·34 without the 5·a·s/h
  attention-score term that fused attention does not store), scaled by
  intermediate / (4 x hidden) for the MLP part (LLaMA's 2.7x SwiGLU) and x2 in
  fp32. With gradient checkpointing only each layer's input (2 x hidden bytes per
  token) is kept, plus one layer's full activations during recomputation;
- logits: micro-batch x seq x V x 16 bytes (the logits, the fp32 log-softmax the
  loss keeps, and both gradients): for LLaMA-3's 128k vocabulary this is often
  the single largest activation;
- a fixed 1 GiB for the CUDA context, cuBLAS workspaces and allocator slack
  (not in torch.cuda.max_memory_allocated, but it is in nvidia-smi).

LoRA/QLoRA: base weights frozen (no gradients, no optimizer states); the
adapters (r x (in + out) per targeted linear, q/k/v/o of every layer unless a
count is known) train in fp32: 16 bytes per trainable parameter.
DeepSpeed/FSDP sharding is not modelled: the estimate is per device without it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from traindoc.model.numbers import count

GIB = float(1 << 30)
OVERHEAD_GIB = 1.0

# name -> (memory GiB as the device reports it, bf16 support). Order: most
# specific first, so "a100 80" is matched before "a100". Sources: vendor spec
# sheets (memory size, and bf16 from Ampere / CDNA2 / TPU on).
GPUS: tuple[tuple[str, float, bool], ...] = (
    ("h200", 141.0, True),
    ("h100 nvl", 94.0, True),
    ("h100", 80.0, True),
    ("gh200", 96.0, True),
    ("b200", 180.0, True),
    ("a100 40", 40.0, True),
    ("a100", 80.0, True),
    ("a800", 80.0, True),
    ("a6000", 48.0, True),
    ("a40", 48.0, True),
    ("l40", 48.0, True),
    ("a10g", 24.0, True),
    ("a10", 24.0, True),
    ("l4", 24.0, True),
    ("a5000", 24.0, True),
    ("a4000", 16.0, True),
    ("rtx 5090", 32.0, True),
    ("rtx 4090", 24.0, True),
    ("rtx 4080", 16.0, True),
    ("rtx 4070", 12.0, True),
    ("rtx 4060", 8.0, True),
    ("rtx 3090", 24.0, True),
    ("rtx 3080", 10.0, True),
    ("rtx 3060", 12.0, True),
    ("rtx 2080 ti", 11.0, False),
    ("rtx 2080", 8.0, False),
    ("titan rtx", 24.0, False),
    ("v100 16", 16.0, False),
    ("v100", 32.0, False),
    ("t4", 16.0, False),
    ("p100", 16.0, False),
    ("mi300x", 192.0, True),
    ("mi250", 128.0, True),
    ("tpu v5e", 16.0, True),
    ("tpu v4", 32.0, True),
)


@dataclass(frozen=True)
class Gpu:
    name: str
    gib: float
    bf16: bool | None  # None: a bare size (--gpu-mem), support unknown


def gpu_by_name(name: str) -> Gpu:
    """The table's entry for a GPU name ("A100-80GB", "rtx4090", "T4"). Raises ValueError."""
    key = re.sub(r"[-_]+", " ", name.lower()).replace("geforce", "").replace("nvidia", "")
    key = re.sub(r"(rtx|tpu)\s*(\w)", r"\1 \2", key).replace("gb", "").strip()
    for entry, gib, bf16 in GPUS:
        if all(part in key.split() or part in key for part in entry.split()):
            return Gpu(entry.upper(), gib, bf16)
    valid = ", ".join(e for e, _, _ in GPUS)
    raise ValueError(f"unknown GPU {name!r}; known: {valid} (or give --gpu-mem 24GB)")


def parse_size(text: str) -> float:
    """ "24GB", "24G", "24GiB", "80" -> GiB (GB read as GiB: how GPUs are sold and shown)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(gib|gb|g|mib|mb|m)?\s*", text.lower())
    if not m:
        raise ValueError(f"cannot read memory size {text!r}; write e.g. 24GB or 80GiB")
    value, unit = float(m.group(1)), m.group(2) or "gb"
    return value / 1024 if unit.startswith("m") else value


@dataclass(frozen=True)
class Setup:
    """Everything the estimate depends on; one field per knob a fix can turn."""

    n_params: int
    hidden: int
    layers: int
    vocab: int
    intermediate: int | None = None
    seq_len: int = 2048
    micro_batch: int = 1
    weights_dtype: str = "fp32"  # dtype the weights are loaded in: fp32 | bf16 | fp16 | 4bit | 8bit
    precision: str = "fp32"  # compute: fp32 | bf16 | fp16 (autocast over fp32 weights)
    optim: str = "adamw"
    grad_ckpt: bool = False
    lora_r: int | None = None  # None: full training
    lora_params: int | None = None


_OPT_BYTES = {"adamw": 8.0, "adam8bit": 2.0, "sgd": 4.0, "adafactor": 0.1, "none": 0.0}
_DTYPE_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "8bit": 1.06, "4bit": 0.53}


def optim_kind(name: str | None) -> str:
    n = (name or "adamw").lower()
    if "8bit" in n or "8_bit" in n or "bnb" in n:
        return "adam8bit"
    if "adafactor" in n:
        return "adafactor"
    if "sgd" in n:
        return "sgd"
    return "adamw"


def trainable(s: Setup) -> int:
    if s.lora_r is None:
        return s.n_params
    if s.lora_params:
        return s.lora_params
    return s.lora_r * s.layers * 4 * (2 * s.hidden)  # q, k, v, o: r x (in + out) each


def estimate(s: Setup) -> dict[str, float]:
    """Peak memory by component, in GiB, plus "total"."""
    w_bytes = _DTYPE_BYTES.get(s.weights_dtype, 4.0)
    weights = s.n_params * w_bytes
    mixed = s.weights_dtype == "fp32" and s.precision in ("bf16", "fp16")
    if mixed:
        weights += trainable(s) * 2.0 if s.lora_r is None else 0.0
    train = trainable(s)
    if s.lora_r is None:
        g_bytes = 4.0 if s.weights_dtype == "fp32" else 2.0
        o_bytes = _OPT_BYTES[s.optim] * (1.0 if s.weights_dtype == "fp32" else 0.5)
        if s.optim == "adam8bit":
            o_bytes = 2.0
    else:  # adapters train in fp32 whatever the base
        g_bytes, o_bytes = 4.0, _OPT_BYTES[s.optim]
        weights += train * 4.0
    grads = train * g_bytes
    optim = train * o_bytes
    act_bytes = 2.0 if s.precision in ("bf16", "fp16") else 4.0
    mlp_scale = (s.intermediate / (4 * s.hidden)) if s.intermediate else 1.0
    tokens = s.seq_len * s.micro_batch
    per_layer = tokens * s.hidden * 17.0 * (1 + mlp_scale) * act_bytes / 2.0
    if s.grad_ckpt:
        acts = tokens * s.hidden * act_bytes * s.layers + per_layer
    else:
        acts = per_layer * s.layers
    logits = tokens * s.vocab * 16.0
    parts = {
        "weights": weights / GIB,
        "gradients": grads / GIB,
        "optimizer": optim / GIB,
        "activations": acts / GIB,
        "logits": logits / GIB,
        "overhead": OVERHEAD_GIB,
    }
    parts["total"] = sum(parts.values())
    return {k: round(v, 3) for k, v in parts.items()}


def fixes(s: Setup, budget_gib: float, bf16_ok: bool | None) -> list[dict[str, Any]]:
    """Changes that lower the peak, cheapest first (least effect on the training itself).

    Each entry: fix, total GiB after it, fits. Cheapness order: checkpointing
    costs ~30% speed only; 8-bit Adam is near-lossless; a smaller micro-batch
    with more accumulation keeps the effective batch; shorter sequences change
    the data; LoRA / QLoRA change what is trained.
    """
    steps: list[tuple[str, Setup]] = []
    done: list[str] = []  # each fix is applied on top of the ones before it

    def add(label: str, setup: Setup, keep: bool = True) -> None:
        steps.append((" + ".join([*done, label]), setup))
        if keep:
            done.append(label)

    cur = s
    if not cur.grad_ckpt:
        cur = replace(cur, grad_ckpt=True)
        add("gradient checkpointing", cur)
    if cur.optim == "adamw" and cur.lora_r is None:
        cur = replace(cur, optim="adam8bit")
        add("an 8-bit optimizer (optim=adamw_bnb_8bit)", cur)
    if cur.weights_dtype == "fp32" and cur.lora_r is None and bf16_ok is not False:
        cur = replace(cur, weights_dtype="bf16", precision="bf16")
        add("bf16 weights (pure bf16 training)", cur)
    if cur.micro_batch > 1:
        n = cur.micro_batch
        cur = replace(cur, micro_batch=1)
        add(f"micro-batch 1 with {n}x the gradient accumulation", cur)
    if cur.lora_r is None:
        half = "bf16" if bf16_ok is not False else "fp16"
        lora = replace(cur, lora_r=16, weights_dtype=half, precision=half, optim="adamw")
        add("LoRA (r=16) on the frozen base instead of full training", lora, keep=False)
        add("QLoRA (LoRA over a 4-bit base)", replace(lora, weights_dtype="4bit"), keep=False)
    elif cur.weights_dtype != "4bit":
        cur = replace(cur, weights_dtype="4bit")
        add("QLoRA (a 4-bit base)", cur)
    if cur.seq_len > 512:
        add(f"sequences of {cur.seq_len // 2} tokens", replace(cur, seq_len=cur.seq_len // 2))
    out = []
    for name, setup in steps:
        total = estimate(setup)["total"]
        out.append({"fix": name, "total_gib": total, "fits": total <= budget_gib})
    return out


def setup_from(facts: dict[str, Any], model_cfg: dict[str, Any], n_params: int) -> Setup | None:
    """A Setup from plain fact values and the model's config.json; None when too little is known."""

    def g(key: str) -> int | None:  # a size: a positive integer, or nothing (a dict, 1e309)
        return count(model_cfg.get(key), 1, 2**40)

    hidden = g("hidden_size") or g("n_embd") or g("d_model")
    layers = g("num_hidden_layers") or g("n_layer") or g("num_layers")
    vocab = g("vocab_size") or count(facts.get("vocab_size"), 1, 2**40)
    if not all(isinstance(x, int) and x > 0 for x in (hidden, layers, vocab)):
        return None
    precision = str(facts.get("precision") or "fp32")
    quant = str(facts.get("quantization") or "")
    detail = str(facts.get("regime_detail") or "")
    lora = detail in ("lora", "qlora") or facts.get("adapter") is not None
    load = str(facts.get("model_dtype") or "")
    if "4" in quant or detail == "qlora":
        wdt = "4bit"
    elif "8" in quant:
        wdt = "8bit"
    elif lora:  # tools load a frozen base in the compute dtype
        wdt = precision if precision in ("bf16", "fp16") else (_dtype(load) or "fp32")
    else:
        # HF Trainer keeps the weights in the dtype they were loaded in; a mixed-precision
        # run over an fp32 load is the classic 16-18 bytes/param setup.
        wdt = _dtype(str(facts.get("load_dtype") or "")) or "fp32"
    seq = count(facts.get("max_seq_len"), 1) or g("n_positions") or g("max_position_embeddings")
    seq = seq or 2048
    seq = min(seq, 1 << 20)
    r = facts.get("lora_r")
    return Setup(
        n_params=n_params,
        hidden=hidden,
        layers=layers,
        vocab=vocab,
        intermediate=g("intermediate_size") or g("n_inner"),
        seq_len=seq,
        micro_batch=count(facts.get("per_device_batch"), 1, 2**31) or 1,
        weights_dtype=wdt,
        precision=precision if precision in ("bf16", "fp16") else "fp32",
        optim=optim_kind(facts.get("optim")),
        grad_ckpt=bool(facts.get("gradient_checkpointing")),
        lora_r=(count(r, 1, 2**20) or 8) if lora else None,
    )


def _dtype(text: str) -> str | None:
    t = text.lower().removeprefix("torch.")
    return {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}.get(t) or (
        t if t in _DTYPE_BYTES else None
    )


def bytes_per_param(s: Setup) -> float:
    """Model-state bytes per parameter (weights + grads + optimizer), for the docs' checks."""
    e = estimate(s)
    return (
        (e["weights"] + e["gradients"] + e["optimizer"]) * GIB / s.n_params
        if s.n_params
        else math.nan
    )
