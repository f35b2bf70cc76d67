"""A console's progress bar after the last logged step (seed A's resume hang, offline).

The consoles here are written by real tqdm: a loop over micro-batches that logs one
line per optimizer step with tqdm.write, as plain loops do.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tqdm import tqdm

from traindoc.engine import diagnose
from traindoc.pipeline import load
from traindoc.readers.console import read

CORPUS = Path(__file__).parents[1] / "corpus"


def _console(
    path: Path,
    steps: int,
    accum: int,
    hung_micro: int,
    per_epoch: int = 64,
    eval_every: int = 0,
    bar_counts_steps: bool = False,
) -> Path:
    """A loop of `steps` logged steps, then `hung_micro` micro-batches with no step."""
    with path.open("w") as f:
        micro, step, epoch = 0, 0, 0
        total = steps * accum + hung_micro
        while micro < total:
            bar = tqdm(total=per_epoch, desc=f"epoch {epoch}", file=f, mininterval=0)
            for _ in range(per_epoch):
                if micro >= total:
                    break
                micro += 1
                if micro <= steps * accum and micro % accum == 0:
                    step += 1
                    if bar_counts_steps:
                        bar.update(1)
                    tqdm.write(f"step {step} | loss {3.0 - step * 1e-3:.4f}", file=f)
                    if eval_every and step % eval_every == 0:
                        for _ in tqdm(range(200), desc="eval", file=f, mininterval=0):
                            pass
                        tqdm.write(f"step {step} | eval_loss 3.1", file=f)
                elif bar_counts_steps and micro > steps * accum and micro % accum == 0:
                    bar.update(1)  # steps go on, their lines are not printed
                if not bar_counts_steps:
                    bar.update(1)
            bar.close()
            epoch += 1
    return path


def test_seed_a_resume_hang_is_named_from_the_console_beside_metrics() -> None:
    d = diagnose(load(CORPUS / "seed-a-resume-hang"))
    f = next(f for f in d.findings if f.rule == "stalled-training")
    assert f.severity.name == "ERROR" and f.step == 300
    assert f.evidence["usual_units_between_steps"] == 16
    assert f.evidence["bar_units_after"] >= 1000
    assert f.evidence["resume_step"] == 300  # from metrics.jsonl's resume record
    assert "schedule-restarted" not in {g.rule for g in d.findings}


def test_the_console_alone_says_it_too() -> None:
    run = read(CORPUS / "seed-a-resume-hang" / "stdout.log")
    bar = run.fact("progress_after_last_step")
    assert bar is not None and bar["last_step"] == 300 and bar["usual"] == 16


@pytest.mark.parametrize("steps", [5, 60, 2000])  # short, typical and long consoles
def test_flags_a_bar_that_runs_on_after_the_last_step(tmp_path: Path, steps: int) -> None:
    run = read(_console(tmp_path / "c.log", steps, accum=8, hung_micro=8 * 40))
    bar = run.fact("progress_after_last_step")
    assert bar is not None and bar["last_step"] == steps
    assert bar["units"] >= 8 * 40 - 8 and bar["usual"] == 8


def test_near_miss_a_few_intervals_after_the_last_step_is_not_a_stall(tmp_path: Path) -> None:
    run = read(_console(tmp_path / "c.log", 60, accum=8, hung_micro=8 * 15))
    assert run.fact("progress_after_last_step") is None


def test_healthy_loop_ending_on_its_last_step(tmp_path: Path) -> None:
    run = read(_console(tmp_path / "c.log", 60, accum=8, hung_micro=0))
    assert run.fact("progress_after_last_step") is None


def test_eval_bars_after_the_last_step_do_not_count(tmp_path: Path) -> None:
    # 200-batch evals every 10 steps: the last one runs after the last train line
    run = read(_console(tmp_path / "c.log", 60, accum=2, hung_micro=0, eval_every=10))
    assert run.fact("progress_after_last_step") is None


def test_a_bar_over_optimizer_steps_means_steps_advanced(tmp_path: Path) -> None:
    # HF-style: the bar counts steps; steps went on, only their lines are missing
    c = _console(tmp_path / "c.log", 60, accum=4, hung_micro=4 * 100, bar_counts_steps=True)
    assert read(c).fact("progress_after_last_step") is None


def test_real_hf_console_gets_no_progress_fact() -> None:
    assert (
        read(CORPUS / "console-hf-healthy" / "train.log").fact("progress_after_last_step") is None
    )


def test_hf_resume_bar_total_is_the_planned_steps(tmp_path: Path) -> None:
    # HF Trainer 4.x lines as pasted in LLaMA-Factory #1813
    log = tmp_path / "resume.log"
    log.write_text(
        "[INFO|trainer.py:1791] 2023-12-12 10:12:06,000 >>   Continuing training from global "
        "step 200000\n"
        "[INFO|trainer.py:1793] 2023-12-12 10:12:06,000 >>   Will skip the first 1 epochs then "
        "the first 60505 batches in the first epoch.\n"
        "  0%|          | 0/139495 [00:00<?, ?it/s]\n"
        "{'loss': 10.52, 'learning_rate': 2.495e-05, 'epoch': 5.01}\n"
    )
    run = read(log)
    assert run.fact("max_steps") == 139495 and run.fact("resume_steps") == (200000,)
    d = diagnose(run)
    f = next(f for f in d.findings if f.rule == "resume-step-mismatch")
    assert f.severity.name == "ERROR" and f.evidence["max_steps"] == 139495


def test_a_plain_loop_bar_total_is_not_the_planned_steps() -> None:
    run = read(CORPUS / "seed-a-resume-hang" / "stdout.log")
    assert run.fact("max_steps") is None  # 200 micro-batches per epoch, no HF resume line
