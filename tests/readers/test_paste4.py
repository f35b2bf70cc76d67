"""Reader fixes found on short logs pasted into issues (paste4): PaddleOCR's x-filled
`nanxxx` / `infxxx` values and Julia's `@show i, loss(x)` tuple lines.

Each fix is built on real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.readers.helpers import one_log, read_log, values
from traindoc.readers._base import ReadError
from traindoc.readers.logs.numbers import SPLIT, parse, to_num

# -- 1. PaddleOCR's `{:x<6f}` fill: "nanxxx", "infxxx", "-infxx" -------------------------

# https://github.com/PaddlePaddle/PaddleOCR/issues/6632 (SmoothedValue logs '{}: {:x<6f}':
# fill "x", width 6, so only nan / inf ever show the fill)
_PPOCR = (
    "[2023/10/06 13:24:33] ppocr INFO: epoch: [1/500], global_step: 170, lr: 0.000043, "
    "acc: 0.000000, norm_edit_dis: 0.000000, CTCLoss: nanxxx, SARLoss: nanxxx, loss: nanxxx, "
    "avg_reader_cost: 0.25367 s, avg_batch_cost: 0.80017 s, avg_samples: 128.0, "
    "ips: 159.96559 samples/s, eta: 5 days, 0:36:35\n"
    "[2023/10/06 13:24:41] ppocr INFO: epoch: [1/500], global_step: 180, lr: 0.000045, "
    "acc: 0.000000, norm_edit_dis: 0.000000, CTCLoss: infxxx, SARLoss: nanxxx, loss: -infxx, "
    "avg_reader_cost: 0.25914 s, avg_batch_cost: 0.81007 s, avg_samples: 128.0, "
    "ips: 158.01161 samples/s, eta: 4 days, 22:35:08\n"
)


def test_paddleocr_x_filled_nan_and_inf_are_values(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PPOCR)
    loss = values(run, "loss")
    assert math.isnan(loss[0]) and loss[1] == -math.inf
    assert [float(s) for s in run.get("loss").steps] == [170, 180]


@pytest.mark.parametrize(
    ("raw", "value"), [(b"nanxxx", math.nan), (b"infxxx", math.inf), (b"-infxx", -math.inf)]
)
def test_x_fill_parses(raw: bytes, value: float) -> None:
    assert SPLIT.split(b"loss: " + raw + b", lr: 0.1")[1::2] == [raw, b"0.1"]
    got = to_num(raw)
    assert (math.isnan(got) and math.isnan(value)) or got == value
    p = parse(raw.decode())
    assert p is not None and ((math.isnan(p) and math.isnan(value)) or p == value)


def test_x_fill_near_misses_stay_words() -> None:
    # a word that starts with nan / inf is no value, nor is a fill of another width
    for text in (b"loss: nanx", b"mode: infxxxl", b"name: nanoxxx", b"loss: nanxxxx"):
        assert not any(t.startswith((b"nan", b"inf", b"-inf")) for t in SPLIT.split(text)[1::2])
    assert parse("maxxx") is None


# -- 2. Julia's `@show i, loss(x)`: "(i, loss(...)) = (1, 0.296 (tracked))" ---------------

# https://github.com/FluxML/Flux.jl/issues/798
_FLUX = """    model((dataset[1])[1]) = [0.0 0.0; 1.46359 0.0] (tracked)
    loss(dataset[1]...) = 0.2001447729236289 (tracked)
    (i, loss(dataset[1]...)) = (1, 0.29602579662457984 (tracked))
    (i, loss(dataset[1]...)) = (2, 0.29602579662457984 (tracked))
    (i, loss(dataset[1]...)) = (3, 0.29602579662457984 (tracked))
"""


def test_julia_show_tuple_pairs_names_with_values(tmp_path: Path) -> None:
    run = one_log(tmp_path, _FLUX)
    assert values(run, "loss") == [pytest.approx(0.29602579662457984)] * 3
    assert [float(s) for s in run.get("loss").steps] == [1, 2, 3]


def test_julia_show_tuple_with_named_counter(tmp_path: Path) -> None:
    body = "".join(f"(epoch, train_loss, acc) = ({e}, {1.5 / e}, 0.{e})\n" for e in (1, 2, 3))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([1.5, 0.75, 0.5])


def test_julia_show_tuple_near_misses(tmp_path: Path) -> None:
    # counts differ, or a value is no number: the line is left as it was (nothing read)
    body = "(i, loss(x)) = (1, 0.5, 7)\n(i, loss(x)) = (2, hello)\n"
    with pytest.raises(ReadError):
        read_log(tmp_path, body)
