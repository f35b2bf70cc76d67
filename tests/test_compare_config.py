"""`traindoc compare` starts with the config diff and draws every run on one shared axis."""

from __future__ import annotations

import json
from pathlib import Path

from traindoc.compare import config_diff
from traindoc.pipeline import load
from traindoc.report.sparkline import BLOCKS, shared_sparklines

from .test_cli import traindoc

CORPUS = Path(__file__).parent / "corpus"
COSINE, LINEAR, HIGH = (
    CORPUS / "healthy-pretrain-cosine",
    CORPUS / "healthy-pretrain-linear",
    CORPUS / "lr-too-high",
)


def test_config_diff_lists_what_differs_first() -> None:
    rows = config_diff([load(COSINE, checkpoints=False), load(LINEAR, checkpoints=False)])
    keys = [r.key for r in rows]
    differ = [r.key for r in rows if r.differs]
    assert {"learning_rate", "lr_scheduler", "warmup_ratio"} <= set(differ)
    assert keys[: len(differ)] == differ  # differing settings come first
    assert "max_steps" in keys and "max_steps" not in differ  # both ran 300 steps
    lr = next(r for r in rows if r.key == "learning_rate")
    assert lr.values == (0.002, 0.001)


def test_shared_axis_same_scale_and_step_range() -> None:
    a, c = (load(p, checkpoints=False) for p in (COSINE, HIGH))
    lines, axis = shared_sparklines([a.get("loss"), a.get("loss"), c.get("loss")], 40)
    assert lines[0] == lines[1]
    lo, hi, x0, x1 = axis
    assert (x0, x1) == (1, 300)
    short = lines[2][0]
    assert len(short) == 40 and short.rstrip() != short  # 60 of 300 steps: ends at 1/5
    assert len(short.rstrip()) <= 10
    # one y-scale: the best run's final blocks are the lowest block, the others' are not
    alone, _ = shared_sparklines([c.get("loss")], 40)
    assert BLOCKS[0] in alone[0][0] and lines[2][0].strip()[-1] != BLOCKS[0]
    assert float(a.get("loss").finite().values.min()) <= lo < hi  # bin medians


def test_cli_compare_opens_with_the_config_and_json_carries_it(tmp_path: Path) -> None:
    p = traindoc("compare", str(COSINE), str(HIGH), "--html", str(tmp_path / "c.html"))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.index("learning_rate") < out.index("one axis") < out.index("parts at step")
    assert "config-diff" in (tmp_path / "c.html").read_text()
    j = json.loads(traindoc("compare", str(COSINE), str(HIGH), "-f", "json").stdout)
    lr = next(r for r in j["config"] if r["key"] == "learning_rate")
    assert lr["values"] == [0.002, 0.3] and lr["differs"]
