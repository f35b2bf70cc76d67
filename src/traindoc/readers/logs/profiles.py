"""What named trainers add on top of the generic text reader.

The generic reader reads every layout; a dialect only names the trainer (so
the report says "read as llm.c main.log"), removes its placeholders and states
its quirks as facts the rules use:

- torchtitan prints `loss: -1.0` on every pipeline stage but the last: a
  placeholder, not a loss;
- llm.c prints the LR with 6 decimals (and nanoGPT-style logs with fixed
  decimals), so a decayed LR reads `0.000000`: `lr_print_decimals`;
- fairseq prints `loss_scale 0` once the scale drops below 0.5;
- HF Trainer's final `train_runtime` dict is a summary, not a curve point;
- kohya-ss sd-scripts prints its plan in a bilingual header, not as key/value pairs;
- a Keras model card prints the optimizer's config as a dict: settings, not a record;
- OpenNMT-py names its training loss `xent` (and prints `ppl`, its exp): that is the loss;
  Torch7's ImageNet trainers print it as `Err` (their criterion's value);
  pytorch-yolo2's region loss (and the YOLOv2 ports built on it: Fewshot_Detection,
  Meta-YOLO, CME) prints `N: nGT 42, recall 1, proposals 35613, loss: x .., y .., w ..,
  h .., conf .., cls .., total ..`: its terms after `loss:`, and `total` (their sum) is
  the loss;
- the skeleton-action trainers (MS-G3D, 2s-AGCN, CTR-GCN) print each eval as its own
  lines under a ctime stamp: `Eval epoch: 18`, `Mean test loss of 155 batches: 3.71.`,
  `Top1: 23.71%`, `Top5: 45.47%`: eval points at that epoch (`skeleton_eval`);
- nnU-Net prints each epoch's values on their own lines under an `epoch:  N` heading,
  its foreground Dice as a per-class list: points at that epoch (`nnunet_line`).

"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Event, Fact, Note, Series
from traindoc.readers.logs import events, settings
from traindoc.readers.logs.shapes import PRF

if TYPE_CHECKING:
    from traindoc.readers.logs.text import TextLog

# (dialect, a shape that only it prints), most specific first.
_DIALECTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx))
    for name, rx in (
        ("hf", r"\{'(?:loss|eval_\w+|learning_rate|grad_norm|epoch)'"),
        ("ms-swift", r'"global_step/max_steps"'),
        ("json", r'^\s*\{"'),
        ("llm.c", r"\btrl:\x00|step +\x00/\x00 \| train loss|\| norm \x00"),
        ("modded-nanogpt", r"step:\x00/\x00 (?:val_loss|train_time)"),
        ("litgpt", r"iter \x00 step \x00: loss"),
        ("nanogpt", r"iter \x00: loss \x00|step \x00: train loss \x00, val loss"),
        ("minimind", r"Epoch:\[\x00/\x00\]\(\x00/\x00\)"),
        ("megatron", r"iteration +\x00/ *\x00 \|"),
        ("deepspeed", r"step=\x00, skipped=\x00"),
        ("torchtitan", r"step: +\x00  +loss: "),  # two spaces: "step:  1  loss: 12.2"
        ("torchtune", r"Step \x00 \| loss:"),
        ("opennmt", r"Step \x00/\x00; acc: +\x00; ppl: +\x00; xent: "),
        ("torch7", r"Epoch: \[\x00\]\[\x00/\x00\]\s+Time \x00 Err \x00"),
        ("pytorch-yolo2", r"nGT \x00, recall \x00, proposals \x00, loss: x \x00, y \x00"),
        # fairseq-py 0.1 (2017): "| epoch 001  1000 / 331737 loss=9.57 (10.94), wps=18515"
        ("fairseq", r"num_updates|train_inner|\| wps |loss=\x00 \(\x00\), wps="),
        # (lines.espnet_range rewrites "1epoch:train:1-100batch:" as "epoch 1 train batch 100:")
        (
            "espnet",
            r"\x00epoch:(?:train|valid):|\x00epoch results: \[|\bepoch \x00 train batch \x00: ",
        ),
        ("mmengine", r"Epoch\((?:train|val)\)|Iter\((?:train|val)\)|Epoch \[\x00\]\[\x00/\x00\]"),
        ("detectron2", r"d2\.utils\.events|iter: \x00 +total_loss: "),
        ("mlx_lm", r"Iter \x00: (?:Train|Val) loss"),
        ("keras", r"\x00/\x00 \[=*[>.]*\]|^\x00/\x00 - |- loss: \x00"),
        ("lightning", r"v_num="),
        ("wandb", r"^wandb: "),
        ("kohya", r"\x00/\x00 \[.*\bavr_loss="),
    )
)


def dialect(log: TextLog) -> str:
    """The trainer whose lines these are (by the shapes that gave records), else "text"."""
    shapes = list(log.shapes)
    for name, rx in _DIALECTS:
        if any(rx.search(s) for s in shapes):
            return name
    return "text"


# YOLOv3/v5/v8 console tables name their losses without the word; yolov3's box loss is
# "GIoU", and yolov3 / early yolov5 print their sum as "total": that is the loss.
_ULTRALYTICS = {
    "box": "box_loss",
    "giou": "giou_loss",
    "obj": "obj_loss",
    "cls": "cls_loss",
    "dfl": "dfl_loss",
    "total": "loss",
}


def table_renames(header: tuple[str, ...]) -> dict[str, str]:
    """Column renames a trainer's console table needs (ultralytics: box -> box_loss)."""
    low = {h.lower() for h in header}
    if low & {"gpu_mem", "instances", "labels", "targets"} and low & (
        set(_ULTRALYTICS) - {"total"}
    ):
        return {h: _ULTRALYTICS[h.lower()] for h in header if h.lower() in _ULTRALYTICS}
    return _xgb_cv(header) or _spacy(header) or _fastai(header)


