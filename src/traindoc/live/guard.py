"""What every framework adapter shares: validated settings, and the rule that a
bug of traindoc's own never stops training."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from traindoc.settings import Settings, find, resolve

log = logging.getLogger("traindoc")


def guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A bug of traindoc's own is reported once and disables it; training goes on.

    The decorated method's object needs `disabled`, `strict` and `monitor`.
    """

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.disabled:
            return None
        try:
            return fn(self, *args, **kwargs)
        except Exception as exc:
            if self.strict:
                raise
            self.disabled = True
            log.warning("traindoc callback failed and is now disabled: %r", exc, exc_info=exc)
            if self.monitor is not None:
                self.monitor.close()
            return None

    return wrapper


class CallbackSettings:
    """The settings and state both framework callbacks keep; bad values fail here."""

    def __init__(
        self,
        vocab_size: int | None = None,
        regime: str | None = None,
        *,
        sample_every: int | None = None,
        write: bool = True,
        strict: bool = False,
        settings: Settings | str | Path | None = None,
        **monitor_kwargs: Any,
    ) -> None:
        """`monitor_kwargs` go to `traindoc.Monitor` (policy, stall_factor, ...).

        `settings`: a Settings, a settings file, or None for the traindoc.toml /
        [tool.traindoc] found upward from the cwd now and from the output dir when
        training begins. An error in them raises SettingsError here, not in a step.
        """
        if sample_every is not None and sample_every < 1:
            raise ValueError(f"sample_every must be >= 1 or None (got {sample_every})")
        if regime is not None:
            from traindoc.model.signals import REGIMES

            if regime not in REGIMES:
                raise ValueError(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
        self.vocab_size = vocab_size
        self.regime = regime
        self.sample_every = sample_every
        self.write = write
        self.strict = strict
        self.monitor_kwargs = monitor_kwargs
        self._given = settings is not None
        self.settings: Settings = resolve(settings)
        self.monitor: Any = None
        self.disabled = False
        self._sampler: Any = None
        self._sync: Any = None

    def settings_for(self, output_dir: str | Path | None) -> Settings:
        """The settings of the run's output dir, when none were given and its own file
        differs from the one found at construction (an error there disables the
        callback with one warning, through `guard`, unless strict)."""
        if not self._given and output_dir is not None:
            found = find(output_dir)
            if found is not None and found != self.settings.file:
                self.settings = resolve(found)
        return self.settings
