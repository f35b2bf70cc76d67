"""Lightning adapter: `TraindocCallback`, a lightning Callback around a live Monitor.

    trainer = L.Trainer(..., callbacks=[TraindocCallback(vocab_size=50257)])

Steps are optimizer steps (`trainer.global_step`), the loss the one
`training_step` returned (averaged over accumulated micro-batches). A stop
sets `trainer.should_stop`, which Lightning honours after the current batch.
"""

from __future__ import annotations

import math
from typing import Any

from lightning.pytorch.callbacks import Callback

from traindoc.integrations.torch import LayerSampler, RankSync
from traindoc.live.guard import CallbackSettings, guard
from traindoc.live.monitor import Monitor


class TraindocCallback(Callback, CallbackSettings):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        CallbackSettings.__init__(self, *args, **kwargs)
        self._losses: list[float] = []
        self._seen_step = 0

    @guard
    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        facts = {
            "grad_accum": trainer.accumulate_grad_batches,
            "devices": trainer.world_size,
            "max_steps": trainer.max_steps if trainer.max_steps > 0 else None,
            "max_grad_norm": trainer.gradient_clip_val,
            "trainer": "lightning",
            # where the logger writes (lightning_logs/version_N): the record joins that run
            "log_dir": _relative(getattr(trainer, "log_dir", None), trainer.default_root_dir),
            **self.monitor_kwargs.pop("facts", {}),
        }
        if trainer.global_step:
            facts["resume_steps"] = (trainer.global_step,)
        config = getattr(pl_module, "config", None) or getattr(
            getattr(pl_module, "model", None), "config", None
        )
        settings = self.settings_for(trainer.default_root_dir)
        self.monitor = Monitor(
            self.vocab_size or settings.vocab_size or getattr(config, "vocab_size", None),
            self.regime,
            output_dir=trainer.default_root_dir if self.write else None,
            facts={k: v for k, v in facts.items() if v is not None},
            raise_on_stop=False,
            rank=trainer.global_rank,
            world_size=trainer.world_size,
            strict=self.strict,
            settings=settings,
            **self.monitor_kwargs,
        )
        if self.sample_every:
            self._sampler = LayerSampler(pl_module, self.sample_every)
        if trainer.world_size > 1:
            self._sync = RankSync()
        self._seen_step = trainer.global_step

    @guard
    def on_train_batch_start(
        self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int
    ) -> None:
        if self._sampler is not None:
            self._sampler.begin(trainer.global_step + 1)

    @guard
    def on_before_optimizer_step(self, trainer: Any, pl_module: Any, optimizer: Any) -> None:
        if self._sampler is not None:
            self._sampler.before_update(trainer.global_step + 1)

    @guard
    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        m = self.monitor
        if m is None:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if loss is not None:
            self._losses.append(float(loss.detach().float().item()))
        step = trainer.global_step
        if step == self._seen_step:  # a micro-batch of an accumulated step
            m.heartbeat()
            return
        self._seen_step = step
        value = math.fsum(self._losses) / len(self._losses) if self._losses else None
        self._losses = []
        opt = trainer.optimizers[0] if trainer.optimizers else None
        lr = opt.param_groups[0]["lr"] if opt is not None else None
        extra = self._sampler.after_update(step) if self._sampler is not None else {}
        m.step(step, loss=value, lr=lr, **extra)
        if self._sync is not None:
            self._sync.sync(m, step, value)
        if m.should_stop:
            trainer.should_stop = True

    @guard
    def on_validation_batch_end(self, trainer: Any, *args: Any, **kwargs: Any) -> None:
        if self.monitor is not None:
            self.monitor.heartbeat()

    @guard
    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        val = trainer.callback_metrics.get("val_loss")
        if self.monitor is not None and val is not None:
            self.monitor.record(trainer.global_step, eval_loss=float(val))

    @guard
    def on_train_end(self, trainer: Any, pl_module: Any) -> None:
        if self.monitor is not None:
            self.monitor.close()

    @property
    def findings(self) -> list[Any]:
        return list(self.monitor.findings) if self.monitor is not None else []


def _relative(log_dir: Any, root: Any) -> str | None:
    """log_dir relative to the record's folder when inside it, so a moved run still joins."""
    if not log_dir:
        return None
    import os

    rel = os.path.relpath(os.path.abspath(log_dir), os.path.abspath(root))
    return str(log_dir) if rel.startswith("..") else rel
