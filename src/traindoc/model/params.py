"""Model size from a config: what the size-aware LR ranges and the memory estimate need."""

from __future__ import annotations

from typing import Any


def params_from_config(cfg: dict[str, Any]) -> int | None:
    """Parameter count of a decoder-only transformer from its config (GPT-2 and LLaMA style)."""
    g = cfg.get
    h = g("hidden_size") or g("n_embd") or g("d_model")
    n_layer = g("num_hidden_layers") or g("n_layer") or g("num_layers")
    v = g("vocab_size")
    if not all(isinstance(x, int) and x > 0 for x in (h, n_layer, v)):
        return None
    heads = g("num_attention_heads") or g("n_head") or 1
    kv = g("num_key_value_heads") or heads
    head_dim = g("head_dim") or h // heads
    inter = g("intermediate_size") or g("n_inner") or 4 * h
    gated = str(g("hidden_act") or g("activation_function") or "").lower() in ("silu", "swiglu")
    attn = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    mlp = (3 if gated else 2) * h * inter
    per_layer = attn + mlp + 4 * h  # norms and (GPT-2) biases, roughly
    emb = v * h + (g("n_positions") or 0) * h
    head = 0 if g("tie_word_embeddings", True) else v * h
    return int(n_layer * per_layer + emb + head + 2 * h)
