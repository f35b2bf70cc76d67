"""Per-project settings, like ruff: `traindoc.toml` or `[tool.traindoc]` in `pyproject.toml`.

Found upward from the run (the nearest directory that has either; `traindoc.toml`
wins over `pyproject.toml` in the same directory, and a `pyproject.toml` without
a `[tool.traindoc]` table is passed over), or named with `--config`. Parsed once
into one frozen `Settings`; every error in the file (and in the CLI flags that
override it) is collected and raised together, so a user fixes them in one go.

```toml
[tool.traindoc]              # in traindoc.toml: the same keys at the top level
select = ["loss", "rate"]    # rule ids or families; default: every rule
ignore = ["loss-spike"]
fail-on = "warning"          # error | warning | info | never
regime = "lora"              # pretraining | full-finetune | lora
vocab-size = 32000           # num-classes = 10 for a classifier

[tool.traindoc.rules.lr-too-low]   # thresholds, checked against the rule's Params
unknown_flag_at = 1e-8
flag_at = { lora = 2e-6 }          # a table is merged into the default
```
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from traindoc.model import REGIMES, Fact, Run
from traindoc.outcome import InputError
from traindoc.rules.api import FAMILIES, RuleSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILENAMES = ("traindoc.toml", "pyproject.toml")
FAIL_ON = ("error", "warning", "info", "never")
ALL = "ALL"
KEYS = ("select", "ignore", "fail-on", "regime", "vocab-size", "num-classes", "rules")
DEFAULT = "default"


class SettingsError(InputError):
    """The settings cannot be used; `errors` lists every problem, `path` the file."""

    def __init__(self, path: Path | None, errors: list[str]) -> None:
        self.path, self.errors = path, list(errors)
        where = f"{path}: " if path is not None else ""
        n = len(errors)
        head = f"{where}{n} error{'s' if n != 1 else ''} in the settings"
        super().__init__(head + "".join(f"\n  {e}" for e in errors))


@dataclass(frozen=True)
class Settings:
    """The effective settings: the defaults, then the file, then the CLI flags.

    `sources` says where each value came from: "default", the file's path, or the
    flag ("--select"); per-rule thresholds are keyed "rules.<id>.<name>".
    """

    select: tuple[str, ...] = (ALL,)
    ignore: tuple[str, ...] = ()
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    fail_on: str = "error"
    regime: str | None = None
    vocab_size: int | None = None
    num_classes: int | None = None
    file: Path | None = None
    sources: Mapping[str, str] = field(default_factory=dict)

    def source(self, key: str) -> str:
        return self.sources.get(key, DEFAULT)

    def enabled(self, rule_id: str, family: str) -> bool:
        chosen = ALL in self.select or rule_id in self.select or family in self.select
        return chosen and rule_id not in self.ignore and family not in self.ignore

    def apply(self, specs: Iterable[RuleSpec]) -> list[RuleSpec]:
        """The selected specs, each with its thresholds overridden where the settings say."""
        out = []
        for spec in specs:
            if not self.enabled(spec.id, spec.family):
                continue
            over = self.rules.get(spec.id)
            if over and spec.params is not None:
                spec = replace(spec, params=replace(spec.params, **_merged(spec.params, over)))
            out.append(spec)
        return out

    def override(self, run: Run) -> Run:
        """The run with the facts the user set (vocab size, regime, classes), naming the
        source: what the settings say wins over what a reader inferred."""
        facts = dict(run.facts)
        for key in ("vocab_size", "num_classes", "regime"):
            value = getattr(self, key)
            if value is not None:
                src = self.source(key)
                if self.file is not None and src == str(self.file):
                    src = f"{src}: {key.replace('_', '-')}"
                facts[key] = Fact(value, src)
        return replace(run, facts=facts)


def resolve(value: Settings | str | Path | None, start: str | Path | None = None) -> Settings:
    """`settings=` as the live API takes it: a Settings as is; a file names the settings
    file; a directory, or None (then `start`, else the cwd), is searched upward from.
    Raises SettingsError listing every problem, so a callback fails when it is built."""
    if isinstance(value, Settings):
        return value
    if value is not None and Path(value).is_file():
        return load(config=value, origin="api")
    if value is not None and not Path(value).exists():
        raise SettingsError(Path(value), ["no such settings file or directory"])
    return load(value if value is not None else start, origin="api")


def find(start: str | Path) -> Path | None:
    """The settings file that governs `start`: the nearest traindoc.toml or pyproject.toml
    with a [tool.traindoc] table, looking in start's directory and then upward."""
    p = Path(start).absolute()
    if not p.is_dir():
        p = p.parent
    while not p.exists() and p != p.parent:  # a path not there yet: its nearest parent
        p = p.parent
    for d in (p, *p.parents):
        if (d / FILENAMES[0]).is_file():
            return d / FILENAMES[0]
        py = d / FILENAMES[1]
        if py.is_file() and _has_table(py):
            return py
    return None


