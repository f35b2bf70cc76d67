"""Settings a user states in words next to a pasted log ("the learning rate was 1e-3").

An issue excerpt often logs no LR at all and says it in a sentence or in the call that
started the run (`fit_one_cycle(2, max_lr=5e-4)`). The LR decides several verdicts
(too high for the regime, too low), so one stated value is read as the configured
LR. Several different values in one text are a discussion of a sweep ("1e-3 diverged,
1e-5 learns"), not the run's setting: then none is taken, unless all but one are said to
work ("with lr = 0.001 there is no problem, but with lr = 0.01 the loss goes up"): a
user pastes the run that fails and names the LR that works as the contrast, so the one
left is the pasted run's.
"""

from __future__ import annotations

import re

# "learning rate was 1e-3", "lr = 0.001", "max_lr=5e-4", "learning_rate: 2e-5", "lr of 3e-4"
_STATED_LR = re.compile(
    rb"(?i)(?<![\w.])(?:max_lr|learning[ _-]?rate|lr)\b\s*(?:(?:was|is|of|at|set\s+to|(to))\s+)?"
    rb"[=:]?\s*([0-9]*\.?[0-9]+(?:e[-+]?\d+)?)(?!\w|\.\d)"
)
# "I change the lr to 0.001 (and now it works)", "lowering the learning rate to 1e-5": the
# value an LR is changed TO is another run's, the fix tried, not the one this log ran at.
# A verb of change earlier in the same clause, and "to" before the value.
_CHANGED = re.compile(
    rb"(?i)\b(?:(?:chang|reduc|decreas|increas|rais|tun|halv|doubl)(?:e|es|ed|ing)"
    rb"|(?:lower|adjust|switch|drop|cut)(?:s|es|ed|ped|ting|ping|ing)?"
    rb"|try|tries|tried|trying|modif(?:y|ies|ied|ying))\b[^.;!?\n]*\Z"
)
_CLAUSE = 60  # bytes looked back for the verb (and ahead for "works")
# "lr = 0.001 ... there is no problem", "lr 1e-4 works fine", "with 3e-5 it was ok": the
# value's own clause (up to a ; ! ? a sentence's full stop, a "but" or a line's end) says
# it worked, so it is the contrast, not the run that fails.
_WORKED = re.compile(
    rb"(?i)\A[^;!?\n]*?(?:\bno (?:problems?|issues?)\b|\bworks?\b|\bworked\b"
    rb"|\bworking (?:fine|well)\b|\b(?:is|was|are|were) (?:fine|ok|okay)\b)"
)
_CLAUSE_END = re.compile(rb"(?i)[;!?\n]|\.(?!\d)|\bbut\b")
# "lr 3e-4 does not work", "it never worked": a negation before the word is a failure
_NEGATED = re.compile(rb"(?i)(?:\bnot|n't|\bnever|\bno longer)\b")
# An LR above this is a number that merely follows the word ("lr 1000 steps").
_MAX_LR = 100.0


class StatedLR:
    """The distinct LR values stated in a text's non-record lines."""

    def __init__(self) -> None:
        self.values: dict[float, int] = {}  # value -> first line
        self.worked: set[float] = set()  # values whose clause says they worked

    def scan(self, no: int, text: bytes) -> None:
        if b"lr" not in text.lower() and b"rate" not in text.lower():
            return
        for m in _STATED_LR.finditer(text):
            if m.group(1) and _CHANGED.search(text[max(0, m.start() - _CLAUSE) : m.start()]):
                continue  # the value it was changed to
            try:
                v = float(m.group(2))
            except ValueError:
                continue
            if 0 < v < _MAX_LR:
                self.values.setdefault(v, no)
                if _worked(text[m.end() : m.end() + _CLAUSE]):
                    self.worked.add(v)

    def value(self) -> tuple[float, int] | None:
        """The one LR the text states, with its line; None when it states none or several,
        unless all of the several but one are said to work (that one is the failing run's)."""
        failing = {v: no for v, no in self.values.items() if v not in self.worked}
        if len(self.values) != 1 and not (self.worked and len(failing) == 1):
            return None
        ((v, no),) = (self.values if len(self.values) == 1 else failing).items()
        return v, no


def _worked(ahead: bytes) -> bool:
    """The clause after a stated LR says the run at it worked ("... there is no problem")."""
    end = _CLAUSE_END.search(ahead)
    clause = ahead[: end.start()] if end else ahead
    m = _WORKED.search(clause)
    return m is not None and not _NEGATED.search(clause[: m.end()])