# fastai's fit table: "epoch  train_loss  valid_loss  error_rate  time" (v1 pastes space
# the names: "epoch train loss valid loss accuracy_thresh f2_opt"). Learner.metrics are
# computed on the validation set after each epoch, so every column after valid_loss but
# the epoch's wall time is an eval metric (error_rate, accuracy, f1_score ...).
_FASTAI_CLOCK = frozenset({"time"})


def _fastai(header: tuple[str, ...]) -> dict[str, str]:
    low = [h.strip().lower() for h in header]
    if low[:1] != ["epoch"]:
        return {}
    joined = " ".join(low)
    at = joined.find("train_loss valid_loss ")
    at = at if at >= 0 else joined.find("train loss valid loss ")
    if at < 0:
        return {}
    first = joined[: at + len("train_loss valid_loss ")].count(" ")
    return {
        h: "eval_" + x
        for h, x in zip(header[first:], low[first:], strict=True)
        if x not in _FASTAI_CLOCK and not x.startswith(("eval_", "valid_", "val_"))
    }


# xgb.cv's result, a pandas DataFrame printed: one row per boosting round (its index),
# columns `{data}-{metric}-mean` and `-std` (`train-rmse-mean  train-rmse-std
# test-rmse-mean  test-rmse-std`): the mean over the folds is the curve, the deviation
# across them no point of it. The training data's first objective metric is the loss,
# the held-out folds' its eval loss, as on the booster's own lines (layouts.py).
_XGB_CV = re.compile(r"([A-Za-z_][\w.]*)-([\w@.-]+)-(mean|std)")
_GBDT_OBJECTIVES = frozenset({"rmse", "mae", "logloss", "mlogloss", "rmsle", "mape", "mphe"})


def is_xgb_cv(header: tuple[str, ...]) -> bool:
    """The columns of xgb.cv's DataFrame (every one `{data}-{metric}-mean|std`)."""
    return bool(header) and all(_XGB_CV.fullmatch(h.strip()) for h in header)


