"""Frameworks' own non-finite / overflow messages the console reader missed (helper nan6):
each read as the event it states (a NaN loss, a NaN gradient norm, an fp16 overflow skip),
with a near-miss the reader must not take for one. Lines verbatim from issue pastes, or the
frameworks' messages as their code formats them (cited)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log
from traindoc.model.signals import kind
from traindoc.readers import load_run


def _kinds(run) -> list[str]:
    return [e.kind for e in run.events]


# tests/real/nan_inf_espnet2_hubert_large_conformer_grad_norm_nan_skipping_ctc_nan_grad_samples
# (espnet/espnet#4095, verbatim)
_ESPNET2 = (
    "INFO: 1epoch:train:36631-42735batch: iter_time=1.299e-04, forward_time=0.113, "
    "loss_ctc=86.964, loss_att=58.959, acc=0.212, loss=66.878, backward_time=0.125, "
    "optim_step_time=0.053, optim0_lr0=0.001, train_time=0.408\n"
    "[7cc1303a881b:0/8] 2022-02-21 11:42:05,031 (trainer:617) WARNING: The grad norm is nan. "
    "Skipping updating the model.\n"
    "[7cc1303a881b:0/8] 2022-02-21 11:44:13,348 (trainer:617) WARNING: The grad norm is nan. "
    "Skipping updating the model.\n"
)


def test_espnet2_skip_on_a_nan_grad_norm_is_a_nan_grad_norm_point(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ESPNET2)
    gn = run.get("grad_norm")
    assert gn is not None and np.isnan(gn.values).all()
    assert list(gn.steps) == [42736]  # the step after the summary line it follows
    assert run.fact("precision") is None  # ESPnet skips in fp32 too: no fp16 claim


# ESPnet1's e2e_asr loss check, verbatim from espnet/espnet#186
# (tests/real/nan_inf_espnet1_attctc_loss_2p5e8_not_correct_grad_norm_nan_own_data):
# a finite loss past its CTC threshold, dropped, is no NaN
_ESPNET1_BIG = (
    "2018-05-23 13:05:04,260 (e2e_asr_attctc:88) WARNING: loss (=250000064.000000) is not correct\n"
    "2018-05-23 13:05:13,682 (asr_chainer:132) WARNING: grad norm is nan. Do not update model.\n"
)
# the same check on an inf loss (espnet/nets/pytorch_backend/e2e_asr_transformer.py:
# logging.warning("loss (=%f) is not correct", loss_data))
_ESPNET1_INF = (
    "2021-03-02 10:11:04,921 (e2e_asr_transformer:406) WARNING: loss (=inf) is not correct\n"
    "2021-03-02 10:11:06,819 (e2e_asr_transformer:406) WARNING: loss (=inf) is not correct\n"
)


def test_espnet1_inf_loss_not_correct_is_a_nonfinite_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ESPNET1_INF)
    assert _kinds(run) == ["nonfinite-loss", "nonfinite-loss"]
    assert np.isnan(run.get("loss").values).all()


def test_espnet1_huge_finite_loss_not_correct_is_no_nan_event(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ESPNET1_BIG)
    assert "nonfinite-loss" not in _kinds(run)
    assert np.isnan(run.get("grad_norm").values).all()  # "grad norm is nan" as before


# torch.nn.utils.clip_grad_norm_(error_if_nonfinite=True), as torch/nn/utils/clip_grad.py
# formats it; the traceback's quoted source (the string split over two lines) is no event
_TORCH_CLIP = (
    "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, "
    "so it cannot be clipped. To disable this error and scale the gradients by the non-finite "
    "norm anyway, set `error_if_nonfinite=False`\n"
)
_TORCH_CLIP_SOURCE = (
    "step 10 loss 2.31\n"
    "step 20 loss 2.25\n"
    "            f'The total norm of order {norm_type} for gradients from '\n"
    "            '`parameters` is non-finite, so it cannot be clipped. To disable '\n"
)


def test_clip_grad_norm_nonfinite_error_is_a_nan_grad_norm(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TORCH_CLIP)
    assert _kinds(run) == ["nonfinite-gradients"]
    assert np.isnan(run.get("grad_norm").values).all()
    quoted = one_log(tmp_path, _TORCH_CLIP_SOURCE, "quoted.log")
    assert "nonfinite-gradients" not in _kinds(quoted)


# Megatron-LM check_for_nan_in_grad, verbatim from a pasted traceback (the word cut by the
# terminal as pasted)
_MEGATRON = (
    "AssertionError: Rank 13: found NaN in local grad norm in backward pass before "
    "data-parallel communication collectie\n"
    "ve. Device: 5, node: node-15-11\n"
)


def test_megatron_nan_in_local_grad_norm_is_a_nan_grad_norm(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MEGATRON)
    assert _kinds(run) == ["nonfinite-gradients"]


# fairseq's AMPOptimizer (--amp), as fairseq/optim/amp_optimizer.py formats it: the doubled
# "to" is fairseq's own; the legacy --fp16 NOTE is read as before
_FAIRSEQ_AMP = "".join(
    f"2022-03-01 10:0{i}:00 | INFO | fairseq.trainer | AMP: overflow detected, setting scale "
    f"to to {s}\n"
    for i, s in enumerate((64.0, 32.0, 16.0))
)


def test_fairseq_amp_overflow_is_a_skip_with_its_new_scale(tmp_path: Path) -> None:
    run = one_log(tmp_path, _FAIRSEQ_AMP)
    over = [e for e in run.events if e.kind == "fp16-overflow"]
    assert [e.value for e in over] == [64.0, 32.0, 16.0]
    assert run.fact("precision") == "fp16"


# TensorFlow's NanLossDuringTrainingError (tensorflow/python/training/basic_session_run_hooks.py
# `return "NaN loss during training."`); prose naming the phrase (Unsloth's dataset note,
# unslothai/unsloth) is none
_TF_NAN = (
    "tensorflow.python.training.basic_session_run_hooks.NanLossDuringTrainingError: "
    "NaN loss during training.\n"
)
_PROSE = (
    "Unsloth: Removed 3 out of 500 samples from train where all labels were -100 (no response "
    "marker found, usually truncation). This prevents NaN loss during training.\n"
    "{'loss': 1.2, 'learning_rate': 0.0002, 'epoch': 0.1}\n"
    "{'loss': 1.1, 'learning_rate': 0.0002, 'epoch': 0.2}\n"
)


def test_tf_nan_loss_error_is_a_nonfinite_loss_prose_is_not(tmp_path: Path) -> None:
    assert _kinds(one_log(tmp_path, _TF_NAN)) == ["nonfinite-loss"]
    prose = one_log(tmp_path, _PROSE, "prose.log")
    assert "nonfinite-loss" not in _kinds(prose)
    assert np.isfinite(prose.get("loss").values).all()


# mmdet 3's CheckInvalidLossHook (mmdet/engine/hooks/checkloss_hook.py: 'loss become
# infinite or NaN!'); Ultralytics 8.3's NaN recovery (ultralytics/engine/trainer.py:
# f"{reason} detected (attempt ...), recovering from last.pt...", reason "Loss NaN/Inf")
_MMDET = "AssertionError: loss become infinite or NaN!\n"
_ULTRA = "WARNING ⚠️ Loss NaN/Inf detected (attempt 1/3), recovering from last.pt...\n"


def test_mmdet_and_ultralytics_nan_checks_are_nonfinite_losses(tmp_path: Path) -> None:
    assert _kinds(one_log(tmp_path, _MMDET)) == ["nonfinite-loss"]
    ultra = one_log(tmp_path, _ULTRA, "ultra.log")
    # its line is read as a record ("attempt 1/3"), whose loss the message states: NaN
    assert np.isnan(ultra.get("loss").values).all()


# torch.distributions' argument check on a policy's output (SB3 / RLlib / CleanRL), as
# pasted in issues: a NaN among the values (not always the first) is a NaN output; values
# only out of range are not
_DIST_NAN = (
    "ValueError: Expected parameter scale (Tensor of shape (64, 2)) of distribution Normal to "
    "satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n"
    "tensor([[7.5994e-01, 9.9993e-01],\n"
    "        [nan, nan]], device='cuda:0')\n"
)
_DIST_RANGE = (
    "ValueError: Expected parameter probs (Tensor of shape (1, 3)) of distribution "
    "Categorical(probs: torch.Size([1, 3])) to satisfy the constraint Simplex(), but found "
    "invalid values:\n"
    "tensor([[ 0.5000, -0.1000,  0.6000]])\n"
    "epoch 1 loss 0.52\n"
)


def test_distribution_nan_output_is_a_nonfinite_loss(tmp_path: Path) -> None:
    assert _kinds(one_log(tmp_path, _DIST_NAN)) == ["nonfinite-loss"]
    assert "nonfinite-loss" not in _kinds(one_log(tmp_path, _DIST_RANGE, "range.log"))


# BasicSR's loss terms (basicsr/models/sr_model.py: loss_dict['l_pix'], ['l_percep'],
# ['l_style']; srgan_model.py: 'l_g_gan', 'l_d_real', 'l_d_fake', with out_d_real /
# out_d_fake the discriminator's outputs), verbatim from AHupuJR/EFNet#12
# (tests/real/nan_inf_efnet_basicsr_style_l_pix_minus30_then_inf_then_nan_iter155)
_BASICSR = (
    "2023-06-16 22:22:49,036 INFO: [debug..][epoch:  0, iter:     154, lr:(2.000e-04,2.000e-05,)]"
    " [eta: 409 days, 3:35:46, time (data): 0.489 (0.001)] l_pix: -2.7506e+01 \n"
    "2023-06-16 22:22:49,505 INFO: [debug..][epoch:  0, iter:     155, lr:(2.000e-04,2.000e-05,)]"
    " [eta: 406 days, 12:46:06, time (data): 0.470 (0.001)] l_pix: inf \n"
    "2023-06-16 22:22:49,988 INFO: [debug..][epoch:  0, iter:     156, lr:(2.000e-04,2.000e-05,)]"
    " [eta: 403 days, 22:44:43, time (data): 0.482 (0.002)] l_pix: nan \n"
)


def test_basicsr_l_terms_are_losses(tmp_path: Path) -> None:
    for name in ("l_pix", "l_percep", "l_style", "l_g_gan", "l_d_real", "l_d_fake", "l_g_total"):
        assert kind(name) == "component_loss", name
    assert kind("out_d_real") != "component_loss"
    assert kind("l_r") != "component_loss"
    path = tmp_path / "train_debug.log"
    path.write_text(_BASICSR, encoding="utf-8")
    loss = load_run(path).get("loss")  # the one term is the loss (derived.py)
    assert loss is not None and list(loss.steps) == [154, 155, 156]
    assert not np.isfinite(loss.values[1:]).any()


# icefall's GradScaler guard (k2-fsa/icefall#1463, verbatim): the scale halved past 1e-5,
# the scaler's floor; its "Grad scale is small" warnings before it are not the floor
_ICEFALL = (
    "2024-01-13 23:48:07,606 INFO [train.py:1423] (0/4) Maximum memory allocated so far is "
    "7150MB\n"
    "RuntimeError: grad_scale is too small, exiting: 1.2924697071141057e-26\n"
)


def test_icefall_grad_scale_too_small_is_the_loss_scale_floor(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ICEFALL)
    assert "loss-scale-minimum" in _kinds(run)
