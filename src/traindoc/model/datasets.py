"""Class counts of standard classification datasets, read from the name a run gives.

An accuracy at 1/C (a cross-entropy at ln C) is a model that ignores its input, but a
log seldom prints C; it often names the dataset (`--dataset cifar10`,
`data_dir=/data/imagenet`). C for a standard benchmark is public knowledge: the counts
below are the ones each dataset's paper / official release defines. A name counts only
when a whole value or path component is exactly that name (case, `-`, `_`, `.` aside):
`cifar10_lr0.1_run3` or `imagenet_subset100` could be anything, so they give no C.
"""

from __future__ import annotations

import re

# normalised name -> (display name, C). Sources: each dataset's paper / release page.
DATASET_CLASSES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("mnist", "emnistdigits", "kmnist"), ("MNIST", 10)),
    **dict.fromkeys(("fashionmnist", "fmnist"), ("Fashion-MNIST", 10)),
    "svhn": ("SVHN", 10),
    "cifar10": ("CIFAR-10", 10),
    "cifar100": ("CIFAR-100", 100),
    "stl10": ("STL-10", 10),
    **dict.fromkeys(
        ("imagenet", "imagenet1k", "imagenet2012", "ilsvrc", "ilsvrc2012", "in1k"),
        ("ImageNet-1k", 1000),
    ),
    **dict.fromkeys(("imagenet21k", "imagenet22k", "in21k", "in22k"), ("ImageNet-21k", 21841)),
    **dict.fromkeys(("tinyimagenet", "tinyimagenet200"), ("Tiny-ImageNet", 200)),
    "caltech101": ("Caltech-101", 101),
    "caltech256": ("Caltech-256", 257),
    "food101": ("Food-101", 101),
    "places365": ("Places365", 365),
    **dict.fromkeys(("flowers102", "oxfordflowers102", "oxford102"), ("Flowers-102", 102)),
    **dict.fromkeys(("cub200", "cub2002011"), ("CUB-200-2011", 200)),
    **dict.fromkeys(("stanfordcars", "cars196"), ("Stanford Cars", 196)),
    **dict.fromkeys(("sst2", "imdb", "yelppolarity"), ("a binary sentiment set", 2)),
    "agnews": ("AG News", 4),
    **dict.fromkeys(("mnli", "multinli", "snli"), ("an NLI set", 3)),
}
# What separates one value or path component from the next in a printed setting.
_PARTS = re.compile(r"[\s/\\=,;:'\"()\[\]{}]+")
_JOINERS = re.compile(r"[-_.]")


def classes_named(value: object) -> tuple[int, str] | None:
    """(C, dataset) when `value` (a setting's value, a path) names one standard dataset in
    a whole component; None when none does or two name different counts."""
    if not isinstance(value, str):
        return None
    found = {
        DATASET_CLASSES[k]
        for part in _PARTS.split(value.lower())
        if (k := _JOINERS.sub("", part)) in DATASET_CLASSES
    }
    if len({c for _, c in found}) != 1:
        return None
    name, c = min(found)
    return c, name