def _xgb_cv(header: tuple[str, ...]) -> dict[str, str]:
    if not is_xgb_cv(header):
        return {}
    cols = [_XGB_CV.fullmatch(h.strip()) for h in header]
    out: dict[str, str] = {}
    for h, m in zip(header, cols, strict=True):
        assert m is not None
        data, metric, stat = m.group(1).lower(), m.group(2).lower(), m.group(3)
        train = data.startswith("train")
        if stat == "std":
            out[h] = ""  # no metric: the row keeps only the means
            continue
        name = ("loss" if train else "eval_loss") if metric in _GBDT_OBJECTIVES else metric
        if name in out.values() or name == metric:
            name = ("train_" if train else "eval_") + metric
        out[h] = name
    return out


# spaCy's `spacy train` tables. v2: `Itn.  Dep Loss  NER Loss  UAS  NER P.  NER R.  NER F.
# Tag %  Token %  CPU WPS  GPU WPS`, one row per pass over the data; v3: `E  #  LOSS
# TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE`, epoch, step, then each component's
# loss and the dev-set scores. The component losses sum to the loss (derived.py); the
# scores are eval metrics, named so kind() reads them as task metrics.
_SPACY2 = {
    "itn.": "epoch",
    "uas": "eval_uas_score",
    "tag %": "eval_tag_acc",
    "token %": "eval_token_acc",
}
_SPACY3 = {"e": "epoch", "#": "step", "score": "eval_score", "speed": "wps"}


def _spacy(header: tuple[str, ...]) -> dict[str, str]:
    low = [h.strip().lower() for h in header]
    if low[:1] == ["itn."] and any(h.endswith(" loss") for h in low):
        out = {h: _SPACY2[x] for h, x in zip(header, low, strict=True) if x in _SPACY2}
        for h, x in zip(header, low, strict=True):
            if m := re.fullmatch(r"(\w+) ([prf])\.", x):  # "NER P."
                out[h] = f"eval_{m.group(1)}_{PRF[m.group(2)]}"
        return out
    if low[:2] == ["e", "#"] and any(h.startswith("loss ") for h in low):
        out = {h: _SPACY3[x] for h, x in zip(header, low, strict=True) if x in _SPACY3}
        for h, x in zip(header, low, strict=True):
            if x.startswith("loss "):  # "LOSS TRANS..." (a long name cut short)
                out[h] = x[5:].rstrip(".").replace(" ", "_") + "_loss"
            elif m := re.fullmatch(r"(\w+)_([prf])", x):  # ENTS_F
                out[h] = f"eval_{m.group(1)}_{PRF[m.group(2)]}"
            elif h not in out and re.fullmatch(r"[a-z]+_[a-z]+", x):  # TAG_ACC, DEP_UAS
                out[h] = f"eval_{x}"
        return out
    return {}


# Settings printed in words the key/value reading does not take: kohya-ss sd-scripts'
# bilingual run header ("  num epochs / epoch数: 30", "  gradient accumulation steps /
# 勾配を合計するステップ数 = 4"), the HF model card's "mixed_precision_training: Native AMP"
# and the Keras card's "training_precision: mixed_float16" (its dtype policy).
_KOHYA = re.compile(rb"\s*([a-z][a-z *]{2,40}?) / [^:=]{1,80}?\s*[:=]\s*(\d+)\s*")
_KOHYA_KEYS = {
    b"num epochs": "num_train_epochs",
    b"total optimization steps": "max_steps",
    b"gradient accumulation steps": "grad_accum",
    b"batch size per device": "per_device_batch",
}
_CARD = re.compile(
    rb"\s*(?:[-*]\s+)?(mixed_precision_training|training_precision)\s*:\s*(\S.{0,60}?)\s*"
)


