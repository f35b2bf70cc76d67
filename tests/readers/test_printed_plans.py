"""Run settings a log prints at its head in words or as a config dump
(readers/logs/settings.hf_plan, settings.mm_optimizer): HF Trainer's "***** Running
training *****" block and an OpenMMLab config's optimizer. Lines are verbatim from real
logs (the source on each); the near misses are other lines of the same dumps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traindoc.corpus import target
from traindoc.pipeline import load_all
from traindoc.readers.logs.settings import hf_plan, mm_optimizer

REAL = Path(__file__).resolve().parents[1] / "real"


@pytest.mark.parametrize(
    ("line", "want"),
    [
        # https://github.com/zai-org/GLM-4/issues/261 (no_learning_glm4_finetune_lora_...)
        (b"  Num Epochs = 24", [("num_train_epochs", 24)]),
        (b"  Instantaneous batch size per device = 1", [("per_device_train_batch_size", 1)]),
        (
            b"  Total train batch size (w. parallel, distributed & accumulation) = 8",
            [("total_train_batch_size", 8)],
        ),
        (b"  Total optimization steps = 3,000", [("max_steps", 3000)]),
        # https://github.com/hiyouga/LlamaFactory/issues/2810, behind the logger's prefix
        (
            b"[INFO|trainer.py:1819] 2024-03-12 11:24:23,876 >>   Gradient Accumulation steps = 8",
            [("gradient_accumulation_steps", 8)],
        ),
        (
            b"[INFO|trainer.py:1820] 2024-03-12 11:24:23,876 >>   Total optimization steps = 1,548",
            [("max_steps", 1548)],
        ),
        # the same block's lines that state no plan
        (b"  Num examples = 1,010", []),
        (b"  Number of trainable parameters = 2,785,280", []),
        (b"***** Running training *****", []),
    ],
)
def test_hf_running_training_block(line: bytes, want: list) -> None:
    assert hf_plan(line) == want


@pytest.mark.parametrize(
    ("line", "want"),
    [
        # mmcv: https://github.com/open-mmlab/mmpretrain/issues/938
        (
            b"optimizer = dict(type='SGD', lr=0.001, momentum=0.9, weight_decay=0.0001)",
            [("optimizer", "sgd"), ("lr", 0.001), ("weight_decay", 0.0001)],
        ),
        # mmengine, inside optim_wrapper = dict( (crazy-winds/openmmlab-learn @2200a34e,
        # 20230607_075047.log line 150 and the RTMDet balloon run's line 84)
        (
            b"    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.0001))",
            [("optimizer", "sgd"), ("lr", 0.1), ("weight_decay", 0.0001)],
        ),
        (
            b"    optimizer=dict(type='AdamW', lr=0.0003, weight_decay=0.0003),",
            [("optimizer", "adamw"), ("lr", 0.0003), ("weight_decay", 0.0003)],
        ),
        # newer mmengine sorts the keys (BecTome/OR_FashionParsing @79efa217, config.py)
        (
            b"    optimizer=dict(lr=0.01, momentum=0.9, type='SGD', weight_decay=0.0005),",
            [("optimizer", "sgd"), ("lr", 0.01), ("weight_decay", 0.0005)],
        ),
        # near misses: the optimizer's other settings, the wrapper's opening line, and a
        # (constructed) GAN config's dict of two optimizers that names no one optimizer
        (b"optimizer_config = dict(grad_clip=None)", []),
        (b"optim_wrapper = dict(", []),
        (
            b"optimizer = dict(generator=dict(type='Adam', lr=0.0001), "
            b"discriminator=dict(type='Adam', lr=0.0004))",
            [],
        ),
    ],
)
def test_mm_config_optimizer(line: bytes, want: list) -> None:
    assert mm_optimizer(line) == want


def _facts(case: str) -> dict:
    meta = json.loads((REAL / case / "meta.json").read_text(encoding="utf-8"))
    assert meta["split"] == "dev"
    (run,) = load_all(target(REAL / case, meta["files"]), checkpoints=False)[:1]
    return {k: f.value for k, f in run.facts.items()}


def test_real_hf_block_gives_the_plan() -> None:
    facts = _facts("no_learning_glm4_finetune_lora_loss_0_gradnorm_0_every_log_zero2_issue")
    assert facts["num_train_epochs"] == 24
    assert facts["max_steps"] == 3000
    assert facts["per_device_batch"] == 1
    assert facts["effective_batch"] == 8  # printed, not per-device x 1 x 1 assumed


def test_real_mmengine_config_gives_the_optimizer() -> None:
    facts = _facts("healthy_mmpretrain1_resnet_fruit30_40ep_top1_12_to_93p4_log_and_scalars")
    assert facts["optim"] == "sgd"
    assert facts["learning_rate"] == 0.1


def test_real_detectron2_config_echo_gives_the_plan() -> None:
    # BUPT-PRIV/detectron2 @3163664c docs/logs/rpn_fpn_out_backbone_fpn_log.txt, under
    # "Running with full config:": "  IMS_PER_BATCH: 16", "  MAX_ITER: 90000"
    facts = _facts(
        "healthy_detectron2_rpn_r50_fpn_1x_coco_log_every_200_iters_warmup_loss_0p29_to_0p09_"
        "ar1000_58p0_reproduction_log"
    )
    assert facts["max_steps"] == 90000
    assert facts["effective_batch"] == 16
    assert facts["warmup_steps"] == 1000
