"""The HTML report: self-contained, escaped, and checked in a real browser.

The browser tests run Debian's headless Chromium (`apt-get install -y chromium`):
the page must load with no console message at all (errors, CSP violations),
its script must report success in the DOM (`data-ok="1"`), a screenshot is
taken, and the panels, the floor line and the finding markers must be there.
When /usr/bin/chromium is missing the fixture tries to install it (as root,
with apt-get) and skips with the reason only if that fails; set
TRAINDOC_REQUIRE_BROWSER=1 to make a missing browser a failure instead.
TRAINDOC_ARTIFACTS=DIR keeps the screenshots there.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from traindoc.compare import compare_runs
from traindoc.engine import Diagnosis, diagnose
from traindoc.model import Fact, Finding, Note, Run, Series, Severity
from traindoc.model.checkpoint import CheckpointSummary, TensorStats
from traindoc.pipeline import load
from traindoc.report import _svg
from traindoc.report.html import render, render_compare

from .test_cli import HEALTHY, SEED_A, needs_examples, traindoc

XSS = '<script>document.title="pwned"</script><img src=x onerror="document.body.dataset.pwned=1">'


def nasty_run() -> Run:
    steps = np.arange(1, 401)
    loss = 10.8 + 5 * np.exp(-steps / 30) + 0.05 * np.sin(steps)
    loss[200] = np.nan
    return Run(
        name=f"run {XSS}",
        series={
            "loss": Series.from_arrays("loss", steps, loss),
            "lr": Series.from_arrays("lr", steps, np.full(400, 3e-4)),
            "grad_norm": Series.from_arrays("grad_norm", steps, 1 + np.abs(np.cos(steps))),
        },
        facts={
            "vocab_size": Fact(50257, "config.json"),
            "lr_scheduler": Fact(f"cosine{XSS}", f"args {XSS}"),
            "max_grad_norm": Fact(1.0, "args"),
        },
        notes=(Note(f"log{XSS}.txt", f"bad line {XSS}", 3),),
        checkpoints=(
            CheckpointSummary(
                path="/x",
                name=f"best{XSS}",
                format="safetensors",
                tensors=(
                    TensorStats(f"lm_head.weight{XSS}", "F32", (8, 4), "lm_head", None, std=13.87),
                    TensorStats("h.0.attn.q", "F32", (4, 4), "attn_q", 0, std=0.02),
                ),
            ),
        ),
    )


def nasty_diagnosis() -> Diagnosis:
    run = nasty_run()
    f1 = Finding(
        "absurd-initial-loss",
        "loss",
        Severity.ERROR,
        f"Title {XSS}",
        1,
        None,
        {
            f"key{XSS}": f"value{XSS}",
            "tensors": [f"lm_head.weight{XSS}"],
            "checkpoint": f"best{XSS}",
        },
        f"why {XSS}",
        f"do {XSS}",
    )
    f2 = Finding("uniform-plateau", "loss", Severity.WARNING, "plateau", 100, 400, {}, "", "", ())
    f2 = f2.with_causes(("absurd-initial-loss",))
    return Diagnosis(run, (f1, f2), extra={"data_audit": {f"dupes{XSS}": 0.12}})


@pytest.fixture(scope="module")
def seed_a_html() -> str:
    if not SEED_A.exists():
        pytest.skip("examples not generated")
    return render(diagnose(load(SEED_A)))


def test_seed_a_report_shows_the_story(seed_a_html: str) -> None:
    html = seed_a_html
    for panel in ("loss", "grad_norm", "lr"):
        assert f'<svg class="plot" data-panel="{panel}"' in html
    assert "uniform floor ln(V) = 10.82" in html  # the floor line, labelled
    assert ">96.2<" in html  # the first loss, annotated
    assert ">1e-6<" in html  # the LR line's value
    assert "max_grad_norm = 1" in html
    cards = re.findall(r'<div class="card sev-\w+" data-f="f\d+" data-rule="([\w-]+)"', html)
    assert cards[0] == "absurd-initial-loss"  # the root cause on top
    lanes = re.findall(r'<g class="finding-mark f\d+" data-f="f\d+" data-rule="([\w-]+)"', html)
    assert lanes == cards  # every finding marked on the step axis
    # each finding shaded (onset to end) in each drawn panel; throughput is not logged
    assert html.count('class="band f') == 3 * len(cards)
    assert (
        'data-panel="throughput"><div class="ph"><span class="pt">Throughput</span><span class="na">not logged'
        in html
    )
    assert len(html) < 200_000


def test_report_is_offline(seed_a_html: str) -> None:
    html = seed_a_html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"\b(src|href)\s*=", html)
    assert "url(" not in html and "@import" not in html and "http://" not in html
    assert "https://" not in html


def test_every_run_string_is_escaped() -> None:
    html = render(nasty_diagnosis())
    assert "<script>document" not in html and "<img src" not in html
    assert "&lt;script&gt;document.title" in html
    data = html.split('id="td-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # the JSON for the script cannot close its element
    assert html.count("<script") == 2  # the data block and the report's own script
    # the exploded tensor's role is highlighted in the checkpoint table
    assert re.search(r"<tr class=bad><td>lm_head</td>", html)
    assert "Data audit" in html and "dupes&lt;script&gt;" in html
    assert 'class="nonfinite"' in html  # the NaN at step 201 is marked


def test_compare_escapes_run_names() -> None:
    a, b = nasty_run(), nasty_run()
    html = render_compare([a, b], compare_runs([a, b]))
    assert "<script>document" not in html
    assert "does not part from it" in html


def test_downsampling_keeps_spikes_and_the_file_small() -> None:
    n = 1_000_000
    steps = np.arange(n)
    values = 2.0 + 0.01 * np.random.default_rng(0).standard_normal(n)
    values[654_321] = 50.0  # one step
    s = Series.from_arrays("loss", steps, values)
    x = _svg.XScale(0, n - 1)
    st, v, _, _ = _svg.reduce(s, x)
    assert st.size <= 4 * (_svg.PW + 1)
    assert v.max() == 50.0 and v.min() == values.min()
    d = Diagnosis(Run("long", {"loss": s}), ())
    html = render(d)
    assert len(html) < 400_000
    assert ">50<" in html or ">50.0<" in html or "50" in html


@needs_examples
def test_cli_writes_html_and_keeps_the_exit_code(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    p = traindoc("diagnose", str(SEED_A), "--html", str(out))
    assert p.returncode == 1, p.stderr  # broken run: same exit as without --html
    assert "BROKEN" in p.stdout and out.read_text().startswith("<!DOCTYPE html>")
    p = traindoc("diagnose", str(HEALTHY), "--html", str(tmp_path / "no" / "dir" / "r.html"))
    assert p.returncode == 2 and "cannot write" in p.stderr


# --- in a real browser -----------------------------------------------------------

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


@pytest.fixture(scope="session")
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        why = _install_chromium()
        if not Path(CHROMIUM).exists():
            msg = f"browser test needs Chromium at {CHROMIUM}; it cannot be installed here: {why}"
            if os.environ.get("TRAINDOC_REQUIRE_BROWSER") == "1":
                pytest.fail(msg)
            pytest.skip(msg)
    return CHROMIUM


def _install_chromium() -> str:
    if shutil.which("apt-get") is None:
        return "no apt-get (not Debian/Ubuntu)"
    if os.geteuid() != 0:
        return "not root; run `apt-get install -y chromium` as root"
    cmd = "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium"
    try:
        p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return "apt-get timed out after 15 min"
    tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
    return f"`{cmd}` exited {p.returncode}: {tail[0]}"


def browse(
    chromium: str, page: Path, tmp: Path, *extra: str, fragment: str = ""
) -> tuple[str, str]:
    """(stdout, console lines) of one headless Chromium load of `page`."""
    p = subprocess.run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={tmp / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *extra,
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp,
    )
    console = [ln for ln in p.stderr.splitlines() if ":CONSOLE" in ln]
    return p.stdout, "\n".join(console)


def screenshot(chromium: str, page: Path, tmp: Path, name: str) -> Path:
    png = tmp / f"{name}.png"
    _, console = browse(chromium, page, tmp, f"--screenshot={png}", "--window-size=1400,1800")
    assert not console, console
    assert png.exists(), "Chromium wrote no screenshot"
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (1400, 1800)
    assert png.stat().st_size > 30_000  # a blank page compresses to a few kB
    keep = os.environ.get("TRAINDOC_ARTIFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / png.name)
    return png


def check_page(chromium: str, page: Path, tmp: Path) -> str:
    dom, console = browse(chromium, page, tmp, "--dump-dom", fragment="#selftest")
    assert not console, f"console messages while loading {page.name}:\n{console}"
    assert 'data-ok="1"' in dom, dom[:2000]
    assert 'data-selftest="1"' in dom  # hover readout filled, a log toggle switched
    assert 'id="js-error" class="err" hidden' in dom
    return dom


@needs_examples
def test_seed_a_in_chromium(chromium: str, tmp_path: Path, seed_a_html: str) -> None:
    page = tmp_path / "seed-a.html"
    page.write_text(seed_a_html)
    dom = check_page(chromium, page, tmp_path)
    for panel in ("loss", "grad_norm", "lr"):
        assert f'<svg class="plot" data-panel="{panel}"' in dom
    assert re.search(r'<line class="ref"[^>]*>', dom) and "uniform floor ln(V) = 10.82" in dom
    for rule in ("absurd-initial-loss", "lr-too-low", "no-learning"):
        assert 'class="finding-mark' in dom and f'data-rule="{rule}"' in dom
    readout = re.search(r'data-readout="([^"]*)"', dom)
    assert readout and readout.group(1).startswith("step ") and "train loss" in readout.group(1)
    screenshot(chromium, page, tmp_path, "seed-a")


def test_hostile_strings_stay_text_in_chromium(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "nasty.html"
    page.write_text(render(nasty_diagnosis()))
    dom = check_page(chromium, page, tmp_path)
    assert "<title>pwned</title>" not in dom  # the injected script never ran
    assert "<title>traindoc: run &lt;script&gt;" in dom
    assert "data-pwned" not in dom
    screenshot(chromium, page, tmp_path, "nasty")


@needs_examples
def test_compare_in_chromium(chromium: str, tmp_path: Path) -> None:
    runs = [load(SEED_A, checkpoints=False), load(HEALTHY, checkpoints=False)]
    page = tmp_path / "compare.html"
    page.write_text(render_compare(runs, compare_runs(runs)))
    dom = check_page(chromium, page, tmp_path)
    assert 'class="parting' in dom
    screenshot(chromium, page, tmp_path, "compare")


def test_svg_ticks_are_readable() -> None:
    assert _svg.num(1e-6) == "1e-6" and _svg.num(3e-4) == "3e-4" and _svg.num(10.8249) == "10.82"
    assert _svg.nice_ticks(0, 100, 5) == [0, 20, 40, 60, 80, 100]
    assert _svg.log_ticks(0.5, 2000)[:3] == [1.0, 10.0, 100.0]
    assert math.isclose(_svg.log_ticks(2e-7, 2e-6)[0], 2e-7)
