"""The fact names the source writes and reads, found statically (used by tests/test_facts.py).

A write is a `Fact(...)` stored under a key: `facts["k"] = Fact(..)`,
`facts.setdefault("k", Fact(..))`, `{"k": Fact(..)}` and comprehensions of those.
A read is `run.fact("k")`, `facts.get("k")`, `facts["k"]`, `"k" in facts` (on a
name or attribute ending in `facts`), or a rule's `"fact:k"` requirement.

A key that is a variable is followed to where it is bound: the `for` or
comprehension around it (`for key, fact in _FIELDS.items()`, a literal tuple of
pairs, `for k in KEY_FACTS`), else an assignment in the same function
(`fact = ALIASES.get(key)`, `fact, typ = FLAGS[key]`); tables may be module-level
(imported from another traindoc module too), local, or a parameter's default. A
function whose key is a plain parameter is an accessor (`_val(facts, key)`): its
calls in the same module are read (or written) with their argument. A key that still
cannot be followed is reported as unresolved, by file and function, so the test
names every such place.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

Node = ast.AST
Entry = tuple["Node | None", "Node | None"]  # a table's (key, value); (element, None) in a sequence
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_REQUIREMENT = re.compile(r"fact:([a-z0-9_]+)")


@dataclass
class Found:
    writes: dict[str, set[str]] = field(default_factory=dict)  # name -> {"file:line", ...}
    reads: dict[str, set[str]] = field(default_factory=dict)
    unresolved: set[str] = field(default_factory=set)  # "file:function" whose key is not followed


@dataclass(frozen=True)
class _Where:
    scope: Node  # the enclosing function (or the module)
    binders: tuple[
        tuple[Node, Node], ...
    ] = ()  # (target, iterable) of enclosing loops, innermost last


def _str(node: Node | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_fact(node: Node | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Fact"


def _facts(node: Node) -> bool:
    """A name or attribute that holds a run's facts (`facts`, `run.facts`, `cfg_facts`)."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return isinstance(name, str) and name.endswith("facts")


def _path_in(target: Node, name: str) -> list[int] | None:
    """Where `name` sits in an assignment target: [] for `name`, [1] for `k, name`."""
    if isinstance(target, ast.Name):
        return [] if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        for i, t in enumerate(target.elts):
            if (sub := _path_in(t, name)) is not None:
                return [i, *sub]
    return None


def _pick(element: Node | Entry | None, path: list[int]) -> Node | None:
    for i in path:
        if isinstance(element, tuple):
            element = element[i]
        elif isinstance(element, (ast.Tuple, ast.List)) and i < len(element.elts):
            element = element.elts[i]
        else:
            return None
    return None if isinstance(element, tuple) else element


class _Module:
    """One source file: its tree, its module-level tables, and where its names come from."""

    def __init__(self, path: Path, src: Path, modules: dict[str, _Module]) -> None:
        self.modules = modules
        self.rel = path.relative_to(src.parent).as_posix()
        self.tree = ast.parse(path.read_text())
        self.tables: dict[str, list[Node]] = {}
        self.imported: dict[str, tuple[str, str]] = {}  # local name -> (module, name)
        for node in self.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target, value in _assigned(node):
                    if isinstance(target, ast.Name):
                        parts = self.tables.setdefault(target.id, [])
                        parts[:] = [*parts, value] if isinstance(node, ast.AugAssign) else [value]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.imported[a.asname or a.name] = (node.module, a.name)

    def table(self, name: str, seen: frozenset[str] = frozenset()) -> list[Node] | None:
        if name in self.tables:
            return self.tables[name]
        if name in self.imported and name not in seen:
            module, attr = self.imported[name]
            other = self.modules.get(module)
            return other.table(attr, seen | {name}) if other is not None else None
        return None


def _assigned(node: Node) -> list[tuple[Node, Node]]:
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    return []


def _params(scope: Node) -> list[ast.arg]:
    if not isinstance(scope, _FUNCS):
        return []
    a = scope.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def _default(scope: Node, name: str) -> tuple[bool, Node | None]:
    """(is a parameter, its default)."""
    if not isinstance(scope, _FUNCS):
        return False, None
    a = scope.args
    positional = [*a.posonlyargs, *a.args]
    with_default = positional[len(positional) - len(a.defaults) :]
    defaults = {p.arg: d for p, d in zip(with_default, a.defaults, strict=True)}
    defaults |= {
        p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
    }
    return any(p.arg == name for p in _params(scope)), defaults.get(name)


