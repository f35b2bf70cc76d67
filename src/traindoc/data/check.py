"""Audit a dataset into the Run the data rules judge: what `traindoc data` reports.

Computing only: traindoc.api.audit_data runs the rules on the Run and
traindoc.commands.data renders it, so data/ stays on the readers' layer (it
imports neither the engine, the settings, the rules nor a renderer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traindoc.model import Run
from traindoc.outcome import InputError


def audit_run(
    path: str | Path,
    eval_path: str | Path | None = None,
    text_field: str | None = None,
    label_field: str | None = None,
    *,
    threshold: float = 0.6,
    max_seq_len: int | None = None,
    distributed: bool = False,
    workers: int = 2,
) -> tuple[Run, Any]:
    """Audit PATH (and EVAL_PATH): (the Run holding its summary, the audit result).

    Raises InputError for unusable input (the CLI's exit 2).
    """
    from traindoc.data.audit import Options, audit
    from traindoc.data.readers import DataError, discover, splits

    if not 0.0 < threshold <= 1.0:
        raise InputError(f"--threshold must be in (0, 1], got {threshold}")
    opts = Options(text_field, label_field, threshold, max_seq_len=max_seq_len)
    try:
        p = Path(path)
        # A DatasetDict: audit train, and its validation/test split as eval unless given.
        if eval_path is None and p.is_dir() and (p / "dataset_dict.json").is_file():
            names = splits(p)
            held = [s for s in names[1:] if s in ("validation", "valid", "eval", "test", "dev")]
            if held:
                eval_path = p / held[0]
            path = p / names[0]
        if distributed:
            from traindoc.data.distributed import audit_distributed

            result = audit_distributed(path, eval_path, opts, n_workers=workers)
        else:
            result = audit(discover(path), discover(eval_path) if eval_path else None, opts)
    except DataError as exc:
        raise InputError(str(exc)) from None
    except ImportError as exc:
        raise InputError(
            f"{exc}; install traindoc[data] (or traindoc[distributed] for --distributed)"
        ) from None
    return Run(name=str(path), data=result.summary), result
