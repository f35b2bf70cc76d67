"""NCRF++ (jiesutd/NCRFpp main.py) prints each epoch's evaluation on the dev set as
`print("Dev: time: %.2fs, speed: %.2fst/s; acc: %.4f, p: %.4f, r: %.4f, f: %.4f" % (...))`:
token accuracy, then the precision, recall and F1 of the spans (entities, chunks) under
their initials. When the model predicts no span its scorer returns -1 for the undefined
precision and F ("p: -1.0000, r: 0.0000, f: -1.0000"): a mark, not a score."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

_DEV = "Dev: time: {:.2f}s, speed: {:.2f}st/s; acc: {:.4f}, p: {:.4f}, r: {:.4f}, f: {:.4f}\n"


def _epoch(idx: int, p: float, r: float, f: float) -> str:
    out = f"Epoch: {idx}/100\n"
    for end in (500, 1000):
        right, whole = 7000 * end // 500, 9000 * end // 500
        out += (
            f"     Instance: {end}; Time: 2.61s; loss: {9000.0 / (idx + 1):.4f}; "
            f"acc: {right}/{whole}={right / whole:.4f}\n"
        )
    out += (
        f"Epoch: {idx} training finished. Time: 74.41s, speed: 188.71st/s,  total loss: "
        f"{18000.0 / (idx + 1)}\n"
    )
    out += "gold_num =  5942  pred_num =  3  right_num =  1\n"
    return out + _DEV.format(4.53, 724.57, 0.8325, p, r, f)


def test_p_r_f_are_the_evals_precision_recall_and_f1(tmp_path: Path) -> None:
    body = _epoch(0, 0.1667, 0.0002, 0.0003) + _epoch(1, 0.5, 0.25, 0.3333)
    run = one_log(tmp_path, body)
    assert values(run, "eval_precision") == [0.1667, 0.5]
    assert values(run, "eval_recall") == [0.0002, 0.25]
    assert values(run, "eval_f1") == [0.0003, 0.3333]
    assert run.get("p") is None and run.get("f") is None  # no metric named by a letter


def test_minus_one_is_ncrfpps_undefined_mark_not_a_score(tmp_path: Path) -> None:
    body = _epoch(0, -1.0, 0.0, -1.0) + _epoch(1, 0.5, 0.25, 0.3333)
    run = one_log(tmp_path, body)
    assert values(run, "eval_f1") == [0.3333]
    assert values(run, "eval_precision") == [0.5]
    assert values(run, "eval_recall") == [0.0, 0.25]  # a recall of 0 is a real score


def test_near_miss_one_letter_keys_alone_are_not_renamed(tmp_path: Path) -> None:
    body = "".join(f"step {s}, loss: {1.0 - s / 10:.2f}, p: 0.{s}\n" for s in range(1, 5))
    run = one_log(tmp_path, body)
    assert run.get("precision") is None and run.get("eval_precision") is None
