"""Pickles written opcode by opcode: torch checkpoints without torch, and hostile ones.

Nothing here unpickles anything. A hostile pickle's REDUCE would create `marker`
(the harness checks it never appears), so "no code executed" is observable.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile


def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(s: str) -> bytes:
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def num(n: int) -> bytes:
    if -(2**31) <= n < 2**31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8b" + struct.pack("<I", len(raw)) + raw  # LONG4


def flt(x: float) -> bytes:
    return b"G" + struct.pack(">d", x)


def tup(*items: bytes) -> bytes:
    return b"(" + b"".join(items) + b"t"


def odict(pairs: list[tuple[bytes, bytes]]) -> bytes:
    body = b"".join(k + v for k, v in pairs)
    return glob("collections", "OrderedDict") + b")R" + (b"(" + body + b"u" if pairs else b"")


def tensor(key: str, dtype: str, shape: tuple[int, ...], offset: int = 0) -> bytes:
    numel = 1
    for d in shape:
        numel *= d
    stride, acc = [], 1
    for d in reversed(shape):
        stride.insert(0, acc)
        acc *= d
    pid = tup(text("storage"), glob("torch", dtype), text(key), text("cpu"), num(numel)) + b"Q"
    args = tup(
        pid,
        num(offset),
        tup(*map(num, shape)),
        tup(*map(num, stride)),
        b"\x89",
        odict([]),
    )
    return glob("torch._utils", "_rebuild_tensor_v2") + args + b"R"


def pickle(body: bytes) -> bytes:
    return b"\x80\x02" + body + b"."


def torch_zip(members: dict[str, bytes], compress: bool = False) -> bytes:
    """A torch.save-style zip: archive/data.pkl, archive/data/<key>, archive/version."""
    buf = io.BytesIO()
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", mode) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(f"archive/{name}", (2020, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def state_dict(rng: random.Random, n: int = 3) -> tuple[bytes, dict[str, bytes]]:
    """(data.pkl, storages) of a small float32 state dict with plausible values."""
    pairs, storages = [], {}
    for k in range(n):
        shape = (rng.randint(1, 6), rng.randint(1, 6))
        count = shape[0] * shape[1]
        storages[f"data/{k}"] = struct.pack(
            f"<{count}f", *(rng.gauss(0, 0.05) for _ in range(count))
        )
        pairs.append((text(f"layer{k}.weight"), tensor(str(k), "FloatStorage", shape)))
    return pickle(odict(pairs)), storages


def training_args(fields: dict[str, bytes]) -> bytes:
    """A pickled TrainingArguments: NEWOBJ of the class, then BUILD with its field dict."""
    body = b"".join(text(k) + v for k, v in fields.items())
    cls = glob("transformers.training_args", "TrainingArguments")
    return pickle(cls + b")\x81" + b"}(" + body + b"ub")


# ---- hostile -------------------------------------------------------------------------


def hostile(marker: str, rng: random.Random) -> bytes:
    """A pickle that would create `marker` if any of its callables ever ran."""
    cmd = f"touch {marker}"
    py = f"open({marker!r}, 'w').close()"
    calls = [
        glob("os", "system") + tup(text(cmd)) + b"R",
        glob("posix", "system") + tup(text(cmd)) + b"R",
        glob("builtins", "exec") + tup(text(py)) + b"R",
        glob("__builtin__", "eval") + tup(text(py)) + b"R",
        glob("subprocess", "call") + tup(tup(text("touch"), text(marker))) + b"R",
        text("os") + text("system") + b"\x93" + tup(text(cmd)) + b"R",  # STACK_GLOBAL
        b"(" + text(cmd) + b"ios\nsystem\n",  # INST
        glob("os", "system") + b"(" + text(cmd) + b"o",  # OBJ
        glob("builtins", "open") + tup(text(marker), text("w")) + b"R",
        glob("pathlib", "Path") + tup(text(marker)) + b"R",
    ]
    call = rng.choice(calls)
    shape = rng.randrange(4)
    if shape == 0:
        return pickle(call)
    if shape == 1:  # inside a state dict, next to a real tensor
        return pickle(odict([(text("w"), tensor("0", "FloatStorage", (2, 2))), (text("x"), call)]))
    if shape == 2:  # a field of TrainingArguments
        return training_args({"learning_rate": flt(1e-4), "output_dir": call})
    # BUILD with a callable state: __setstate__ must not run it either
    return pickle(glob("os", "system") + tup(text(cmd)) + b"R" + call + b"b")


def deep(rng: random.Random, depth: int | None = None) -> bytes:
    """Nested lists / tuples / dicts / stub calls, deeper than any recursion limit."""
    d = depth or rng.choice((1_000, 20_000, 100_000, 400_000))
    kind = rng.randrange(4)
    if kind == 0:
        body = b"(" * d + b"l" * d
    elif kind == 1:
        body = b"(" * d + b"t" * d
    elif kind == 2:
        body = (b"}" + text("k")) * d + b"s" * d
    else:
        body = (glob("a", "B") + b"(") * d + b"tR" * d
    if rng.random() < 0.5:
        return training_args({"learning_rate": flt(1e-4), "deep": body})
    return pickle(odict([(text("w"), body)]))


def shared(rng: random.Random) -> bytes:
    """A few hundred bytes whose lists hold the level below many times over:
    width**levels leaves when expanded (a billion laughs in pickle form)."""
    width, levels = rng.choice(((2, 64), (10, 30), (4, 40), (64, 8)))
    out = b"]r" + struct.pack("<I", 0)  # level 0: [] memoised at 0
    for k in range(1, levels + 1):
        out += b"(" + (b"j" + struct.pack("<I", k - 1)) * width + b"lr" + struct.pack("<I", k)
    top = rng.randrange(3)
    if top == 0:
        return training_args({"learning_rate": flt(1e-4), "bomb": out})
    if top == 1:
        return pickle(odict([(text("w"), tensor("0", "FloatStorage", (2, 2))), (text("b"), out)]))
    return pickle(b"}(" + text("state") + b"}(" + num(0) + out + b"uu")  # optimizer.pt-shaped