# An HF model card (trainer.create_model_card) names the base model in words, and a
# PEFT card says so in its front matter and its framework versions.
_FINETUNED = re.compile(rb"This model is a fine-tuned version of \[?([\w./-]+)\]?.*")
# nanoGPT's train.py says where V came from in a sentence: "found vocab_size = 65 (inside
# data/shakespeare_char/meta.pkl)", or "defaulting to vocab_size of GPT-2 to 50304 (50257
# rounded up for efficiency)" (the model's output width: its padded vocabulary).
_NANOGPT_VOCAB = re.compile(
    rb"\s*(?:found vocab_size = (\d{1,8}) \(inside .{0,300}\)"
    rb"|defaulting to vocab_size of GPT-2 to (\d{1,8})(?: \(.{0,300}\))?)\s*"
)
_PEFT = re.compile(rb"\s*(?:library_name:\s*peft|[-*]\s+PEFT\s+\d[\w.]*)\s*")


_CTIME_STAMP = rb"(?:\[ [A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} \]\s*)?"
_SKELETON_EVAL = re.compile(
    _CTIME_STAMP + rb"(?:Eval epoch: (\d{1,6})"
    rb"|Mean test loss of \d+ batches: ([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf)\.?"
    rb"|Top(\d{1,2}): (\d+(?:\.\d+)?)%)\s*"
)


def skeleton_eval(text: bytes) -> tuple[str, float] | None:
    """("epoch", N) for an `Eval epoch: N` heading, (name, value) for an eval line after
    it (`eval_loss`, `eval_top1`, ...); None for any other line."""
    m = _SKELETON_EVAL.fullmatch(text)
    if m is None:
        return None
    ep, loss, k, top = m.groups()
    if ep is not None:
        return "epoch", float(ep)
    if loss is not None:
        return "eval_loss", float(loss)
    return f"eval_top{k.decode()}", float(top)


# nnU-Net (v1/v2) prints each epoch as its own timestamped lines under an `epoch:  N`
# heading: `train loss : -0.3417`, `validation loss: -0.3713`, `Average global foreground
# Dice: [0.0]` (one Dice per foreground class, on patches of the validation cases: read as
# their mean, `eval_dice`) and `lr: 0.009095`; v2 prints `train_loss -0.3417`,
# `val_loss -0.3713`, `Pseudo dice [0.0]`, `Current learning rate: 0.00991`.
_NNU_NUM = rb"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf)"
_NNUNET = re.compile(
    rb"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+:\s*)?(?:epoch:?\s+(\d{1,6})"
    rb"|(train loss :|train_loss)\s*"
    + _NNU_NUM
    + rb"|(validation loss:|val_loss)\s*"
    + _NNU_NUM
    + rb"|(?:Average global foreground Dice:|Pseudo dice)\s*\[([^\]]{0,400})\]"
    + rb"|(?:lr:|Current learning rate:)\s*"
    + _NNU_NUM
    + rb")\s*",
    re.IGNORECASE,
)


# lightweight-human-pose-estimation's train.py prints "Iter: N" (after the epoch's tqdm bar
# when one is drawn) and then one line per loss term, averaged over the log interval:
# "stage1_pafs_loss:     5.46", "stage1_heatmaps_loss: 2.05", ... (the loss it optimises is
# their sum). Only these names: "stageK_<part>_loss:" alone on a line.
_POSE_ITER = re.compile(rb"(?:^|[\]\s])Iter: (\d{1,9})\s*")
_POSE_TERM = re.compile(rb"\s*(stage\d{1,2}_[a-z]{1,20}_loss):\s+" + _NNU_NUM + rb"\s*")


def pose_iter(text: bytes) -> int | None:
    """N of a lightweight-pose `Iter: N` heading ending the line, else None."""
    m = _POSE_ITER.search(text)
    return int(m.group(1)) if m is not None and m.end() == len(text) else None


def pose_term(text: bytes) -> tuple[str, float] | None:
    """(name, value) of a lightweight-pose `stageK_<part>_loss:  v` line, else None."""
    m = _POSE_TERM.fullmatch(text)
    return (m.group(1).decode(), float(m.group(2))) if m is not None else None


