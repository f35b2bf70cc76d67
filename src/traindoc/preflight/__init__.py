"""Preflight: check a training setup (config, model, data, device, resume) before a run."""
