"""One test per failure class of issue 14: exit 0/1, or exit 2 with one stderr line
naming the file, or a partial report with a note; never a traceback or a hang."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.fuzz import pickles
from traindoc import safepickle
from traindoc.cli import app


def _run(*argv: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(argv))
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout, res.stderr


def _bad_input(path: Path, *argv: str) -> str:
    code, _, err = _run(*argv)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and str(path) in lines[0], (code, err)
    return lines[0]


def _zip(tmp: Path, name: str, pkl: bytes) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(pickles.torch_zip({"data.pkl": pkl, "version": b"3\n"}))
    return p


def test_shared_reference_pickle_is_not_expanded(tmp_path: Path) -> None:
    rng = __import__("random").Random(1)
    bomb = pickles.shared(rng)
    obj = safepickle.plain(safepickle.load(bomb))  # a graph, not 10**30 leaves
    assert obj is not None
    p = _zip(tmp_path, "training_args.bin", bomb)
    assert _run("diagnose", str(p))[0] in (0, 1, 2)
    p = _zip(tmp_path, "m/pytorch_model.bin", bomb)
    assert _run("ckpt", str(p), "-f", "json")[0] in (0, 1, 2)
    opt = _zip(tmp_path, "checkpoint-5/optimizer.pt", bomb)
    assert _run("preflight", "--resume", str(opt.parent), "-f", "json")[0] in (0, 1)


@pytest.mark.parametrize("depth", [100_000])
def test_deep_pickle_is_an_error_message(tmp_path: Path, depth: int) -> None:
    p = tmp_path / "training_args.bin"
    p.write_bytes(pickles.pickle(b"(" * depth + b"l" * depth))
    _bad_input(p, "diagnose", str(p))


def test_hostile_pickle_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    rng = __import__("random").Random(0)
    for _ in range(20):
        p = _zip(tmp_path, "m/pytorch_model.bin", pickles.hostile(str(marker), rng))
        _run("ckpt", str(p))
        _run("diagnose", str(p))
    assert not marker.exists()


def test_deep_safetensors_header(tmp_path: Path) -> None:
    raw = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    p = tmp_path / "model.safetensors"
    p.write_bytes(len(raw).to_bytes(8, "little") + raw)
    _bad_input(p, "ckpt", str(p))


@pytest.mark.parametrize("dtype", [["F32"], {"a": 1}])
def test_safetensors_dtype_of_wrong_type(tmp_path: Path, dtype: object) -> None:
    raw = json.dumps({"w": {"dtype": dtype, "shape": [1], "data_offsets": [0, 4]}}).encode()
    p = tmp_path / "model.safetensors"
    p.write_bytes(len(raw).to_bytes(8, "little") + raw + b"\0" * 4)
    assert "unknown dtype" in _bad_input(p, "ckpt", str(p))


def test_bad_checkpoint_in_run_dir_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "metrics.jsonl").write_text(
        "".join(f'{{"step": {i}, "loss": {3 - i / 20}}}\n' for i in range(1, 40))
    )
    ck = tmp_path / "checkpoint-10"
    ck.mkdir()
    raw = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    (ck / "model.safetensors").write_bytes(len(raw).to_bytes(8, "little") + raw)
    code, out, _ = _run("diagnose", str(tmp_path), "-f", "json")
    assert code in (0, 1) and "checkpoint-10" in out


@pytest.mark.parametrize("step", ["1e309", "NaN", "Infinity", "9" * 5000, "18446744073709551616"])
def test_step_that_is_no_counter(tmp_path: Path, step: str) -> None:
    p = tmp_path / "m.jsonl"
    p.write_text(f'{{"step": {step}, "loss": 2}}\n{{"step": 1, "loss": 1}}\n')
    code, out, _ = _run("diagnose", str(p), "-f", "json")
    assert code in (0, 1) and "not a counter" in out


@pytest.mark.parametrize("step", ["inf", "-inf", "nan", "1e309"])
def test_console_step_that_is_no_counter(tmp_path: Path, step: str) -> None:
    """A console line whose step is not finite takes the step of the line before."""
    lines = [f"step {s}: loss {3 - s / 10:.2f}" for s in range(1, 9)]
    lines[4] = f"step {step}: loss 2.50"
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    code, out, _ = _run("diagnose", str(p), "-f", "json")
    run = json.loads(out)["runs"][0]
    assert code in (0, 1)
    assert "line before" in run["inputs"][0]["steps_from"]


@pytest.mark.parametrize(
    "doc", ['{"log_history": 5}', '{"log_history": [5, "x", {"step": 1e309}]}']
)
def test_trainer_state_of_wrong_types(tmp_path: Path, doc: str) -> None:
    (tmp_path / "trainer_state.json").write_text(doc)
    (tmp_path / "checkpoint-3").mkdir()
    (tmp_path / "checkpoint-3" / "trainer_state.json").write_text(doc)
    code, _, err = _run("diagnose", str(tmp_path), "-f", "json")
    assert code in (0, 1) or (code == 2 and len(err.strip().splitlines()) == 1)


@pytest.mark.parametrize(
    "text",
    [
        '{"step": 1, "loss": 2, "learning_rate": 5e-324}',
        '{"step": 1, "loss": NaN}',
        '{"step": 1, "loss": 1e308, "grad_norm": 1.79e308}',
    ],
)
def test_html_takes_any_value(tmp_path: Path, text: str) -> None:
    p = tmp_path / "m.jsonl"
    lines = [text.replace('"step": 1', f'"step": {i}') for i in range(1, 30)]
    p.write_text("\n".join(lines) + "\n")
    code, _, _ = _run("diagnose", str(p), "--html", str(tmp_path / "r.html"))
    assert code in (0, 1) and (tmp_path / "r.html").stat().st_size > 1000


def test_config_with_a_dict_for_heads(tmp_path: Path) -> None:
    from traindoc.model.params import params_from_config

    cfg = {
        "hidden_size": 8,
        "num_hidden_layers": 2,
        "vocab_size": 10,
        "num_attention_heads": {"a": 1},
    }
    assert params_from_config(cfg) is None


def test_progress_bars_before_any_metric(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    bars = "".join(f" {i}%|##| {i}/100 [00:01<00:02, 3.1it/s]\r" for i in range(30))
    p.write_text(bars + "\n{'loss': 2.5, 'learning_rate': 5e-05, 'epoch': 0.1}\n")
    assert _run("diagnose", str(p), "-f", "json")[0] in (0, 1, 2)


@pytest.mark.parametrize("pattern", [r"(?P<loss>(x+x+)+y)", r"(?P<step>(\d|\d\d)*)+!"])
def test_pattern_that_backtracks_is_refused(tmp_path: Path, pattern: str) -> None:
    p = tmp_path / "train.log"
    p.write_text("x" * 5000 + "\n")
    assert "backtrack" in _bad_input(p, "diagnose", str(p), "--pattern", pattern)


def test_folder_with_a_broken_run_says_so(tmp_path: Path) -> None:
    good = "".join(f'{{"step": {i}, "loss": {3 - i / 20}}}\n' for i in range(1, 40))
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_text(good)
    (tmp_path / "b" / "metrics.jsonl").write_text('{"step": 1, "loss": 1}\n' + "\0" * 10)
    (tmp_path / "b" / "metrics.jsonl").write_bytes(b"")
    code, _, err = _run("diagnose", str(tmp_path))
    assert code != 2 or len(err.strip().splitlines()) == 1


def test_parquet_page_damage_is_one_line(tmp_path: Path) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table({"text": [f"row {i}" for i in range(200)]}), buf)
    raw = bytearray(buf.getvalue())
    for i in range(8, 120):
        raw[i] ^= 0x5A
    p = tmp_path / "train.parquet"
    p.write_bytes(bytes(raw))
    code, _, err = _run("data", str(p))
    assert code in (0, 1) or (code == 2 and len(err.strip().splitlines()) == 1)


def test_unreadable_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "model.safetensors"
    p.write_bytes(b"\0" * 16)
    real = open

    def deny(file, *a, **k):
        if str(file) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real(file, *a, **k)

    monkeypatch.setattr("builtins.open", deny)
    assert "permission denied" in _bad_input(p, "ckpt", str(p))


def test_monitor_skips_bad_values_and_keeps_watching(caplog: pytest.LogCaptureFixture) -> None:
    from traindoc.live.monitor import Monitor

    m = Monitor(vocab_size=100, watchdog=False, raise_on_stop=False)
    with caplog.at_level(logging.WARNING, "traindoc"):
        m.step("x", loss=2.0)
        m.step(2**64, loss=2.0)
        m.step(1, loss="abc")
        for i in range(2, 6):
            m.step(i, loss=float("nan"))
    assert not m.disabled and m.skipped == 3
    assert any(f.rule == "nonfinite-loss" for f in m.findings)
    assert sum("skipped" in r.message for r in caplog.records) == 1


def test_monitor_never_waits_on_the_watchdogs_lock() -> None:
    from traindoc.live.monitor import Monitor

    m = Monitor(vocab_size=100, watchdog=False, raise_on_stop=False)
    m._lock.acquire()  # as if the watchdog were recording a stall
    try:
        done = threading.Event()
        t = threading.Thread(target=lambda: (m.step(1, loss=float("nan")), done.set()))
        t.start()
        assert done.wait(5), "the training thread blocked on the findings lock"
    finally:
        m._lock.release()
    m.step(2, loss=1.0)  # the deferred finding is recorded now
    assert any(f.rule == "nonfinite-loss" for f in m.findings)


# ---- hangs: inputs whose cost grew faster than their size ---------------------------


def _timed(*argv: str) -> tuple[int, float]:
    """Exit status and CPU seconds (not wall time: the machine may be shared)."""
    import time

    t = time.process_time()
    code = _run(*argv)[0]
    return code, time.process_time() - t


@pytest.mark.parametrize("open_", ["[", "{"])
def test_deeply_nested_yaml_config_is_quick(tmp_path: Path, open_: str) -> None:
    # PyYAML's pure-Python scanner is quadratic in the flow depth (4 s for 20 KB);
    # libyaml is linear and refuses the nesting.
    from traindoc.readers.configs import safe_yaml

    d = 50_000
    close = "]" if open_ == "[" else "}"
    inner = open_ if open_ == "[" else '{"a": '
    p = tmp_path / "axolotl.yml"
    p.write_text("base_model: gpt2\nlearning_rate: 1e-4\ndeep: " + inner * d + "1" + close * d)
    code, secs = _timed("preflight", "--config", str(p), "-f", "json")
    assert code in (0, 1, 2) and secs < 5
    assert safe_yaml("a: [1, {b: 2}]") == {"a": [1, {"b": 2}]}


def test_long_lines_in_a_console_log_are_not_analysed(tmp_path: Path) -> None:
    # each 400 KB line has its own shape: analysing and compiling them cost 2 s a line
    from traindoc.readers.logs import lines

    p = tmp_path / "train.log"
    good = "".join(f"step {i} loss {3 - i / 20:.3f}\n" for i in range(1, 40))
    junk = "".join(f" {k}%|##| {k}/2 [00:00<00:00, " + f"{k}(" * 100_000 + "\n" for k in range(10))
    p.write_text(good + junk)
    code, secs = _timed("diagnose", str(p), "-f", "json")
    assert code in (0, 1) and secs < 5
    assert lines.MAX_LINE < 400_000


def test_training_args_of_too_many_opcodes_is_refused(tmp_path: Path) -> None:
    # 16 MB of pickle is read at ~10 us an opcode: a minute, for a file that is ~4 KB
    p = tmp_path / "training_args.bin"
    p.write_bytes(pickles.pickle(b"(" + b"K\x01" * 200_000 + b"l"))
    assert "opcodes" in _bad_input(p, "diagnose", str(p))
    assert safepickle.load(pickles.pickle(b"(" + b"K\x01" * 10 + b"l"), max_ops=20) == [1] * 10


def test_folder_of_many_empty_files_is_quick(tmp_path: Path) -> None:
    for i in range(2000):
        (tmp_path / f"f{i}.txt").write_bytes(b"")
    (tmp_path / "metrics.jsonl").write_text('{"step": 1, "loss": 2.5}\n{"step": 2, "loss": 2.4}\n')
    code, secs = _timed("diagnose", str(tmp_path), "-f", "json")
    assert code in (0, 1, 2) and secs < 5


def test_wandb_records_with_wrong_wire_types(tmp_path: Path) -> None:
    import random

    from tests.fuzz import formats, seeds
    from traindoc import pipeline
    from traindoc.readers import ReadError

    seed = next(s for s in seeds.seeds() if s.name == "wandb")
    ((name, data),) = seed.files.items()
    recs = formats.wb_split(data)
    for k in range(30):
        rng = random.Random(k)
        bad = [formats._wire_swap(rng, r) if rng.random() < 0.5 else r for r in recs]
        p = tmp_path / str(k) / name
        p.parent.mkdir(parents=True)
        p.write_bytes(formats.wb_join(data[:7], bad))
        with contextlib.suppress(ReadError):
            pipeline.load_all(p)


def test_trainer_state_nested_too_deeply(tmp_path: Path) -> None:
    # numbers.loads turns the parser's RecursionError into a ValueError, not a JSONDecodeError
    p = tmp_path / "trainer_state.json"
    p.write_text('{"log_history": [], "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nested too deeply" in _bad_input(tmp_path, "diagnose", str(tmp_path))


@pytest.mark.parametrize(
    "text", ["lr: " + "9" * 5000, "when: !!timestamp 2001-12-14x", "when: !!timestamp 2001-99-99"]
)
def test_yaml_scalar_that_does_not_convert(tmp_path: Path, text: str) -> None:
    # PyYAML's constructors raise int()'s ValueError, or AttributeError on a bad timestamp
    import yaml

    from traindoc.readers.configs import safe_yaml

    with contextlib.suppress(yaml.YAMLError):
        safe_yaml(text)
    p = tmp_path / "tiny_pt.yaml"
    p.write_text("model_name_or_path: gpt2\nstage: pt\n" + text + "\n")
    assert _run("preflight", "--config", str(p), "-f", "json")[0] in (0, 1, 2)


# Fuzz cases (base 0) that failed once, replayed: (case, seed, what it found).
FOUND = [
    (6234, "torch-bin", "member cut short under a directory giving its full size: numpy view"),
    (6335, "torch-bin", "the same through the API"),
    (12222, "hf", "config.json architectures of the wrong type: TypeError"),
    (13708, "own-bin", "zip name flagged UTF-8 that is not: UnicodeDecodeError"),
    (19003, "own-bin", "encrypted zip member: RuntimeError"),
    (3247, "yaml", "!!timestamp its regex does not match: AttributeError in PyYAML"),
    (5016, "llamafactory", "trainer_state.json nested too deeply: ValueError"),
    (40888, "bars", "config line whose plan has more number slots than it: IndexError"),
]


@pytest.mark.parametrize(("n", "seed", "what"), FOUND, ids=[str(f[0]) for f in FOUND])
def test_fuzz_case_that_failed_once(tmp_path: Path, n: int, seed: str, what: str) -> None:
    from tests.fuzz import harness

    case = harness.make_case(n)
    assert case.seed == seed
    out = harness.run_case(case, tmp_path, tmp_path / "MARKER")
    assert out.kind == "ok", (what, out)


@pytest.mark.parametrize("argv", [("ckpt", "{d}", "-f", "json"), ("preflight", "--resume", "{d}")])
def test_side_file_that_is_a_fifo(tmp_path: Path, argv: tuple[str, ...]) -> None:
    # trainer_state.json as a FIFO: reading it waited for a writer that never came
    import os

    from tests.fuzz import seeds

    seed = next(s for s in seeds.seeds() if s.name == "hf-ckpt")
    for rel, data in seed.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    d = tmp_path / "checkpoint-20"
    (d / "trainer_state.json").unlink()
    os.mkfifo(d / "trainer_state.json")
    done: list[int] = []
    t = threading.Thread(target=lambda: done.append(_run(*(a.format(d=d) for a in argv))[0]))
    t.daemon = True
    t.start()
    t.join(30)
    assert done and done[0] in (0, 1, 2)
