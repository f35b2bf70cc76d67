"""Per-project settings: found upward from the run, every error at once, the CLI on top."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.test_cli import SEED_A, needs_examples, traindoc
from traindoc.settings import SettingsError, find, load

BAD = """\
[tool.traindoc]
select = ["loss", "lr-to-low"]
fail_on = "warn"
vocab-size = "32000"
colour = true

[tool.traindoc.rules.lr-too-low]
unknown_flag_at = "1e-8"
flag_atx = 3
flag_at = { lora = "high" }

[tool.traindoc.rules.loss-spikes]
x = 1
"""


def test_every_error_is_listed_at_once_with_the_valid_names(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(BAD)
    with pytest.raises(SettingsError) as err:
        load(tmp_path / "run")
    e = err.value
    assert e.path == tmp_path / "pyproject.toml" and len(e.errors) == 8, e.errors
    text = "\n".join(e.errors)
    # a wrong name: the valid ones, and the closest
    assert "colour: unknown setting; valid: select, ignore, fail-on" in text
    assert "'lr-to-low' (did you mean 'lr-too-low'" in text
    assert "rules.loss-spikes: unknown rule (did you mean 'loss-spike'?)" in text
    assert (
        "rules.lr-too-low.flag_atx: unknown threshold (did you mean 'flag_at'"
        " or 'unknown_flag_at'?); valid: flag_at, expected, unknown_flag_at, unknown_expected"
    ) in text
    # a wrong type, each with what was given
    assert "rules.lr-too-low.unknown_flag_at: must be a number, got string '1e-8'" in text
    assert "rules.lr-too-low.flag_at: lora: must be a number, got string 'high'" in text
    assert "vocab-size: must be an integer >= 2, got string '32000'" in text
    assert "fail-on: string 'warn' is not one of error, warning, info, never" in text


def test_found_upward_traindoc_toml_first_and_a_foreign_pyproject_passed_over(
    tmp_path: Path,
) -> None:
    run = tmp_path / "a" / "b" / "run"
    run.mkdir(parents=True)
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert find(run) is None
    (tmp_path / "pyproject.toml").write_text('[tool.traindoc]\nfail-on = "info"\n')
    assert find(run) == tmp_path / "pyproject.toml"
    assert find(run / "train.log") == tmp_path / "pyproject.toml"  # a file: from its folder
    (tmp_path / "a" / "traindoc.toml").write_text('fail-on = "warning"\n')
    s = load(run)
    assert s.file == tmp_path / "a" / "traindoc.toml" and s.fail_on == "warning"
    assert s.source("fail_on") == str(tmp_path / "a" / "traindoc.toml")
    # a broken pyproject is ours to report only when it names our table
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("[tool.ruff\n")
    assert load(run).file == tmp_path / "a" / "traindoc.toml"
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("[tool.traindoc]\nselect = [\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load(run)
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("[tool.ruff]\n")
    # --config names the file; a pyproject without our table is then an error
    with pytest.raises(SettingsError, match=r"no \[tool.traindoc\] table"):
        load(run, config=tmp_path / "a" / "b" / "pyproject.toml")


def test_thresholds_are_merged_into_the_rules_params_and_cli_flags_win(tmp_path: Path) -> None:
    (tmp_path / "traindoc.toml").write_text(
        'select = ["rate"]\nignore = ["lr-too-high"]\nfail-on = "never"\n'
        "[rules.lr-too-low]\nunknown_flag_at = 1\nflag_at = { lora = 2e-6 }\n"
    )
    s = load(tmp_path, ignore=["warmup-too-long"], fail_on="warning")
    assert s.ignore == ("lr-too-high", "warmup-too-long")
    assert s.source("ignore") == f"{tmp_path / 'traindoc.toml'} + --ignore"
    assert s.fail_on == "warning" and s.source("fail_on") == "--fail-on"
    from traindoc.rules.registry import load_all

    specs = {x.id: x for x in s.apply(load_all().values())}
    assert "lr-too-low" in specs and "lr-too-high" not in specs and "divergence" not in specs
    p = specs["lr-too-low"].params
    assert p.unknown_flag_at == 1.0 and isinstance(p.unknown_flag_at, float)
    assert p.flag_at == {"pretraining": 3e-5, "full-finetune": 1e-7, "lora": 2e-6}
    assert load_all()["lr-too-low"].params.flag_at["lora"] == 1e-6  # the registry untouched
    assert load(tmp_path, select=["loss"]).select == ("loss",)  # --select replaces
    with pytest.raises(SettingsError) as err:  # a wrong flag is not the file's error
        load(tmp_path, select=["los"])
    assert err.value.path is None and str(err.value).startswith("1 error in the settings")


def _run_with(tmp_path: Path, settings: str) -> Path:
    run = tmp_path / "seed-a"
    shutil.copytree(SEED_A, run)
    (tmp_path / "traindoc.toml").write_text(settings)
    return run


@needs_examples
def test_the_cli_reads_the_file_and_its_flags_override_it(tmp_path: Path) -> None:
    run = _run_with(tmp_path, 'fail-on = "never"\nignore = ["grads"]\n')
    p = traindoc("diagnose", str(run), "-f", "json")
    assert p.returncode == 0, p.stderr  # broken, but fail-on = never
    rules = {f["rule"] for f in json.loads(p.stdout)["runs"][0]["findings"]}
    assert "lr-too-low" in rules and "clipping-saturated" not in rules
    assert traindoc("diagnose", str(run), "--fail-on", "error").returncode == 1
    p = traindoc("diagnose", str(run), "-f", "json", "--select", "rate", "--fail-on", "error")
    assert [f["rule"] for f in json.loads(p.stdout)["runs"][0]["findings"]] == ["lr-too-low"]
    other = tmp_path / "other.toml"
    other.write_text("[rules.lr-too-low]\nflag_at = { pretraining = 1e-7 }\n")
    p = traindoc("diagnose", str(run), "-f", "json", "--config", str(other))
    assert p.returncode == 1  # the file named replaces the one found: fail-on is error again
    assert "lr-too-low" not in {f["rule"] for f in json.loads(p.stdout)["runs"][0]["findings"]}


@needs_examples
def test_a_bad_file_exits_2_listing_every_error_and_the_file(tmp_path: Path) -> None:
    run = _run_with(tmp_path, 'regime = "finetune"\n[rules.lr-too-low]\nflag = 1\n')
    p = traindoc("diagnose", str(run))
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.splitlines()
    assert lines[0] == f"traindoc: {tmp_path / 'traindoc.toml'}: 2 errors in the settings"
    assert "regime: string 'finetune' is not one of pretraining" in lines[1]
    assert lines[2].startswith("  rules.lr-too-low.flag: unknown threshold")
    (tmp_path / "traindoc.toml").write_text("select = [\n")
    p = traindoc("diagnose", str(run))
    assert p.returncode == 2 and "not valid TOML" in p.stderr and "Traceback" not in p.stderr


def test_rules_settings_shows_each_value_and_where_it_came_from(tmp_path: Path) -> None:
    (tmp_path / "traindoc.toml").write_text(
        'fail-on = "warning"\n[rules.lr-too-low]\nunknown_flag_at = 1e-8\n'
    )
    p = traindoc("rules", "--settings", str(tmp_path), "--ignore", "grads")
    assert p.returncode == 0, p.stderr
    lines = {line.split(" = ")[0].strip(): line for line in p.stdout.splitlines()}
    where = str(tmp_path / "traindoc.toml")
    assert lines["file"].endswith(where)
    assert lines["fail-on"].endswith(f"warning  # {where}")
    assert lines["ignore"].endswith("grads  # --ignore")
    assert lines["lr-too-low.unknown_flag_at"].endswith(f"1e-08  # {where}")
    assert lines["lr-too-low.unknown_expected"].endswith("1e-05  # default")
    assert any(k.startswith("lr-too-low.") for k in lines)
    assert not any(k.startswith("grad-spike.") for k in lines)  # an ignored rule: none shown
    assert "grad-spike" in lines["rules off"]
