"""torch helpers shared by the adapters: loss capture, per-layer sampling, ranks.

`LayerSampler` (every N steps): per-layer gradient norm, update/weight ratio
and the share of dead units after each activation. `RankSync`: a NaN on any
rank seen by all, and the per-rank step-time spread that flags stragglers,
through the process group the run already has.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch
from torch import nn

from traindoc.live.monitor import Monitor, TrainingStopped
from traindoc.model import Run, Series
from traindoc.model.signals import RANK_STEP_TIME
from traindoc.rules.api import Hit

_BLOCK = re.compile(r"^(.*?\.\d+)\.")  # "transformer.h.3.attn.c_attn.weight" -> "transformer.h.3"
_ACT = re.compile(r"relu|gelu|silu|swish|activation|tanh|sigmoid|mish", re.I)


def layer_of(name: str) -> str:
    m = _BLOCK.match(name)
    return m.group(1) if m else name.rpartition(".")[0] or name


class LossCapture:
    """Keeps the loss of each training forward (a forward hook; no sync until read)."""

    def __init__(self, model: nn.Module) -> None:
        self._losses: list[torch.Tensor] = []
        self._summed = False
        self.forward_end: float | None = None  # straggler proxy: no collective before it
        self._handle = model.register_forward_hook(self._hook, with_kwargs=True)

    def _hook(self, module: nn.Module, args: Any, kwargs: dict, output: Any) -> None:
        if not module.training:
            return
        loss = getattr(output, "loss", None)
        if loss is None and isinstance(output, dict):
            loss = output.get("loss")
        if isinstance(loss, torch.Tensor) and loss.numel() == 1:
            self._losses.append(loss.detach())
            self.forward_end = time.monotonic()
            # HF scales each micro-batch by the tokens of the whole accumulated batch.
            self._summed = kwargs.get("num_items_in_batch") is not None

    def take(self) -> float | None:
        """The optimizer step's loss (mean of its micro-batches); one host sync."""
        if not self._losses:
            return None
        losses, self._losses = self._losses, []
        total = torch.stack(losses).float()
        value = total.sum() if self._summed else total.mean()
        return float(value.item())

    def remove(self) -> None:
        self._handle.remove()


class LayerSampler:
    """Per-layer statistics every `every` steps, for a few extra passes over the weights.

    Call `begin(step)` before the forward, `before_update(step)` after backward
    (gradients present, before optimizer.step) and `after_update(step)` after it;
    `after_update` returns the metrics to record. Off-steps cost one modulo.
    """

    def __init__(self, model: nn.Module, every: int = 50) -> None:
        if every < 1:
            raise ValueError(f"sample_every must be >= 1 (got {every})")
        self.model = model
        self.every = every
        self.params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        self.layers = [layer_of(n) for n, _ in self.params]
        self.acts = [
            (n, m) for n, m in model.named_modules() if n and _ACT.search(type(m).__name__)
        ]
        self._hooks: list[Any] = []
        self._dead: dict[str, torch.Tensor] = {}
        self._before: list[torch.Tensor] | None = None
        self._metrics: dict[str, float] = {}

    def due(self, step: int) -> bool:
        return step % self.every == 0

    def begin(self, step: int) -> None:
        if not self.due(step) or self._hooks:
            return
        self._dead = {}
        for name, mod in self.acts:
            self._hooks.append(mod.register_forward_hook(self._act_hook(name)))

    def _act_hook(self, name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: Any, out: Any) -> None:
            if isinstance(out, torch.Tensor) and out.dim() >= 2 and module.training:
                alive = (out.detach().reshape(-1, out.shape[-1]) > 0).any(0)
                prev = self._dead.get(name)
                self._dead[name] = alive if prev is None else prev | alive

        return hook

    @torch.no_grad()
    def before_update(self, step: int) -> None:
        if not self.due(step):
            return
        grads = [p.grad for _, p in self.params]
        have = [i for i, g in enumerate(grads) if g is not None]
        norms = torch._foreach_norm([grads[i] for i in have]) if have else []  # type: ignore[misc]
        sq: dict[str, float] = {}
        for i, n in zip(have, torch.stack(norms).float().tolist() if have else [], strict=False):
            sq[self.layers[i]] = sq.get(self.layers[i], 0.0) + n * n
        self._metrics = {f"layer_grad_norm/{k}": v**0.5 for k, v in sq.items()}
        self._before = [p.detach().clone() for _, p in self.params]

    @torch.no_grad()
    def after_update(self, step: int) -> dict[str, float]:
        if not self.due(step):
            return {}
        out = dict(self._metrics)
        if self._before is not None:
            now = [p.detach() for _, p in self.params]
            delta = torch._foreach_sub(now, self._before)
            dn = torch.stack(torch._foreach_norm(delta)).float().tolist()
            wn = torch.stack(torch._foreach_norm(now)).float().tolist()
            d2: dict[str, float] = {}
            w2: dict[str, float] = {}
            for layer, d, w in zip(self.layers, dn, wn, strict=False):
                d2[layer] = d2.get(layer, 0.0) + d * d
                w2[layer] = w2.get(layer, 0.0) + w * w
            for layer in d2:
                if w2[layer] > 0:
                    out[f"update_ratio/{layer}"] = (d2[layer] / w2[layer]) ** 0.5
            self._before = None
        for name, alive in self._dead.items():
            out[f"dead_units/{name}"] = 1.0 - float(alive.float().mean().item())
        for h in self._hooks:
            h.remove()
        self._hooks, self._dead, self._metrics = [], {}, {}
        return out


