"""Helpers shared by the reader tests: HF-shaped fixtures and a write detector."""

from __future__ import annotations

import json
import os
from pathlib import Path

from traindoc.model import Run
from traindoc.readers import load_run

ASSETS = Path(__file__).parent / "assets"


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with (mtime_ns, size): a reader must change none of it."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return out


def load_checked(path: Path) -> Run:
    """load_run, asserting that nothing under the run dir was created or changed."""
    root = path if path.is_dir() else path.parent
    before = listing(root)
    try:
        return load_run(path)
    finally:
        assert listing(root) == before, "a reader wrote into the run directory"


def train_entry(step: int, loss: float, lr: float = 5e-4, gn: float = 0.7) -> dict:
    return {"epoch": step / 8, "grad_norm": gn, "learning_rate": lr, "loss": loss, "step": step}


def eval_entry(step: int, loss: float) -> dict:
    return {
        "epoch": step / 8,
        "eval_loss": loss,
        "eval_runtime": 0.29,
        "eval_samples_per_second": 27.4,
        "eval_steps_per_second": 6.8,
        "step": step,
    }


SUMMARY = {
    "epoch": 2.5,
    "step": 20,
    "total_flos": 782499840.0,
    "train_loss": 10.39,
    "train_runtime": 24.87,
    "train_samples_per_second": 6.43,
    "train_steps_per_second": 0.8,
}


def state(history: list, global_step: int = 20, **kw) -> dict:
    """A trainer_state.json as FORMATS.md 1.2 describes it (transformers 5.x)."""
    base = {
        "best_global_step": None,
        "best_metric": None,
        "best_model_checkpoint": None,
        "epoch": global_step / 8,
        "eval_steps": 5,
        "global_step": global_step,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": history,
        "logging_steps": 2,
        "max_steps": 20,
        "num_input_tokens_seen": 0,
        "num_train_epochs": 3,
        "save_steps": 10,
        "stateful_callbacks": {},
        "total_flos": 782499840.0,
        "train_batch_size": 4,
        "trial_name": None,
        "trial_params": None,
    }
    return base | kw


def write_state(path: Path, st: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = st if isinstance(st, str) else json.dumps(st, indent=2, sort_keys=True)
    path.write_text(text)
    return path


def gpt2_config(**kw) -> dict:
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": 50257,
        "dtype": "float32",
        "tie_word_embeddings": True,
        "transformers_version": "5.24.0",
    } | kw


def read_log(tmp_path: Path, body: str | bytes, name: str = "train.log") -> list[Run]:
    """The runs the text reader makes of `body` written to a file named `name`."""
    from traindoc.readers.logs import text

    p = tmp_path / name
    p.write_bytes(body if isinstance(body, bytes) else body.encode())
    return text.read(p)


def one_log(tmp_path: Path, body: str | bytes, name: str = "train.log") -> Run:
    """The single run the text reader makes of `body` (fails if it makes several)."""
    (run,) = read_log(tmp_path, body, name)
    return run


def load_log(tmp_path: Path, body: str, name: str = "train.log") -> Run:
    """The run `load_run` (format detection included) makes of `body` in a file `name`."""
    from traindoc.readers import load_run

    p = tmp_path / name
    p.write_text(body)
    return load_run(p)


def values(run: Run, name: str) -> list[float]:
    """The values of the series `name` as plain floats (for == against a list)."""
    return [float(v) for v in run.get(name).values]
