"""TensorBoard event files: real writer output (assets/tensorboard, see its README) checked
against tensorboard's own decoding (expected.json), fast path against fallback, damage."""

from __future__ import annotations

import json
import math
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import ASSETS, load_checked
from traindoc.readers import ReadError, load_run
from traindoc.readers import tensorboard as tb
from traindoc.readers._tbevents import decode, decode_fast, encode_scalar, encode_version
from traindoc.readers._tfrecord import frame, split
from traindoc.readers.discover import discover_runs

TB = ASSETS / "tensorboard"
REF = json.loads((TB / "expected.json").read_text())
FILES = [(d, rel) for d, files in REF.items() for rel in files]
T0 = 1_700_000_000.0


def _points(run) -> dict[str, list]:
    out = {}
    for s in run.series.values():
        if s.source.startswith("derived:"):  # made by traindoc from the logged ones
            continue
        tag = s.source.split(": ", 1)[1]
        vals = [v if math.isfinite(v) else str(v) for v in s.values.tolist()]
        out[tag] = [list(p) for p in zip(s.steps.tolist(), vals, s.times.tolist(), strict=True)]
    return out


@pytest.mark.parametrize(("d", "rel"), FILES, ids=[f"{d}/{r[:20]}" for d, r in FILES])
def test_every_point_equals_tensorboards_own_decoding(d: str, rel: str) -> None:
    """Each file read alone: same tags, steps, values (float32 exact) and wall times.
    A step logged twice (Lightning's epoch) keeps its later write, as Series promises."""
    want = {t: sorted({p[0]: p for p in pts}.values()) for t, pts in REF[d][rel].items()}
    assert _points(load_checked(TB / d / rel)) == want


@pytest.mark.parametrize(("d", "rel"), FILES, ids=[f"{d}/{r[:20]}" for d, r in FILES])
def test_fast_path_equals_fallback_decoder(d: str, rel: str) -> None:
    data = (TB / d / rel).read_bytes()
    offs, lens, problems = split(data)
    assert not problems
    fast = decode_fast(data, offs, lens)
    for k, i in enumerate(fast["idx"].tolist()):
        wall, step, values = decode(data[offs[i] : offs[i] + lens[i]])
        assert len(values) == 1 and values[0][1] == "scalar"
        got = (fast["tags"][fast["tag"][k]].decode(), int(fast["step"][k]), float(fast["wall"][k]))
        assert got == (values[0][0], step, wall)
        assert np.array_equal(fast["value"][k], values[0][2], equal_nan=True)


def test_fast_and_fallback_agree_on_a_mixed_file(tmp_path: Path) -> None:
    """Long tags (past the fast layout), negative and huge steps, text, between plain scalars."""
    text = bytes.fromhex("0a310a116172") + b"garbage-free text record?"  # not an Event summary
    events = [encode_version(T0)]
    tags = ["train/loss", "x" * 200, "y" * 60, "eval/loss"]
    for i in range(400):
        step = [i, -i, 2**40 + i, 2**62, 0][i % 5]
        events.append(encode_scalar(tags[i % 4], i / 7, step, T0 + i))
        if i % 50 == 0:
            events.append(text)
    data = b"".join(frame(e) for e in events)
    offs, lens, _ = split(data)
    fast = decode_fast(data, offs, lens)
    assert 0 < fast["idx"].size < offs.size
    f = tmp_path / "events.out.tfevents.1.mixed"
    f.write_bytes(data)
    run = tb.read(f)
    for k, tag in enumerate(tags):
        rows = [(s, i / 7) for i in range(k, 400, 4) for s in [[i, -i, 2**40 + i, 2**62, 0][i % 5]]]
        last = dict(sorted(rows, key=lambda r: r[0]))  # a repeated step: the later write
        s = next(s for s in run.series.values() if s.source.endswith(": " + tag))
        assert s.steps.tolist() == sorted(last)
        assert np.allclose(s.values, [np.float32(v) for _, v in sorted(last.items())])