def nnunet_line(text: bytes) -> tuple[str, float] | None:
    """("epoch", N) for nnU-Net's `epoch:  N` heading, (name, value) for a line under it
    (`loss`, `eval_loss`, `eval_dice` the mean of the per-class Dice, `lr`); None for any
    other line."""
    m = _NNUNET.fullmatch(text)
    if m is None:
        return None
    ep, _, loss, _, vloss, dice, lr = m.groups()
    if ep is not None:
        return "epoch", float(ep)
    if loss is not None:
        return "loss", float(loss)
    if vloss is not None:
        return "eval_loss", float(vloss)
    if dice is not None:
        try:
            vals = [float(x) for x in dice.split(b",") if x.strip()]
        except ValueError:
            return None
        return ("eval_dice", sum(vals) / len(vals)) if vals else None
    return "lr", float(lr)


def setting(text: bytes) -> list[tuple[str, object]]:
    """(config key, value) pairs of a trainer's settings line in words, else none."""
    if b" / " in text and (m := _KOHYA.fullmatch(text)) and m.group(1) in _KOHYA_KEYS:
        return [(_KOHYA_KEYS[m.group(1)], m.group(2).decode())]
    if b"precision" in text and (m := _CARD.fullmatch(text)):
        return [(m.group(1).decode(), m.group(2).decode("utf-8", "replace"))]
    if b"vocab_size" in text and (m := _NANOGPT_VOCAB.fullmatch(text)):
        return [("vocab_size", int(m.group(1) or m.group(2)))]
    if text.startswith(b"This model is a fine-tuned") and (m := _FINETUNED.fullmatch(text)):
        return [("finetuned_from", m.group(1).decode("utf-8", "replace"))]
    if b"eft" in text and _PEFT.fullmatch(text):
        return [("adapter", "lora")]
    if said := settings.hf_plan(text):
        return said  # HF Trainer's "  Total optimization steps = 1,548"
    if b"optimi" in text[:16] and (m := _KERAS_OPTIMIZER.fullmatch(text)):
        return keras_optimizer(m.group(1))
    if b"optimi" in text[:16] and (m := _CARD_OPTIMIZER.fullmatch(text)):
        return [("optimizer", m.group(1).decode().lower())]
    return []


# An HF model card (transformers modelcard.py) names the optimizer in words: `- optimizer:
# Adam with betas=(0.9,0.999) and epsilon=1e-08` (older cards write Adam for AdamW too),
# `- optimizer: Adafactor`, or `- optimizer: Use adamw_torch with betas=...` /
# `Use OptimizerNames.ADAMW_TORCH with betas=...` (newer ones, the TrainingArguments.optim
# value). Only the name is taken; its betas and epsilon are no run fact.
_CARD_OPTIMIZER = re.compile(
    rb"\s*(?:[-*]\s+)?optimizer\s*:\s*(?:Use\s+(?:OptimizerNames\.)?)?([A-Za-z][\w-]{1,40}?)"
    rb"(?:\s+(?:with|and)\b.{0,300})?\s*"
)


# A Keras model card lists the optimizer's get_config() as a dict: `- optimizer: {'name':
# 'AdamWeightDecay', 'learning_rate': 0.001, ..., 'weight_decay_rate': 0.01}`; a schedule's
# LR is a dict of its own ({'class_name': 'PolynomialDecay', 'config':
# {'initial_learning_rate': 5.6e-05, ...}}), and mixed precision wraps the optimizer in a
# LossScaleOptimizer ({'inner_optimizer': {'class_name': ..., 'config': {...}}, ...}).
_KERAS_OPTIMIZER = re.compile(rb"\s*optimizer\s*:\s*(\{.{1,4000}\})\s*", re.DOTALL)
_WEIGHT_DECAY = ("weight_decay_rate", "weight_decay")


