"""Reader fixes found on real cases (issue 12, readers10): a tqdm bar's refreshes pasted
as one line, NeMo's `loss=nan` progress-bar placeholder, DeepSpeed's and apex's overflow
lines as loss-scale points and events at their step, and NVIDIA BERT's dllogger lines.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import one_log
from traindoc.readers import load_run

REAL = Path(__file__).resolve().parents[1] / "real"


def _points(run, name: str) -> list[tuple[float, float]]:
    s = run.get(name)
    return [(float(a), float(b)) for a, b in zip(s.steps, s.values, strict=True)]


def _overflows(run) -> list[int | None]:
    return [e.step for e in run.events if e.kind == "fp16-overflow"]


# -- 1. tqdm refreshes on one line; NeMo's loss=nan placeholder ---------------------------

_NEMO = (
    REAL / "healthy_neuronx_nemo_megatron_tqdm_loss_nan_placeholder_reduced_train_loss_3p9_step565"
)


def test_nemo_refreshes_are_records_and_the_loss_is_reduced_train_loss() -> None:
    run = load_run(_NEMO)
    # no suffixed copies of one key (loss_5, loss_12, ...): each refresh is its own record
    assert not [n for n in run.series if n.rsplit("_", 1)[-1].isdigit()]
    # 563 is the cut refresh before the first bar; 564/565 the last refresh of each wins
    assert _points(run, "loss") == [(563.0, 3.92), (564.0, 3.91), (565.0, 4.0)]
    assert not any(math.isnan(v) for _, v in _points(run, "loss"))
    assert "placeholder" in run.get("loss").source
    # the repeated val_loss_step is one value a step, not five copies summed (56.5)
    assert _points(run, "eval_loss") == [(564.0, 11.3), (565.0, 11.3)]
    assert _points(run, "grad_norm") == [(563.0, 1.07), (564.0, 1.01), (565.0, 1.01)]


def _bar(n: int, loss: str, reduced: str, gs: int) -> str:
    return (
        f"Epoch 0:   3%|▎         | {n}/20101 [2:12:19<76:15:08, 14.05s/it, loss={loss}, "
        f"v_num=, reduced_train_loss={reduced}, global_step={gs}.0, "
    )


def test_a_real_nan_beside_a_nan_reduced_loss_stays_nan(tmp_path: Path) -> None:
    body = "".join(_bar(n, "nan", "nan", n - 1) for n in (10, 11, 12)) + "\n"
    run = load_run(_write(tmp_path, body))
    vals = [v for _, v in _points(run, "loss")]
    assert len(vals) == 3 and all(math.isnan(v) for v in vals)  # the run diverged


def test_a_finite_loss_slot_is_kept_beside_reduced_train_loss(tmp_path: Path) -> None:
    body = "".join(_bar(n, "2.5", "2.4", n - 1) for n in (10, 11, 12)) + "\n"
    run = load_run(_write(tmp_path, body))
    assert _points(run, "loss") == [(9.0, 2.5), (10.0, 2.5), (11.0, 2.5)]


def test_one_bar_a_line_is_not_cut(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch 0:  {n}%|▎   | {n}/100 [00:0{n}<00:10, 1.0it/s, loss={1 - n / 10}, v_num=0]\n"
        for n in (1, 2, 3)
    )
    run = one_log(tmp_path, body)
    assert [v for _, v in _points(run, "loss")] == [0.9, 0.8, 0.7]


def _write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "train.log"
    p.write_text(body)
    return p


# -- 2. DeepSpeed "OVERFLOW! ... reducing to Y" on a tqdm bar's line ----------------------

_ALPACA = (
    REAL / "fp16_instability_chinese_alpaca_lora_deepspeed_overflow_every_step_scale_64_to_2"
    "_then_min_scale_exit"
)
_LLAMA2 = (
    REAL
    / "fp16_instability_chinese_llama2_7b_pt_deepspeed_overflow_every_step_scale_0_min_scale_exit"
)


def test_deepspeed_overflows_are_one_scale_point_and_event_a_step() -> None:
    run = load_run(_ALPACA)
    # a message printed after bar n is step n + 1's; the dict after bar 380 is step 380's
    assert _points(run, "loss_scale") == [
        (379.0, 32.0),
        (380.0, 16.0),
        (381.0, 8.0),
        (382.0, 4.0),
        (383.0, 2.0),
    ]
    assert _overflows(run) == [379, 380, 381, 382, 383]
    assert _points(run, "loss") == [(380.0, 2.0491)]


def test_deepspeed_overflow_before_a_cut_bar_is_in_the_step_that_bar_ends() -> None:
    run = load_run(_LLAMA2)
    assert _points(run, "loss_scale") == [(94.0, 0.0), (95.0, 0.0)]
    assert _overflows(run) == [94, 95]


def test_overflows_under_records_stepped_otherwise_take_the_record_step(tmp_path: Path) -> None:
    # records print their own step (not the bar's): the messages go where they always did
    body = (
        "step 10 loss 2.0\n"
        " 1%|▏ | 5/500 [00:05<08:00, 1.0it/s][2023-06-07 22:16:00,018] [INFO] [deepspeed] "
        "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 64, reducing to 32\n"
        "step 20 loss 1.9\n"
    )
    run = one_log(tmp_path, body)
    assert _overflows(run) == [10]


# -- 3. apex "Gradient overflow.  Skipping step, ... reducing loss scale to X" ------------

_APEX = (
    REAL
    / "fp16_instability_stylegan2_pytorch_apex_amp_overflow_every_step_scale_16384_to_2_in_22_iters"
)


def test_apex_overflows_are_numbered_in_order_with_their_events() -> None:
    run = load_run(_APEX)
    scale = _points(run, "loss_scale")
    assert [s for s, _ in scale] == [float(k) for k in range(1, 15)]
    assert [v for _, v in scale] == [16384.0 / 2**k for k in range(14)]
    # the 15th message is cut before its value: still one skipped step
    assert _overflows(run) == list(range(1, 16))


def test_apex_overflows_under_a_stepped_log_stay_at_the_record_before(tmp_path: Path) -> None:
    body = (
        "iter 1 loss 2.0\n"
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 16384.0\n"
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 8192.0\n"
        "iter 2 loss 1.9\n"
    )
    run = one_log(tmp_path, body)
    assert _overflows(run) == [1, 1]


# -- 4. NVIDIA BERT's dllogger lines ------------------------------------------------------

_BERT = (
    REAL
    / "fp16_instability_nvidia_bert_pytorch_lamb_loss_scale_halved_every_step_to_1e-44_average_loss_nan"
)


def test_bert_loss_is_step_loss_and_parameter_loss_scale_is_loss_scale() -> None:
    run = load_run(_BERT)
    loss = _points(run, "loss")
    assert loss[0] == (1785.0, 1.6357421875)  # step_loss, not 1.488 + 1.636
    assert loss == _points(run, "step_loss")
    assert "average_loss" in run.series  # the running mean stays, under its own name
    assert "loss_scale" in run.series
    assert "parameter_loss_scale" not in run.series


def test_loss_parts_without_a_step_value_are_still_summed(tmp_path: Path) -> None:
    body = "".join(f"step {s} box_loss {1 / s} cls_loss {2 / s}\n" for s in (1, 2, 3))
    run = load_run(_write(tmp_path, body))
    assert _points(run, "loss") == [(1.0, 3.0), (2.0, 1.5), (3.0, 1.0)]


def test_a_lone_running_mean_is_the_loss(tmp_path: Path) -> None:
    body = "".join(f"step {s} avg_loss {1 / s}\n" for s in (1, 2, 3))
    run = load_run(_write(tmp_path, body))
    assert [v for _, v in _points(run, "loss")] == [1.0, 0.5, 1 / 3]


_T5 = REAL / "fp16_overflow_every_step_deepspeed_zero2_t5_11b_scale1"


def test_a_message_cut_mid_line_is_an_event_not_a_record() -> None:
    # the paste ends in "Attempted loss scale: 1, r": once read as a record
    # (attempted_loss_scale at ordinal step 1, and every event with it)
    run = load_run(_T5)
    assert "attempted_loss_scale" not in run.series
    assert _overflows(run) == [98, 99, 100, 101, 115, 116, 117, 118]
    assert [s for s, _ in _points(run, "loss_scale")] == [
        98.0,
        99.0,
        100.0,
        101.0,
        115.0,
        116.0,
        117.0,
    ]


def test_a_loss_scale_record_is_still_read(tmp_path: Path) -> None:
    body = "".join(f"step {s} loss {2 - s / 10} loss_scale {2.0 ** (16 - s)}\n" for s in (1, 2, 3))
    run = one_log(tmp_path, body)
    assert _points(run, "loss_scale") == [(1.0, 32768.0), (2.0, 16384.0), (3.0, 8192.0)]
