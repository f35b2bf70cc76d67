"""What `traindoc preflight` diagnoses: a training setup, before GPU time is spent on it.

Builds a Run from facts only (config, flags, model, checkpoint statistics, the
resume checkpoint, the device, the data file and, with the torch extra, the
first-batch loss) and runs on it the same rules `diagnose` uses wherever they
can speak before a run, plus the preflight-only ones. The command that renders
it is traindoc.commands.preflight; unusable input is a UsageError (exit 2).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from traindoc.model import REGIMES, Fact, Input, Note, Run, Series
from traindoc.outcome import InputError
from traindoc.preflight import first_batch
from traindoc.preflight.config import read_config
from traindoc.preflight.dataset import data_facts
from traindoc.preflight.memory import estimate, fixes, gpu_by_name, parse_size, setup_from
from traindoc.preflight.regime import ModelInfo, infer_regime, read_model
from traindoc.preflight.resume import SAFE_COUNTERS, read_resume

# Registered rules that can speak from facts and checkpoint statistics alone.
RULE_IDS = (
    "lr-too-low",
    "lr-too-high",
    "warmup-too-long",
    "large-effective-batch",
    "linear-schedule",
    "total-steps-mismatch",
    "precision-suboptimal",
    "absurd-initial-loss",
    "exploded-weights",
    "nonfinite-weights",
    "zero-weights",
    "untrained-adapter",
    "memory-insufficient",
    "resume-step-mismatch",
)
# --flag name -> (fact, type): the key values, for when there is no config file.
FLAGS: dict[str, tuple[str, type]] = {
    "learning_rate": ("learning_rate", float),
    "per_device_batch": ("per_device_batch", int),
    "grad_accum": ("grad_accum", int),
    "devices": ("devices", int),
    "max_steps": ("max_steps", int),
    "epochs": ("num_train_epochs", float),
    "warmup_steps": ("warmup_steps", int),
    "warmup_ratio": ("warmup_ratio", float),
    "lr_scheduler": ("lr_scheduler", str),
    "precision": ("precision", str),
    "seq_len": ("max_seq_len", int),
    "gradient_checkpointing": ("gradient_checkpointing", bool),
    "optim": ("optim", str),
    "regime": ("regime", str),
    "lora_r": ("lora_r", int),
    "quantization": ("quantization", str),
    "dataset_size": ("dataset_size", int),
    "logging_steps": ("logging_steps", int),
    "eval_steps": ("eval_steps", int),
    "save_steps": ("save_steps", int),
    "vocab_size": ("vocab_size", int),
    "step_counter": ("resume_counter", str),
}
_REGIMES = (*REGIMES, "continued-pretraining", "qlora")


class UsageError(InputError):
    """Unusable input or arguments: exit 2 with this one line."""


def diagnose_setup(
    model: Path | None,
    config: Path | None,
    data: Path | None,
    gpu: str | None,
    gpu_mem: str | None,
    resume: Path | None,
    *,
    settings: Any = None,
    **flags: Any,
) -> Any:
    """The preflight diagnosis (its measurements in `extra`); UsageError for unusable input.

    `settings` (traindoc.settings.Settings) selects the rules and their thresholds.
    """
    from traindoc.engine import diagnose

    run, extra = build_run(model, config, data, gpu, gpu_mem, resume, **flags)
    chosen = specs(run)
    if settings is not None:
        chosen = settings.apply(chosen)
    d = diagnose(run, chosen)
    return replace(d, extra={**d.extra, **extra})


def specs(run: Run) -> list:
    from traindoc.rules.registry import load_all

    rules = load_all()
    out = [rules[i] for i in RULE_IDS if i in rules]
    # the curve rules that also speak from a config alone, before any step
    out += [rules["warmup-too-short"], rules["small-effective-batch"]]
    if run.fact("data_audit"):  # the data audit's own rules read its summary
        out += [r for r in rules.values() if r.family == "data"]
    elif run.fact("empty_samples") is not None:  # no audit here: a plain count of --data
        out += [rules["dataset-too-small"], rules["empty-samples"]]
    return out


def build_run(
    model: Path | None,
    config: Path | None,
    data: Path | None,
    gpu: str | None,
    gpu_mem: str | None,
    resume: Path | None,
    **flags: Any,
) -> tuple[Run, dict[str, Any]]:
    """The Run preflight diagnoses, and the extra measurements for the report."""
    facts: dict[str, Fact] = {"preflight": Fact(True, "traindoc preflight")}
    inputs: list[Input] = []
    notes: list[Note] = []
    extra: dict[str, Any] = {}
    if config is not None:
        from traindoc.readers import ReadError

        try:
            kind, cfg, cnotes = read_config(config)
        except ReadError as exc:
            raise UsageError(str(exc)) from None
        facts.update(cfg)
        inputs.append(Input(str(config), kind))
        notes += [Note(str(config), n) for n in cnotes]
        if kind in ("hf-training-args", "hf-training-args-bin", "trl-config"):
            facts.setdefault("trainer", Fact("hf", f"{config.name}: {kind}"))
    _apply_flags(facts, flags)
    info, checkpoints = _model(model, facts, inputs, notes)
    facts.update(infer_regime(facts, info))
    audited: list[Any] = []
    if data is not None:
        if not data.is_file():
            raise UsageError(f"{data}: no such data file")
        data_facts(data, facts, inputs, notes, audited)
    if resume is not None:
        if not resume.exists():
            raise UsageError(f"{resume}: no such checkpoint")
        rfacts, rnotes = read_resume(resume)
        for k, v in rfacts.items():
            if k != "resume_counter" or "resume_counter" not in facts:
                facts[k] = v
        notes += [Note(str(resume), n) for n in rnotes]
        inputs.append(Input(str(resume), "resume-checkpoint"))
        tool = facts.get("tool") or facts.get("trainer")
        if "resume_counter" not in facts and tool is not None and tool.value in SAFE_COUNTERS:
            facts["resume_counter"] = Fact("optimizer", f"{tool.source} (counts optimizer steps)")
    _device(gpu, gpu_mem, facts)
    series: dict[str, Series] = {}
    if info is not None and info.has_weights:
        fb = _first_batch(info, model, data, notes)
        if fb is not None:
            extra["first_batch"] = fb
            loss = fb["loss"]
            series["loss"] = Series.build(
                "loss", [(0, loss)], source="first-batch loss (preflight)"
            )
            facts.setdefault("vocab_size", Fact(fb["vocab_size"], "model config.json"))
            detail = facts.get("regime_detail")
            near_floor = 0.9 <= loss / math.log(fb["vocab_size"]) <= 1.1
            if (
                near_floor
                and detail is not None
                and detail.value == "full-finetune"
                and (detail.source.endswith("no adapter"))
            ):
                why = f"first-batch loss {loss:.4g} ≈ ln(V): the weights are still at init"
                facts["regime_detail"] = Fact("pretraining", why)
                facts["regime"] = Fact("pretraining", why)
    mem = _memory(info, facts)
    if mem:
        extra["memory"] = mem
    from traindoc.readers.derived import finalize

    name = str(model or config or resume or "preflight")
    run = Run(
        name=f"preflight: {name}",
        series=series,
        facts=facts,
        inputs=tuple(inputs),
        notes=tuple(notes),
        checkpoints=checkpoints,
    )
    if audited:
        run = replace(run, data=audited[0])
    return finalize(run), extra


def _apply_flags(facts: dict[str, Fact], flags: dict[str, Any]) -> None:
    for key, value in flags.items():
        if value is None:
            continue
        if key not in FLAGS:
            raise UsageError(f"unknown setting {key!r}; valid: {', '.join(sorted(FLAGS))}")
        fact, typ = FLAGS[key]
        try:
            v = typ(value) if typ is not bool else bool(value)
        except (TypeError, ValueError):
            raise UsageError(
                f"--{key.replace('_', '-')}: not a {typ.__name__}: {value!r}"
            ) from None
        if fact == "regime" and v not in _REGIMES:
            raise UsageError(f"unknown regime {v!r}; valid: {', '.join(_REGIMES)}")
        if fact == "regime" and v in ("qlora", "continued-pretraining"):
            from traindoc.preflight.regime import TO_RULES

            facts["regime_detail"] = Fact(v, "--regime")
            v = TO_RULES[v]
        facts[fact] = Fact(v, f"--{key.replace('_', '-')}")


def _model(
    model: Path | None, facts: dict[str, Fact], inputs: list[Input], notes: list[Note]
) -> tuple[ModelInfo | None, tuple]:
    if model is None:
        return None, ()
    if not model.exists():
        raise UsageError(f"{model}: no such model directory or file")
    info = read_model(model)
    inputs.append(Input(str(model), "model"))
    src = f"{model.name}/config.json"
    for key, fact in (("vocab_size", "vocab_size"), ("model_type", "model_type")):
        if info.config.get(key) is not None and fact not in facts:
            facts[fact] = Fact(info.config[key], f"{src}: {key}")
    if info.dtype:
        facts.setdefault("model_dtype", Fact(info.dtype, f"{src}: dtype"))
    checkpoints: tuple = ()
    if info.has_weights or info.adapter is not None:
        from traindoc.ckpt.api import CheckpointError, summarize_checkpoint

        try:
            ck = summarize_checkpoint(model)
            checkpoints = (ck,)
            n = sum(math.prod(t.shape) for t in ck.tensors)
            if n and info.adapter is None:
                info = replace(info, n_params=n)
                facts["n_params"] = Fact(n, f"{model.name}: tensors in the checkpoint")
            notes += [Note(str(model), m) for m in ck.notes]
        except CheckpointError as exc:
            notes.append(Note(str(model), f"weights not read: {exc}"))
    if "n_params" not in facts and info.n_params:
        facts["n_params"] = Fact(info.n_params, f"{src}: estimated from dimensions")
    if not info.config:
        notes.append(Note(str(model), "no config.json: vocabulary, size and regime unknown"))
    return info, checkpoints


def _device(gpu: str | None, gpu_mem: str | None, facts: dict[str, Fact]) -> None:
    try:
        if gpu is not None:
            g = gpu_by_name(gpu)
            facts["gpu"] = Fact(g.name, f"--gpu {gpu}")
            facts["device_memory_gib"] = Fact(g.gib, f"--gpu {gpu}: {g.gib:g} GiB (table)")
            facts["gpu_bf16"] = Fact(g.bf16, f"--gpu {gpu}: bf16 {'yes' if g.bf16 else 'no'}")
        if gpu_mem is not None:
            facts["device_memory_gib"] = Fact(parse_size(gpu_mem), f"--gpu-mem {gpu_mem}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _first_batch(
    info: ModelInfo, model: Path | None, data: Path | None, notes: list[Note]
) -> dict[str, Any] | None:
    try:
        fb = first_batch.measure(Path(model or info.path), data)
    except first_batch.Unavailable as exc:
        notes.append(Note(info.path, f"first-batch loss not measured: {exc}"))
        return None
    loss = float(sum(fb.losses) / len(fb.losses))
    return {
        "loss": loss,
        "batches": list(fb.losses),
        "vocab_size": fb.vocab_size,
        "floor": fb.floor,
        "ratio": loss / fb.floor,
        "tokens": fb.source,
        "seconds": round(fb.seconds, 2),
    }


def _memory(info: ModelInfo | None, facts: dict[str, Fact]) -> dict[str, Any] | None:
    n = facts.get("n_params")
    if info is None or n is None:
        return None
    plain = {k: f.value for k, f in facts.items()}
    s = setup_from(plain, info.config, int(n.value))
    if s is None:
        return None
    est = estimate(s)
    src = (
        f"estimate: {s.n_params:,} params, {s.weights_dtype} weights, {s.precision} compute, "
        f"{s.optim}, seq {s.seq_len} x micro-batch {s.micro_batch}"
        + (", gradient checkpointing" if s.grad_ckpt else "")
        + (f", LoRA r={s.lora_r}" if s.lora_r else "")
    )
    facts["memory_estimate"] = Fact(est, src)
    out: dict[str, Any] = {"estimate": est, "setup": src}
    device = facts.get("device_memory_gib")
    if device is not None:
        bf16 = facts["gpu_bf16"].value if "gpu_bf16" in facts else None
        fx = fixes(s, float(device.value), bf16)
        facts["memory_fixes"] = Fact(fx, "preflight memory estimate")
        out["fixes"] = fx
    return out
