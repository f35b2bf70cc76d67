"""traindoc: tells ML engineers why their training run is not learning.

```python
import traindoc

d = traindoc.diagnose("runs/exp-12")   # also: ckpt, audit_data, preflight
d.verdict, [f.rule for f in d.findings]
d                                       # a notebook shows the HTML report inline
```
Everything is imported on first use, so `import traindoc` (and `traindoc --help`)
stays fast; see traindoc.api for the functions and traindoc.settings for the
`[tool.traindoc]` settings they read.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # traindoc.ckpt and traindoc.preflight: typed as traindoc.api.ckpt / .preflight
    from traindoc.api import audit_data, diagnose
    from traindoc.live import Monitor, Policy, TrainingStopped
    from traindoc.outcome import InputError
    from traindoc.result import Diagnosis, Unreadable
    from traindoc.settings import Settings, SettingsError

_LAZY = {
    "diagnose": "traindoc.api",
    "audit_data": "traindoc.api",
    "Diagnosis": "traindoc.result",
    "Unreadable": "traindoc.result",
    "InputError": "traindoc.outcome",
    "Settings": "traindoc.settings",
    "SettingsError": "traindoc.settings",
    "Monitor": "traindoc.live",
    "TrainingStopped": "traindoc.live",
    "Policy": "traindoc.live",
}
__all__ = [
    "Diagnosis",
    "InputError",
    "Monitor",
    "Policy",
    "Settings",
    "SettingsError",
    "TrainingStopped",
    "Unreadable",
    "__version__",
    "audit_data",
    "ckpt",
    "diagnose",
    "preflight",
]


class CallablePackage(types.ModuleType):
    """A subpackage that is also the API function of its name.

    `traindoc.ckpt(path)` and `traindoc.preflight(...)` are the API's functions,
    while `traindoc.ckpt.stats` stays a module: Python binds an imported subpackage
    onto its parent, so a plain function of that name would be replaced by the
    module the first time the package is imported. The package's __init__ sets
    this class; the call imports traindoc.api only when made.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import importlib

        api = importlib.import_module("traindoc.api")
        return getattr(api, self.__name__.rsplit(".", 1)[1])(*args, **kwargs)


def __getattr__(name: str) -> Any:
    import importlib

    if name in ("ckpt", "preflight"):
        return importlib.import_module(f"traindoc.{name}")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'traindoc' has no attribute {name!r}")
