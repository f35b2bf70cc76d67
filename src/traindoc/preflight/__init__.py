"""Preflight: check a training setup (config, model, data, device, resume) before a run."""

import sys

from traindoc import CallablePackage

# traindoc.preflight(...) calls traindoc.api.preflight (see CallablePackage)
sys.modules[__name__].__class__ = CallablePackage
