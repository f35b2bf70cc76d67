"""Run facts: every name readers, preflight and live mode set and rules and renderers read.

Signals are series (model/signals.py); facts are single values about the run -- its
planned length, its batch, its vocabulary, the device preflight was told about. Each
is stored in `Run.facts` as a Fact(value, source), so a report can say where it came
from. The names are plain strings on both sides, so this list is what keeps a reader
and a rule spelling one the same: tests/test_facts.py checks, on the source, that every
name written or read anywhere is declared here, and docs/layout.md lists them.

`from_config`: a free-form run config (Lightning hparams.yaml, a loop's run_config.json)
whose key is exactly this name gives the fact (readers/configs.py); the other names
come only from the code that sets them, so a config key `now` or `gpu` stays a key.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FactSpec:
    name: str
    type: str  # the value's Python type, as text ("int", "tuple[int, ...]")
    meaning: str
    from_config: bool = False


def _config(name: str, type: str, meaning: str) -> FactSpec:
    return FactSpec(name, type, meaning, from_config=True)


_SPECS = (
    # --- the model and the task ------------------------------------------------------
    _config(
        "vocab_size",
        "int",
        "tokens in the output vocabulary (config.json, tokenizer, --vocab-size)",
    ),
    _config(
        "n_params", "int", "model parameters (checkpoint tensors, else estimated from config.json)"
    ),
    _config("num_classes", "int", "classes of a classifier (ln(C) is its floor)"),
    _config("regime", "str", "pretraining | full-finetune | lora"),
    _config("task", "str", "lm | classification | detection | rl | gan"),
    _config("env_id", "str", "an RL run's Gym / ALE environment id (PongNoFrameskip-v4)"),
    _config("trainer", "str", "which tool wrote the log: hf | lightning | jsonl | ..."),
    _config("trainable_params", "int", "number of trainable parameters"),
    _config("base_model", "str", "model the run started from"),
    _config(
        "head_outputs",
        "int",
        "out_features of the last Linear of a printed torch model: a classifier's C",
    ),
    FactSpec(
        "dataset_classes",
        "int",
        "classes of the standard dataset a setting names (model/datasets.py): C for an "
        "accuracy's chance 1/C, not a claim the run is a classifier",
    ),
    FactSpec(
        "input_vocab_size", "int", "a classifier's token vocabulary (its output is num_classes)"
    ),
    FactSpec(
        "margin_softmax",
        "bool",
        "the loss is a margin softmax (ArcFace, CosFace, ...): no ln(C) floor to judge it by",
    ),
    FactSpec("architecture", "str", "config.json's first architectures entry (LlamaForCausalLM)"),
    FactSpec("model_type", "str", "config.json's model_type (llama, gpt2, bert)"),
    FactSpec(
        "model_dtype", "str", "the dtype config.json stores the weights in (torch_dtype / dtype)"
    ),
    FactSpec(
        "tie_word_embeddings", "bool", "config.json: the output head shares the input embedding"
    ),
    FactSpec("regime_detail", "str", "preflight's finer regime: + qlora | continued-pretraining"),
    FactSpec("adapter", "str", "lora | qlora: the config trains an adapter (preflight)"),
    FactSpec("lora_r", "int", "LoRA rank (adapter_config.json, a tool YAML, --lora-r)"),
    FactSpec("lora_alpha", "float", "LoRA alpha (adapter_config.json, a tool YAML)"),
    FactSpec("quantization", "str", "4bit | 8bit: the base model is loaded quantised (preflight)"),
    FactSpec("stage", "str", "LLaMA-Factory's stage: pt | sft | rm | ppo | dpo | kto"),
    FactSpec("tool", "str", "llamafactory | axolotl: the tool whose training YAML was found"),
    # --- the plan: length, schedule, batch, precision --------------------------------
    _config("max_steps", "int", "planned optimizer steps"),
    _config("num_train_epochs", "float", "planned epochs"),
    _config("per_device_batch", "int", "micro-batch per device"),
    _config("devices", "int", "data-parallel world size"),
    _config("grad_accum", "int", "gradient accumulation steps"),
    _config("effective_batch", "int", "per_device_batch x devices x grad_accum"),
    _config("max_grad_norm", "float", "clipping threshold; 0 or None = no clipping"),
    _config("precision", "str", "fp32 | bf16 | fp16"),
    _config("learning_rate", "float", "configured peak LR"),
    _config("lr_scheduler", "str", "linear | cosine | constant | constant_with_warmup | ..."),
    _config(
        "lr_first_decay_epoch",
        "int",
        "0-based epoch at which a step schedule first cuts the LR (OpenMMLab lr_config step=)",
    ),
    _config("warmup_steps", "int", "configured warmup steps"),
    _config("warmup_ratio", "float", "configured warmup as a fraction of max_steps"),
    _config("logging_steps", "int", "steps between two logged records"),
    _config("eval_steps", "int", "steps between two evaluations"),
    _config("save_steps", "int", "steps between two checkpoints"),
    _config(
        "loss_dtype", "str", "bf16 | fp16 | fp32: precision of the logged loss, for quantisation"
    ),
    FactSpec(
        "max_seq_len", "int", "training sequence length (cutoff_len, sequence_len, --seq-len)"
    ),
    FactSpec("gradient_checkpointing", "bool", "activations are recomputed in the backward pass"),
    FactSpec("optim", "str", "optimizer name (TrainingArguments.optim, --optim)"),
    FactSpec("weight_decay", "float", "TrainingArguments.weight_decay"),
    FactSpec("seed", "int", "TrainingArguments.seed"),
    FactSpec("sharding", "str", "the deepspeed / fsdp setting of a config (preflight)"),
    FactSpec("logging_nan_inf_filter", "bool", "HF drops NaN/inf losses from the logged mean"),
    FactSpec("lr_print_decimals", "int", "decimals a text log prints the LR with (its resolution)"),
    FactSpec("loss_base", "int", "2 where the loss is logged in bits (fairseq; ppl = 2^nll_loss)"),
    # --- the data ---------------------------------------------------------------------
    _config("dataset_size", "int", "training samples"),
    _config("dataset", "str", "the training data a config names (a path, or a hub name)"),
    _config("eval_dataset", "str", "the eval data a config names"),
    _config(
        "dataset_dir", "str", "LLaMA-Factory's dataset_dir (dataset_info.json names the files)"
    ),
    FactSpec(
        "data_audit", "bool", "preflight audited --data with traindoc.data (run.data holds it)"
    ),
    FactSpec("empty_samples", "int", "empty samples preflight counted in --data (no audit)"),
    FactSpec("empty_lines", "list[int]", "the first (up to 5) line numbers of those empty samples"),
    # --- how the run went: resumes, end, outcome --------------------------------------
    _config("resume_steps", "tuple[int, ...]", "steps at which the run was resumed"),
    FactSpec(
        "objective_change_step",
        "int",
        "the first step the trainer computes its train loss differently, as configured "
        "(ultralytics' close_mosaic: mosaic augmentation off for the last N epochs)",
    ),
    FactSpec(
        "paste_cuts", "tuple[int, ...]", "steps after which a pasted excerpt leaves lines out"
    ),
    FactSpec(
        "lines_after_overflow",
        "int",
        "lines that print a value the console log goes on for past its last loss-scaler "
        "message (of its last 8 lines; 0 when a gap marker or closing fence cuts them off or "
        "one reports an error or NaN): the scaler stopped overflowing and the program went on",
    ),
    FactSpec(
        "steps_ordinal",
        "bool",
        "no line prints a step: the steps are the order of the metric lines, not the "
        "trainer's step numbers (a configured step count cannot be set against them)",
    ),
    FactSpec(
        "steps_epochs",
        "bool",
        "every step is an epoch number (a log that prints only 'Epoch(val) [12]' lines): the "
        "steps count epochs, not optimizer steps, so a warmup configured in iterations "
        "cannot be set against them",
    ),
    _config(
        "ended", "bool", "the log records that training ended (HF's train_runtime, W&B's exit)"
    ),
    _config(
        "same_loss_as",
        "dict",
        "another run in the same input whose losses are identical to this run's although"
        " its LR differs: {run, lr, lr_here, points}",
    ),
    _config(
        "lr_sweep",
        "dict",
        "this run is one arm of an LR sweep read with it (3+ runs, 3+ peak LRs, one"
        " optimizer): {lr, value, series, step, best_lr, best_value, best_run, gap, arms},"
        " each arm's loss at the common budget against the best arm's",
    ),
    _config(
        "progress_after_last_step",
        "dict",
        "the console's training bar went on after the last logged step:"
        " {units, usual (units between two logged steps), last_step, bar}",
    ),
    _config("versions", "dict[str, str]", "library versions found (transformers, torch, ...)"),
    FactSpec("resume_from_checkpoint", "str | bool", "TrainingArguments.resume_from_checkpoint"),
    FactSpec("global_step", "int", "trainer_state.json: the step the state was saved at"),
    FactSpec("best_metric", "float", "trainer_state.json: the best eval metric so far"),
    FactSpec("best_model_checkpoint", "str", "trainer_state.json: the checkpoint holding it"),
    FactSpec("best_global_step", "int", "trainer_state.json: the step of that checkpoint"),
    FactSpec("results", "dict[str, float]", "final values: HF's *_results.json, W&B's summary"),
    FactSpec("exit_code", "int", "W&B's exit record: the training process's exit status"),
    FactSpec("wandb_name", "str", "W&B run display name"),
    FactSpec("mlflow_status", "str", "MLflow run status: RUNNING | FINISHED | FAILED | KILLED"),
    FactSpec(
        "skipped_steps",
        "int",
        "optimizer steps a loss scaler skipped; read by fp16-instability, set by no reader yet"
        " (the series of that name is what logs carry)",
    ),
    # --- preflight: the resume checkpoint, the device, the memory estimate -------------
    FactSpec("preflight", "bool", "the run is preflight's: a setup, not a training log"),
    FactSpec("resume_step", "int", "the step of the checkpoint preflight --resume reads"),
    FactSpec("resume_state", "dict", "what that checkpoint holds: optimizer, scheduler, rng state"),
    FactSpec(
        "resume_counter",
        "str",
        "what the resumed step counts: optimizer (HF, Lightning) | micro (--step-counter)",
    ),
    FactSpec("gpu", "str", "the GPU preflight was told about (--gpu)"),
    FactSpec("gpu_bf16", "bool", "that GPU runs bf16"),
    FactSpec("device_memory_gib", "float", "its memory, GiB (--gpu table, --gpu-mem)"),
    FactSpec(
        "memory_estimate", "dict[str, float]", "peak training memory by component, GiB, and total"
    ),
    FactSpec(
        "memory_fixes",
        "list[dict]",
        "changes that lower the peak, cheapest first: {fix, total, fits}",
    ),
    FactSpec(
        "load_dtype",
        "str",
        "the dtype the weights are loaded in; read by the memory estimate, set by nothing yet",
    ),
    # --- live mode ---------------------------------------------------------------------
    FactSpec(
        "now", "float", "wall-clock time (Unix seconds) of a live look at the run: stall checks"
    ),
)

FACTS: dict[str, FactSpec] = {s.name: s for s in _SPECS}
# the names a free-form config gives by their own spelling (readers/configs.py)
CONFIG_NAMES: frozenset[str] = frozenset(s.name for s in _SPECS if s.from_config)