def keras_optimizer(raw: bytes) -> list[tuple[str, object]]:
    """The optimizer's name, its (initial) LR and weight decay, from its printed config."""
    try:
        cfg = ast.literal_eval(raw.decode("utf-8", "replace"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return []
    for _ in range(3):  # a LossScaleOptimizer's inner optimizer, then its config
        if not isinstance(cfg, dict):
            return []
        inner = cfg.get("inner_optimizer")
        if isinstance(inner, dict):
            cfg = inner
        elif "name" not in cfg and isinstance(cfg.get("config"), dict):
            cfg = cfg["config"]
        else:
            break
    out: list[tuple[str, object]] = []
    if isinstance(name := cfg.get("name") or cfg.get("class_name"), str):
        out.append(("optimizer", name))
    lr = cfg.get("learning_rate")
    if isinstance(lr, dict) and isinstance(lr.get("config"), dict):
        lr = lr["config"].get("initial_learning_rate")  # a schedule: its starting LR
    if isinstance(lr, (int, float)) and not isinstance(lr, bool):
        out.append(("learning_rate", float(lr)))
    wd = next((cfg[k] for k in _WEIGHT_DECAY if k in cfg), None)
    if isinstance(wd, (int, float)) and not isinstance(wd, bool):
        out.append(("weight_decay", float(wd)))
    return out


# Dialects that print their training loss under a name of their own: OpenNMT-py's
# `xent`; the Torch7 ImageNet trainers' `Err` (the criterion's value, not an error rate).
# pytorch-yolo2's region loss: `total`, the sum of the x/y/w/h/conf/cls terms it prints.
_OWN_LOSS = {"opennmt": "xent", "torch7": "err", "pytorch-yolo2": "total"}


def clean(
    raw: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]],
    dialect: str,
    notes: list[Note],
    path: str,
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Drop placeholder series: a loss that is exactly -1 on every step is not a loss;
    and placeholder points: a precision, recall or F-score below 0 is a scorer's mark for
    "undefined" (NCRF++ prints `f: -1.0000` when nothing was predicted), no score. Name a
    dialect's loss that it prints under its own name (OpenNMT-py's `xent`). An accuracy
    above 100 is none (see _ACC_NAME)."""
    own = _OWN_LOSS.get(dialect)
    if own is not None and own in raw and "loss" not in raw:
        raw = {("loss" if k == own else k): v for k, v in raw.items()}
    out = {}
    for key, (steps, vals, times) in raw.items():
        if "loss" in key and vals.size and np.all(vals == -1.0):
            notes.append(
                Note(
                    path,
                    f"{key!r} is -1.0 on all {vals.size} steps: the placeholder a pipeline "
                    "stage prints when it does not compute the loss (only the last stage "
                    "does); not read as a loss",
                )
            )
            continue
        if _ACC_NAME.search(key) and bool(np.any(vals > 100.0)):
            notes.append(
                Note(
                    path,
                    f"{key!r} goes above 100 (max {float(np.nanmax(vals)):g}): a share of "
                    "right answers cannot, so it is another number under that name (an "
                    "error rate, a count of right answers); not read as an accuracy",
                )
            )
            continue
        if _PRF_NAME.search(key) and (neg := vals < 0).any():
            keep = ~neg
            steps, vals = steps[keep], vals[keep]
            times = times[keep] if times is not None else None
            if not vals.size:
                continue
        out[key] = (steps, vals, times)
    return out


# The names of an accuracy (train_acc, eval_accuracy, val_acc): a share of right answers,
# 1 at most, 100 in percent. A value above that was read under the name by mistake: an
# error rate a key parser cut to its split (Tesseract's "char train=101.05%"), the count
# of a "9841/10000" printed without its share.
_ACC_NAME = re.compile(r"(?:^|_)(?:acc|accuracy)$")
# The names of a precision, recall or F-score (eval_precision, val_f1, fscore).
_PRF_NAME = re.compile(r"(?:^|_)(?:precision|recall|f1|fscore|f1_score|hmean)$")


def event_facts(
    found: list[Event], facts: dict[str, Fact], series: dict[str, Series], path: Path
) -> dict[str, Fact]:
    out = dict(facts)
    events.add_facts(found, out, series, path)
    return out
