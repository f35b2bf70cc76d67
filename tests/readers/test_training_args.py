"""training_args.bin: every field back as plain data, and nothing ever executed."""

from __future__ import annotations

import os
import pickle
import zipfile
from pathlib import Path

import pytest

from tests.readers.helpers import ASSETS, load_checked
from traindoc.readers import ReadError
from traindoc.readers.training_args import facts_from_args, load_args


@pytest.mark.parametrize("name", ["training_args.bin", "training_args_legacy.bin"])
def test_real_file_recovers_all_fields(name: str) -> None:
    args = load_args(ASSETS / name)
    assert len(args) == 120  # FORMATS.md 1.5: all fields of transformers 5.24 TrainingArguments
    assert args["learning_rate"] == 3e-4
    assert args["lr_scheduler_type"] == "cosine"  # an enum stub carries its value
    assert args["optim"] == "adamw_torch"
    assert args["per_device_train_batch_size"] == 4 and args["gradient_accumulation_steps"] == 8
    facts = facts_from_args(args, name)
    assert facts["precision"].value == "bf16" and facts["max_grad_norm"].value == 0.5
    assert facts["devices"].value == 1 and facts["seed"].value == 1234
    assert facts["logging_nan_inf_filter"].value is True


def test_load_run_on_the_file_alone(tmp_path: Path) -> None:
    (tmp_path / "training_args.bin").write_bytes((ASSETS / "training_args.bin").read_bytes())
    run = load_checked(tmp_path / "training_args.bin")
    assert not run.series and run.fact("warmup_steps") == 7
    assert run.fact("effective_batch") == 32


class _Evil:
    def __init__(self, cmd: str) -> None:
        self.cmd = cmd

    def __reduce__(self):
        return (os.system, (self.cmd,))


class _EvilOpen:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _payloads(tmp_path: Path) -> list[bytes]:
    marker = tmp_path / "pwned"
    evil = {"learning_rate": 1.0, "x": _Evil(f"touch {marker}"), "y": _EvilOpen(str(marker))}
    return [pickle.dumps(evil, protocol=p) for p in (0, 2, 4, 5)]


def test_malicious_pickle_executes_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for i, payload in enumerate(_payloads(tmp_path)):
        plain = tmp_path / f"plain{i}.bin"
        plain.write_bytes(payload)
        zipped = tmp_path / f"zipped{i}.bin"
        with zipfile.ZipFile(zipped, "w") as zf:
            zf.writestr("archive/data.pkl", payload)
        for f in (plain, zipped):
            args = load_args(f)
            assert args["learning_rate"] == 1.0
            assert args["x"] == f"touch {marker}"  # the call's argument, recorded as data
            assert not marker.exists(), f"{f.name}: a pickle call was executed"


def test_malicious_pickle_through_load_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "training_args.bin").write_bytes(_payloads(tmp_path)[2])
    load_checked(tmp_path / "run")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("data", "expect"),
    [
        (b"\x80\x04garbage", "not a readable pickle"),
        (pickle.dumps([1, 2, 3]), "not TrainingArguments"),
        (b"", "not a readable pickle"),
    ],
)
def test_broken_pickles_raise_read_error(tmp_path: Path, data: bytes, expect: str) -> None:
    f = tmp_path / "training_args.bin"
    f.write_bytes(data)
    with pytest.raises(ReadError, match=expect) as err:
        load_args(f)
    assert str(f) in str(err.value)


def test_zip_without_data_pkl(tmp_path: Path) -> None:
    f = tmp_path / "training_args.bin"
    with zipfile.ZipFile(f, "w") as zf:
        zf.writestr("archive/version", "3")
    with pytest.raises(ReadError, match=r"without data\.pkl"):
        load_args(f)
