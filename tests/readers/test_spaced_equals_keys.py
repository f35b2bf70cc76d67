"""Names of several words before a spaced " = ", and "itr" as the iteration (helper healthy8).

Acme's terminal logger prints `[Learner] Critic Loss = 0.097 | ... | Loss = -0.37 |
Param Norm = 48.7 | Param Updates Norm = 0.19 | Policy Loss = -0.46`. Read one word per
key (as `lr=1e-4 loss=2.1` is), the critic's loss became the run's loss and the weights'
`Param Norm` a gradient norm of 48.7 (llm.c's bare "norm"). With a space on both sides of
the `=` the name keeps its words; a qualified "X Norm" is that norm, not the gradient's.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run

# tests/real/healthy_acme_impala_low_sps_question_pong_first_learner_steps_return_minus21
_ACME = (
    "I0925 18:52:06.416487 140563283464576 terminal.py:91] [Learner] Actor Episodes = 1 | "
    "Actor Steps = 825 | Critic Loss = 0.09712472558021545 | Entropy = -2.76863431930542 | "
    "Entropy Loss = -0.013843171298503876 | Evaluator Episodes = 2 | Evaluator Steps = 1530 | "
    "Learner Steps = 2 | Learner Time Elapsed = 10.830 | Loss = -0.37379246950149536 | "
    "Param Norm = 48.738494873046875 | Param Updates Norm = 0.19555175304412842 | "
    "Policy Loss = -0.45707404613494873\n"
)

# tests/real/nan_inf_opennmt_tf_transformer_loss_1p60_then_model_diverged_nan_step297600
# OpenNMT-tf: "Learning rate = 0.000187" is the LR (one word per key read "rate" alone)
_ONMT_TF = (
    "2022-03-02 22:26:59.033000: I runner.py:276] Step = 297500 ; steps/s = 4.57, source "
    "words/s = 16758, target words/s = 19073 ; Learning rate = 0.000187 ; Loss = 1.602740\n"
    "2022-03-02 22:27:20.229000: I runner.py:276] Step = 297600 ; steps/s = 4.72, source "
    "words/s = 17585, target words/s = 19955 ; Learning rate = 0.000187 ; Loss = 1.610771\n"
)

# glued k=v pairs keep one word per key: "Train" alone joins the key (train vs eval)
_GLUED = "epoch 1 step 10 lr=0.001 loss=2.50\nepoch 1 step 20 lr=0.001 loss=2.25\n"


def _read(tmp_path: Path, text: str):
    path = tmp_path / "paste.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def test_acme_total_loss_and_param_norm(tmp_path: Path) -> None:
    run = _read(tmp_path, _ACME)
    assert list(run.get("loss").values) == [-0.37379246950149536]
    assert run.get("grad_norm") is None  # the weights' norm is no gradient norm
    assert list(run.get("param_norm").values) == [48.738494873046875]
    assert list(run.get("critic_loss").values) == [0.09712472558021545]


def test_opennmt_tf_learning_rate(tmp_path: Path) -> None:
    run = _read(tmp_path, _ONMT_TF)
    assert list(run.get("lr").values) == [0.000187, 0.000187]
    assert list(run.get("loss").values) == [1.602740, 1.610771]


def test_glued_pairs_unchanged(tmp_path: Path) -> None:
    run = _read(tmp_path, _GLUED)
    assert list(run.get("loss").values) == [2.50, 2.25]
    assert list(run.get("lr").values) == [0.001, 0.001]


# tests/real/healthy_hand4whole_speed_slows_down_question_epoch0_itr_52_57_losses_steady_issue
# mks0601's trainers print the iteration as "itr": each line is its own step, not six
# lines of one epoch folded into a single point
_ITR = (
    "09-24 22:53:02 Epoch 0/7 itr 52/3489: lr: 0.0001 speed: 3.52(0.65s r2.79)s/itr "
    "3.41h/epoch loss_smpl_pose: 0.2893 loss_smpl_shape: 0.1395 loss_joint_proj: 0.3026\n"
    "09-24 22:53:03 Epoch 0/7 itr 53/3489: lr: 0.0001 speed: 3.45(0.65s r2.73)s/itr "
    "3.34h/epoch loss_smpl_pose: 0.2910 loss_smpl_shape: 0.1313 loss_joint_proj: 0.3319\n"
    "09-24 22:53:04 Epoch 0/7 itr 54/3489: lr: 0.0001 speed: 3.39(0.64s r2.67)s/itr "
    "3.28h/epoch loss_smpl_pose: 0.2966 loss_smpl_shape: 0.1307 loss_joint_proj: 0.3056\n"
)


def test_itr_is_the_iteration(tmp_path: Path) -> None:
    run = _read(tmp_path, _ITR)
    assert list(run.get("loss").steps) == [52, 53, 54]
    assert list(run.get("lr").values) == [0.0001] * 3
