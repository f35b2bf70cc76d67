"""One line on what the live monitor did about a finding (evidence["live"], readers/live.py)."""

from __future__ import annotations

import re

from traindoc.model import Finding

# A frame line of a formatted Python stack: '  File "/path/x.py", line 12, in loop'.
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+, in ')
# Installed libraries and the standard library: where a thread waits, not why.
_LIBRARY = re.compile(r"[/\\](site-packages|dist-packages|lib[/\\]python\d[.\d]*)[/\\]")


def stuck_frame(stack: str) -> str:
    """The frame to show for a stuck thread: the innermost one in the user's own code.

    A training thread caught mid-step is usually inside torch (a backward pass, a
    data-loader queue); that frame says where it waits, not which line of the
    training script loops. The innermost frame outside installed libraries and the
    standard library names that line; the innermost frame of all is the fallback.
    """
    lines = stack.strip().splitlines()
    frames = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    if not frames:
        return ""
    own = [i for i in frames if not _LIBRARY.search(_FRAME.match(lines[i])["path"])]
    i = (own or frames)[-1]
    code = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
    return f"{lines[i].strip()}: {code}" if code else lines[i].strip()


def live_line(f: Finding) -> str:
    """What the live monitor did about it, and where a stalled thread was stuck."""
    seen = f.evidence.get("live")
    if not isinstance(seen, dict):
        return ""
    step = seen.get("step", f.step)
    at = f" at step {step}" if step is not None else ""
    done = {"stop": "stopped training", "warn": "warned"}.get(str(seen.get("action")), "logged it")
    out = f"the live monitor {done}{at}"
    frame = stuck_frame(str(f.evidence.get("stuck_thread_stack") or ""))
    if frame:
        out += f"; the training thread was stuck in {frame}"
    return out
