"""HF-style `{'loss': ...}` dicts glued onto a tqdm bar drawn to a wide terminal's width
(text.py, _TQDM): the bar fills the terminal, over 200 columns on a wide screen, and a
dict printed after its "]" is a record of its own; a paste that cut the bar's "]" where
the dict opens (_TQDM_CUT) still ends the bar there."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import console

_PAD = " " * 265  # the bar's width as the paste shows it

# hiyouga/ChatGLM-Efficient-Tuning#49 (PPO, 2023-05-05), verbatim but for the padding
_LINES = [
    "{'loss': 0.3290, 'reward': -2.0304, 'learning_rate': 5e-05}",
    f"  0%|{_PAD}| 1/13000 [00:10<36:34:36, 10.13s/it]"
    "{'loss': nan, 'reward': 5.7646, 'learning_rate': 5e-05}",
    f"  0%|{_PAD}| 2/13000 [00:28<54:33:11, 15.11s/it"
    "{'loss': 0.2527, 'reward': 1.2237, 'learning_rate': 5e-05}",
    f"  0%|{_PAD}| 3/13000 [00:39<47:01:51, 13.03s/it]"
    "{'loss': 0.1512, 'reward': 10.7681, 'learning_rate': 5e-05}",
]


def _read(tmp: Path, lines: list[str]):
    p = tmp / "log.txt"
    p.write_text("\n".join(lines) + "\n")
    return console.read(p)


def test_every_glued_dict_is_one_record(tmp_path: Path) -> None:
    run = _read(tmp_path, _LINES)
    loss = run.get("loss")
    assert loss is not None and len(loss) == 4
    assert loss.steps.tolist() == sorted(set(loss.steps.tolist()))  # four distinct steps
    assert [str(v) for v in loss.values] == ["0.329", "nan", "0.2527", "0.1512"]
    assert not any(k.startswith("loss_") for k in run.series)
    assert len(run.get("reward") or ()) == 4


def test_a_value_after_a_wide_bar_stays_its_record(tmp_path: Path) -> None:
    """Near miss: prose with a value after the bar's "]" is the bar's own record
    (a callback's "Baseline Accuracy: 62.50%"), not split off as a dict."""
    lines = [
        f"  0%|{_PAD}| {n}/13000 [00:10<36:34:36, 10.13s/it]  Accuracy: 0.{n}" for n in (1, 2, 3)
    ]
    acc = _read(tmp_path, lines).get("accuracy")
    assert acc is not None and acc.steps.tolist() == [1, 2, 3]
