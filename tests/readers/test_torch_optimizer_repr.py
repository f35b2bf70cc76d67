"""`print(optimizer)` pasted above a log names the optimizer: PyTorch's repr puts the class
name and " (" on a line of its own, then "Parameter Group 0" and the group's settings. The
rate rules read the LR on the optimizer's scale (SGD's ~100x Adam's), so the name matters."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers.logs import text

_LOG = "epoch 1 loss: 2.2\nepoch 2 loss: 2.1\nepoch 3 loss: 2.0\nepoch 4 loss: 1.9\n"
_ADAM = (
    "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n"
    "    eps: 1e-08\n    lr: 0.01\n    weight_decay: 0\n)\n"
)


def _facts(tmp_path: Path, body: str) -> dict[str, object]:
    p = tmp_path / "paste.txt"
    p.write_text(body)
    (run,) = text.read(p)
    return {k: f.value for k, f in run.facts.items()}


def test_the_repr_names_the_optimizer_and_its_lr(tmp_path: Path) -> None:
    facts = _facts(tmp_path, _ADAM + _LOG)
    assert facts["optim"] == "adam"
    assert facts["learning_rate"] == 0.01
    sgd = _ADAM.replace("Adam (", "SGD (").replace("amsgrad", "nesterov")
    assert _facts(tmp_path, sgd + _LOG)["optim"] == "sgd"


def test_a_model_repr_names_no_optimizer(tmp_path: Path) -> None:
    model = "Sequential (\n  (0): Linear (784 -> 10)\n)\n"
    assert "optim" not in _facts(tmp_path, model + _LOG)


def test_near_miss_the_group_line_must_follow_the_name(tmp_path: Path) -> None:
    # a name line, then something else, then a parameter group: no repr of one optimizer
    body = "Adam (\nsomething else\nParameter Group 0\n    lr: 0.01\n)\n" + _LOG
    assert "optim" not in _facts(tmp_path, body)
