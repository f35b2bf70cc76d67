"""Tensor name -> (role, layer) for GPT-2, LLaMA/Mistral/Qwen, BERT-like and PEFT names.

Roles decide what "normal" means for a tensor: an output head at std 13.87 is
exploded, a norm weight at 1.0 is not, and a bias at zero is fine. Unknown
names get role "other" and are still summarised.

Pure naming, no I/O, so it sits in model/: the checkpoint reader (ckpt/stats.py)
classifies with it and the ckpt rules name modules with it, and rules must not
import a reader.
"""

from __future__ import annotations

import re

_LAYER = re.compile(r"\.(?:h|layers?|blocks?|layer)\.(\d+)\.")

# Ordered: the first pattern that matches the (lower-cased) name wins.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (role, re.compile(pat))
    for role, pat in (
        ("lora_a", r"lora_(?:embedding_)?a\b"),
        ("lora_b", r"lora_(?:embedding_)?b\b"),
        ("buffer", r"(?:inv_freq|position_ids|masked_bias|(?:^|\.)attn\.bias$|rotary_emb)"),
        ("norm", r"(?:norm|ln_\w+|\bln\d*\b|layernorm|layer_norm|\.ln_f\.)"),
        ("pos_embed", r"(?:wpe|position_embeddings|pos_emb|embed_positions)"),
        (
            "embed",
            r"(?:wte|embed_tokens|word_embeddings|tok_embeddings|token_embedding|"
            r"\bembeddings?\.weight$|token_type_embeddings|shared\.weight$)",
        ),
        (
            "lm_head",
            r"(?:lm_head|output\.weight$|embed_out|\bclassifier\b|score\.weight$|"
            r"\bcls\.predictions)",
        ),
        ("attn_qkv", r"(?:c_attn|qkv|query_key_value|wqkv|in_proj)"),
        ("attn_q", r"(?:q_proj|\.query\b|\.wq\b|\.q\b)"),
        ("attn_k", r"(?:k_proj|\.key\b|\.wk\b|\.k\b)"),
        ("attn_v", r"(?:v_proj|\.value\b|\.wv\b|\.v\b)"),
        (
            "attn_o",
            r"(?:o_proj|out_proj|attn\.c_proj|attention\.output\.dense|\.wo\b|"
            r"attention\.dense|self_attention\.dense)",
        ),
        (
            "mlp_in",
            r"(?:gate_proj|up_proj|c_fc|\.fc1\b|\.w1\b|\.w3\b|intermediate\.dense|"
            r"dense_h_to_4h|gate_up_proj|mlp\.fc_in)",
        ),
        (
            "mlp_out",
            r"(?:down_proj|mlp\.c_proj|\.fc2\b|\.w2\b|output\.dense|dense_4h_to_h|"
            r"mlp\.fc_out)",
        ),
    )
)


def classify(name: str) -> tuple[str, int | None]:
    """The tensor's role and its block index (None outside numbered blocks)."""
    low = name.lower()
    m = _LAYER.search(low)
    layer = int(m.group(1)) if m else None
    for role, pat in _RULES:
        if pat.search(low):
            if role in ("lora_a", "lora_b", "buffer", "norm"):
                return role, layer
            if low.endswith(".bias"):
                return "bias", layer
            return role, layer
    if low.endswith(".bias"):
        return "bias", layer
    return "other", layer


def module_of(name: str) -> str:
    """The module path without PEFT/HF prefixes and the parameter suffix, for messages."""
    out = name
    for prefix in ("base_model.model.", "model.", "transformer."):
        if out.startswith(prefix):
            out = out[len(prefix) :]
    for suffix in (".weight", ".bias"):
        if out.endswith(suffix):
            out = out[: -len(suffix)]
    return out
