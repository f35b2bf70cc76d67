"""Which fields hold the input and the label/answer, for the common schemas (FORMATS §8).

The audit needs three things per record: the input the model conditions on
(duplicates and leakage are judged on it), the label or answer (conflicts are
a same input with a different one), and whether that label is a class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TEXT_FIELDS = (
    "text",
    "content",
    "sentence",
    "document",
    "question",
    "query",
    "input",
    "tweet",
    "review",
    "comment",
    "utterance",
    "passage",
)
LABEL_FIELDS = ("label", "labels", "kto_tag", "class", "category", "target")
USER_ROLES = ("user", "human", "system", "tool", "function_call", "observation")


@dataclass(frozen=True)
class Schema:
    kind: str  # text | classification | alpaca | prompt-completion | preference | messages | conversations
    inputs: tuple[str, ...]
    label: str | None = None
    label_kind: str | None = None  # class | text
    # A class label beside a text answer (alpaca rows with a `label` column):
    # rows with the same input and answer but another class are conflicts.
    klass: str | None = None

    def extract(self, rec: Mapping[str, Any]) -> tuple[str, Any]:
        """(input text, label or answer); missing fields read as empty."""
        if self.kind in ("messages", "conversations"):
            return _chat(rec.get(self.inputs[0]))
        parts = [_text(rec.get(f)) for f in self.inputs]
        text = "\n".join(p for p in parts if p)
        if self.label is None:
            return text, None
        v = rec.get(self.label)
        if self.label_kind == "text":
            if isinstance(v, list):  # chosen as a message list (DPO)
                return text, _chat(v)[0]
            return text, _text(v)
        return text, v

    def klass_of(self, rec: Mapping[str, Any]) -> Any:
        return rec.get(self.klass) if self.klass else None


def _klass(rec: Mapping[str, Any], answer: str | None) -> str | None:
    """A class-label field beside the answer field, if the record has one."""
    return next(
        (
            f
            for f in LABEL_FIELDS
            if f in rec and f != answer and _label_kind(rec[f]) == "class" and rec[f] is not None
        ),
        None,
    )


def detect(
    rec: Mapping[str, Any], text_field: str | None = None, label_field: str | None = None
) -> Schema:
    """The schema of a record; overrides win. Raises ValueError listing the fields."""
    keys = set(rec)
    for f in (text_field, label_field):
        if f is not None and f not in keys:
            raise ValueError(f"field {f!r} not in the records; fields: {', '.join(sorted(keys))}")
    if text_field is not None:
        label = label_field or next((f for f in LABEL_FIELDS if f in keys), None)
        return Schema(
            "text" if label is None else "classification",
            (text_field,),
            label,
            _label_kind(rec.get(label)) if label else None,
        )
    for chat in ("messages", "conversations"):
        if isinstance(rec.get(chat), list):
            return Schema(chat, (chat,), label_field, "text" if label_field is None else "class")
    if "instruction" in keys and ("output" in keys or label_field):
        ins = tuple(f for f in ("system", "instruction", "input") if f in keys)
        ans = label_field or "output"
        return Schema("alpaca", ins, ans, "text", _klass(rec, ans))
    if "prompt" in keys:
        for ans in (label_field, "completion", "chosen", "response", "output"):
            if ans and ans in keys:
                kind = "preference" if ans == "chosen" else "prompt-completion"
                lk = _label_kind(rec.get(ans))
                return Schema(
                    kind, ("prompt",), ans, lk, _klass(rec, ans) if lk == "text" else None
                )
    label = label_field or next((f for f in LABEL_FIELDS if f in keys), None)
    if "sentence1" in keys and "sentence2" in keys:
        return Schema(
            "classification",
            ("sentence1", "sentence2"),
            label,
            _label_kind(rec.get(label)) if label else None,
        )
    for f in TEXT_FIELDS:
        if f in keys and isinstance(rec.get(f), str):
            kind = "classification" if label else "text"
            return Schema(kind, (f,), label, _label_kind(rec.get(label)) if label else None)
    strings = [k for k, v in rec.items() if isinstance(v, str) and k != label]
    if strings:  # no known name: the longest string field is the text
        f = max(strings, key=lambda k: len(rec[k]))
        kind = "classification" if label else "text"
        return Schema(kind, (f,), label, _label_kind(rec.get(label)) if label else None)
    raise ValueError(f"no text field found; fields: {', '.join(sorted(keys))} (use --text-field)")


def _label_kind(v: Any) -> str:
    if isinstance(v, (bool, int)) or v is None:
        return "class"
    if isinstance(v, str) and len(v) <= 40 and "\n" not in v and len(v.split()) <= 4:
        return "class"
    return "text"


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "\n".join(_text(x) for x in v)
    return str(v)


def _chat(turns: Any) -> tuple[str, str]:
    """Turns joined as `role: content` lines; the last assistant turn is the answer."""
    if not isinstance(turns, list):
        return _text(turns), ""
    lines: list[tuple[str, str]] = []
    for t in turns:
        if isinstance(t, Mapping):
            role = str(t.get("role", t.get("from", "")))
            lines.append((role, _text(t.get("content", t.get("value", "")))))
        else:
            lines.append(("", _text(t)))
    answer = ""
    if lines and lines[-1][0] not in USER_ROLES and lines[-1][0]:
        answer = lines.pop()[1]
    return "\n".join(f"{r}: {c}" if r else c for r, c in lines), answer
