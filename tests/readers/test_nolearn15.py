"""Reader cases from helper nolearn15: Kaldi's WER breakdown line read as evidence."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _kinds(body: str, tmp_path: Path) -> list[tuple[str, float | None]]:
    run = one_log(tmp_path, body)
    return [(e.kind, e.value) for e in run.events if e.kind in ("empty-output", "asr-score")]


def test_all_deletions_is_an_empty_output(tmp_path: Path) -> None:
    # compute-wer's line as Kaldi prints it: every reference word deleted, none inserted
    body = "%WER 100.00 [ 20138 / 20138, 0 ins, 20138 del, 0 sub ] exp/tdnn/decode/wer_10\n"
    assert _kinds(body, tmp_path) == [("empty-output", 20138.0)]


def test_all_deletions_pasted_without_spaces(tmp_path: Path) -> None:
    # the same line as pasted into an issue ('$' for '%', spaces dropped)
    body = "$WER 100.00%[20138/20138,0 ins, 20138 del, 0sub]\n"
    assert _kinds(body, tmp_path) == [("empty-output", 20138.0)]


def test_a_working_decode_is_an_asr_score(tmp_path: Path) -> None:
    # near miss: an icefall result with every kind of error is no empty output
    body = "%WER 3.25% [1708 / 52576, 183 ins, 121 del, 1404 sub ]\n"
    assert _kinds(body, tmp_path) == [("asr-score", None)]


def test_wer_100_with_substitutions_is_not_empty(tmp_path: Path) -> None:
    # near miss: 100% WER made of wrong words (the model emits something) is not empty
    body = "%WER 100.00 [ 500 / 500, 0 ins, 120 del, 380 sub ]\n"
    assert _kinds(body, tmp_path) == [("asr-score", None)]
