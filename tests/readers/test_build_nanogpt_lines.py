"""build-nanogpt's log.txt (karpathy's GPT-2 reproduction, helper healthy13): each line is
"<step> <split> <value>": train and val are the losses, hella the HellaSwag accuracy. Lines
verbatim from the first lines of CeciliaGuo331/nano-gpt log/log.txt."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log

_LOG = "0 val 10.9499\n0 hella 0.2476\n0 train 10.955003\n1 train 10.902684\n2 train 10.803939\n"


def test_splits_are_the_losses_and_hella_an_eval_metric(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LOG)
    loss, ev = run.get("loss"), run.get("eval_loss")
    assert loss is not None and ev is not None
    assert list(loss.steps) == [0, 1, 2]
    assert np.allclose(loss.values, [10.955003, 10.902684, 10.803939])
    assert np.allclose(ev.values, [10.9499])
    assert run.get("hellaswag_acc") is not None


def test_a_prose_line_of_three_words_is_left_alone(tmp_path: Path) -> None:
    run = one_log(tmp_path, "step 1 loss 2.5\n12 val run\nstep 2 loss 2.4\n")
    loss = run.get("loss")
    assert loss is not None and run.get("eval_loss") is None
