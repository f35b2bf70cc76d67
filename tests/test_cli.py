"""The CLI contract: exit codes, a pure JSON stdout, clear one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SEED_A = ROOT / "examples" / "seed-a"
HEALTHY = ROOT / "examples" / "healthy"


def traindoc(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "traindoc", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def write_state(d: Path, history: list, **extra) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    state = {
        "global_step": history[-1]["step"] if history else 0,
        "max_steps": 300,
        "log_history": history,
        **extra,
    }
    (d / "trainer_state.json").write_text(json.dumps(state))
    (d / "config.json").write_text(json.dumps({"vocab_size": 50257, "model_type": "gpt2"}))
    return d


needs_examples = pytest.mark.skipif(not SEED_A.exists(), reason="examples not generated")


@needs_examples
def test_seed_a_json_report_tells_the_story() -> None:
    p = traindoc("diagnose", str(SEED_A), "--format", "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)  # nothing but the JSON object on stdout
    assert doc["schema_version"] == 2 and len(doc["runs"]) == 1
    report = doc["runs"][0]
    assert report["verdict"] == "broken"
    rules = {f["rule"]: f for f in report["findings"]}
    assert {"absurd-initial-loss", "no-learning", "lr-too-low"} <= set(rules)
    assert "uniform-plateau" not in rules  # at 1e-6 the loss never gets down to ln(V)
    assert rules["absurd-initial-loss"]["caused_by"] == []
    assert "absurd-initial-loss" in rules["no-learning"]["caused_by"]
    assert report["findings"][0]["caused_by"] == []  # root causes come first
    assert report["run"]["vocab_size"] == 50257


@needs_examples
def test_healthy_example_exits_zero() -> None:
    p = traindoc("diagnose", str(HEALTHY), "--format", "json", "--fail-on", "warning")
    assert p.returncode == 0, p.stdout
    assert json.loads(p.stdout)["runs"][0]["verdict"] == "healthy"


@needs_examples
def test_terminal_and_markdown_render(tmp_path: Path) -> None:
    term = traindoc("diagnose", str(SEED_A))
    assert (
        term.returncode == 1
        and "Root causes" in term.stdout
        and "absurd-initial-loss" in term.stdout
    )
    md = traindoc("diagnose", str(SEED_A), "--format", "markdown")
    assert "| step | loss" in md.stdout and "First anomaly at step" in md.stdout


def test_fail_on_levels(tmp_path: Path) -> None:
    hist = [
        {"step": s, "loss": 2.0 + 0.001 * (s % 7), "learning_rate": 0.0, "grad_norm": 1.0}
        for s in range(1, 201)
    ]
    run = write_state(tmp_path / "run", hist)
    assert traindoc("diagnose", str(run), "--fail-on", "never").returncode == 0
    assert traindoc("diagnose", str(run), "--fail-on", "error").returncode == 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"log_history": [{"step": 1, "loss": 2.0}', "trainer_state.json"),
        ("not json at all", "trainer_state.json"),
    ],
)
def test_unusable_input_exits_2_naming_the_file(tmp_path: Path, content: str, needle: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "trainer_state.json").write_text(content)
    p = traindoc("diagnose", str(run))
    assert p.returncode == 2
    assert needle in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_missing_and_empty_paths(tmp_path: Path) -> None:
    p = traindoc("diagnose", str(tmp_path / "nope"))
    assert p.returncode == 2 and "nope" in p.stderr and "Traceback" not in p.stderr
    p = traindoc("diagnose", str(tmp_path))
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_overrides_and_bad_arguments(tmp_path: Path) -> None:
    hist = [
        {"step": s, "loss": 10.8125, "learning_rate": 1e-6, "grad_norm": 0.5} for s in range(1, 301)
    ]
    run = write_state(tmp_path / "run", hist)
    p = traindoc("diagnose", str(run), "--format", "json", "--vocab-size", "32000")
    # ln(32000) = 10.37: the same flat 10.81 is no longer the uniform floor
    (report,) = json.loads(p.stdout)["runs"]
    assert "uniform-plateau" not in {f["rule"] for f in report["findings"]}
    assert report["run"]["facts"]["vocab_size"]["source"] == "--vocab-size"
    bad = traindoc("diagnose", str(run), "--regime", "sft")
    assert bad.returncode == 2 and "pretraining" in bad.stderr


def test_nothing_written_into_the_run_dir(tmp_path: Path) -> None:
    hist = [{"step": s, "loss": 3.0 - s / 100, "learning_rate": 1e-4} for s in range(1, 101)]
    run = write_state(tmp_path / "run", hist)
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    for fmt in ("terminal", "json", "markdown"):
        traindoc("diagnose", str(run), "--format", fmt)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before


def test_rules_and_explain() -> None:
    assert "uniform-plateau" in traindoc("rules").stdout
    p = traindoc("explain", "uniform-plateau")
    assert p.returncode == 0 and "What to do" in p.stdout
    p = traindoc("explain", "no-such-rule")
    assert p.returncode == 2 and "traindoc rules" in p.stderr


CKPT = ROOT / "tests" / "ckpt" / "assets"


def test_ckpt_command_names_the_exploded_tensor() -> None:
    p = traindoc("ckpt", str(CKPT / "seed-a"), "--format", "json")
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    exploded = [f for f in report["findings"] if f["rule"] == "exploded-weights"]
    assert exploded and exploded[0]["evidence"]["tensor"] == "lm_head.weight"
    assert {c["name"] for c in report["checkpoints"]} == {"best", "checkpoint-30"}
    term = traindoc("ckpt", str(CKPT / "seed-a" / "best"))
    assert term.returncode == 1 and "lm_head" in term.stdout


def test_ckpt_against_shows_the_update_and_bad_paths_exit_2(tmp_path: Path) -> None:
    run = CKPT / "healthy-run"
    p = traindoc("ckpt", str(run / "checkpoint-40"), "--against", str(run / "checkpoint-20"))
    assert p.returncode == 0 and "relative update" in p.stdout
    bad = tmp_path / "model.safetensors"
    bad.write_bytes(
        (CKPT / "healthy-run" / "checkpoint-20" / "model.safetensors").read_bytes()[:500]
    )
    p = traindoc("ckpt", str(bad))
    assert p.returncode == 2 and "model.safetensors" in p.stderr and "Traceback" not in p.stderr


def test_diagnose_links_the_absurd_first_loss_to_the_exploded_checkpoint(tmp_path: Path) -> None:
    """A run dir holding the checkpoint it started from: the report names the tensor."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(CKPT / "seed-a" / "best", run / "best")
    hist = [
        {"step": s, "loss": 96.0 * 0.8**s + 5.55, "learning_rate": 1e-6, "grad_norm": 50.0}
        for s in range(1, 61)
    ]
    write_state(run, hist)
    (run / "config.json").write_text(json.dumps({"vocab_size": 256, "model_type": "gpt2"}))
    (report,) = json.loads(traindoc("diagnose", str(run), "--format", "json").stdout)["runs"]
    rules = {f["rule"]: f for f in report["findings"]}
    assert rules["exploded-weights"]["id"] == "exploded-weights@best"  # caused_by names ids
    assert "exploded-weights@best" in rules["absurd-initial-loss"]["caused_by"]
    assert rules["exploded-weights"]["caused_by"] == []
    off = json.loads(traindoc("diagnose", str(run), "-f", "json", "--no-checkpoints").stdout)
    assert "exploded-weights" not in {f["rule"] for f in off["runs"][0]["findings"]}


