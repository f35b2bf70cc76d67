"""One line on what the live monitor did about a finding (evidence["live"], readers/live.py)."""

from __future__ import annotations

from traindoc.model import Finding


def live_line(f: Finding) -> str:
    """What the live monitor did about it, and where a stalled thread was stuck."""
    seen = f.evidence.get("live")
    if not isinstance(seen, dict):
        return ""
    step = seen.get("step", f.step)
    at = f" at step {step}" if step is not None else ""
    done = {"stop": "stopped training", "warn": "warned"}.get(str(seen.get("action")), "logged it")
    out = f"the live monitor {done}{at}"
    stack = str(f.evidence.get("stuck_thread_stack") or "").strip().splitlines()
    if len(stack) >= 2:
        out += f"; the training thread was stuck in {stack[-2].strip()}: {stack[-1].strip()}"
    return out
