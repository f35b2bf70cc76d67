"""First-batch loss: load the model from its local checkpoint, run a few batches.

Ask first: what is the first-batch loss? A loss far above ln(V)
before a single optimizer step means the starting point is broken, and no
learning rate will fix it. Needs the `torch` extra (torch, transformers,
safetensors); everything is imported lazily here and only here.

The model is built with `AutoModelForCausalLM.from_config` from the local
config.json and the local weights are loaded into it: nothing is fetched from
a hub, and `trust_remote_code` is never set. Weights are read with
safetensors, or `torch.load(weights_only=True)`, never a full unpickle.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

EXTRA_HINT = (
    "install the torch extra (pip install 'traindoc[torch]': torch, transformers, "
    "safetensors) to measure the first-batch loss: the loss of the model on a few "
    "batches before any optimizer step, against ln(V)"
)


class Unavailable(Exception):
    """The first-batch loss cannot be measured here; str() says why and what would."""


@dataclass(frozen=True)
class FirstBatch:
    losses: tuple[float, ...]
    vocab_size: int
    source: str  # "data: FILE" | "random tokens"
    seconds: float

    @property
    def floor(self) -> float:
        return math.log(self.vocab_size)


def available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) for m in ("torch", "transformers", "safetensors"))


def measure(
    model_dir: Path,
    data: Path | None = None,
    *,
    batches: int = 3,
    batch_size: int = 4,
    seq_len: int = 64,
    seed: int = 0,
) -> FirstBatch:
    """Mean cross-entropy of the model on a few batches. Raises Unavailable.

    The files are untrusted input to torch, transformers and safetensors: whatever
    those raise on them (a lying header, a config field of the wrong type) means
    the loss cannot be measured here, which is a note, never a crash.
    """
    if not available():
        raise Unavailable(EXTRA_HINT)
    home = model_dir if model_dir.is_dir() else model_dir.parent
    _check_size(home, model_dir)
    try:
        return _measure(model_dir, data, batches, batch_size, seq_len, seed)
    except Unavailable:
        raise
    except Exception as exc:
        why = " ".join(str(exc).split())[:160]
        raise Unavailable(
            f"{home}: the model could not be run ({type(exc).__name__}: {why})"
        ) from None


def _check_size(home: Path, model_dir: Path) -> None:
    """A config.json that describes a model far larger than the weights beside it would
    have torch allocate it all (10**12 parameters from a 30 KB file): refused first."""
    from traindoc.model.numbers import loads
    from traindoc.model.params import params_from_config

    try:
        cfg = loads((home / "config.json").read_bytes())
    except (OSError, ValueError):
        return  # the missing / broken config is reported by the build below
    n = params_from_config(cfg) if isinstance(cfg, dict) else None
    files = (
        [model_dir] if model_dir.is_file() else [*home.glob("*.safetensors"), *home.glob("*.bin")]
    )
    have = sum(f.stat().st_size for f in files if f.is_file())
    if n is None or n > 2 * have + 10**6:  # >= 1 byte per parameter in any real checkpoint
        what = f"{n:,} parameters" if n else "a size that cannot be read"
        raise Unavailable(f"{home}: config.json gives {what} for {have:,} bytes of weights")


def _measure(
    model_dir: Path, data: Path | None, batches: int, batch_size: int, seq_len: int, seed: int
) -> FirstBatch:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # config warnings are not the user's report
    t0 = time.perf_counter()
    home = model_dir if model_dir.is_dir() else model_dir.parent
    if not (home / "config.json").is_file():
        raise Unavailable(f"{home}: no config.json, so the model cannot be built")
    torch.set_num_threads(1)
    try:
        config = AutoConfig.from_pretrained(str(home), local_files_only=True)
        with torch.device("cpu"):
            model = AutoModelForCausalLM.from_config(config)
    except (ValueError, KeyError, OSError) as exc:
        raise Unavailable(f"{home}: cannot build the model from config.json ({exc})") from None
    state = _load_weights(model_dir if model_dir.is_file() else home)
    missing, _unexpected = model.load_state_dict(state, strict=False)
    tied = {"lm_head.weight"} if getattr(config, "tie_word_embeddings", False) else set()
    if set(missing) - tied:
        shown = ", ".join(sorted(set(missing) - tied)[:3])
        raise Unavailable(f"{home}: weights do not match config.json (missing {shown} ...)")
    model.eval()
    vocab = int(config.vocab_size)
    n_pos = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", 0)
    seq = max(2, min(seq_len, int(n_pos) if n_pos else seq_len))
    batches_ids, source = _batches(home, data, vocab, batches, batch_size, seq, seed)
    losses = []
    with torch.no_grad():
        for ids in batches_ids:
            x = torch.tensor(ids, dtype=torch.long)
            out = model(input_ids=x, labels=x)
            losses.append(float(out.loss))
    return FirstBatch(tuple(losses), vocab, source, time.perf_counter() - t0)


def _load_weights(path: Path) -> dict:
    import torch

    if path.is_file():
        files = [path]
    else:
        idx = next(
            (path / n for n in ("model.safetensors.index.json",) if (path / n).is_file()), None
        )
        if idx is not None:
            shards = sorted(set(json.loads(idx.read_text())["weight_map"].values()))
            files = [path / s for s in shards]
        else:
            files = [
                path / n for n in ("model.safetensors", "pytorch_model.bin") if (path / n).is_file()
            ][:1]
    if not files:
        raise Unavailable(f"{path}: no weights (model.safetensors / pytorch_model.bin)")
    state: dict = {}
    for f in files:
        if f.suffix == ".safetensors":
            from safetensors.torch import load_file

            state.update(load_file(str(f), device="cpu"))
        else:
            state.update(torch.load(f, map_location="cpu", weights_only=True))
    return {k: v.float() if v.is_floating_point() else v for k, v in state.items()}


def _batches(
    home: Path, data: Path | None, vocab: int, n: int, bs: int, seq: int, seed: int
) -> tuple[list[list[list[int]]], str]:
    """Token batches from the user's data when a local tokenizer can encode it, else random."""
    if data is not None:
        ids = _token_ids(data, vocab) or _tokenize(home, data, vocab)
        if ids is not None and len(ids) >= seq + 1:
            chunks = [ids[i : i + seq] for i in range(0, len(ids) - seq + 1, seq)]
            chunks = chunks[: n * bs]
            k = max(1, len(chunks) // bs)
            return [chunks[i * bs : (i + 1) * bs] for i in range(min(n, k))], f"data: {data}"
    import random

    rng = random.Random(seed)
    return [
        [[rng.randrange(vocab) for _ in range(seq)] for _ in range(bs)] for _ in range(n)
    ], "random tokens"


def _token_ids(data: Path, vocab: int) -> list[int] | None:
    """Pre-tokenised data: JSONL records with `input_ids` (used as they are)."""
    ids: list[int] = []
    with open(data, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                return None
            got = rec.get("input_ids") if isinstance(rec, dict) else None
            if not isinstance(got, list):
                return None
            ids += [int(i) for i in got if isinstance(i, int) and 0 <= i < vocab]
            if len(ids) >= 1 << 16:
                break
    return ids or None


def _tokenize(home: Path, data: Path, vocab: int) -> list[int] | None:
    """Token ids of the data's text with the model dir's own tokenizer (local only)."""
    if not any((home / f).is_file() for f in ("tokenizer.json", "tokenizer_config.json")):
        return None
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(home), local_files_only=True)
    except Exception:  # no usable local tokenizer: random tokens instead
        return None
    texts: list[str] = []
    with open(data, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                texts.append(line)
                continue
            if isinstance(rec, dict):
                texts.append(" ".join(str(v) for v in rec.values() if isinstance(v, str)))
            if len(texts) >= 256:
                break
    ids = [i for t in texts for i in tok(t)["input_ids"] if 0 <= i < vocab]
    return ids or None
