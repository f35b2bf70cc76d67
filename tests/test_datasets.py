"""The dataset-name table: a whole value or path component names C, nothing else does."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.model.datasets import classes_named


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("cifar10", 10),
        ("CIFAR-100", 100),
        ("/data/imagenet/train", 1000),
        ("/mnt/ILSVRC2012/", 1000),
        ("Fashion-MNIST", 10),
        ("tiny-imagenet-200", 200),
        ("glue/sst2", 2),
        ("ag_news", 4),
    ],
)
def test_named(value: str, want: int) -> None:
    got = classes_named(value)
    assert got is not None and got[0] == want


@pytest.mark.parametrize(
    "value",
    ["/data/cifar10_run3_lr0.1", "imagenet_subset100", "my_dataset", "/data/cifar10/cifar100", 7],
)
def test_not_named(value: object) -> None:
    assert classes_named(value) is None


def test_a_namespace_dump_names_the_dataset(tmp_path: Path) -> None:
    from traindoc.api import diagnose

    log = tmp_path / "train.log"
    lines = ["Namespace(batch_size=128, dataset='cifar100', lr=0.1)"]
    lines += [f"Epoch {e}: loss={4.6 - 0.3 * e:.4f} acc={0.05 * e:.4f}" for e in range(1, 7)]
    log.write_text("\n".join(lines) + "\n")
    (d,) = diagnose(log).runs
    fact = d.run.facts["dataset_classes"]
    assert fact.value == 100 and "CIFAR-100" in fact.source
    assert "num_classes" not in d.run.facts  # the name says nothing of the loss's floor