def test_encoder_writes_the_bytes_summary_writer_writes() -> None:
    """The bench writes its 1 M events with encode_scalar: it must equal torch's output."""
    f = next((TB / "encoder").glob("*tfevents*"))
    data = f.read_bytes()
    offs, lens, _ = split(data)
    records = [data[o - 12 : o + n + 4] for o, n in zip(offs.tolist(), lens.tolist(), strict=True)]
    want = []
    for i, s in enumerate([0, 1, 300, 2**40, -5]):
        want.append(frame(encode_scalar("train/loss", math.sin(i) + 2, s, T0 + i / 3)))
        want.append(frame(encode_scalar("eval/loss", -1.5e-7 * i, s, T0 + i / 3)))
    assert records[1:] == want


def test_hf_args_text_summary_gives_facts_and_hf_tags_map() -> None:
    run = load_checked(TB / "torch_mixed")
    assert run.fact("trainer") == "hf"
    assert run.fact("learning_rate") == 3e-4 and run.fact("lr_scheduler") == "cosine"
    assert run.fact("warmup_steps") == 7 and run.fact("per_device_batch") == 4
    assert run.fact("grad_accum") == 8 and run.fact("max_grad_norm") == 0.5
    assert run.fact("precision") == "bf16" and run.fact("effective_batch") == 32
    assert run.facts["learning_rate"].source == "args/text_summary: learning_rate"
    loss, lr = run.get("loss"), run.get("lr")
    assert loss is not None and lr is not None and len(loss) == 20 and loss.times is not None
    assert loss.source == "tensorboard: train/loss"
    # add_scalars("loss", {"train", "val"}) -> loss_train/, loss_val/ sub-writers
    ev = run.get("eval_loss")
    assert ev is not None and ev.steps.tolist() == [0, 5, 10, 15]
    assert "train/loss" in run.series and run.series["train/loss"].source.startswith(
        "tensorboard: loss_train/"
    )
    assert np.isnan(run.series["nan/loss"].values[0]) and np.isinf(run.series["nan/loss"].values[1])
    assert run.series["ns/double"].values[0] == 1 / 3  # double_precision kept as double
    assert "weights" not in run.series and not run.notes


def test_tensorboardx_tf2_and_tf1_stripped_metadata() -> None:
    tbx = load_checked(TB / "tbx")
    assert len(tbx.series["loss"]) == 10 and len(tbx.series["train/desc"]) == 10
    tf2 = load_checked(TB / "tf2")
    assert len(tf2.series["epoch_loss"]) == 12
    assert len(tf2.series["tf1/stripped"]) == 12  # metadata on the first event only
    assert tf2.series["multi/b"].values.tolist() == [2.5]  # two values in one event


def test_lightning_tensorboard_logger_dir() -> None:
    run = load_checked(TB / "lightning_tb")  # the folder above lightning_logs/version_0
    assert run.fact("trainer") == "lightning" and run.fact("learning_rate") == 0.05
    assert run.get("loss") is not None and run.get("loss").source == "tensorboard: train_loss_step"
    assert run.get("eval_loss") is not None and "train_loss_epoch" in run.series


def test_resume_regression_is_kept_and_flagged() -> None:
    run = load_checked(TB / "resume")
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == list(range(40))
    assert loss.values[25] == np.float32(2.5 - 25 / 40)  # the restarted run's write wins
    assert loss.values[10] == np.float32(3.0 - 10 / 30)  # the first run's points stay
    assert run.fact("resume_steps") == (20,)
    assert "29->20" in run.facts["resume_steps"].source


def test_find_runs_gives_one_run_per_directory(tmp_path: Path) -> None:
    shutil.copytree(TB / "torch_mixed", tmp_path / "exp" / "a")
    shutil.copytree(TB / "lightning_tb", tmp_path / "exp" / "b")
    shutil.copytree(TB / "tf2", tmp_path / "c")
    runs = tb.find_runs(tmp_path)
    assert runs == [tmp_path / "c", tmp_path / "exp/a", tmp_path / "exp/b/lightning_logs/version_0"]
    run = load_run(tmp_path)  # several runs: one read, the others named in a note
    assert any("also found" in n.message for n in run.notes)


CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_a_resume_in_a_new_dated_dir_is_read_as_one_run() -> None:
    """HF Trainer resumed by a new process writes runs/<date_host> again: one run, resumed."""
    root = CORPUS / "tensorboard-hf-resume-healthy"
    first, second = sorted((root / "runs").iterdir())
    assert tb.find_runs(root) == [second]
    assert discover_runs(root) == [second]
    run = load_checked(root)
    loss = run.get("loss")
    assert loss.steps[0] == 2 and loss.steps[-1] == 300 and len(loss) == 150
    assert run.fact("resume_steps") == (152,)
    assert "Nov" in run.facts["resume_steps"].source
    assert any(first.name in n.message for n in run.notes)
    # pointed at the first part, only that part is read
    assert load_checked(first).get("loss").steps[-1] == 150


def test_a_fresh_rerun_in_a_dated_sibling_is_its_own_run(tmp_path: Path) -> None:
    src = sorted((CORPUS / "tensorboard-hf-resume-healthy" / "runs").iterdir())[0]
    for name in ("Nov29_10-00-00_host", "Nov29_11-00-00_host"):  # both start at step 2
        shutil.copytree(src, tmp_path / "runs" / name)
    runs = tb.find_runs(tmp_path)
    assert [r.name for r in runs] == ["Nov29_10-00-00_host", "Nov29_11-00-00_host"]
    run = load_checked(runs[1])
    assert run.fact("resume_steps") is None and run.get("loss").steps[-1] == 150


def _ref(d: str, writer: str, tag: str) -> list:
    (pts,) = [t[tag] for f, t in REF[d].items() if f.startswith(writer + "/")]
    return pts


def test_keras_train_and_validation_dirs_are_one_run_on_the_epoch_axis(tmp_path: Path) -> None:
    shutil.copytree(TB / "keras", tmp_path / "logs")
    assert tb.find_runs(tmp_path) == [tmp_path / "logs"]
    run = load_checked(tmp_path / "logs")
    want = {"loss": ("train", "epoch_loss"), "eval_loss": ("validation", "epoch_loss")}
    for name, (writer, tag) in want.items():
        s = run.get(name)
        assert s.source == f"tensorboard: {writer}/{tag}"
        assert s.steps.tolist() == [p[0] for p in _ref("keras", writer, tag)]
        assert s.values.tolist() == [p[1] for p in _ref("keras", writer, tag)]
    assert run.get("lr") is not None and run.last_step == 11  # not the iteration axis
    assert any("evaluation_loss_vs_iterations" in n.message for n in run.notes)


def test_keras_per_batch_logs_are_read_on_the_iteration_axis() -> None:
    run = load_checked(TB / "keras_batch")
    assert run.get("loss").source == "tensorboard: train/batch_loss"
    evals = _ref("keras_batch", "validation", "evaluation_loss_vs_iterations")
    assert run.get("eval_loss").steps.tolist() == [p[0] for p in evals]
    assert run.last_step == evals[-1][0] and len(run.get("loss")) > len(evals)


def test_a_torch_writer_in_train_and_val_dirs_keeps_its_tags(tmp_path: Path) -> None:
    for sub, tag in (("train", "loss"), ("val", "loss")):
        d = tmp_path / "logs" / sub
        d.mkdir(parents=True)
        recs = [encode_version(T0)] + [
            encode_scalar(tag, 2.0 - s / 10, s, T0 + s) for s in range(10)
        ]
        (d / "events.out.tfevents.1.host").write_bytes(b"".join(frame(r) for r in recs))
    assert tb.find_runs(tmp_path) == [tmp_path / "logs"]
    run = load_checked(tmp_path / "logs")
    assert len(run.get("loss")) == 10 and len(run.get("eval_loss")) == 10


def _copy(tmp_path: Path, d: str = "resume") -> Path:
    f = sorted((TB / d).glob("*tfevents*"))[0]
    out = tmp_path / "run" / f.name
    out.parent.mkdir()
    shutil.copy(f, out)
    return out


def test_truncated_last_record_keeps_everything_before(tmp_path: Path) -> None:
    f = _copy(tmp_path)
    f.write_bytes(f.read_bytes()[:-7])
    run = load_checked(f.parent)
    assert run.get("loss") is not None and run.get("loss").steps.tolist() == list(range(29))
    assert any("truncated last record" in n.message for n in run.notes)


