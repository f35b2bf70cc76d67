"""Pickles read without executing them: one bounded, iterative walker for every
pickle traindoc opens (training_args.bin, torch `.bin`/`.pt`, optimizer.pt).

`load` interprets the opcode stream itself (pickletools decodes the opcodes);
nothing is imported and no callable in the file is ever called. GLOBAL becomes
an inert `Global`, REDUCE / NEWOBJ / INST / OBJ an inert `Call` holding its
arguments, BUILD only records the state, and a caller's `make` hook may turn
the few calls it knows (OrderedDict, torch's tensor rebuild) into data. A
hostile `os.system("...")` is a `Call` holding a string.

Everything is bounded: the input size (the caller's), the memo, the nesting, the
number of nodes `plain` and `leaves` visit. Shared references stay shared: a
300-byte pickle whose lists hold the level below ten times over is a graph of
a few hundred nodes, never expanded into 10**30. No step recurses, so nesting
100,000 deep is an error message, not a RecursionError; keys that are not flat
scalars (a deep tuple used as a dict key) are never hashed.

This module imports nothing of traindoc: readers/ and ckpt/ both use it.
"""

from __future__ import annotations

import pickletools
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

# What reading a damaged torch zip archive (the container of .bin, training_args.bin and
# optimizer.pt) can raise: zipfile raises RuntimeError for an encrypted member and
# UnicodeDecodeError for a name flagged UTF-8 that is not.
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    UnicodeDecodeError,
)

MAX_MEMO = 1 << 20  # memo entries; a 7B model's state dict pickle uses ~10**4
MAX_DEPTH = 200  # containers within containers; real checkpoints nest < 10
MAX_NODES = 1 << 20  # containers `plain` / `leaves` visit in one pickle
_SCALARS = (str, bytes, int, float, bool, type(None))


class PickleError(Exception):
    """The bytes are not a pickle this walker can read; str() says why in a few words."""


@dataclass(frozen=True)
class Global:
    """A class or function the pickle names (GLOBAL / STACK_GLOBAL): never imported."""

    module: str
    name: str

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


class Call:
    """What calling a `Global` would have built: its arguments, its BUILD state and
    the items APPEND / SETITEM added. Holds data; does nothing."""

    __slots__ = ("args", "func", "items", "pairs", "state")

    def __init__(self, func: Any, args: tuple) -> None:
        self.func, self.args = func, args
        self.state: Any = None
        self.items: list[Any] = []
        self.pairs: list[tuple[Any, Any]] = []

    @property
    def qualname(self) -> str:
        return self.func.qualname if isinstance(self.func, Global) else "?"


@dataclass(frozen=True)
class Persistent:
    """A persistent id (torch: a tensor storage outside the pickle)."""

    pid: Any


Make = Callable[[Global, tuple], Any]
_NOT_MADE = object()


def key(k: Any) -> Any:
    """A dict key as the walker stores it: flat scalars as they are, anything else
    (a tuple of tuples 100,000 deep, a list) as a placeholder that is never hashed."""
    if isinstance(k, (*_SCALARS, Global)):
        return k
    if isinstance(k, tuple) and len(k) <= 16 and all(isinstance(x, _SCALARS) for x in k):
        return k
    return f"<{type(k).__name__} key>"


def load(
    data: bytes,
    make: Make | None = None,
    persistent: Callable[[Any], Any] | None = None,
    max_ops: int | None = None,
) -> Any:
    """The object a pickle describes, as inert data. Raises PickleError.

    `max_ops` bounds the opcodes read (each costs microseconds in pickletools): a
    caller that knows how large its pickles are refuses a far larger one early.
    """
    try:
        return _Machine(make, persistent).run(data, max_ops)
    except PickleError:
        raise
    except RecursionError:  # defensive: nothing here recurses
        raise PickleError("nested too deeply") from None
    except Exception as exc:  # malformed bytes of any kind: unreadable, never retried
        raise PickleError(f"{type(exc).__name__}: {str(exc)[:100]}") from None


