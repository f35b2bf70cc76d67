"""Facts derived once every reader is done: effective batch, regime, task.

Every derived fact says how it was derived in its source string, so a report
can tell "config says" from "we guessed".
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from traindoc.model import Fact, Note, Run, Series
from traindoc.model.datasets import classes_named
from traindoc.model.signals import MEL_ERROR, REGRESSION_ERROR, Signal, is_eval, kind
from traindoc.model.vocabs import family_vocab

# first loss / ln(V): at or above this the model started from scratch (uniform guess)
PRETRAIN_RATIO = 0.9
# below this it clearly started from learned weights
FINETUNE_RATIO = 0.7
# ... when the first loss is logged after some updates: within its first tens of steps a
# from-scratch LM falls from ln(V) to the unigram entropy of its text (0.55-0.7 ln(V):
# 7.4 of 10.8 nats for GPT-2's BPE), so only under half of ln(V) says trained weights.
FINETUNE_RATIO_LATE = 0.5
# ... and a first loss still at 80%+ of ln(V) after updates is from scratch: a pretrained
# LM meets new text at under half of ln(V), however its first interval went.
PRETRAIN_RATIO_LATE = 0.8


def finalize(run: Run) -> Run:
    run = _episode_score(_accumulated_loss(_derived_losses(_placeholder_loss(run))))
    facts = dict(run.facts)
    _loss_base(run, facts)
    _effective_batch(facts)
    _dataset_classes(run, facts)
    _family_vocab(facts)
    _task(run, facts)
    _regime(run, facts)
    _ended(run, facts)
    return replace(run, facts=facts)


# An episode counter and the score beside it, the averaged one first: Udacity DRLND's
# "Episode 100\tAverage Score: 0.50" (and "... Score: 0.82" of the last episode); a
# bare "Avg" beside the score ("Episode 35 ... score: 12.0 ... Avg: 10.3") is the score's
# running average, and read as the averaged one only with the score beside it.
_EPISODE_COUNTERS = ("episode", "episodes", "ep", "episode_num", "i_episode")
_SCORES = ("average_score", "avg_score", "mean_score", "average score", "avg score", "score")
_SCORE_AVG = "avg"


def _episode_score(run: Run) -> Run:
    """A log that counts episodes and prints a score beside the count, with no loss and
    no reward logged, is an RL agent's: the score of an episode is its return, so the
    (averaged) score is the reward. A score with no episode count stays a task metric."""
    if run.get(Signal.REWARD) is not None or run.get(Signal.LOSS) is not None:
        return run
    if not any(n in run.series for n in _EPISODE_COUNTERS):
        return run
    name = next((n for n in _SCORES if n in run.series and len(run.series[n])), None)
    if name == "score" and _SCORE_AVG in run.series and len(run.series[_SCORE_AVG]):
        name = _SCORE_AVG
    if name is None:
        return run
    s = run.series[name]
    series = dict(run.series)
    series[Signal.REWARD.value] = replace(
        s, name=Signal.REWARD.value, source=f"{s.source or name} (an episode's score)"
    )
    return replace(run, series=series)


# An estimated time left (detectron2's eta_seconds, HF-style `eta`) logged as a series.
_ETA = re.compile(r"(^|[_/ ])eta(_s|_seconds|_sec)?$", re.I)


def _ended(run: Run, facts: dict[str, Fact]) -> None:
    """The trainer's own ETA counting down to 0 on the last record: the run ended there
    (what a final summary line says in other trainers). An ETA below what one logging
    interval took off it is the last record as well: detectron2 computes the ETA of
    iteration max_iter - 1 from the iterations left including the current one, and
    prints ~1 s where the records before fell 30 s apart."""
    if "ended" in facts:
        return
    for name in sorted(run.series):
        s = run.series[name]
        if not _ETA.search(name) or len(s) < 2:
            continue
        v = s.values[np.isfinite(s.values)]
        if v.size < 2 or not np.nanmax(v[:-1]) > 0:
            continue
        if v[-1] == 0:
            facts["ended"] = Fact(True, f"{s.source or name}: the ETA is 0 on the last record")
            return
        if 0 < v[-1] < v[-2] - v[-1]:
            facts["ended"] = Fact(
                True,
                f"{s.source or name}: the ETA on the last record ({v[-1]:.3g}) is under "
                "one logging interval",
            )
            return


# Train/eval ratio within this factor of the accumulation steps: the summed-loss quirk.
_GA_TOLERANCE = 0.2


def _accumulated_loss(run: Run) -> Run:
    """A train loss logged summed over the accumulation steps, not averaged: named, and
    divided back so the rules judge the real level.

    Some transformers releases (around 4.46, when the accumulation loss fix landed)
    logged the train loss multiplied by gradient_accumulation_steps. The sign in the
    log: with accumulation N >= 2 the train loss sits at N x the eval loss at the
    same steps, where a healthy run has them within tens of percent (and overfitting
    puts train below eval, never N x above it).
    """
    ga = run.fact("grad_accum")
    loss, ev = run.get(Signal.LOSS), run.get(Signal.EVAL_LOSS)
    if not (isinstance(ga, int) and ga >= 2) or loss is None or ev is None:
        return run
    lf, ef = loss.finite(), ev.finite()
    if len(lf) < 2 or len(ef) < 2:
        return run
    j = np.clip(np.searchsorted(lf.steps, ef.steps), 0, len(lf) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.median(lf.values[j] / ef.values))
    if not (abs(ratio / ga - 1) <= _GA_TOLERANCE and ef.values.min() > 0):
        return run
    ver = (run.fact("versions") or {}).get("transformers") if run.fact("versions") else None
    why = (
        f"the train loss is {ratio:.2f}x the eval loss at the same steps, and gradient "
        f"accumulation is {ga}: it was logged summed over the {ga} micro-batches (a logging "
        "quirk of some transformers releases, around 4.46"
        + (f"; this run used transformers {ver}" if ver else "")
        + f"), not averaged. traindoc divides it by {ga}; the run itself is not affected."
    )
    series = dict(run.series)
    series[Signal.LOSS.value] = Series.from_arrays(
        loss.name,
        loss.steps,
        loss.values / ga,
        loss.times,
        f"{loss.source} / {ga} (summed over accumulation)",
    )
    return replace(run, series=series, notes=(*run.notes, Note(loss.source, why)))


# A loss that names itself the one the trainer optimised: NeMo-Megatron's
# reduced_train_loss (the loss averaged over data-parallel ranks), a `train_loss`.
_TRAINER_LOSS = re.compile(r"^(?:reduced_\w*loss|train(?:ing)?_loss)$", re.I)


def _placeholder_loss(run: Run) -> Run:
    """`loss` from the trainer's own train loss where the `loss` slot prints a placeholder.

    Lightning's progress bar has a `loss` slot that NeMo-Megatron never fills: every
    refresh prints `loss=nan` beside the `reduced_train_loss=3.910` it logs instead. A
    `loss` that is NaN at every step where such a loss is finite is that placeholder, not
    a non-finite loss; a NaN where the trainer's loss is NaN too stays (the run diverged).
    """
    loss = run.series.get(Signal.LOSS.value)
    if loss is None or not len(loss):
        return run
    for name, alt in run.series.items():
        if not _TRAINER_LOSS.match(name) or is_eval(name) or not len(alt):
            continue
        shared, li, ai = np.intersect1d(loss.steps, alt.steps, return_indices=True)
        if not shared.size or not np.isnan(loss.values[li]).all():
            continue
        if not np.isfinite(alt.values[ai]).any():
            continue
        rest = ~np.isin(loss.steps, alt.steps)
        steps = np.r_[loss.steps[rest], alt.steps]
        values = np.r_[loss.values[rest], alt.values]
        source = (
            f"{alt.source or name}: {name}, the trainer's loss (its `loss` slot prints nan, "
            f"a placeholder, at the {shared.size} step(s) both are logged)"
        )
        series = dict(run.series)
        series[Signal.LOSS.value] = Series.from_arrays(
            Signal.LOSS.value, steps, values, None, source
        )
        return replace(run, series=series)
    return run


# Running means of a loss printed beside its step value (NVIDIA's BERT `average_loss` and
# `step_loss`): two views of one loss, never parts of it.
_RUNNING = re.compile(r"^(?:average|avg|running|mean|smoothed|moving)_loss$", re.I)
_STEP_VIEW = re.compile(r"^(?:step|batch|iter|iteration)_loss$", re.I)


def _parts(parts: list[Series], names: set[str]) -> list[Series]:
    """The parts a loss is the sum of: without the suffixed copies of a name printed twice
    on a line (records.py names the second `val_loss_step_13`), and, where a step value
    of the loss is printed, without its running mean (the step value is the loss, as
    darknet's `loss` is beside its `avg_loss`: a mean lags the curve the rules read)."""
    out = [
        p
        for p in parts
        if not (re.match(r"^(.+)_\d+$", p.name) and p.name.rsplit("_", 1)[0] in names)
    ]
    bare = {p.name for p in out}
    # MXNet's epoch line `Train-cross-entropy=2.15` beside the batch lines' `cross-entropy`
    # is that same loss averaged over the epoch, no second term to add to it
    out = [
        p
        for p in out
        if _SPLIT_PREFIX.sub("", p.name) == p.name or _SPLIT_PREFIX.sub("", p.name) not in bare
    ]
    errors = [p for p in out if REGRESSION_ERROR.match(p.name)]
    if errors:
        if len(errors) < len(out):
            # an error beside the loss's own terms measures the output, it is no term
            out = [p for p in out if not REGRESSION_ERROR.match(p.name)]
        else:
            # a regression run's errors only (mse and mae, their root): one of them is the
            # loss, never their sum - the squared error first, as Keras' default loss
            rank = {"mse": 0, "rmse": 1, "mae": 2}
            return [min(errors, key=lambda p: rank[re.split(r"[_ ]", p.name.lower())[-1]])]
    totals = [p for p in out if _TOTAL.search(p.name)]
    if len(totals) == 1:
        # a total printed beside its terms is the loss itself (TF Object Detection's
        # 'Loss/total_loss' after 'Loss/classification_loss', ...): summed with them it
        # would count the loss twice
        return totals
    if (summed := _total_by_value(out)) is not None:
        total, terms = summed
        rest = [p for p in out if p is not total and p not in terms]
        if not rest or _mirror(rest, terms):
            # the columns it does not add up repeat its terms under the same names
            # (another split's: "mloss0..2" then "loss0..2"): no terms of this loss
            return [total]
        return [total, *rest]  # a sub-total (detectron2's loss_rpn) beside other terms
    if any(_STEP_VIEW.match(p.name) for p in out):
        out = [p for p in out if not _RUNNING.match(p.name)]
    main = [p for p in out if not _AUX.search(p.name)]
    if main and len(main) < len(out):
        # an auxiliary loss (a MoE router's load-balancing `aux_loss`, a `z_loss`) enters
        # the objective scaled by a small coefficient the log does not print: summed at
        # weight 1 it would swamp the loss (OpenRLHF's `gpt_loss=1.06, aux_loss=8.45`)
        out = main
    return out


# A column equal to the sum of 2+ others at every one of 3+ common logs is their total,
# whatever its header calls it (a results table re-typed under guessed names, "mloss0 |
# mloss1 | mloss2 | mloss3", the last the sum of the first three): within 1% of it, the
# rounding of a few printed digits.
_TOTAL_TOL = 0.01
_TOTAL_MIN_LOGS = 3
# ... and each term a real share of it (a term near 0 would make any column "a total" of
# itself and that term).
_TOTAL_MIN_SHARE = 0.02
_TOTAL_MAX_PARTS = 10  # subsets of at most 2^9 others: a table's columns, not a sweep's


def _total_by_value(parts: list[Series]) -> tuple[Series, list[Series]] | None:
    """The part that is the sum of 2+ other parts at every common log, with those parts
    (the most of them where several totals add up): summed with its terms it would count
    them twice."""
    if not 3 <= len(parts) <= _TOTAL_MAX_PARTS:
        return None
    common = parts[0].steps
    for p in parts[1:]:
        common = np.intersect1d(common, p.steps)
    if common.size < _TOTAL_MIN_LOGS:
        return None
    vals = [p.values[np.searchsorted(p.steps, common)] for p in parts]
    if not all(np.all(np.isfinite(v)) for v in vals):
        return None
    best: tuple[int, list[int]] | None = None
    for i, total in enumerate(vals):
        if np.any(total <= 0):
            continue
        others = [j for j in range(len(parts)) if j != i]
        for mask in range(1, 1 << len(others)):
            terms = [others[b] for b in range(len(others)) if mask >> b & 1]
            if len(terms) < 2 or (best is not None and len(terms) <= len(best[1])):
                continue
            if any(np.mean(vals[j]) < _TOTAL_MIN_SHARE * np.mean(total) for j in terms):
                continue
            if np.all(np.abs(sum(vals[j] for j in terms) - total) <= _TOTAL_TOL * total):
                best = (i, terms)
    if best is None:
        return None
    return parts[best[0]], [parts[j] for j in best[1]]


def _mirror(rest: list[Series], terms: list[Series]) -> bool:
    """Each left-over column is named as one of the terms, less or plus a prefix."""
    names = [t.name.lower() for t in terms]
    return len(rest) == len(terms) and all(
        any(n.endswith(r.name.lower()) or r.name.lower().endswith(n) for n in names) for r in rest
    )


_SPLIT_PREFIX = re.compile(r"^train(?:ing)?_", re.I)
_TOTAL = re.compile(r"(?:^|[/_.])(?:total|sum)(?:_loss)?$|(?:^|[/_.])loss[/_.](?:total|sum)$", re.I)
_AUX = re.compile(
    r"(?:^|[/_])(?:aux|auxiliary|moe_aux|load_balanc\w*|balance|router_z|z)_loss$", re.I
)


def _derived_losses(run: Run) -> Run:
    """`loss` / `eval_loss` when the log names only its parts.

    A trainer that logs one train loss under its own name (`train/nll_loss`)
    logged its loss; one that logs only components (ultralytics' box, cls and
    dfl losses, a YOLOv7 TensorBoard) optimises their sum. Parts under different
    namespaces (verl's actor/pg_loss and critic/vf_loss) belong to different
    models, and no sum of them is one. The source says how each was made, and the
    originals stay.
    """
    series = dict(run.series)
    for target, part in (
        (Signal.LOSS.value, "component_loss"),
        (Signal.EVAL_LOSS.value, "eval_component_loss"),
    ):
        if target in series:
            continue
        parts = [s for name, s in series.items() if kind(name) == part and len(s)]
        if (mel := _vocoder_mel(parts)) is not None:
            what = "the mel reconstruction error beside a GAN player's objective"
            series[target] = replace(mel, name=target, source=f"derived: {mel.source}, {what}")
            continue
        named = parts
        parts = _parts(parts, set(series))
        if not parts:
            continue
        if len({p.name.rsplit("/", 1)[0] if "/" in p.name else "" for p in parts}) > 1:
            continue  # parts of two models (verl's actor/pg_loss, critic/vf_loss): no one loss
        if actor_and_critic([p.name for p in parts]):
            continue  # two networks' losses (an off-policy actor's -Q, its critic's TD error)
        if adversarial([p.name for p in parts]) or all(player(p.name) for p in parts):
            # a GAN's generator and discriminator losses: opponents, not one loss; and one
            # player's objective alone (a WGAN critic's "disc cost", negative by design,
            # rising toward 0 as the generator closes the gap) is no learning curve either
            continue
        if len(parts) == 1:
            (one,) = parts
            what = (
                "the total of the other parts logged"
                if (t := _total_by_value(named)) is not None and t[0] is one
                else f"the only {part.replace('_', ' ')} logged"
            )
            series[target] = replace(one, name=target, source=f"derived: {one.source}, {what}")
            continue
        common = parts[0].steps
        for p in parts[1:]:
            common = np.intersect1d(common, p.steps)
        if common.size == 0:
            continue
        total = np.zeros(common.size)
        for p in parts:
            total += p.values[np.searchsorted(p.steps, common)]
        names = " + ".join(p.name for p in parts)
        series[target] = Series.from_arrays(target, common, total, None, f"derived: sum of {names}")
    _from_perplexity(series)
    return replace(run, series=series) if len(series) != len(run.series) else run


def _vocoder_mel(parts: list[Series]) -> Series | None:
    """A GAN vocoder's mel-spectrogram error when it is logged beside a player's objective
    (HiFi-GAN's "Gen Loss Total" and "Mel-Spec. Error"): the generator's total holds the
    adversarial terms, which move with the discriminator, while the mel error is the
    reconstruction the generator is trained toward, the curve HiFi-GAN's authors say to
    watch. None where no player's objective is logged (the parts are read as usual) or
    where several mel errors are (which one is the loss is not said)."""
    mels = [p for p in parts if MEL_ERROR.match(p.name)]
    if len(mels) != 1 or not any(player(p.name) for p in parts if p is not mels[0]):
        return None
    return mels[0]


# A perplexity is exp of the mean cross-entropy: OpenNMT, fairseq and PyTorch's word
# language model print `ppl` where others print the loss.
_PPL = re.compile(r"^(?:(train|eval|val|valid|validation|dev|test)[_/ ])?(ppl|perplexity)$", re.I)


def _from_perplexity(series: dict[str, Series]) -> None:
    """`loss` / `eval_loss` as ln(perplexity) when a log prints only the perplexity."""
    for name, s in list(series.items()):
        m = _PPL.match(name)
        if m is None or not len(s):
            continue
        target = Signal.LOSS.value if m.group(1) in (None, "train") else Signal.EVAL_LOSS.value
        if target in series:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(s.values > 0, np.log(s.values), np.nan)
        source = f"derived: ln({name}), {s.source or 'the log'} prints only the perplexity"
        series[target] = replace(s, name=target, values=values, source=source)


def _loss_base(run: Run, facts: dict[str, Fact]) -> None:
    """`loss_base` 2 where the loss is logged in bits: fairseq divides every criterion's
    loss by ln 2 (its floor is log2(V), 1.44x ln(V)), and any log whose perplexity is
    2^nll_loss says so itself (perplexity is base^cross-entropy)."""
    if "loss_base" in facts:
        return
    if _val(facts, "trainer") == "fairseq":
        facts["loss_base"] = Fact(2, "fairseq logs its losses in bits (loss / ln 2)")
        return
    for ppl_name, s in run.series.items():
        m = _PPL.match(ppl_name)
        if m is None or len(s) < 1:
            continue
        pre = f"{m.group(1)}_" if m.group(1) not in (None, "train") else ""
        ce = next(
            (run.series[n] for n in (f"{pre}nll_loss", f"{pre}loss") if n in run.series), None
        )
        if ce is None:
            continue
        _, i, j = np.intersect1d(s.steps, ce.steps, return_indices=True)
        p, c = s.values[i], ce.values[j]
        ok = np.isfinite(p) & np.isfinite(c) & (p > 1.5) & (c > 0.5)
        if ok.sum() < 1:
            continue
        bits = np.abs(np.log2(p[ok]) - c[ok]) <= 0.01 * c[ok] + 0.01
        nats = np.abs(np.log(p[ok]) - c[ok]) <= 0.01 * c[ok] + 0.01
        if bits.all() and not nats.any():
            what = f"{ppl_name} = 2^{ce.name}"
            facts["loss_base"] = Fact(2, f"derived: {what} in {s.source or 'the log'}")
            return


def _effective_batch(facts: dict[str, Fact]) -> None:
    if "effective_batch" in facts or not isinstance(_val(facts, "per_device_batch"), int):
        return
    parts, total = [], 1
    for key in ("per_device_batch", "devices", "grad_accum"):
        v = _val(facts, key)
        if isinstance(v, int) and v > 0:
            parts.append(f"{key} {v}")
            total *= v
        else:
            parts.append(f"{key} 1 (assumed: not recorded)")
    facts["effective_batch"] = Fact(total, " x ".join(parts))


def _regime(run: Run, facts: dict[str, Fact]) -> None:
    # An RL loss is a surrogate (~0 from the first step), not a cross-entropy.
    if "regime" in facts or _val(facts, "task") == "rl":
        return
    vocab = _val(facts, "vocab_size")
    loss = run.get(Signal.LOSS)
    # A classifier's fresh head starts at ln(C) in any regime, so only ln(V) of an LM tells.
    if not isinstance(vocab, int) or vocab < 2 or loss is None:
        return
    finite = loss.values[np.isfinite(loss.values)]
    if not finite.size:
        return
    base = _val(facts, "loss_base")
    ln = "ln" if not base else f"log{base}"
    first, floor = float(finite[0]), math.log(vocab) / math.log(base if base else math.e)
    ratio = first / floor
    late = int(loss.steps[0]) > 1
    if ratio >= (PRETRAIN_RATIO_LATE if late else PRETRAIN_RATIO):
        rel = "≈" if ratio < 1.1 else "above"
        src = f"inferred: first loss {first:.4g} {rel} {ln}(V)={floor:.4g}"
        facts["regime"] = Fact("pretraining", src)
    elif ratio < (FINETUNE_RATIO if int(loss.steps[0]) <= 1 else FINETUNE_RATIO_LATE):
        src = f"inferred: first loss {first:.4g} well below {ln}(V)={floor:.4g}"
        facts["regime"] = Fact("full-finetune", src)


# The two players of a GAN: a generator's and a discriminator's (critic's) loss, by
# the names the common code prints (DCGAN's Loss_G / Loss_D, Keras' g_loss / d_loss,
# errG / errD, loss_gen / loss_disc, StyleGAN's Loss/G/loss), and glued to the word
# loss as taming-transformers' VQGAN logs its autoencoder's and discriminator's totals
# (train/aeloss, train/discloss) and many GAN scripts theirs (lossD / lossG).
_PLAYER = re.compile(
    r"(?:^|[_/ .-]|(?<=loss))(?:(g|gen|generator|errg|netg|(?:ae|gen|g)(?=loss))"
    r"|(d|dis|disc|discriminator|critic|errd|netd))"
    r"(?:$|[_/ .-]|loss)",
    re.I,
)


# An actor-critic's two networks by their losses' names: the actor's (DDPG / TD3 / SAC /
# CQL's actor_loss, loss_actor, Spinning Up's LossPi, DeepSpeed-Chat's act_loss) and the
# critic's (critic_loss, loss/critic1, LossQ, cri_loss). Each has its own optimizer; the
# actor's loss is -Q, which grows with the critic's estimates: their sum is no loss.
_ACTOR = re.compile(r"(?:^|[/_\- ])(?:actor|act)(?:[/_\- ]|$)|^loss_?pi$", re.I)
_CRITIC = re.compile(r"(?:^|[/_\- ])(?:critic\d*|cri)(?:[/_\- ]|$)|^loss_?q\d*$", re.I)


def actor_and_critic(names: list[str]) -> bool:
    """Loss names of an actor and of a critic both present (an off-policy actor-critic)."""
    return any(_ACTOR.search(n) for n in names) and any(_CRITIC.search(n) for n in names)


def adversarial(names: list[str]) -> bool:
    """Loss names of a generator and of a discriminator both present: a GAN, whose
    generator loss rises as its opponent improves (no learning curve to read)."""
    players: set[int] = set()
    for name in names:
        for m in _PLAYER.finditer(name):
            players.add(1 if m.group(1) else 2)
    return players == {1, 2}


def player(name: str) -> bool:
    """A name that is only a GAN player's adversarial objective (d_loss, g_loss, D cost,
    errD, lossG): one side of a two-player game, whose value moves with the opponent. A
    player's reconstruction / L1 / cycle / perceptual term (G_L1, cycle_A) is a distance
    the generator minimises, and no player's objective alone."""
    m = _PLAYER.search(name)
    if m is None or not _a_loss(name) or "critic" in name.lower():
        # an RL critic's loss (DQN's / actor-critic's Critic_Loss) is a value regression
        # the learner minimises: a loss, not a player's objective
        return False
    rest = (name[: m.start()] + name[m.end() :]).lower()
    return not re.search(r"l1|l2|cycle|idt|recon|rec|percep|vgg|pix|mse|feat|gp|reg", rest)


def _a_loss(name: str) -> bool:
    """A loss by its name: one that says so, DCGAN's errG / errD, or a GAN player's bare
    name (pix2pix's G_GAN, CycleGAN's D_A: signals.kind reads those as loss parts)."""
    low = name.lower()
    return "loss" in low or low.startswith("err") or kind(name) == "component_loss"


def _discriminator(name: str) -> bool:
    """A discriminator's own objective by its name (d_loss, disc_cost, errD; not an RL
    critic's, see player)."""
    found = list(_PLAYER.finditer(name))
    return player(name) and any(m.group(2) for m in found) and not any(m.group(1) for m in found)


def _dataset_classes(run: Run, facts: dict[str, Fact]) -> None:
    """C of the standard dataset the run's data setting names (`--dataset cifar10`,
    `data_dir=/data/imagenet`), else the folders its logs sit in: an accuracy's chance
    level 1/C when the log prints no class count. Kept apart from num_classes: a GAN or an autoencoder trained on CIFAR-10
    has no 10-way output, so the name alone says nothing about the loss's floor."""
    if "dataset_classes" in facts:
        return
    if (data := facts.get("dataset")) is not None:
        if (got := classes_named(data.value)) is not None:
            facts["dataset_classes"] = Fact(got[0], f"{data.source} names {got[1]}")
        return
    # no data setting: the run's own folders may name it (runs/cifar100/resnet18/log.txt)
    for inp in run.inputs:
        if (got := classes_named(str(Path(inp.path).parent))) is not None:
            facts["dataset_classes"] = Fact(got[0], f"the run's folder {inp.path} names {got[1]}")
            return


def _family_vocab(facts: dict[str, Fact]) -> None:
    """V of the LM family the base model's name names (`google/gemma-3-1b-it`: Gemma 3,
    262,144), when no config gives a vocabulary and the run is no classifier (whose
    output is its classes) or detector / GAN / RL run (no ln(V) loss)."""
    if any(k in facts for k in ("vocab_size", "num_classes", "input_vocab_size")):
        return
    if _val(facts, "task") not in (None, "lm") or not isinstance(_val(facts, "base_model"), str):
        return
    base = facts["base_model"]
    if (got := family_vocab(base.value)) is not None:
        facts["vocab_size"] = Fact(got[1], f"{base.source}: {base.value} is a {got[0]} model")


def _task(run: Run, facts: dict[str, Fact]) -> None:
    if "task" in facts:
        return
    if run.get(Signal.REWARD) is not None or run.get(Signal.REWARD_STD) is not None:
        facts["task"] = Fact("rl", "inferred: a reward series is logged")
    elif adversarial(losses := [n for n in run.series if _a_loss(n)]):
        names = ", ".join(sorted(losses))[:80]
        facts["task"] = Fact("gan", f"inferred: a generator and a discriminator loss ({names})")
    elif (disc := next((n for n in sorted(run.series) if _discriminator(n)), None)) is not None:
        # a discriminator's loss logged alone (a WGAN critic's "disc cost"): only an
        # adversarial run trains a discriminator
        facts["task"] = Fact("gan", f"inferred: a discriminator's loss ({disc}) is logged")
    elif not _val(facts, "vocab_size") and (
        name := next((n for n in sorted(run.series) if _DETECTION.search(n)), None)
    ):
        # before num_classes: a detector's config names its classes too, but its loss
        # is a sum of box and class terms, no cross-entropy with an ln(C) floor
        facts["task"] = Fact("detection", f"inferred: a {name!r} series is logged")
    elif _val(facts, "num_classes"):
        facts["task"] = Fact("classification", f"inferred: {facts['num_classes'].source}")
    elif _val(facts, "vocab_size"):
        facts["task"] = Fact("lm", f"inferred: {facts['vocab_size'].source}")
    elif (loss := run.get(Signal.LOSS)) is not None and loss.source.startswith("derived: ln("):
        # a perplexity is exp of a token-level cross-entropy: a language / translation model
        facts["task"] = Fact("lm", f"inferred: {loss.source}")


# Box / mask / objectness losses and box mAP: detectors and segmenters (mmdet,
# detectron2, YOLOv5/v8's box/obj/dfl, YOLOX's iou_loss, DETR's loss_giou, SSD's
# mbox_loss, FCOS's loss_centerness) log a sum of such terms, not a cross-entropy over
# a vocabulary. A class or confidence term (cls_loss, loss_cls, DETR's loss_ce, YOLOX's
# conf_loss) is a detector's only beside one of these: alone it is any classifier's
# (mmaction2's loss_cls, mmseg's decode.loss_ce), so it names no task by itself.
_DETECTION = re.compile(
    r"(^|[_/.])(loss_(bbox|box|box_reg|rpn_\w+|mask|obj|objectness|giou|iou|ciou|dfl|centerness)"
    r"|(box|bbox|obj|dfl|seg|iou|giou|ciou|diou|mbox)_loss|bbox_map)"
)


def _val(facts: dict[str, Fact], key: str) -> object:
    f = facts.get(key)
    return None if f is None else f.value
