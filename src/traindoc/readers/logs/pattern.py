"""A user's `--pattern`: compiled once, and refused when it can backtrack without end.

Python's `re` has no timeout, and the classic catastrophic shapes, an unbounded
repeat over something that can itself match in many ways (`(x+x+)+y`,
`(\\d|\\d\\d)*!`, `(a{1,3})+`), take exponential time on a line they almost match.
Those shapes are found in the parsed pattern and refused with a one-line reason
(an atomic group `(?>...)` or a possessive `++` makes them safe, and is allowed).
The lines a pattern reads are cut at MAX_LINE bytes, which bounds the
polynomial cases (`.*a.*b`) too.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

MAX_LINE = 4096  # bytes of a line the pattern sees; metric lines are far shorter

_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT}
_SAFE = {getattr(C, "POSSESSIVE_REPEAT", None), getattr(C, "ATOMIC_GROUP", None)} - {None}


def risky(pattern: str) -> bool:
    """Whether an unbounded repeat holds a variable repeat or an alternation."""
    return _walk(P.parse(pattern), False)


def _children(op: Any, av: Any) -> list[Any]:
    if op in _REPEATS:
        return [av[2]]
    if op == C.SUBPATTERN:
        return [av[-1]]
    if op == C.BRANCH:
        return list(av[1])
    if op in (C.ASSERT, C.ASSERT_NOT):
        return [av[1]]
    if op == C.GROUPREF_EXISTS:
        return [x for x in av[1:] if x is not None]
    return []


def _walk(sub: Any, under_repeat: bool) -> bool:
    for op, av in sub:
        if op in _SAFE:
            continue
        varies = op in _REPEATS and av[0] != av[1]
        if under_repeat and (varies or op == C.BRANCH):
            return True
        unbounded = op in _REPEATS and av[1] == C.MAXREPEAT
        if any(_walk(c, under_repeat or unbounded) for c in _children(op, av)):
            return True
    return False


def compile_pattern(pattern: str) -> re.Pattern[bytes]:
    """The compiled pattern; ValueError with the reason when it is unusable."""
    try:
        rx = re.compile(pattern.encode())
        bad = risky(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ValueError(f"--pattern is not a valid regex: {exc}") from None
    if bad:
        raise ValueError(
            "--pattern can backtrack exponentially (an unbounded repeat over a repeat or "
            "an alternation, e.g. (x+)+); rewrite it, or make the inner part atomic: (?>...)"
        )
    if not rx.groupindex:
        raise ValueError("--pattern needs named groups, e.g. (?P<step>\\d+) (?P<loss>\\S+)")
    return rx
