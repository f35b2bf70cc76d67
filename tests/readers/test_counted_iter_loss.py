"""A loop that prints one number per iteration after a named counter,
`print(f"Iter {i}: {loss:.6f}")`: "Iter 1600: 0.075390". The number is the loss (as for
WaveGlow's unnamed "123873:\t-5.48"); a note a user wrote after it in a paste goes."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

PASTE = """\
```
Iter    1: 0.245190  \u2190 Start
Iter  100: 0.115349  (53% improvement)
Iter  500: 0.089064  (64% improvement)
Iter 1000: 0.075008  (69% improvement) \u2705 Matches previous 1k test!
Iter 1600: 0.075390  (slight increase from 0.071)
Iter 10000: 0.299966 \u2190 FINAL (22% WORSE than start!)
```
"""


def test_named_iteration_counter_and_one_number_is_the_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, PASTE, name="notes.md")
    assert [int(s) for s in run.get("loss").steps] == [1, 100, 500, 1000, 1600, 10000]
    assert values(run, "loss") == [0.24519, 0.115349, 0.089064, 0.075008, 0.07539, 0.299966]


def test_step_counter_print_without_notes(tmp_path: Path) -> None:
    run = one_log(tmp_path, "".join(f"Step {i}: {2.3 - i / 1000:.4f}\n" for i in (0, 50, 100)))
    assert values(run, "loss") == [2.3, 2.25, 2.2]


def test_near_miss_a_second_printed_number_or_an_epoch_counter_is_not_the_loss(
    tmp_path: Path,
) -> None:
    run = one_log(
        tmp_path,
        "".join(
            f"Iter {i}: 0.5{i} 0.9{i}\nEpoch {i}: 0.8{i}\nStep {i}: loss: 1.{i}\n"
            for i in (1, 2, 3)
        ),
    )
    assert values(run, "loss") == [1.1, 1.2, 1.3]  # only the named loss
