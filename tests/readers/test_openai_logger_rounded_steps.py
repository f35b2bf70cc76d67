"""OpenAI's logger (baselines, guided- / improved-diffusion) dumps a boxed `| key | value |`
table and prints every number with "%-8.3g", its counters too: a step from 1000 on is
rounded to three significant digits ("| step | 1.53e+05 |"), and dumps 10 steps apart
print the same step. The step row numbers the dump; where the rounded value repeats,
the dumps that share it are spread evenly up to the next value printed (the dumps come
in step order). `samples` (the images seen) is a counter, never a metric."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

from tests.readers.helpers import one_log, read_log, values

# the dump pasted in openai/guided-diffusion issue (tests/real/nan_inf_guided_diffusion_
# imagenet128_fp16_step153k_all_losses_nan_lg_loss_scale_minus16k_issue), verbatim
_NAN_DUMP = """-----------------------------
| lg_loss_scale | -1.62e+04 |
| loss          | nan       |
| loss_q0       | nan       |
| mse           | nan       |
| samples       | 3.92e+07  |
| step          | 1.53e+05  |
| vb            | nan       |
-----------------------------
Found NaN, decreased lg_loss_scale to -16199.354
"""


def _dump(step: int, loss: float) -> str:
    """One TrainLoop dump as guided_diffusion/logger.py's HumanOutputFormat writes it."""
    rows = [("grad_norm", 0.105), ("loss", loss), ("mse", loss * 0.9)]
    rows += [("param_norm", 412.0), ("samples", step * 64.0), ("step", float(step))]
    cells = [(k, f"{v:<8.3g}".rstrip()) for k, v in rows]
    kw, vw = max(len(k) for k, _ in cells), max(len(v) for _, v in cells)
    dashes = "-" * (kw + vw + 7)
    body = "".join(f"| {k.ljust(kw)} | {v.ljust(vw)} |\n" for k, v in cells)
    return f"{dashes}\n{body}{dashes}\n"


def test_the_rounded_step_row_numbers_the_dump(tmp_path: Path) -> None:
    run = one_log(tmp_path, _NAN_DUMP)
    loss = run.get("loss")
    assert list(loss.steps) == [153000] and math.isnan(loss.values[0])
    assert run.get("samples") is None and run.get("step") is None


def test_dumps_sharing_a_rounded_step_are_spread_to_the_next(tmp_path: Path) -> None:
    # log_interval 10 from step 15000: "1.5e+04" ten times, then "1.51e+04" ...
    body = "".join(_dump(s, 0.05 + s % 7 / 1000) for s in range(15000, 15300, 10))
    run = one_log(tmp_path, body)
    steps = [int(s) for s in run.get("loss").steps]
    true = list(range(15000, 15300, 10))
    assert len(steps) == 30
    assert all(b > a for a, b in itertools.pairwise(steps))
    # each within a dump's spacing of its true step, where the print is off by up to 50
    assert max(abs(a - t) for a, t in zip(steps, true, strict=True)) <= 10
    assert values(run, "grad_norm")[0] == 0.105


def test_exact_steps_below_1000_are_kept(tmp_path: Path) -> None:
    # near miss: "%-8.3g" prints 990 as "990", exactly; no spreading
    body = "".join(_dump(s, 0.1) for s in (970, 980, 990))
    assert list(one_log(tmp_path, body).get("loss").steps) == [970, 980, 990]


def test_a_lower_step_starts_the_spreading_over(tmp_path: Path) -> None:
    # a second session appended to the same log.txt (a restart from step 0): the spreading
    # never carries the first session's steps across the drop
    body = "".join(_dump(s, 0.1) for s in range(2000, 2100, 10))
    body += "".join(_dump(s, 0.2) for s in (10, 20, 30))
    steps = [int(s) for r in read_log(tmp_path, body) for s in r.get("loss").steps]
    assert steps[-3:] == [10, 20, 30] and len(steps) == 13
    assert all(1995 <= s <= 2105 for s in steps[:10])