def load(
    start: str | Path | None = None,
    *,
    config: str | Path | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    fail_on: str | None = None,
    regime: str | None = None,
    vocab_size: int | None = None,
    num_classes: int | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    origin: str = "cli",
) -> Settings:
    """The effective settings for a run at `start` (cwd when None).

    `config` names the file instead of searching; the keyword values are the CLI
    flags (None = not given) and win over the file. `select` given here replaces
    the file's; `ignore` adds to it. `rules` are threshold overrides (Python API).
    `origin` names those values in `sources`: "cli" says "--fail-on", "api" "fail_on=".
    Raises SettingsError listing every problem at once.
    """

    def flag(key: str) -> str:
        return f"--{key}" if origin == "cli" else f"{key.replace('-', '_')}="

    path = Path(config) if config is not None else find(start if start is not None else ".")
    raw: dict[str, Any] = {}
    errors: list[str] = []
    if path is not None:
        raw = _read(path, explicit=config is not None)
    where = str(path) if path is not None else DEFAULT
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(key: str, value: Any, source: str) -> None:
        values[key] = value
        sources[key] = source

    norm = {k.replace("_", "-"): v for k, v in raw.items()}
    for key in norm:
        if key not in KEYS:
            errors.append(f"{key}: unknown setting{_maybe(key, KEYS)}; valid: {', '.join(KEYS)}")
    from traindoc.rules.registry import load_all

    specs = load_all()
    for key in ("select", "ignore"):
        if key in norm:
            ids = _ids(key, norm[key], specs, errors)
            if ids is not None:
                put(key, ids, where)
    if "fail-on" in norm:
        put("fail_on", _choice("fail-on", norm["fail-on"], FAIL_ON, errors), where)
    if "regime" in norm:
        put("regime", _choice("regime", norm["regime"], REGIMES, errors), where)
    if "vocab-size" in norm:
        put("vocab_size", _count("vocab-size", norm["vocab-size"], errors), where)
    if "num-classes" in norm:
        put("num_classes", _count("num-classes", norm["num-classes"], errors), where)
    over: dict[str, dict[str, Any]] = {}
    if "rules" in norm:
        _thresholds(norm["rules"], specs, where, over, sources, errors)
    in_file = len(errors)
    # The CLI flags win over the file.
    if select is not None:
        ids = _ids(flag("select"), list(select), specs, errors)
        if ids is not None:
            put("select", ids, flag("select"))
    if ignore is not None:
        ids = _ids(flag("ignore"), list(ignore), specs, errors)
        if ids is not None:
            before = values.get("ignore", ())
            was = sources.get("ignore")
            src = f"{was} + {flag('ignore')}" if was else flag("ignore")
            put("ignore", tuple(dict.fromkeys((*before, *ids))), src)
    if fail_on is not None:
        put("fail_on", _choice(flag("fail-on"), fail_on, FAIL_ON, errors), flag("fail-on"))
    if regime is not None:
        put("regime", _choice(flag("regime"), regime, REGIMES, errors), flag("regime"))
    if vocab_size is not None:
        put("vocab_size", _count(flag("vocab-size"), vocab_size, errors), flag("vocab-size"))
    if num_classes is not None:
        put("num_classes", _count(flag("num-classes"), num_classes, errors), flag("num-classes"))
    if rules:
        _thresholds(rules, specs, "rules=", over, sources, errors)
    if errors:  # named after the file only when the file holds some of them
        raise SettingsError(path if in_file else None, errors)
    return Settings(**values, rules=over, file=path, sources=sources)


def _has_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        # ours when it names our table (then _read reports the error), else not ours to judge
        return "tool.traindoc" in text
    return isinstance(doc.get("tool"), dict) and "traindoc" in doc["tool"]


