"""A decoded sample printed beside its reference: empty-prediction / sample-prediction."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _samples(body: str, tmp_path: Path) -> list[tuple[str, float | None]]:
    run = one_log(tmp_path, body)
    kinds = ("empty-prediction", "sample-prediction")
    return [(e.kind, e.value) for e in run.events if e.kind in kinds]


def test_empty_prediction_beside_its_truth(tmp_path: Path) -> None:
    # kur's DeepSpeech validation sample as printed (issue 57)
    body = (
        "[INFO kur.model.executor:369] Training loss: 6.077\n"
        'Prediction: ""\n'
        'Truth: "that\'s it on your account"\n'
    )
    assert _samples(body, tmp_path) == [("empty-prediction", 5.0)]


def test_blank_prediction_is_empty(tmp_path: Path) -> None:
    # only spaces: the CTC decoder emitted nothing but separators
    body = "loss: 12.5\nhypothesis: '   '\nreference: 'hello world'\n"
    assert _samples(body, tmp_path) == [("empty-prediction", 2.0)]


def test_a_wrong_but_non_empty_prediction_is_a_sample(tmp_path: Path) -> None:
    # near miss: the model emits something, however wrong
    body = 'loss: 12.5\nPrediction: "the the"\nTruth: "hello world"\n'
    assert _samples(body, tmp_path) == [("sample-prediction", None)]


def test_an_empty_reference_is_no_empty_prediction(tmp_path: Path) -> None:
    # near miss: nothing to transcribe, an empty output is right
    body = 'loss: 12.5\nPrediction: ""\nTruth: ""\n'
    assert _samples(body, tmp_path) == [("sample-prediction", None)]


def test_a_prediction_without_its_reference_is_not_read(tmp_path: Path) -> None:
    body = 'loss: 12.5\nPrediction: ""\nepoch 3 done\n'
    assert _samples(body, tmp_path) == []
