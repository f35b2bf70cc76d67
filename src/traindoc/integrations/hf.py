"""transformers adapter: `TraindocCallback`, a TrainerCallback around a live Monitor.

    trainer = Trainer(..., callbacks=[TraindocCallback(regime="pretraining")])

Each hook is a guard plus one call. The per-step loss comes from a forward hook
on the model (HF's own per-step loss is not passed to callbacks, and its logged
loss is a window average with NaNs filtered out); vocab_size and the training
arguments are read from the model config and `args`. A stop sets
`control.should_training_stop`, so the Trainer ends the run cleanly.
"""

from __future__ import annotations

from typing import Any

from transformers import TrainerCallback

from traindoc.integrations.torch import LayerSampler, LossCapture, RankSync
from traindoc.live.guard import CallbackSettings, guard
from traindoc.live.monitor import Monitor


class TraindocCallback(TrainerCallback, CallbackSettings):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        CallbackSettings.__init__(self, *args, **kwargs)
        self._loss: LossCapture | None = None

    @guard
    def on_train_begin(
        self, args: Any, state: Any, control: Any, model: Any = None, **kw: Any
    ) -> None:
        config = getattr(model, "config", None)
        settings = self.settings_for(args.output_dir)
        vocab = self.vocab_size or settings.vocab_size or getattr(config, "vocab_size", None)
        facts = {
            "grad_accum": args.gradient_accumulation_steps,
            "per_device_batch": args.per_device_train_batch_size,
            "devices": args.world_size,
            "max_steps": state.max_steps or None,
            "learning_rate": args.learning_rate,
            "max_grad_norm": args.max_grad_norm,
            "logging_steps": args.logging_steps,
            "warmup_steps": args.warmup_steps or None,
            "lr_scheduler": str(getattr(args.lr_scheduler_type, "value", args.lr_scheduler_type)),
            "precision": "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32",
            "trainer": "hf",
        }
        if state.global_step:
            facts["resume_steps"] = (state.global_step,)
        self.monitor = Monitor(
            vocab,
            self.regime,
            output_dir=args.output_dir if self.write else None,
            facts={**facts, **self.monitor_kwargs.pop("facts", {})},
            raise_on_stop=False,
            rank=args.process_index,
            world_size=args.world_size,
            strict=self.strict,
            settings=settings,
            **self.monitor_kwargs,
        )
        if model is not None:
            self._loss = LossCapture(model)
            if self.sample_every:
                self._sampler = LayerSampler(model, self.sample_every)
        if args.world_size > 1:
            self._sync = RankSync()

    @guard
    def on_step_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        if self._sampler is not None:
            self._sampler.begin(state.global_step + 1)

    @guard
    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        if self._sampler is not None:
            self._sampler.before_update(state.global_step + 1)

    @guard
    def on_step_end(
        self, args: Any, state: Any, control: Any, lr_scheduler: Any = None, **kw: Any
    ) -> None:
        m = self.monitor
        if m is None:
            return
        step = state.global_step
        loss = self._loss.take() if self._loss is not None else None
        lr = lr_scheduler.get_last_lr()[0] if lr_scheduler is not None else None
        extra = self._sampler.after_update(step) if self._sampler is not None else {}
        m.step(step, loss=loss, lr=lr, **extra)
        if self._sync is not None:
            busy = self._loss.forward_end if self._loss is not None else None
            self._sync.sync(m, step, loss, busy)
        if m.should_stop:
            control.should_training_stop = True
        elif control.should_save or control.should_evaluate:
            m.expect_pause("checkpoint save" if control.should_save else "evaluation")

    @guard
    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
        # The logged loss is a window average (NaN-filtered): the forward hook has the
        # real per-step one. Only what the callback cannot see per step is taken here.
        if self.monitor is not None and logs and logs.get("grad_norm") is not None:
            self.monitor.record(state.global_step, grad_norm=float(logs["grad_norm"]))
            if self.monitor.should_stop:
                control.should_training_stop = True

    @guard
    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: Any = None, **kw: Any
    ) -> None:
        if self.monitor is not None and metrics and metrics.get("eval_loss") is not None:
            self.monitor.record(state.global_step, eval_loss=float(metrics["eval_loss"]))

    @guard
    def on_prediction_step(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        if self.monitor is not None:
            self.monitor.heartbeat()

    @guard
    def on_train_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        if self._loss is not None:
            self._loss.remove()
        if self.monitor is not None:
            self.monitor.close()

    @property
    def findings(self) -> list[Any]:
        return list(self.monitor.findings) if self.monitor is not None else []
