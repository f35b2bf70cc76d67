"""Checkpoint reading and statistics; `traindoc.ckpt(path)` is the API function."""

import sys

from traindoc import CallablePackage

# traindoc.ckpt(...) calls traindoc.api.ckpt (see CallablePackage)
sys.modules[__name__].__class__ = CallablePackage
