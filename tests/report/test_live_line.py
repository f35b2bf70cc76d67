"""The live line names the user's own frame of a stuck thread, not torch's."""

from __future__ import annotations

from traindoc.report._live import stuck_frame

_STACK = """\
  File "/usr/lib/python3.11/threading.py", line 1002, in _bootstrap
    self._bootstrap_inner()
  File "/home/me/train.py", line 88, in loop
    loss.backward()
  File "/home/me/.venv/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward
    torch.autograd.backward(
  File "/home/me/.venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 823, in _engine_run_backward
    return Variable._execution_engine.run_backward(
"""


def test_innermost_own_frame_beats_library_frames() -> None:
    assert stuck_frame(_STACK) == ('File "/home/me/train.py", line 88, in loop: loss.backward()')


def test_only_library_frames_fall_back_to_the_innermost() -> None:
    lib_only = "\n".join(_STACK.splitlines()[4:])
    assert stuck_frame(lib_only).endswith("run_backward(")
    assert "graph.py" in stuck_frame(lib_only)


def test_no_frame_gives_nothing() -> None:
    assert stuck_frame("") == ""
    assert stuck_frame("not a stack") == ""
