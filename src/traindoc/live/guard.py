"""The one rule of every framework adapter: a bug of traindoc's never stops training."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

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