class _Machine:
    def __init__(self, make: Make | None, persistent: Callable[[Any], Any] | None) -> None:
        self.make, self.persistent = make, persistent
        self.stack: list[Any] = []
        self.marks: list[int] = []
        self.memo: dict[int, Any] = {}

    def pop_mark(self) -> list[Any]:
        if not self.marks:
            raise PickleError("MARK expected")
        at = self.marks.pop()
        items = self.stack[at:]
        del self.stack[at:]
        return items

    def call(self, func: Any, args: Any) -> Any:
        args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
        if self.make is not None and isinstance(func, Global):
            made = self.make(func, args)
            if made is not _NOT_MADE and made is not None:
                return made
        return Call(func, args)

    def run(self, data: bytes, max_ops: int | None = None) -> Any:
        st, memo = self.stack, self.memo
        for i, (op, arg, _pos) in enumerate(pickletools.genops(data)):
            if max_ops is not None and i >= max_ops:
                raise PickleError(f"more than {max_ops:,} opcodes")
            name = op.name
            if name in _PUSH_ARG:
                st.append(arg)
            elif name in _CONST:
                st.append(_CONST[name])
            elif name == "EMPTY_LIST":
                st.append([])
            elif name == "EMPTY_DICT":
                st.append({})
            elif name == "EMPTY_TUPLE":
                st.append(())
            elif name == "EMPTY_SET":
                st.append([])  # sets become lists: no element is ever hashed
            elif name == "MARK":
                self.marks.append(len(st))
            elif name == "LIST":
                st.append(self.pop_mark())
            elif name in ("TUPLE", "FROZENSET"):
                st.append(tuple(self.pop_mark()) if name == "TUPLE" else self.pop_mark())
            elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
                n = int(name[-1])
                items = tuple(st[-n:])
                if len(items) != n:
                    raise PickleError("stack underflow")
                del st[-n:]
                st.append(items)
            elif name == "DICT":
                items = self.pop_mark()
                st.append({key(items[i]): items[i + 1] for i in range(0, len(items) - 1, 2)})
            elif name == "APPEND":
                v = st.pop()
                _append(st[-1], [v])
            elif name in ("APPENDS", "ADDITEMS"):
                items = self.pop_mark()
                _append(st[-1], items)
            elif name == "SETITEM":
                v, k = st.pop(), st.pop()
                _setitems(st[-1], [k, v])
            elif name == "SETITEMS":
                items = self.pop_mark()
                _setitems(st[-1], items)
            elif name == "POP":
                if self.marks and self.marks[-1] == len(st):
                    self.pop_mark()
                else:
                    st.pop()
            elif name == "POP_MARK":
                self.pop_mark()
            elif name == "DUP":
                st.append(st[-1])
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                if arg not in memo:
                    raise PickleError(f"memo key {arg} missing")
                st.append(memo[arg])
            elif name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
                if len(memo) >= MAX_MEMO:
                    raise PickleError(f"more than {MAX_MEMO} memo entries")
                memo[len(memo) if name == "MEMOIZE" else arg] = st[-1]
            elif name in ("GLOBAL", "INST"):
                module, _, attr = str(arg).partition(" ")
                g = Global(module, attr)
                st.append(g if name == "GLOBAL" else self.call(g, self.pop_mark()))
            elif name == "STACK_GLOBAL":
                attr, module = st.pop(), st.pop()
                st.append(Global(str(module), str(attr)))
            elif name in ("REDUCE", "NEWOBJ"):
                args = st.pop()
                st.append(self.call(st.pop(), args))
            elif name == "NEWOBJ_EX":
                _kwargs, args = st.pop(), st.pop()
                st.append(self.call(st.pop(), args))
            elif name == "OBJ":
                items = self.pop_mark()
                if not items:
                    raise PickleError("OBJ without a class")
                st.append(self.call(items[0], items[1:]))
            elif name == "BUILD":
                state = st.pop()
                _build(st[-1], state)
            elif name in ("PERSID", "BINPERSID"):
                pid = arg if name == "PERSID" else st.pop()
                made = self.persistent(pid) if self.persistent else None
                st.append(Persistent(pid) if made is None else made)
            elif name in ("EXT1", "EXT2", "EXT4"):
                st.append(Global("copyreg-extension", str(arg)))
            elif name == "NEXT_BUFFER":
                st.append(None)
            elif name == "STOP":
                if len(st) != 1:
                    raise PickleError("stack not empty at STOP")
                return st[0]
            # PROTO, FRAME, READONLY_BUFFER: nothing to do
        raise PickleError("no STOP opcode (truncated)")