def _read(path: Path, *, explicit: bool) -> dict[str, Any]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError(path, ["no such settings file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(path, [f"cannot read: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(path, [f"not valid TOML: {exc}"]) from None
    if path.name != FILENAMES[1]:
        return doc
    table = doc.get("tool", {}).get("traindoc") if isinstance(doc.get("tool"), dict) else None
    if table is None:
        if explicit:
            raise SettingsError(path, ["no [tool.traindoc] table"])
        return {}
    if not isinstance(table, dict):
        raise SettingsError(path, ["tool.traindoc must be a table"])
    return table


def _ids(
    key: str, value: Any, specs: Mapping[str, RuleSpec], errors: list[str]
) -> tuple[str, ...] | None:
    """Rule ids, families or ALL; a comma-separated CLI value is split."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        errors.append(f"{key}: must be a list of rule ids or families, got {_show(value)}")
        return None
    names = [n.strip() for v in value for n in v.split(",") if n.strip()]
    valid = (*specs, *FAMILIES, ALL)
    bad = [n for n in names if n not in valid]
    for n in bad:
        errors.append(
            f"{key}: unknown rule or family {n!r}{_maybe(n, valid)}; families: "
            f"{', '.join(FAMILIES)}; `traindoc rules` lists the rule ids"
        )
    return None if bad else tuple(dict.fromkeys(names))


def _choice(key: str, value: Any, valid: Iterable[str], errors: list[str]) -> Any:
    valid = tuple(valid)
    if value not in valid:
        errors.append(f"{key}: {_show(value)} is not one of {', '.join(valid)}")
    return value


def _count(key: str, value: Any, errors: list[str]) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        errors.append(f"{key}: must be an integer >= 2, got {_show(value)}")
    return value


def _thresholds(
    table: Any,
    specs: Mapping[str, RuleSpec],
    where: str,
    over: dict[str, dict[str, Any]],
    sources: dict[str, str],
    errors: list[str],
) -> None:
    """rules.<id>.<name> = value, each checked against the rule's Params."""
    if not isinstance(table, Mapping):
        errors.append(f"rules: must be a table of [rules.<rule-id>] tables, got {_show(table)}")
        return
    for rule_id, values in table.items():
        spec = specs.get(rule_id)
        if spec is None:
            errors.append(
                f"rules.{rule_id}: unknown rule{_maybe(rule_id, specs)}; "
                "`traindoc rules` lists the rule ids"
            )
            continue
        if spec.params is None:
            errors.append(f"rules.{rule_id}: this rule has no thresholds")
            continue
        if not isinstance(values, Mapping):
            errors.append(f"rules.{rule_id}: must be a table of thresholds, got {_show(values)}")
            continue
        names = [f.name for f in fields(spec.params)]
        for name, value in values.items():
            key = f"rules.{rule_id}.{name}"
            attr = str(name).replace("-", "_")
            if attr not in names:
                errors.append(
                    f"{key}: unknown threshold{_maybe(attr, names)}; valid: {', '.join(names)}"
                )
                continue
            problem = _type_problem(getattr(spec.params, attr), value)
            if problem:
                errors.append(f"{key}: {problem}")
                continue
            over.setdefault(rule_id, {})[attr] = value
            sources[f"rules.{rule_id}.{attr}"] = where


def _type_problem(default: Any, value: Any) -> str | None:
    """Why `value` cannot replace `default` (None when it can): the default's type rules."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"must be true or false, got {_show(value)}"
    if isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"must be an integer, got {_show(value)}"
    if isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else f"must be a number, got {_show(value)}"
    if isinstance(default, str):
        return None if isinstance(value, str) else f"must be a string, got {_show(value)}"
    if isinstance(default, Mapping):
        if not isinstance(value, Mapping):
            return f"must be a table like {_show(dict(default))}, got {_show(value)}"
        for k, v in value.items():
            inner = next(iter(default.values()), None)
            problem = _type_problem(inner, v) if inner is not None else None
            if problem:
                return f"{k}: {problem}"
        return None
    if isinstance(default, tuple | list):
        return None if isinstance(value, list) else f"must be a list, got {_show(value)}"
    return None


def _merged(params: Any, over: Mapping[str, Any]) -> dict[str, Any]:
    """A table overrides only the keys it names; everything else replaces the default."""
    out = {}
    for name, value in over.items():
        default = getattr(params, name)
        if isinstance(default, Mapping):
            value = {**default, **value}
        elif isinstance(default, float) and not isinstance(value, bool):
            value = float(value)
        elif isinstance(default, tuple):
            value = tuple(value)
        out[name] = value
    return out


def _maybe(name: str, valid: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(name), list(valid), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def _show(value: Any) -> str:
    kind = {str: "string", bool: "boolean", int: "integer", float: "number", list: "list"}
    name = "table" if isinstance(value, Mapping) else kind.get(type(value), type(value).__name__)
    return f"{name} {value!r}"
