"""Thin adapters from training frameworks to `traindoc.live.Monitor`.

The only modules of traindoc that import torch, transformers or lightning, and
only when imported themselves: `traindoc.integrations.hf`, `.lightning`, `.torch`.
"""