class RankSync:
    """Shares each rank's (non-finite flag, step time) through the existing process group.

    Every `every` steps one all_gather of a 2-float tensor per rank: a NaN on
    any rank stops all of them together, and the spread of step times goes to the
    throughput-drop rule, which names a straggler (the slowest rank's median over
    `window` syncs >= `ratio` x the other ranks' median; `window` and `ratio` are its
    straggler_window and straggler_ratio).
    """

    def __init__(self, every: int = 1, ratio: float = 1.5, window: int = 20) -> None:
        import torch.distributed as dist

        self.dist = dist
        self.every = every
        self.ratio = ratio
        self.window = window
        self.active = dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1
        self.world = dist.get_world_size() if self.active else 1
        self._last: float | None = None
        self._times: list[tuple[int, list[float]]] = []  # (step, each rank's step time)
        self._flagged = False
        self._syncs = 0

    def step(
        self, monitor: Monitor, step: int, loss: float | None = None, **metrics: float
    ) -> None:
        """`monitor.step` for a plain distributed loop: every rank reaches the sync
        (a rank that stopped alone would leave the others waiting in it), then all
        raise TrainingStopped together."""
        raising, monitor.raise_on_stop = monitor.raise_on_stop, False
        try:
            monitor.step(step, loss=loss, **metrics)
        finally:
            monitor.raise_on_stop = raising
        self.sync(monitor, step, loss)
        if monitor.stop_finding is not None and raising:
            raise TrainingStopped(monitor.stop_finding)

    def sync(
        self, monitor: Monitor, step: int, loss: float | None, busy_until: float | None = None
    ) -> bool:
        """Returns True when another rank saw a non-finite loss.

        The step time compared across ranks runs from the previous sync to
        `busy_until` (the end of the last forward: data loading + forward, before
        any DDP all-reduce evens the ranks out), or to now without it.
        """
        now = time.monotonic()
        end = busy_until if busy_until is not None and self._last is not None else now
        dt = end - self._last if self._last is not None and end > self._last else 0.0
        self._last = now
        if not self.active or step % self.every:
            return False
        bad = loss is not None and not (loss == loss and abs(loss) != float("inf"))
        backend = self.dist.get_backend()
        device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None
        mine = torch.tensor([float(bad), dt], dtype=torch.float64, device=device)
        out = [torch.empty_like(mine) for _ in range(self.world)]
        self.dist.all_gather(out, mine)
        rows = torch.stack(out).cpu().tolist()
        flags = [r[0] for r in rows]
        self._straggler(monitor, step, [r[1] for r in rows])
        if any(flags) and not bad:
            who = [i for i, f in enumerate(flags) if f]
            monitor.report(
                "nonfinite-loss",
                Hit(
                    title=f"Loss is non-finite on rank(s) {who} at step {step}",
                    step=step,
                    evidence={"ranks": who, "first_bad_step": step},
                    explanation="Another rank's loss is NaN/Inf; its gradients reach every "
                    "rank through the all-reduce, so the whole run is affected.",
                    prescription="Inspect that rank's batch at this step (empty or fully "
                    "masked samples give 0/0) and the precision (bf16 over fp16).",
                ),
            )
            return True
        return False

    def _straggler(self, monitor: Monitor, step: int, times: list[float]) -> None:
        """Hand the ranks' recent step times to the throughput-drop rule, which names
        a straggler (the window and ratio given here are its parameters)."""
        if min(times) <= 0 or self._flagged:
            return
        self._times.append((step, times))
        self._times = self._times[-self.window :]
        self._syncs += 1
        # Judged every window/4 syncs (5 of 20), not every one: a straggler is named a
        # few steps later, and the rule's ~0.3 ms stays off most steps.
        if len(self._times) < self.window or self._syncs % max(1, self.window // 4):
            return
        spec = monitor.rules.get("throughput-drop")
        if spec is None:
            return
        params = replace(spec.params, straggler_ratio=self.ratio, straggler_window=self.window)
        steps = [s for s, _ in self._times]
        series = {
            f"{RANK_STEP_TIME}{r}": Series.from_arrays(
                f"{RANK_STEP_TIME}{r}", steps, [t[r] for _, t in self._times], source="RankSync"
            )
            for r in range(len(times))
        }
        found = monitor.judge(Run(monitor.name, series), [replace(spec, params=params)])
        self._flagged = bool(found)  # named once; the check stops costing anything
