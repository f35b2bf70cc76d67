"""Every config kind preflight reads, from real files of each tool; hostile pickles stay inert."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.preflight.conftest import ASSETS, needs_torch
from traindoc.preflight.config import read_config
from traindoc.preflight.setup import build_run
from traindoc.readers import ReadError


def _facts(name: str) -> tuple[str, dict]:
    kind, facts, _ = read_config(ASSETS / name)
    return kind, {k: f.value for k, f in facts.items()}


def test_hf_training_args_json() -> None:
    kind, f = _facts("hf-training-args.json")
    assert kind == "hf-training-args"
    assert f["learning_rate"] == 5e-5 and f["grad_accum"] == 2 and f["precision"] == "fp16"
    assert f["lr_scheduler"] == "linear" and f["save_steps"] == 500


def test_axolotl_qlora() -> None:
    kind, f = _facts("axolotl-qlora.yaml")
    assert kind == "axolotl"
    assert (f["per_device_batch"], f["grad_accum"], f["max_seq_len"]) == (2, 4, 4096)
    assert f["quantization"] == "4bit" and f["gradient_checkpointing"] is True
    run, _ = build_run(None, ASSETS / "axolotl-qlora.yaml", None, None, None, None)
    assert run.fact("regime_detail") == "qlora" and run.fact("regime") == "lora"
    assert run.fact("effective_batch") == 8


def test_llamafactory_lora_and_pt() -> None:
    kind, f = _facts("llamafactory-lora-sft.yaml")
    assert kind == "llamafactory" and f["warmup_ratio"] == 0.1 and f["max_seq_len"] == 2048
    run, _ = build_run(None, ASSETS / "llamafactory-pt.yaml", None, None, None, None)
    assert run.fact("regime_detail") == "continued-pretraining"


def test_lightning_hparams() -> None:
    kind, f = _facts("hparams.yaml")
    assert kind == "lightning-hparams"
    assert f["precision"] == "fp16" and f["grad_accum"] == 4 and f["max_steps"] == 2000


def test_trl_config() -> None:
    kind, f = _facts("trl-sft.yaml")
    assert kind == "trl-config"
    assert f["adapter"] == "lora" and f["max_seq_len"] == 1024 and f["warmup_steps"] == 0


@needs_torch
def test_real_training_args_bin(tmp_path: Path) -> None:
    import torch
    from transformers import TrainingArguments

    args = TrainingArguments(
        output_dir=str(tmp_path),
        learning_rate=1e-6,
        gradient_accumulation_steps=16,
        per_device_train_batch_size=2,
        lr_scheduler_type="cosine",
        warmup_steps=0.03,  # transformers 5: a float < 1 is the ratio
        logging_steps=10,
        use_cpu=True,
        report_to=[],
    )
    torch.save(args, tmp_path / "training_args.bin")
    kind, facts, _ = read_config(tmp_path / "training_args.bin")
    f = {k: v.value for k, v in facts.items()}
    assert kind == "hf-training-args-bin"
    assert f["learning_rate"] == 1e-6 and f["grad_accum"] == 16 and f["lr_scheduler"] == "cosine"
    assert f["warmup_ratio"] == 0.03 and "warmup_steps" not in f


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # what a hostile training_args.bin does
        import os

        return (os.system, (f"touch {self.marker}",))


def test_malicious_training_args_bin_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    bad = tmp_path / "training_args.bin"
    bad.write_bytes(pickle.dumps({"learning_rate": 1e-4, "x": _Evil(marker)}))
    _kind, facts, _ = read_config(bad)
    assert not marker.exists()
    assert facts["learning_rate"].value == 1e-4
    only_evil = tmp_path / "evil.bin"
    only_evil.write_bytes(pickle.dumps(_Evil(marker)))
    with pytest.raises(ReadError):
        read_config(only_evil)
    assert not marker.exists()


def test_unusable_config_is_a_read_error(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_text("- just\n- a list\n")
    with pytest.raises(ReadError):
        read_config(p)