def test_bad_crcs_skip_the_record_or_stop(tmp_path: Path) -> None:
    f = _copy(tmp_path)
    data = bytearray(f.read_bytes())
    offs, _lens, _ = split(bytes(data))
    data[offs[5] + 20] ^= 0xFF  # a value byte: the payload CRC fails, that record goes
    f.write_bytes(bytes(data))
    run = load_checked(f.parent)
    assert len(run.get("loss")) == 29 and any("bad data CRC" in n.message for n in run.notes)
    data[offs[10] - 12] ^= 0x01  # a length byte: nothing after it can be trusted
    f.write_bytes(bytes(data))
    run = load_checked(f.parent)
    assert len(run.get("loss")) == 8 and any("header" in n.message for n in run.notes)


def test_empty_garbage_and_wrong_content(tmp_path: Path) -> None:
    f = _copy(tmp_path)
    f.write_bytes(b"")
    with pytest.raises(ReadError):
        load_run(f)
    f.write_bytes(b"not an event file at all, just some text\n" * 3)
    with pytest.raises(ReadError, match="no scalar values in its 1 event file"):
        load_run(f.parent)  # nothing to diagnose is an error, not a healthy empty run
    # a well-framed record whose payload is not an Event: counted, and named in the error
    f.write_bytes(frame(encode_version(T0)) + frame(b"\x0a\xff\xff\xff") + frame(b"\x09abc"))
    with pytest.raises(ReadError, match="malformed event record"):
        load_run(f.parent)
    # next to a good record it is only a note
    good = frame(encode_scalar("loss", 1.0, 1, T0))
    f.write_bytes(frame(encode_version(T0)) + frame(b"\x0a\xff\xff\xff") + good)
    run = load_checked(f.parent)
    assert len(run.get("loss")) == 1
    assert any("malformed event record" in n.message for n in run.notes)


def test_new_style_double_scalar_layout_is_fast(tmp_path: Path) -> None:
    """torch new_style=True, double_precision=True bytes take the fast path too."""
    body = bytes.fromhex("0a036e7364420c0802320800000000000004404a0b0a090a077363616c617273")
    ev = b"\x09" + struct.pack("<d", T0) + b"\x10\x07\x2a" + bytes([len(body) + 2, 0x0A, len(body)])
    data = frame(ev + body)
    offs, lens, _ = split(data)
    fast = decode_fast(data, offs, lens)
    assert fast["idx"].tolist() == [0] and fast["value"][0] == 2.5 and fast["tensor"][0]


def test_an_eval_return_tag_is_read_as_the_eval_reward() -> None:
    """CS285 hw3 DQN's own tfevents (tests/real, lr 0.05 seed 2): its `eval_return` (the
    mean return of the eval episodes, every 10k steps) is the eval_reward, beside the
    training episodes' `train_return` (reward); the evals' max / std keep their tags."""
    case = "lr_too_high_cs285_hw3_dqn_cartpole_lr0p05_seed2_eval_return_9_93_critic_loss_to_136_tfevents"
    f = next((Path(__file__).parents[1] / "real" / case).glob("events.out.tfevents.*"))
    run = load_run(f)
    ev = run.get("eval_reward")
    assert ev is not None and ev.source == "tensorboard: eval_return"
    assert len(ev) == 30 and ev.values.max() == pytest.approx(115.2, abs=0.05)
    assert ev.values[0] == pytest.approx(38.6, abs=0.05)
    assert run.get("reward").source == "tensorboard: train_return"
    assert "eval/return_max" in run.series and "eval/return_std" in run.series
    assert run.is_rl


def test_eval_return_tags_of_common_trainers() -> None:
    for tag in ("Eval_AverageReturn", "eval/return", "eval/mean_reward", "AverageTestEpRet"):
        assert tb._signal(tag) == ("eval_reward", True), tag
    for tag in ("Eval_StdReturn", "eval/return_max", "Train_AverageReturn", "eval/loss"):
        assert tb._signal(tag)[0] != "eval_reward", tag
