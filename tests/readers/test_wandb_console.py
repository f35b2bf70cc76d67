"""A W&B run dir read from both of its views: the history rows in run-<id>.wandb and
the console W&B captured in files/output.log, merged when they carry different signals or
reach different steps, each signal taken once (readers/wandb.py, _merge_console); and
the per-epoch tqdm bars such a console prints, which number its once-per-epoch evals
(readers/logs/steps.py, _restarted_bars)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from tests.readers.helpers import load_checked
from traindoc.model import Run, Series
from traindoc.readers import console, wandb
from traindoc.readers._wandb_log import BLOCK

CORPUS = Path(__file__).parents[1] / "corpus"

# aorvieto/VerySimpleTransformer wandb/run-20230329_020800-o5vo12ki/files/output.log
# @ e31370e0 (one tqdm bar per epoch over 6250 batches, a 'test accuracy' line per epoch;
# W&B kept each bar's last redraw), verbatim but for shorter bars
_BAR = "100%|" + "█" * 20 + "| 6250/6250 [05:35<00:00, 18.64it/s]"
_NEXT = "  0%|▋" + " " * 19 + "| {n}/6250 [00:01<05:31, 18.79it/s]"
_EPOCHS = (("0.728", 24), ("0.805", 12), ("0.829", 0), ("0.84", 10))


def _epoch_bars_log(accs: tuple[tuple[str, int], ...] = _EPOCHS) -> str:
    out = ["- nr. of training examples 6250", "- nr. of test examples 6250", " epoch 0", ""]
    for acc, n in accs:
        out += [_BAR, _NEXT.format(n=n), f'-- "test accuracy {acc}', "", ""]
    return "\n".join(out) + "\n"


def _wandb_dir(tmp: Path, log: str | None, cut: int | None = None) -> Path:
    """The healthy HF fixture's run dir (train/loss at steps 1..150), its .wandb cut to
    `cut` bytes (a copy taken while the run went on), with files/output.log."""
    src = next((CORPUS / "wandb-healthy" / "wandb").glob("offline-run-*"))
    d = tmp / src.name
    shutil.copytree(src, d)
    f = next(d.glob("run-*.wandb"))
    if cut is not None:
        f.write_bytes(f.read_bytes()[:cut])
    if log is not None:
        (d / "files").mkdir(exist_ok=True)
        (d / "files" / "output.log").write_text(log)
    return d


def test_epoch_bars_number_the_per_epoch_evals(tmp_path: Path) -> None:
    p = tmp_path / "output.log"
    p.write_text(_epoch_bars_log())
    acc = console.read(p).get("test_accuracy")
    assert acc is not None
    # each eval is numbered by the next epoch's finished bar: one epoch (6250) apart,
    # not all at 6250; the last, after the last bar, keeps the step before
    assert acc.steps.tolist() == [6250, 12500, 18750]
    assert acc.values.tolist()[:2] == [0.728, 0.805]


def test_a_run_wide_bar_finished_once_is_read_as_before(tmp_path: Path) -> None:
    """Near miss: one bar over the run's 6250 steps, climbing, finished once: the
    records it numbers keep its count (no epochs to add)."""
    lines = []
    for n, acc in ((2000, "0.6"), (4000, "0.7"), (6250, "0.8")):
        lines += [
            f'-- "test accuracy {acc}',
            f" {n * 100 // 6250}%|████| {n}/6250 [05:35<00:00, 18.64it/s]",
        ]
    p = tmp_path / "run.log"
    p.write_text("\n".join(lines) + "\n")
    acc = console.read(p).get("test_accuracy")
    assert acc is not None and acc.steps.tolist() == [2000, 4000, 6250]


def test_console_adds_the_signal_the_history_lacks(tmp_path: Path) -> None:
    log = "".join(f"step {s}: eval_accuracy {s / 400:.3f}\n" for s in range(10, 151, 10))
    run = load_checked(_wandb_dir(tmp_path, log))
    loss, acc = run.get("loss"), run.get("eval_accuracy")
    assert loss is not None and len(loss) == 150 and loss.source.startswith("wandb")
    assert acc is not None and len(acc) == 15 and acc.source.startswith("output.log")
    note = next(n.message for n in run.notes if "read beside the history" in n.message)
    assert "eval_accuracy from output.log" in note and "from the .wandb history" in note
    counts = {i.kind: i.series for i in run.inputs}
    assert counts["text-log"] == {"eval_accuracy": 15} and "eval_accuracy" not in counts["wandb"]


def test_console_loss_reaching_further_replaces_a_cut_history(tmp_path: Path) -> None:
    """A .wandb copied early holds the first steps; the console printed the loss to the
    end: the loss is taken once, from the console, not interleaved with the history's."""
    log = "".join(f"step {s}: loss {3 - s / 100:.3f}\n" for s in range(10, 301, 10))
    run = load_checked(_wandb_dir(tmp_path, log, cut=BLOCK + 5000))
    loss = run.get("loss")
    assert loss is not None and len(loss) == 30 and loss.steps[-1] == 300
    assert loss.source.startswith("output.log")
    assert run.get("lr") is not None and run.get("lr").source.startswith("wandb")
    assert any("stops at step" in n.message for n in run.notes)


def test_a_sectioned_history_key_is_the_consoles_signal() -> None:
    """Near miss: HF's WandbCallback logs "eval/accuracy" where the console prints
    "eval_accuracy" (a roberta run's output.log): one signal, taken once, from the
    history, which reaches as far."""
    steps = np.arange(100, 1901, 100, dtype=float)

    def s(name: str, src: str) -> Series:
        return Series.from_arrays(name, steps, steps / 3000, None, f"{src}: {name}")

    hist = Run("r", {"eval/accuracy": s("eval/accuracy", "wandb")})
    con = Run("r", {"eval_accuracy": s("eval_accuracy", "output.log")})
    got = wandb._merge_console(hist, con, Path("files/output.log"))
    assert list(got.series) == ["eval/accuracy"] and got is hist


def test_console_loss_within_the_history_is_not_counted_twice(tmp_path: Path) -> None:
    """Near miss: the console printed the same loss over fewer steps than the history
    holds: the history's loss stays, alone, and nothing is noted as taken."""
    log = "".join(f"step {s}: loss {3 - s / 100:.3f}\n" for s in range(10, 101, 10))
    run = load_checked(_wandb_dir(tmp_path, log))
    loss = run.get("loss")
    assert loss is not None and len(loss) == 150 and loss.source.startswith("wandb")
    assert not any("read beside the history" in n.message for n in run.notes)
