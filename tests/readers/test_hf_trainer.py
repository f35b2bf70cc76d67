"""HF Trainer output dirs: merge across states, facts, and every broken variant."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import (
    ASSETS,
    SUMMARY,
    eval_entry,
    gpt2_config,
    load_checked,
    state,
    train_entry,
    write_state,
)
from traindoc.readers import ReadError


def _history(last: int = 20) -> list[dict]:
    h: list[dict] = []
    for s in range(2, last + 1, 2):
        h.append(train_entry(s, 10.5 - 0.02 * s))
        if s % 10 == 0:
            h.append(eval_entry(s, 10.4 - 0.01 * s))  # same step as a train entry
    return h


def test_merges_top_and_checkpoints_by_step_and_key(tmp_path: Path) -> None:
    full = _history(20)
    write_state(tmp_path / "checkpoint-10" / "trainer_state.json", state(full[:6], 10))
    write_state(tmp_path / "trainer_state.json", state([*full, SUMMARY], 20))
    (tmp_path / "config.json").write_text(json.dumps(gpt2_config()))
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None
    assert loss.steps.tolist() == list(range(2, 21, 2))
    assert loss.values[-1] == pytest.approx(10.1)  # the summary's train_loss 10.39 is not a point
    ev = run.get("eval_loss")
    assert ev is not None and ev.steps.tolist() == [10, 20]
    assert run.get("lr") is not None and run.get("grad_norm") is not None
    assert "eval_runtime" in run.series  # eval extras kept under their own name
    assert run.fact("vocab_size") == 50257
    assert run.fact("max_steps") == 20 and run.fact("per_device_batch") == 4
    assert run.fact("trainer") == "hf"
    assert run.regime == "pretraining"  # 10.46 vs ln(50257)=10.82
    assert "inferred" in run.facts["regime"].source
    assert run.fact("task") == "lm"
    assert run.fact("effective_batch") == 4
    assert "assumed" in run.facts["effective_batch"].source
    assert "resume_steps" not in run.facts


def test_checkpoint_steps_missing_from_final_state_are_kept(tmp_path: Path) -> None:
    """A resume from checkpoint-10 after a crash at 16: 12..16 survive only in checkpoint-16."""
    old = [train_entry(s, 9.0 + s / 100) for s in range(2, 17, 2)]
    write_state(tmp_path / "checkpoint-10" / "trainer_state.json", state(old[:5], 10))
    write_state(tmp_path / "checkpoint-16" / "trainer_state.json", state(old, 16))
    new = old[:5] + [train_entry(s, 8.0 + s / 100) for s in range(12, 15, 2)]
    write_state(tmp_path / "trainer_state.json", state(new, 14))
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None
    assert loss.steps.tolist() == [2, 4, 6, 8, 10, 12, 14, 16]
    assert loss.values[5] == pytest.approx(8.12)  # the final state wins where both have a step
    assert loss.values[-1] == pytest.approx(9.16)  # only the checkpoint had step 16
    assert run.fact("resume_steps") == (10,)
    assert "differs" in run.facts["resume_steps"].source


def test_nan_infinity_tokens_and_nan_strings(tmp_path: Path) -> None:
    h = [train_entry(2, 10.0), train_entry(4, 9.0), train_entry(6, 8.0), train_entry(8, 7.0)]
    text = json.dumps(state(h, 8))  # json writes bare NaN/Infinity for float nan/inf
    h[1]["loss"], h[2]["grad_norm"], h[3]["loss"] = math.nan, math.inf, "nan"
    text = json.dumps(state(h, 8))
    assert "NaN" in text and "Infinity" in text
    write_state(tmp_path / "trainer_state.json", text)
    run = load_checked(tmp_path)
    loss, gn = run.get("loss"), run.get("grad_norm")
    assert loss is not None and gn is not None
    assert np.isnan(loss.values[1]) and np.isnan(loss.values[3]) and np.isinf(gn.values[2])
    assert not run.notes


def test_training_args_config_adapter_and_results(tmp_path: Path) -> None:
    write_state(tmp_path / "trainer_state.json", state(_history(20), 20))
    shutil.copy(ASSETS / "training_args.bin", tmp_path / "training_args.bin")
    (tmp_path / "adapter_config.json").write_text(
        json.dumps(
            {"r": 8, "lora_alpha": 16, "base_model_name_or_path": "gpt2", "peft_version": "0.21.2"}
        )
    )
    (tmp_path / "all_results.json").write_text(json.dumps({"epoch": 2.5, "eval_loss": 10.2}))
    run = load_checked(tmp_path)
    assert run.regime == "lora" and run.fact("lora_r") == 8 and run.fact("base_model") == "gpt2"
    assert run.fact("learning_rate") == 3e-4 and run.fact("lr_scheduler") == "cosine"
    assert run.fact("grad_accum") == 8 and run.fact("precision") == "bf16"
    assert run.fact("max_steps") == 20  # the trainer state's resolved value wins over the args
    assert run.fact("effective_batch") == 32  # 4 x 1 device x 8
    assert run.fact("results")["eval_loss"] == 10.2
    assert run.fact("resume_steps") == (25,)  # resume_from_checkpoint=.../checkpoint-25


def test_classifier_config_gives_classes_not_vocab(tmp_path: Path) -> None:
    write_state(tmp_path / "trainer_state.json", state([train_entry(2, 0.69)], 2))
    cfg = gpt2_config(
        architectures=["BertForSequenceClassification"],
        vocab_size=30522,
        id2label={"0": "neg", "1": "pos", "2": "neu"},
        num_labels=3,
    )
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    run = load_checked(tmp_path)
    assert run.fact("num_classes") == 3 and run.fact("vocab_size") is None
    assert run.fact("input_vocab_size") == 30522
    assert run.fact("task") == "classification"
    assert run.regime is None  # a fresh head starts at ln(C) in any regime


def test_finetune_inferred_from_low_first_loss(tmp_path: Path) -> None:
    write_state(
        tmp_path / "trainer_state.json", state([train_entry(2, 3.1), train_entry(4, 2.9)], 4)
    )
    (tmp_path / "config.json").write_text(json.dumps(gpt2_config()))
    run = load_checked(tmp_path)
    assert run.regime == "full-finetune"


# ---------------------------------------------------------------- broken inputs


def test_truncated_state_is_a_read_error_naming_the_file(tmp_path: Path) -> None:
    text = json.dumps(state(_history(20)), indent=2)
    write_state(tmp_path / "trainer_state.json", text[: len(text) // 2])
    with pytest.raises(ReadError) as err:
        load_checked(tmp_path)
    assert "trainer_state.json" in str(err.value) and "truncated" in str(err.value)
    assert err.value.line is not None and "\n" not in str(err.value)


def test_truncated_top_state_falls_back_to_checkpoints_with_a_note(tmp_path: Path) -> None:
    write_state(tmp_path / "checkpoint-10" / "trainer_state.json", state(_history(10), 10))
    write_state(tmp_path / "trainer_state.json", '{\n  "log_history": [\n    {"loss": 1.0,')
    run = load_checked(tmp_path)
    assert run.get("loss") is not None and run.last_step == 10
    assert any("trainer_state.json" in n.path and "not read" in n.message for n in run.notes)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("not json at all", "invalid JSON"),
        ("[1, 2, 3]", "not a trainer state"),
        ("", "empty"),
    ],
)
def test_unparseable_state(tmp_path: Path, text: str, expect: str) -> None:
    write_state(tmp_path / "trainer_state.json", text)
    with pytest.raises(ReadError, match=expect) as err:
        load_checked(tmp_path)
    assert str(tmp_path / "trainer_state.json") in str(err.value)


@pytest.mark.parametrize(
    ("history", "expect"),
    [([], "log_history is empty"), ({"loss": 1}, "not a list"), (None, "not a list")],
)
def test_empty_or_wrong_log_history_gives_a_partial_run(tmp_path: Path, history, expect) -> None:
    write_state(tmp_path / "trainer_state.json", state(history))
    run = load_checked(tmp_path)
    assert not run.series
    assert run.fact("max_steps") == 20
    assert any(expect in n.message for n in run.notes)


def test_wrong_types_are_counted_notes(tmp_path: Path) -> None:
    h = [train_entry(2, 10.0), train_entry(4, "abc"), "junk", {"loss": 1.0}, train_entry(6, 9.0)]
    h[4]["learning_rate"] = [1, 2]
    write_state(tmp_path / "trainer_state.json", state(h, 6))
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [2, 6]
    msgs = " | ".join(n.message for n in run.notes)
    assert "skipped 2 records without a step (first at log_history[2])" in msgs
    assert "skipped 1 non-numeric 'loss' value (first at log_history[1])" in msgs


def test_broken_side_files_are_notes(tmp_path: Path) -> None:
    write_state(tmp_path / "trainer_state.json", state(_history(4), 4))
    (tmp_path / "config.json").write_text('{"vocab_size": 50')
    (tmp_path / "training_args.bin").write_bytes(b"\x80\x04garbage")
    (tmp_path / "adapter_config.json").write_bytes(b"\xff\xfe\x00")
    run = load_checked(tmp_path)
    assert run.get("loss") is not None
    bad = {Path(n.path).name for n in run.notes}
    assert {"config.json", "training_args.bin", "adapter_config.json"} <= bad


def test_non_utf8_bytes_in_state(tmp_path: Path) -> None:
    text = json.dumps(state([train_entry(2, 10.0)], 2, trial_name="x\udcff"), ensure_ascii=False)
    (tmp_path / "trainer_state.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    run = load_checked(tmp_path)
    assert run.get("loss") is not None


def test_bare_nan_tokens_take_the_fast_parser_and_come_back_as_nan(tmp_path: Path) -> None:
    """NaN/Infinity values are swapped for stand-ins so orjson can parse; none leaks out."""
    import math

    hist = [train_entry(s, 10.0 - s / 10) for s in range(1, 11)]
    text = json.dumps(state(hist, 10) | {"best_model_checkpoint": "/runs/NaN-Infinity/ckpt"})
    text = text.replace('"grad_norm": 0.7', '"grad_norm": NaN', 1)
    text = text.replace('"loss": 9.5', '"loss": Infinity', 1)
    (tmp_path / "trainer_state.json").write_text(text)
    run = load_checked(tmp_path)
    gn, loss = run.get("grad_norm"), run.get("loss")
    assert gn is not None and loss is not None
    assert math.isnan(gn.values[0]) and math.isinf(loss.values[4])
    assert not (abs(loss.values[np.isfinite(loss.values)]) > 1e300).any()
    assert run.fact("best_model_checkpoint") == "/runs/NaN-Infinity/ckpt"


@pytest.mark.parametrize(
    ("base", "task_type", "vocab"),
    [
        ("google/gemma-3-1b-it", "CAUSAL_LM", 262144),  # the family's vocabulary
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "CAUSAL_LM", 128256),
        ("bigscience/bloom-1b7", "SEQ_CLS", None),  # a classification head: C, not V
        ("my-org/some-private-model", "CAUSAL_LM", None),  # no known family: V unknown
    ],
)
def test_adapter_base_model_family_gives_the_vocabulary(
    tmp_path: Path, base: str, task_type: str, vocab: int | None
) -> None:
    """No config.json beside the state: the adapter's base model names the family's V."""
    write_state(tmp_path / "trainer_state.json", state(_history(20), 20))
    (tmp_path / "adapter_config.json").write_text(
        json.dumps({"r": 8, "base_model_name_or_path": base, "task_type": task_type})
    )
    run = load_checked(tmp_path)
    assert run.vocab_size == vocab
    assert (run.fact("task") == "classification") == (task_type == "SEQ_CLS")
