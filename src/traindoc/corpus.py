"""Scoring traindoc on labelled runs (`make eval` and the corpus tests).

Two kinds of corpus:

- our own tiny trainings (tests/corpus/*/expected.json):
  `{"expect": ["rule-id", ...], "expect_info": [...], "healthy": bool}`: `expect`
  must be found at warning or error, `expect_info` (findings that are info by
  design, such as an epoch staircase) at any severity;
- real third-party runs (tests/real/*/meta.json, the schema of
  ../shared/real-logs): labels settled by the thread or the curve, scored
  through `ACCEPT` (a label counts as diagnosed when a warning or error
  carries one of its rule ids). Labels `other` and `data_problem` are not
  scored; a healthy run passes with no warning or error; confidence `low` is
  not scored. `split` says whether a case was kept out of tuning (holdout).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from traindoc.engine import Diagnosis, diagnose
from traindoc.model import Run, Severity
from traindoc.pipeline import load_all, load_folder
from traindoc.readers import ReadError
from traindoc.rules.api import registered

# ../shared/real-logs/README.md: the rule ids that count as naming each label.
ACCEPT: dict[str, set[str]] = {
    "uniform_plateau": {"uniform-plateau"},
    "exploded_weights": {"exploded-weights", "absurd-initial-loss", "resume-loss-jump"},
    "lr_too_low": {"lr-too-low", "schedule-not-applied", "no-learning"},
    "lr_too_high": {"lr-too-high", "divergence", "warmup-too-short"},
    "divergence": {"divergence", "grad-explosion"},
    "nan_inf": {"nonfinite-loss", "nonfinite-gradients", "fp16-instability"},
    "overfitting": {"overfitting"},
    "plateau_oscillation": {"oscillating-plateau", "no-learning"},
    "grad_spike": {"grad-spike", "grad-explosion", "loss-spike"},
    "stalled": {"stalled-training", "resume-data-skip"},
    "absurd_initial_loss": {"absurd-initial-loss"},
    "warmup_too_long": {"warmup-too-long"},
    "warmup_too_short": {"warmup-too-short"},
    "small_effective_batch": {"small-effective-batch"},
    "duplicate_samples": {"duplicate-samples", "near-duplicate-samples"},
    "near_duplicate_samples": {"near-duplicate-samples", "duplicate-samples"},
    "label_conflicts": {"label-conflicts"},
    "resume_step_mismatch": {"resume-step-mismatch", "stalled-training"},
    "schedule_restarted": {"schedule-restarted"},
    "schedule_not_applied": {"schedule-not-applied"},
    "fp16_instability": {"fp16-instability", "nonfinite-loss", "nonfinite-gradients"},
    "loss_spike": {"loss-spike", "grad-spike"},
    "no_learning": {
        "no-learning",
        "lr-too-low",
        "uniform-plateau",
        "degenerate-loss",
        "no-trainable-parameters",
        "rl-no-signal",
    },
    "rl_no_signal": {"rl-no-signal"},
    # names used by the hidden holdout's labels.json (same README)
    "fp16_precision": {
        "fp16-instability",
        "precision-suboptimal",
        "nonfinite-loss",
        "nonfinite-gradients",
    },
    "sawtooth_plateau": {"oscillating-plateau"},
    "unshuffled_heterogeneous_data": {"heterogeneous-mix"},
    "duplicated_data": {"duplicate-samples", "near-duplicate-samples"},
    "label_conflict": {"label-conflicts"},
    "label_noise": {"label-conflicts"},
    "resume_stall": {"stalled-training", "resume-data-skip"},
    "grad_accum_step_bug": {"resume-step-mismatch", "stalled-training"},
    "bad_lr_schedule": {"warmup-too-long", "schedule-not-applied", "lr-too-low"},
    "no_warmup": {"warmup-too-short"},
    "noisy_loss": {"small-effective-batch", "oscillating-plateau", "loss-spike"},
}
UNSCORED = {"other", "data_problem"}


@dataclass(frozen=True)
class CaseResult:
    name: str
    expected: tuple[str, ...]  # rule ids (own corpus) or labels (real corpus)
    healthy: bool
    found: tuple[str, ...]  # warning and error findings
    info: tuple[str, ...]
    error: str | None = None
    split: str = "dev"
    reader: str = ""  # how the log was read (input kind / dialect)
    verdict: str = ""
    missed: tuple[str, ...] = ()
    # warnings / errors on a faulty run that name none of its labels and are not linked
    # (as cause or consequence) to a finding that does
    unexpected: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()  # the error-level findings among `found`

    @property
    def false_alarms(self) -> tuple[str, ...]:
        return self.found if self.healthy else self.unexpected

    @property
    def ok(self) -> bool:
        return self.error is None and not self.missed and not self.false_alarms


def cases(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/expected.json"))


def real_cases(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/meta.json"))


def score(case: Path) -> CaseResult:
    """An own-corpus case: every expected rule at warning or error (an info is not enough)."""
    exp = json.loads((case / "expected.json").read_text())
    expected, healthy = tuple(exp.get("expect", ())), bool(exp.get("healthy", False))
    as_info = tuple(exp.get("expect_info", ()))
    try:
        ds = [diagnose(r) for r in load_all(case)]
    except ReadError as exc:
        return CaseResult(case.name, expected, healthy, (), (), str(exc), missed=expected)
    found, info = _found(ds)
    missed = tuple(r for r in expected if r not in found)
    missed += tuple(r for r in as_info if r not in found + info)
    allowed = {*expected, *as_info, *exp.get("also_applies", ())}
    expected += as_info
    return CaseResult(
        case.name,
        expected,
        healthy,
        found,
        info,
        missed=missed,
        verdict=_verdict(ds),
        reader=_reader(ds),
        unexpected=() if healthy else _unexpected(ds, allowed),
        errors=_errors(ds),
    )


def score_real(case: Path) -> CaseResult | None:
    """A real case, or None when it is not scored (low confidence, only unscored labels)."""
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    labels = tuple(meta.get("labels", ()))
    healthy = labels == ("healthy",)
    scored = tuple(lb for lb in labels if lb in ACCEPT)
    if meta.get("confidence") == "low" or not (healthy or scored):
        return None
    split = meta.get("split", "dev")
    try:
        ds = [diagnose(r) for r in _load(case, meta)]
    except ReadError as exc:
        return CaseResult(case.name, scored, healthy, (), (), str(exc), split, missed=scored)
    found, info = _found(ds)
    missed = tuple(lb for lb in scored if not ACCEPT[lb] & set(found))
    unexpected: tuple[str, ...] = ()
    if not healthy and "other" not in labels:  # "other": a cause we have no rule for
        allowed = {r for lb in scored for r in ACCEPT[lb]}
        if "data_problem" in labels:
            allowed |= {i for i, spec in registered().items() if spec.family == "data"}
        unexpected = _unexpected(ds, allowed)
    return CaseResult(
        case.name,
        scored,
        healthy,
        found,
        info,
        None,
        split,
        _reader(ds),
        _verdict(ds),
        missed,
        unexpected,
        _errors(ds),
    )


READ_SIGNALS = ("loss", "eval_loss", "lr", "grad_norm")


def read_summary(case: Path) -> dict:
    """What traindoc reads from a real case: runs, points of the main signals per run,
    lines naming a metric that were not understood (tests/real/reads.json holds the
    reviewed values)."""
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    try:
        runs = _load(case, meta, checkpoints=False)
    except ReadError as exc:
        return {"error": str(exc).split(": ", 1)[-1][:80]}
    out: dict = {"runs": len(runs), "series": [], "lines_not_understood": 0}
    for r in runs:
        inp = next((i for i in r.inputs if i.series is not None), None)
        out["series"].append({k: len(r.series[k]) for k in READ_SIGNALS if k in r.series})
        if inp is not None and inp.lines_not_understood:
            out["lines_not_understood"] = inp.lines_not_understood
    return out


def _load(case: Path, meta: dict, *, checkpoints: bool = True) -> list[Run]:
    """The case's runs as a user would read them: a sweep case (`"sweep": true`, the
    folder of its arms) as `traindoc diagnose <folder>` reads a folder of runs, any other
    case from its target."""
    if meta.get("sweep"):
        return load_folder(case, checkpoints=checkpoints)
    return load_all(target(case, meta.get("files", [])), checkpoints=checkpoints)


def target(case: Path, files: Iterable[str]) -> Path:
    """What a user would point traindoc at: the log (the first file listed), or the folder
    that holds it and the other files (a run dir with its config)."""
    paths = [case / f for f in files]
    if not paths:
        return case
    main = paths[0]
    if len(paths) > 1 and all(p.is_relative_to(main.parent) for p in paths[1:]):
        return main.parent
    return main


def _found(ds: list[Diagnosis]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = tuple(
        dict.fromkeys(f.rule for d in ds for f in d.findings if f.severity >= Severity.WARNING)
    )
    info = tuple(
        dict.fromkeys(f.rule for d in ds for f in d.findings if f.severity == Severity.INFO)
    )
    return found, info


def _errors(ds: list[Diagnosis]) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(f.rule for d in ds for f in d.findings if f.severity == Severity.ERROR)
    )


def _unexpected(ds: list[Diagnosis], allowed: set[str]) -> tuple[str, ...]:
    """Warnings and errors naming none of the expected rules and not connected to one
    through causes: a consequence or a cause of an expected finding is part of the story."""
    out = []
    for d in ds:
        rule_of = {f.id: f.rule for f in d.findings}  # caused_by names findings, by id
        edges = {(f.rule, rule_of.get(c, c)) for f in d.findings for c in f.caused_by}
        story = {f.rule for f in d.findings if f.rule in allowed}
        grew = True
        while grew:  # everything connected to an expected finding through causes
            more = {b for a, b in edges if a in story} | {a for a, b in edges if b in story}
            grew = not more <= story
            story |= more
        out += [
            f.rule for f in d.findings if f.severity >= Severity.WARNING and f.rule not in story
        ]
    return tuple(dict.fromkeys(out))


def _verdict(ds: list[Diagnosis]) -> str:
    order = ("broken", "suspect", "inconclusive", "healthy")
    verdicts = [d.verdict for d in ds]
    return next((v for v in order if v in verdicts), "healthy")


def _reader(ds: list[Diagnosis]) -> str:
    if not ds:
        return ""
    run = ds[0].run
    kind = next((i.kind for i in run.inputs if i.series), run.inputs[0].kind if run.inputs else "")
    dialect = run.fact("trainer")
    return f"{kind}/{dialect}" if dialect and dialect not in kind else kind