_PUSH_ARG = {
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4",
    "STRING", "BINSTRING", "SHORT_BINSTRING", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
    "UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "BYTEARRAY8",
    "FLOAT", "BINFLOAT",
}  # fmt: skip
_CONST = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}


def _append(target: Any, items: list[Any]) -> None:
    if isinstance(target, list):
        target.extend(items)
    elif isinstance(target, Call):
        target.items.extend(items)
    else:
        raise PickleError(f"APPEND to a {type(target).__name__}")


def _setitems(target: Any, items: list[Any]) -> None:
    pairs = [(key(items[i]), items[i + 1]) for i in range(0, len(items) - 1, 2)]
    if isinstance(target, dict):
        target.update(pairs)
    elif isinstance(target, Call):
        target.pairs.extend(pairs)
    else:
        raise PickleError(f"SETITEM on a {type(target).__name__}")


def _build(target: Any, state: Any) -> None:
    if isinstance(target, Call):
        target.state = state
    elif isinstance(target, dict) and isinstance(state, dict):
        target.update((key(k), v) for k, v in state.items())
    # BUILD on anything else carries nothing a reader needs: ignored


def view(obj: Any) -> Any:
    """What a Call stands for as data: its BUILD state (an object's fields), else its
    SETITEM pairs, else its one argument (an enum's value), else its arguments.
    A persistent id (a tensor storage) reads as ("storage", pid)."""
    for _ in range(64):  # a Call whose state is a Call ...; bounded, cycles included
        if isinstance(obj, Persistent):
            return ("storage", obj.pid)
        if not isinstance(obj, Call):
            return obj
        state = obj.state
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict):
            state = state[0]  # (dict, slotstate)
        if state is not None:
            obj = state
        elif obj.pairs:
            return dict(obj.pairs)
        elif len(obj.args) == 1:
            obj = obj.args[0]
        elif obj.args:
            return list(obj.args)
        else:
            return obj.items or None
    return None


def plain(obj: Any, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> Any:
    """The graph as dicts, lists and scalars, iteratively; shared parts stay shared.

    Calls become their `view`; Globals their qualified name; what lies deeper than
    max_depth, or past max_nodes containers, becomes None.
    """
    done: dict[int, tuple[Any, Any]] = {}
    budget = [max_nodes]

    def shell(x: Any, depth: int) -> tuple[Any, bool]:
        """(converted value or empty container, whether it needs filling)."""
        x = view(x)
        if isinstance(x, Global):
            return x.qualname, False
        if not isinstance(x, (dict, list, tuple)):
            return (x if isinstance(x, _SCALARS) else None), False
        if id(x) in done:
            return done[id(x)][1], False
        if depth > max_depth or budget[0] <= 0:
            return None, False
        budget[0] -= 1
        out: Any = {} if isinstance(x, dict) else [None] * len(x)
        done[id(x)] = (x, out)  # x kept alive: its id is never reused meanwhile
        return out, True

    top, fill = shell(obj, 0)
    work: list[tuple[Any, Any, int]] = [(view(obj), top, 0)] if fill else []
    while work:
        src, dst, depth = work.pop()
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for k, v in items:
            value, more = shell(v, depth + 1)
            dst[k if isinstance(dst, list) else str(k)] = value
            if more:
                work.append((view(v), value, depth + 1))
    return top


def leaves(
    obj: Any, want: type, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH
) -> Iterator[tuple[str, Any]]:
    """(dotted path, leaf) for every `want` leaf, each container visited once."""
    seen: set[int] = set()
    work: list[tuple[str, Any, int]] = [("", obj, 0)]
    while work and len(seen) < max_nodes:
        prefix, x, depth = work.pop()
        if isinstance(x, want):
            yield prefix, x
            continue
        x = view(x) if isinstance(x, Call) else x
        if not isinstance(x, (dict, list, tuple)) or id(x) in seen or depth > max_depth:
            continue
        seen.add(id(x))
        items = list(x.items() if isinstance(x, dict) else enumerate(x))
        for k, v in reversed(items):  # reversed: the stack pops them in file order
            work.append((f"{prefix}.{k}" if prefix else str(k), v, depth + 1))