class _Scan:
    def __init__(self, module: _Module, found: Found) -> None:
        self.m, self.found = module, found
        self.accessors: dict[str, tuple[int, str, str]] = {}  # function -> (index, param, kind)
        self.calls: list[tuple[ast.Call, _Where]] = []

    # --- tables --------------------------------------------------------------
    def _entries(self, node: Node | None, where: _Where) -> list[Entry] | None:
        """A table's entries: a dict's (key, value) items, a sequence's (element, None)."""
        if isinstance(node, ast.Dict):
            out: list[Entry] = []
            for k, v in zip(node.keys, node.values, strict=True):
                if k is not None:
                    out.append((k, v))
                elif (more := self._entries(v, where)) is not None:  # **splat
                    out += more
                else:
                    return None
            return out
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):  # (*A, *B)
                    if (more := self._entries(e.value, where)) is None:
                        return None
                    out += more
                else:
                    out.append((e, None))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
            left, right = self._entries(node.left, where), self._entries(node.right, where)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "fromkeys":  # dict.fromkeys(k, v)
                keys = self._entries(node.args[0], where)
                value = node.args[1] if len(node.args) > 1 else None
                return None if keys is None else [(k, value) for k, _ in keys]
            if isinstance(func, ast.Name) and func.id in (
                "frozenset",
                "set",
                "tuple",
                "list",
                "dict",
            ):
                return self._entries(node.args[0], where)
        if isinstance(node, ast.Name):
            parts = self._local_table(node.id, where)
            if parts is None:
                return None
            out = []
            for part in parts:
                if (more := self._entries(part, where)) is None:
                    return None
                out += more
            return out
        return None

    def _local_table(self, name: str, where: _Where) -> list[Node] | None:
        if isinstance(where.scope, _FUNCS):
            parts: list[Node] = []
            for node in ast.walk(where.scope):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    for target, value in _assigned(node):
                        if isinstance(target, ast.Name) and target.id == name:
                            parts = [*parts, value] if isinstance(node, ast.AugAssign) else [value]
            if parts:
                return parts
            is_param, default = _default(where.scope, name)
            if is_param:
                return [default] if default is not None else None
        return self.m.table(name)

    def _elements(self, it: Node, where: _Where) -> list[Node | Entry] | None:
        """What a `for` over `it` binds, one per iteration (an entry pair for `.items()`)."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            entries = self._entries(it.func.value, where)
            if entries is None or it.func.attr not in ("items", "keys", "values"):
                return None
            if it.func.attr == "items":
                return list(entries)
            return [k if it.func.attr == "keys" else v for k, v in entries]  # type: ignore[misc]
        entries = self._entries(it, where)
        return None if entries is None else [k for k, _ in entries]  # type: ignore[misc]

    # --- names ---------------------------------------------------------------
    def _resolve(self, key: Node, where: _Where) -> set[str] | int | None:
        """The strings key can be; the parameter's index when it is a plain parameter."""
        if (s := _str(key)) is not None:
            return {s}
        if not isinstance(key, ast.Name):
            return None
        for target, it in reversed(where.binders):
            if (path := _path_in(target, key.id)) is not None:
                return self._from_loop(it, path, where)
        is_param, default = _default(where.scope, key.id)
        if is_param:
            if default is not None:
                return self._resolve(default, where)
            return [p.arg for p in _params(where.scope)].index(key.id)
        out: set[str] = set()
        bound = False
        for node in ast.walk(where.scope):
            if isinstance(node, _FUNCS) and node is not where.scope:
                continue
            pairs = [(node.target, node.iter, True)] if isinstance(node, ast.For) else []
            pairs += [(t, v, False) for t, v in _assigned(node)]
            for target, source, loop in pairs:
                if (path := _path_in(target, key.id)) is None:
                    continue
                bound = True
                if loop:
                    names = self._from_loop(source, path, where)
                else:
                    names = self._from_value(source, path, where)
                if names is None:
                    return None
                out |= names
        return out if bound else None

    def _from_loop(self, it: Node, path: list[int], where: _Where) -> set[str] | None:
        elements = self._elements(it, where)
        if elements is None:
            return None
        return self._strings([_pick(e, path) for e in elements])

    def _from_value(self, value: Node, path: list[int], where: _Where) -> set[str] | None:
        if (s := _str(value)) is not None and not path:
            return {s}
        table: Node | None = None  # x = TABLE.get(k[, default]) or TABLE[k]: the values
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            if value.func.attr == "get":
                table = value.func.value
        elif isinstance(value, ast.Subscript):
            table = value.value
        entries = self._entries(table, where) if table is not None else None
        if entries is None:
            return None
        return self._strings([_pick(v, path) for _, v in entries])

    @staticmethod
    def _strings(nodes: list[Node | None]) -> set[str] | None:
        names = {_str(n) for n in nodes}
        return None if None in names else names  # type: ignore[return-value]

    # --- sites ---------------------------------------------------------------
    def _note(self, kind: str, key: Node, where: _Where, line: int) -> None:
        names = self._resolve(key, where)
        if isinstance(names, int) and isinstance(where.scope, _FUNCS):
            self.accessors[where.scope.name] = (names, _params(where.scope)[names].arg, kind)
            return
        if not isinstance(names, set):
            func = where.scope.name if isinstance(where.scope, _FUNCS) else "<module>"
            self.found.unresolved.add(f"{self.m.rel}:{func}")
            return
        table = self.found.writes if kind == "write" else self.found.reads
        for n in names:
            table.setdefault(n, set()).add(f"{self.m.rel}:{line}")

    def run(self) -> None:
        self._visit(self.m.tree, _Where(self.m.tree))
        for call, where in self.calls:  # calls of this module's accessors, with their key
            name = call.func.id if isinstance(call.func, ast.Name) else None
            if name in self.accessors:
                index, param, kind = self.accessors[name]
                key = call.args[index] if index < len(call.args) else None
                key = key or next((k.value for k in call.keywords if k.arg == param), None)
                if key is not None:
                    self._note(kind, key, where, call.lineno)

    def _visit(self, node: Node, where: _Where) -> None:
        if isinstance(node, _COMPS):
            for gen in node.generators:
                where = _Where(where.scope, (*where.binders, (gen.target, gen.iter)))
        self._site(node, where)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCS):
                self._visit(child, _Where(child))
            elif isinstance(node, ast.For) and child in node.body:
                self._visit(child, _Where(where.scope, (*where.binders, (node.target, node.iter))))
            else:
                self._visit(child, where)

    def _site(self, node: Node, where: _Where) -> None:
        if isinstance(node, ast.Assign) and _is_fact(node.value):
            for t in node.targets:
                if isinstance(t, ast.Subscript):
                    self._note("write", t.slice, where, node.lineno)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if k is not None and _is_fact(v):
                    self._note("write", k, where, node.lineno)
        elif isinstance(node, ast.DictComp) and _is_fact(node.value):
            self._note("write", node.key, where, node.lineno)
        elif isinstance(node, ast.Call):
            self.calls.append((node, where))
            func = node.func
            if isinstance(func, ast.Attribute) and node.args:
                if func.attr == "setdefault" and len(node.args) == 2 and _is_fact(node.args[1]):
                    self._note("write", node.args[0], where, node.lineno)
                elif func.attr == "fact" or (func.attr == "get" and _facts(func.value)):
                    self._note("read", node.args[0], where, node.lineno)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _facts(node.value):
                self._note("read", node.slice, where, node.lineno)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.In, ast.NotIn)) and _facts(node.comparators[0]):
                self._note("read", node.left, where, node.lineno)
        elif (s := _str(node)) is not None and s.startswith("fact:"):
            for name in _REQUIREMENT.findall(s):  # "fact:a|fact:b|event:x"
                self.found.reads.setdefault(name, set()).add(f"{self.m.rel}:{node.lineno}")


def scan(src: Path) -> Found:
    """Every fact name written and read under src (a package directory)."""
    modules: dict[str, _Module] = {}
    for path in sorted(src.rglob("*.py")):
        parts = [src.name, *path.relative_to(src).with_suffix("").parts]
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = _Module(path, src, modules)
    found = Found()
    for module in modules.values():
        _Scan(module, found).run()
    return found
