"""JSON-lines logs whose records say what they are in an `event` field (mainrun's
mainrun.log: hyperparameters_configured, training_step, validation_step, ...).

The event name is the only thing that tells a validation loss from a train loss
(both are `loss`), and a config dump from a record: a config's `lr: 0.01` read as
a record is a one-point LR series (and dataset_info's `epochs: 7` an epoch series).
So an eval event's metrics are named as eval ones, and a config or *_info event
becomes facts, not a record.
"""

from __future__ import annotations

import re
from typing import Any

from traindoc.model.signals import METRIC_KINDS, is_eval, kind

_EVAL = re.compile(r"^(?:val|valid|validation|eval|evaluation|test|dev)(?:_|$)", re.I)
_CONFIG = re.compile(
    r"(?:^|_)(?:hyperparameters?|hparams|config|configuration|args|info)(?:_|$)", re.I
)


class Events:
    """Applies the event names to records, a batch at a time; `config` keeps the config
    and info events (name, fields), in file order, for the reader to turn into facts."""

    def __init__(self) -> None:
        self.config: list[tuple[str, dict[str, Any]]] = []

    def keep(self, recs: list[dict]) -> list[tuple[int, dict]]:
        out = []
        for i, r in enumerate(recs):
            event = r.get("event")
            if not isinstance(event, str):
                out.append((i, r))
            elif _CONFIG.search(event):
                self.config.append((event, {k: v for k, v in r.items() if k != "event"}))
            elif _EVAL.match(event):
                out.append((i, {_eval_name(k): v for k, v in r.items()}))
            else:
                out.append((i, r))
        return out


def _eval_name(key: str) -> str:
    """An eval event's metric under its eval name (`loss` -> `eval_loss`)."""
    if not isinstance(key, str) or is_eval(key) or kind(key) not in METRIC_KINDS:
        return key
    return f"eval_{key}"
