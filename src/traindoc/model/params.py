"""Model size from a config: what the size-aware LR ranges and the memory estimate need."""

from __future__ import annotations

from typing import Any


def params_from_config(cfg: dict[str, Any]) -> int | None:
    """Parameter count of a decoder-only transformer from its config (GPT-2 and LLaMA style).

    None when a size is missing or is not a positive integer below 2**40 (a dict, a
    string, 1e309): a config that lies gives no estimate rather than a wrong one.
    """

    def g(*keys: str, default: int | None = None) -> int | None:
        for k in keys:
            v = cfg.get(k)
            if v:
                ok = isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2**40
                return v if ok else None
        return default

    h = g("hidden_size", "n_embd", "d_model")
    n_layer = g("num_hidden_layers", "n_layer", "num_layers")
    v = g("vocab_size")
    heads = g("num_attention_heads", "n_head", default=1)
    if h is None or n_layer is None or v is None or heads is None:
        return None
    kv = g("num_key_value_heads", default=heads)
    head_dim = g("head_dim", default=h // heads)
    inter = g("intermediate_size", "n_inner", default=4 * h)
    positions = g("n_positions", default=0)
    if kv is None or head_dim is None or inter is None or positions is None:
        return None
    gated = str(cfg.get("hidden_act") or cfg.get("activation_function") or "").lower()
    attn = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    mlp = (3 if gated in ("silu", "swiglu") else 2) * h * inter
    per_layer = attn + mlp + 4 * h  # norms and (GPT-2) biases, roughly
    emb = v * h + positions * h
    head = 0 if cfg.get("tie_word_embeddings", True) else v * h
    return int(n_layer * per_layer + emb + head + 2 * h)
