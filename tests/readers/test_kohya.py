"""kohya-ss sd-scripts' console: a bilingual run header, one tqdm bar over the whole run
(redrawn with `avr_loss=`) between `epoch N/M` lines, and the resume's skip lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.engine import diagnose
from traindoc.readers import ReadError, load_runs

HEADER = """\
running training / 学習開始
  num train images * repeats / 学習画像の数×繰り返し回数: 40
  num batches per epoch / 1epochのバッチ数: 40
  num epochs / epoch数: 3
  batch size per device / バッチサイズ: 1
  gradient accumulation steps / 勾配を合計するステップ数 = 2
  total optimization steps / 学習ステップ数: 60
"""


def _bar(step: int, total: int, loss: float | None) -> str:
    tail = f", avr_loss={loss:.4g}" if loss is not None else ""
    return f"steps: {100 * step // total:3d}%|##        | {step}/{total} [00:50<01:06,  1.24s/it{tail}]"


def _console(epochs: int, per_epoch: int, *, restart: bool = False) -> str:
    """`restart`: a bar that starts over at every epoch (a per-epoch counter)."""
    total = per_epoch if restart else epochs * per_epoch
    out = [HEADER, _bar(0, total, None)]
    for ep in range(1, epochs + 1):
        out.append(f"\nepoch {ep}/{epochs}\n")
        first = 1 if restart else (ep - 1) * per_epoch + 1
        bars = [_bar(s, total, 0.2 - 0.001 * s) for s in range(first, first + per_epoch)]
        out.append("\r".join(bars))
    return "\n".join(out) + "\n"


def test_the_bar_counts_the_run_across_epoch_lines(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    p.write_text(_console(3, 20), encoding="utf-8")
    (run,) = load_runs(p)
    loss = run.get("loss")
    assert loss is not None and len(loss) == 60
    # the step is the bar's count, not epoch x 60 + count (it counts all 60 steps)
    assert loss.steps[0] == 1 and loss.steps[-1] == 60
    assert loss.values[0] == pytest.approx(0.199)
    assert "steps" not in run.series  # the bar's "12%" is no metric named "steps"
    assert run.fact("trainer") == "kohya"
    assert run.fact("num_train_epochs") == 3 and run.fact("max_steps") == 60
    assert run.fact("grad_accum") == 2 and run.fact("per_device_batch") == 1


def test_a_bar_that_starts_over_each_epoch_is_still_epoch_x_batches(tmp_path: Path) -> None:
    """The near miss: the same lines with a per-epoch counter (20/20 then 1/20)."""
    p = tmp_path / "train.log"
    p.write_text(_console(3, 20, restart=True), encoding="utf-8")
    (run,) = load_runs(p)
    loss = run.get("loss")
    assert loss is not None and len(loss) == 60
    assert loss.steps[-1] == 60 and len(set(loss.steps.tolist())) == 60


# the arithmetic: 30 epochs of 25 optimizer steps, resumed at step 500
PLAN = HEADER.replace("epoch数: 3\n", "epoch数: 30\n").replace(
    "学習ステップ数: 60", "学習ステップ数: 750"
)
RESUME = PLAN + (
    "2026-07-21 07:38:46 INFO     skipping 500 steps / 500ステップをスキップします"
    "                      train_network.py:1461\n"
    "2026-07-21 07:38:47 INFO     skipping epoch 1 because initial_step (multiplied) is 2000"
    "            train_network.py:1514\n"
    "                    INFO     skipping epoch 2 because initial_step (multiplied) is 1900"
    "            train_network.py:1514\n"
    "                    INFO     skipping epoch 31 because initial_step (multiplied) is -1000"
    "          train_network.py:1514\n"
)


def test_a_resume_that_only_skips_is_read_not_refused(tmp_path: Path) -> None:
    """No metric line at all: the plan and the resume's skip lines are what it carries."""
    p = tmp_path / "issue.txt"
    p.write_text(RESUME, encoding="utf-8")
    (run,) = load_runs(p)
    assert not run.series
    assert run.fact("resume_steps") == (500,)
    assert run.fact("num_train_epochs") == 30 and run.fact("max_steps") == 750
    skips = [e for e in run.events if e.kind == "resume-skip-epoch"]
    assert [e.value for e in skips] == [1, 2, 31] and {e.step for e in skips} == {500}
    assert "initial_step (multiplied) is -1000" in skips[-1].text
    # the skip runs past the 30 planned epochs: the resume trains nothing (broken), and
    # the curve rules say why they could not judge
    d = diagnose(run)
    assert d.verdict == "broken"
    assert [
        f.evidence["skipped_to_epoch"] for f in d.findings if f.rule == "resume-step-mismatch"
    ] == [31]
    assert {s.rule for s in d.not_judged} >= {"no-learning", "divergence"}
    assert all("no metric series" in s.reason for s in d.not_judged)


def test_a_resume_past_the_plan_reaches_the_resume_rule(tmp_path: Path) -> None:
    """What the skip lines state is what the resume rules read: step 500 of a 60-step plan."""
    p = tmp_path / "issue.txt"
    p.write_text(RESUME.replace("学習ステップ数: 750", "学習ステップ数: 60"), encoding="utf-8")
    (run,) = load_runs(p)
    d = diagnose(run)
    assert [f.rule for f in d.findings if f.rule == "resume-step-mismatch"]
    assert d.verdict == "broken"


def test_skip_words_elsewhere_are_no_resume(tmp_path: Path) -> None:
    """A step skipped for an overflow, an epoch skipped in prose: not kohya's resume."""
    p = tmp_path / "train.log"
    p.write_text(
        "skipping 5 steps due to overflow\n"
        "skipping epoch 3 because the data is empty\n"
        "  num epochs / total = many\n"
        "step 1 loss 2.0\nstep 2 loss 1.9\n",
        encoding="utf-8",
    )
    (run,) = load_runs(p)
    assert not run.events and run.fact("resume_steps") is None
    assert run.fact("num_train_epochs") is None


def test_a_header_alone_is_still_no_training_log(tmp_path: Path) -> None:
    """Settings without a metric, a resume or any other evidence line stay refused."""
    p = tmp_path / "header.txt"
    p.write_text(HEADER, encoding="utf-8")
    with pytest.raises(ReadError, match="not a recognised training log"):
        load_runs(p)
