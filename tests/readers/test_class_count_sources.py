"""Where a text log gives an accuracy's class count C without printing num_classes.

A printed torch model's last Linear is the classifier's head (`out_features=10`), and a
settings dump's data setting may name a standard dataset (`dataset='cifar100'`). Both are
facts of their own, not num_classes: a GAN or a regression head prints Linear layers too,
and a dataset name says nothing about the loss's floor; no-learning reads them only beside
a top-1 accuracy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers import load_run

_EPOCHS = "".join(f"Epoch {e}: loss=2.3026 acc=0.1000 val_acc=0.1000\n" for e in range(1, 5))


def _run(tmp_path: Path, text: str):
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def test_the_last_linear_printed_is_the_head(tmp_path: Path) -> None:
    model = (
        "Net(\n"
        "  (fc1): Linear(in_features=3136, out_features=128, bias=True)\n"
        "  (fc2): Linear(in_features=128, out_features=10, bias=True)\n"
        ")\n"
    )
    run = _run(tmp_path, model + _EPOCHS)
    assert run.fact("head_outputs") == 10
    assert run.fact("num_classes") is None
    assert set(run.series) >= {"loss", "acc", "val_acc"}


def test_a_namespace_names_the_dataset(tmp_path: Path) -> None:
    run = _run(tmp_path, "Namespace(batch_size=128, dataset='cifar100', lr=0.1)\n" + _EPOCHS)
    assert run.fact("dataset_classes") == 100


def test_a_path_component_with_more_in_it_names_nothing(tmp_path: Path) -> None:
    # near miss: `cifar10_resnet_lr0.1` could be any subset or relabelling
    text = "Namespace(data_dir='/data/cifar10_resnet_lr0.1', lr=0.1)\n" + _EPOCHS
    assert _run(tmp_path, text).fact("dataset_classes") is None


def test_the_runs_folder_names_the_dataset(tmp_path: Path) -> None:
    (tmp_path / "cifar100" / "resnet18").mkdir(parents=True)
    path = tmp_path / "cifar100" / "resnet18" / "train.log"
    path.write_text(_EPOCHS, encoding="utf-8")
    assert load_run(path).fact("dataset_classes") == 100


def test_keras_directory_iterators_state_the_class_count(tmp_path: Path) -> None:
    # flow_from_directory / image_dataset_from_directory print the classes they found: a
    # classifier's C (train and validation print the same count; the first is kept)
    text = (
        "Found 2000 images belonging to 2 classes.\n"
        "Found 800 images belonging to 2 classes.\n"
        "Found 3670 files belonging to 5 classes.\n"
    )
    run = _run(tmp_path, text + _EPOCHS)
    assert run.fact("num_classes") == 2
    assert set(run.series) >= {"loss", "acc", "val_acc"}


def test_one_class_found_is_no_class_count(tmp_path: Path) -> None:
    # near miss: an autoencoder's iterator over one folder finds "1 classes"
    run = _run(tmp_path, "Found 500 images belonging to 1 classes.\n" + _EPOCHS)
    assert run.fact("num_classes") is None


@pytest.mark.parametrize(
    "line",
    [
        "class_num: 5",  # PaddleClas / PaddleOCR
        "nb_classes=5",  # DeiT / timm
        "nclass = 5",
        "num_class: 5",
        "Number of classes: 5",  # a script's own print
        "INFO:root:number of labels = 5",
    ],
)
def test_a_class_count_spelled_per_codebase(tmp_path: Path, line: str) -> None:
    assert _run(tmp_path, line + "\n" + _EPOCHS).fact("num_classes") == 5


def test_a_sentence_about_classes_is_no_count(tmp_path: Path) -> None:
    # near miss: prose that mentions a number of classes without stating the setting
    text = "The number of classes in this dataset is large: 5 of them are rare.\n" + _EPOCHS
    assert _run(tmp_path, text).fact("num_classes") is None