def test_pattern_reads_any_console_format(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(
        "".join(f"it {s} | loss={10.8 - s / 100:.3f} | lr 3e-4\n" for s in range(1, 200))
    )
    pat = r"it (?P<step>\d+) \| loss=(?P<loss>[\d.]+) \| lr (?P<lr>[\d.e-]+)"
    p = traindoc("diagnose", str(log), "--pattern", pat, "-f", "json")
    (report,) = json.loads(p.stdout)["runs"]
    assert report["run"]["series"]["loss"] == 199 and report["run"]["series"]["lr"] == 199
    (inp,) = report["inputs"]
    assert inp["series"] == {"loss": 199, "lr": 199} and inp["lines"] == 199
    bad = traindoc("diagnose", str(log), "--pattern", "(")
    assert bad.returncode == 2 and "regex" in bad.stderr and "Traceback" not in bad.stderr


def test_data_and_preflight_write_html(tmp_path: Path) -> None:
    ds = tmp_path / "train.jsonl"
    rows = [{"text": f"<b>sample</b> number {i % 150}", "label": i % 2} for i in range(300)]
    ds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "data.html"
    assert traindoc("data", str(ds), "--html", str(out)).returncode in (0, 1)
    page = out.read_text()
    assert "Data audit" in page and "duplicate-samples" in page and "<b>sample" not in page
    pf = tmp_path / "pf.html"
    p = traindoc("preflight", "--model", str(CKPT / "seed-a" / "best"), "--html", str(pf))
    assert p.returncode == 1 and "exploded-weights" in pf.read_text()


def test_a_run_with_no_metric_yet_is_not_called_healthy(tmp_path: Path) -> None:
    run = write_state(tmp_path / "run", [])
    p = traindoc("diagnose", str(run))
    assert p.returncode == 0, p.stderr
    assert "NO METRICS YET" in p.stdout and "HEALTHY" not in p.stdout
    assert "only the configuration was checked" in p.stdout
    # preflight checks a configuration by design: a clean one is plainly healthy
    p = traindoc("preflight", "--learning-rate", "3e-4", "--regime", "pretraining")
    assert "HEALTHY" in p.stdout and "NO METRICS" not in p.stdout, p.stdout


def test_a_three_line_paste_is_inconclusive_not_healthy(tmp_path: Path) -> None:
    paste = tmp_path / "paste.txt"
    paste.write_text("".join(f"step {s} loss {2.31 - s * 0.001:.4f}\n" for s in (1, 2, 3)))
    p = traindoc("diagnose", str(paste), "-f", "json")
    assert p.returncode == 0, p.stderr
    (report,) = json.loads(p.stdout)["runs"]
    assert report["verdict"] == "inconclusive"
    reasons = {j["rule"]: j["reason"] for j in report["not_judged"]}
    assert reasons["no-learning"] == "loss has 3 points; needs 10"
    term = traindoc("diagnose", str(paste))
    assert "NOT ENOUGH DATA" in term.stdout and "HEALTHY" not in term.stdout
    assert "loss has 3 points; needs 10" in term.stdout
    # the same paste falling clearly, point after point, is judged (and healthy)
    paste.write_text("".join(f"step {s} loss {2.3 - s * 0.2:.4f}\n" for s in (1, 2, 3)))
    (report,) = json.loads(traindoc("diagnose", str(paste), "-f", "json").stdout)["runs"]
    assert report["verdict"] == "healthy", report
