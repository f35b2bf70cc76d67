"""Reader fixes found on real cases (issue 12, readers7): eval dicts whose keys lack the
eval_ prefix, an entropy term read as the loss, ETA fields read as numbers, and the
settings an argparse Namespace or `key=value` lines print at the top of a log.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log
from traindoc.model.signals import kind
from traindoc.pipeline import load_all
from traindoc.readers import configs
from traindoc.readers.configs import pretrained
from traindoc.readers.logs import text

REAL = Path(__file__).resolve().parents[1] / "real"

# -- 1. an eval dict (HF's eval timings in it) is an eval as a whole -------------------------

_DPO_TRAIN = (
    "{{'loss': {loss}, 'learning_rate': 5e-07, 'rewards/chosen': {rc}, "
    "'rewards/margins': 0.01, 'epoch': {ep}}}\n"
)
_BAR = " {p}%|###       | {n}/30 [00:{n}<00:40,  1.02s/it]\n"
_EVAL_BAR = "100%|##########| 8/8 [00:03<00:00,  2.41it/s]\n"
_DPO_EVAL = (
    "{{'loss': {loss}, 'rewards/chosen': {rc}, 'rewards/margins': 0.5, "
    "'eval_runtime': 3.3, 'eval_samples_per_second': 19.4, 'eval_steps_per_second': 2.4, "
    "'epoch': {ep}}}\n"
)


def test_gspo_eval_dict_keys_are_eval_series() -> None:
    # unsloth/TRL's GRPO eval dict prints num_tokens and completions/* without the prefix,
    # after the one train dict: read as train names they overwrote its values at step 1
    case = REAL / "rl_no_signal_unsloth_gspo_dapo_reward_4_of_4_reward_std_0_gradnorm_0"
    (run,) = text.read(case / "log_excerpt.txt")
    assert list(run.get("completions/mean_length").values) == [77.5]
    assert list(run.get("num_tokens").values) == [83968.0]
    assert list(run.get("eval_completions/mean_length").values) == [40.13690476190476]
    assert list(run.get("eval_num_tokens").values) == [1001646.0]
    assert list(run.get("loss").values) == [0.0]


def test_dpo_eval_dict_with_bare_loss_is_the_eval_loss(tmp_path: Path) -> None:
    # TRL's DPO eval dict as some versions print it: its own keys bare, HF's timings added
    body = (
        _DPO_TRAIN.format(loss=0.6931, rc=0.0, ep=0.5)
        + _BAR.format(p=33, n=10)
        + _DPO_TRAIN.format(loss=0.6500, rc=0.1, ep=1.0)
        + _EVAL_BAR
        + _DPO_EVAL.format(loss=0.9, rc=-0.4, ep=1.0)
        + _BAR.format(p=66, n=20)
        + _DPO_TRAIN.format(loss=0.6000, rc=0.2, ep=1.5)
        + _BAR.format(p=99, n=30)
    )
    run = one_log(tmp_path, body)
    assert list(run.get("loss").values) == [0.6931, 0.65, 0.6]
    assert list(run.get("eval_loss").steps) == [20]
    assert list(run.get("eval_loss").values) == [0.9]
    assert list(run.get("eval_rewards/chosen").values) == [-0.4]
    assert list(run.get("rewards/chosen").values) == [0.0, 0.1, 0.2]


def test_dict_without_eval_timings_keeps_its_train_names(tmp_path: Path) -> None:
    # near miss: a loop printing train and eval loss in one dict, no evaluate() timings;
    # and HF's end-of-training summary, whose timings are train_*
    body = "".join(
        f"{{'loss': {2.0 - s / 10}, 'eval_loss': {2.5 - s / 10}, 'step': {s}}}\n"
        for s in range(1, 5)
    ) + (
        "{'train_runtime': 12.5, 'train_samples_per_second': 6.4, "
        "'train_steps_per_second': 0.8, 'train_loss': 1.8, 'epoch': 1.0}\n"
    )
    run = one_log(tmp_path, body)
    assert list(run.get("loss").values) == [1.9, 1.8, 1.7, 1.6]
    assert list(run.get("eval_loss").values) == [2.4, 2.3, 2.2, 2.1]
    assert "eval_train_loss" not in run.series


# -- 2. an entropy term is never the loss -----------------------------------------------------


def test_verl_summary_loss_is_the_pg_loss_not_the_entropy() -> None:
    case = REAL / "rl_no_signal_verl_tool_n1_wandb_summary_rewards_advantages_all_zero"
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    loss = run.get("loss")
    assert list(loss.values) == [0.0]
    assert "actor/pg_loss" in loss.source and "entropy" not in loss.source
    assert list(run.get("actor/entropy_loss").values) == [0.1888]


@pytest.mark.parametrize(
    "name",
    [
        "actor/entropy_loss",
        "entropy_loss",
        "entropy loss",
        "loss/entropy",
        "ent_coef_loss",
        "entloss",  # OpenAI baselines TRPO's progress.csv: -entcoeff x entropy, run together
    ],
)
def test_entropy_terms_are_not_losses(name: str) -> None:
    assert kind(name) == "entropy"


@pytest.mark.parametrize(
    ("name", "what"),
    [
        # near misses: a cross-entropy is the loss, whatever its spelling
        ("cross_entropy_loss", "loss"),
        ("train/CrossEntropyLoss", "loss"),
        ("cross-entropy loss", "component_loss"),
        ("binary_cross_entropy_loss", "component_loss"),
        ("xent_loss", "component_loss"),
        # an entropy that no name calls a loss stays a plain series
        ("eval_entropy", "other"),
        ("agent_loss", "component_loss"),
        # a word that ends in "ent" before "loss" is no entropy term
        ("contentloss", "component_loss"),
        ("segmentloss", "component_loss"),
    ],
)
def test_cross_entropy_is_not_an_entropy_term(name: str, what: str) -> None:
    assert kind(name) == what


def test_text_line_entropy_loss_keeps_its_name(tmp_path: Path) -> None:
    # a console line naming "entropy loss" and "policy loss": the entropy is never `loss`
    body = "".join(
        f"step {s} | policy loss {0.5 - s / 100:.2f} | entropy loss {1.2 - s / 100:.2f}\n"
        for s in range(1, 6)
    )
    run = one_log(tmp_path, body)
    assert list(run.get("entropy_loss").values) == [1.19, 1.18, 1.17, 1.16, 1.15]
    assert list(run.get("loss").values) == [0.49, 0.48, 0.47, 0.46, 0.45]
    assert "loss_1" not in run.series  # was the entropy, read as a second loss


# -- 3. an ETA, elapsed or time-left field is a clock, never a metric ------------------------

_CLOCKS = {"eta", "elapsed", "elapsed_time", "remaining_time", "time_s", "time_h", "time_m"}


def test_mmdet_eta_in_days_is_not_a_series() -> None:
    # "eta: 3 days, 0:11:00" was read as eta = 3
    case = REAL / "divergence_mmdet_faster_rcnn_1gpu_lr002_loss_1e26"
    (run,) = text.read(case / "log_excerpt.txt")
    assert not _CLOCKS & set(run.series)
    assert len(run.get("lr")) == len(run.get("time")) == 10  # the step time stays


def test_swift_elapsed_and_remaining_durations_are_not_series() -> None:
    # "elapsed_time": "1m 30s", "remaining_time": "10h 30m 51s": 1, 30, 10, 30, 51 were series
    case = REAL / "no_learning_swift_ovis2_34b_lora_sft_loss0_gradnorm0_from_step1"
    (run,) = text.read(case / "log_excerpt.txt")
    assert not {n for n in run.series if n.startswith(("time_", "elapsed", "remaining"))}
    assert list(run.get("loss").values) == [0.0] * 5


def test_paddle_and_keras_etas(tmp_path: Path) -> None:
    paddle = "".join(
        f"[2021/09/14 10:00:0{i}] ppdet.engine INFO: Epoch: [0] [{i * 20:>4}/1000] "
        f"learning_rate: 0.000100 loss: {2.5 - i / 10:.1f} eta: {i} day, 2:03:0{i} "
        f"batch_cost: 0.4{i} ips: 20.{i} images/s\n"
        for i in range(1, 5)
    )
    run = one_log(tmp_path, paddle, "paddle.log")
    assert not _CLOCKS & set(run.series)
    assert list(run.get("loss").values) == [2.4, 2.3, 2.2, 2.1]
    assert list(run.get("batch_cost").values) == [0.41, 0.42, 0.43, 0.44]
    keras = "".join(
        f"{n}/600 [=====>...] - ETA: {6 - n // 100}s - loss: {1 - n / 1000:.1f}\n"
        for n in range(100, 600, 100)
    )
    run = one_log(tmp_path, keras, "keras.log")
    assert "eta" not in run.series and len(run.get("loss")) == 5


def test_step_times_are_not_clocks(tmp_path: Path) -> None:
    # near miss: a time per step is a rate of the run, whatever the word "elapsed" in it
    body = "".join(
        f" iteration {s}/ 100 | elapsed time per iteration (ms): 53{s}.6 | lm loss: "
        f"{5 - s / 10:.1f} | data_time: 0.0{s} | time left: 1:0{s}:00\n"
        for s in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert len(run.get("elapsed_time_per_iteration")) == 4
    assert len(run.get("data_time")) == 4
    assert not {"time_left", "left"} & set(run.series)


# -- 4. an argparse Namespace and `key = 'value'` lines are settings, read literally ---------


def _facts(run) -> dict:
    return {k: f.value for k, f in run.facts.items()}


def test_word_lm_namespace_is_settings_not_a_record() -> None:
    case = REAL / "divergence_word_lm_rnn_tanh_lr20_loss_above_ln_vocab_rising_to_17_wikitext2"
    (log,) = case.glob("*.md")
    (run,) = text.read(log)
    facts = _facts(run)
    assert facts["learning_rate"] == 20 and facts["num_train_epochs"] == 6
    assert facts["max_grad_norm"] == 0.25 and facts["per_device_batch"] == 20
    assert facts["dataset"] == "./data/wikitext-2"
    assert "base_model" not in facts  # model='RNN_TANH' is an architecture, trained from scratch
    # it was a record at "step" 6: an lr point and a series per number
    assert not {"bptt", "nhid", "emsize", "clip"} & set(run.series)
    assert run.get("lr").steps[0] == 200


def test_sweep_summary_gives_each_run_its_own_namespace() -> None:
    log = REAL / "lr_too_high_unet_oxfordpets_seg_lr2e3_tfevents/runs/best_res_3run.txt"
    first, second = text.read(log)
    assert _facts(first)["learning_rate"] == 0.001
    assert _facts(second)["learning_rate"] == 0.002  # UNet_lr2e_3's Namespace, not the first
    for run in (first, second):
        facts = _facts(run)
        assert facts["optim"] == "Adam" and facts["per_device_batch"] == 32
        assert facts["dataset"] == "/hpc/archive/T_2024_DLAGM/matteo.gianvenuti/"
        assert "base_model" not in facts  # model_name='UNet_lr1e_3'


def test_nanogpt_config_lines_name_the_base_model() -> None:
    (run,) = text.read(REAL / "nan_nanogpt_gpt2_finetune_shakespeare_iter1/log_excerpt.txt")
    facts = _facts(run)
    assert facts["base_model"] == "gpt2"  # init_from = 'gpt2', not the commented 'gpt2-xl'
    assert facts["dataset"] == "shakespeare"
    assert facts["learning_rate"] == 3e-5


def test_namespace_keeps_its_literals_and_runs_nothing(tmp_path: Path) -> None:
    # near miss: values that are not literals (a device, a function, a call) are skipped,
    # never evaluated; the literals around them are kept
    body = (
        "Namespace(lr=0.1, device=device(type='cuda'), act=<function relu at 0x7f3a>, "
        "data=__import__('os').getcwd(), model='resnet50', optimizer='sgd', warmup=500, "
        "tags=['a', 'b,c'], epochs=3)\n"
        + "".join(f"step {s} loss {2 - s / 10:.1f}\n" for s in range(1, 5))
    )
    facts = _facts(one_log(tmp_path, body))
    assert facts["learning_rate"] == 0.1 and facts["optim"] == "sgd"
    assert facts["warmup_steps"] == 500 and facts["num_train_epochs"] == 3
    assert "dataset" not in facts and "base_model" not in facts


def test_cut_namespace_keeps_what_is_whole(tmp_path: Path) -> None:
    body = "Namespace(model='bert-base-uncased', lr=2e-05, warmup=0.1, data='glue/mr\n"
    body += "".join(f"step {s} loss {0.7 - s / 100:.2f}\n" for s in range(1, 5))
    facts = _facts(one_log(tmp_path, body))
    assert facts["base_model"] == "bert-base-uncased"
    assert facts["learning_rate"] == 2e-05 and facts["warmup_ratio"] == 0.1
    assert "dataset" not in facts  # its value was cut: not a literal


def test_quoted_setting_lines_near_misses(tmp_path: Path) -> None:
    body = (
        "model = 'LSTM'\n"  # an architecture: no base model
        "wandb_run_name = 'ft-' + str(time.time())\n"  # an expression, not a literal
        "task = 'sst2'\n"  # not a setting a fact is taken from
        + "".join(f"step {s} loss {2 - s / 10:.1f}\n" for s in range(1, 5))
    )
    facts = _facts(one_log(tmp_path, body))
    assert not {"base_model", "task"} & set(facts)


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("gpt2", True),
        ("meta-llama/Llama-2-7b-hf", True),
        ("Qwen/Qwen2.5-0.5B-Instruct", True),
        ("bert-base-uncased", True),
        ("LSTM", False),
        ("UNet", False),
        ("resnet50", False),
        ("resume", False),
        ("bertscore", False),
    ],
)
def test_pretrained_families(name: str, known: bool) -> None:
    assert pretrained(name) is known


def test_config_files_share_the_setting_aliases() -> None:
    # the table is configs.py's: a Lightning hparams.yaml with the same keys reads the same
    got = configs.facts_from({"model": "gpt2", "clip": 1.0, "opt": "adamw", "warmup": 0.06}, "h")
    assert {k: f.value for k, f in got.items()} == {
        "base_model": "gpt2",
        "max_grad_norm": 1.0,
        "optim": "adamw",
        "warmup_ratio": 0.06,
    }
    assert "base_model" not in configs.facts_from({"arch": "UNet"}, "h")
