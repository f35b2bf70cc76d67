#!/usr/bin/env python3
"""Generate the TensorBoard fixtures: reader assets and two corpus cases, all written by real writers.

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_tb_fixtures.py [--assets] [--corpus [--only NAME ...]]

Needs in .venv-train: torch (SummaryWriter), tensorboard, tensorboardX, lightning, transformers.

tests/readers/assets/tensorboard/ (README.md there says the same, per dir):
  torch_mixed/   torch SummaryWriter: simple_value, new_style float and double, text, histogram,
                 a 66-byte tag, steps 2**40 and -5, add_scalars sub-dirs (loss_train/, loss_val/)
  tbx/           tensorboardX SummaryWriter: simple_value, plain and with display_name metadata
  tf2/           TF2-style scalars (TensorFlow is not installed): tensorboard's own protos,
                 Value{tensor{DT_FLOAT, tensor_shape{}, tensor_content}, metadata{scalars,
                 data_class SCALAR}} as the TF2 summary kernel writes them, framed by
                 tensorboard's EventFileWriter; tag tf1/stripped has metadata on its first event
                 only (TF1 FileWriter behaviour)
  resume/        two torch writers in one dir: steps 0..29, then a restart at 20..39
  lightning_tb/  Lightning 2.6 TensorBoardLogger: lightning_logs/version_0/{events,hparams.yaml}
  keras/         Keras 3.15 (TensorFlow 2.21) model.fit + TensorBoard callback, 12 epochs with
                 validation: train/ and validation/ writers (--keras, in a venv with tensorflow)
  keras_batch/   the same with update_freq=4: batch_* and evaluation_*_vs_iterations tags too
  encoder/       SummaryWriter scalars at fixed wall times (steps 0, 1, 300, 2**40, -5): the bench's
                 encoder must reproduce these bytes
  expected.json  every scalar point of the dirs above, decoded by tensorboard's event_pb2 (the
                 reference the reader is tested against)
tests/corpus/tensorboard-hf-{healthy,lr-too-high}/: HF Trainer + TensorBoardCallback (what
  report_to=["tensorboard"] adds), only runs/<date_host>/events.out.tfevents.* kept.
tests/corpus/tensorboard-hf-resume-{healthy,schedule-restarted}/: the same, stopped at
  checkpoint-150 and resumed to 300 by a second Trainer, which writes a second dated dir under
  runs/; the broken one had its scheduler.pt deleted before the resume.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import struct
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "tests/readers/assets/tensorboard"
T0 = 1_700_000_000.0
ARGS = {
    "output_dir": "out",
    "learning_rate": 3e-4,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 7,
    "per_device_train_batch_size": 4,
    "gradient_accumulation_steps": 8,
    "max_grad_norm": 0.5,
    "bf16": True,
    "fp16": False,
}


def torch_mixed(d: Path) -> None:
    import numpy as np
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(d))
    w.add_text("args", json.dumps(ARGS, indent=2), 0, walltime=T0)
    for s in range(20):
        w.add_scalar("train/loss", 3.0 - 0.1 * s, s, walltime=T0 + s)
        w.add_scalar("train/learning_rate", 1e-3, s, walltime=T0 + s)
        if s % 5 == 0:
            w.add_histogram("weights", np.arange(10.0) + s, s, walltime=T0 + s)
            w.add_scalars("loss", {"train": 2.5 - s / 10, "val": 2.6 - s / 20}, s, walltime=T0 + s)
    for s in range(10):
        w.add_scalar("ns/loss", 1.0 / (s + 1), s, walltime=T0 + s, new_style=True)
        w.add_scalar(
            "ns/double", 1 / 3 + s, s, walltime=T0 + s, new_style=True, double_precision=True
        )
    w.add_scalar("a/" + "very_long_tag_" * 4 + "x" * 8, 7.5, 3, walltime=T0 + 3)  # 66 bytes
    w.add_scalar("odd/steps", 1.5, 2**40, walltime=T0 + 30)
    w.add_scalar("odd/steps", 2.5, -5, walltime=T0 + 31)
    w.add_scalar("nan/loss", float("nan"), 1, walltime=T0 + 1)
    w.add_scalar("nan/loss", float("inf"), 2, walltime=T0 + 2)
    w.close()


def tbx(d: Path) -> None:
    import tensorboardX

    w = tensorboardX.SummaryWriter(str(d))
    for s in range(10):
        w.add_scalar("train/loss", 2.0 - 0.05 * s, s, walltime=T0 + s)
        w.add_scalar(
            "train/desc", 0.5 * s, s, walltime=T0 + s, display_name="D", summary_description="d"
        )
    w.close()


def tf2(d: Path) -> None:
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    def value(tag: str, x: float, meta: bool) -> summary_pb2.Summary.Value:
        t = tensor_pb2.TensorProto(
            dtype=1,
            tensor_shape=tensor_shape_pb2.TensorShapeProto(),
            tensor_content=struct.pack("<f", x),
        )
        md = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"),
            data_class=summary_pb2.DATA_CLASS_SCALAR,
        )
        return summary_pb2.Summary.Value(tag=tag, tensor=t, metadata=md if meta else None)

    w = EventFileWriter(str(d))
    for s in range(12):
        vals = [value("epoch_loss", 1.0 - s / 20, True), value("tf1/stripped", s / 7, s == 0)]
        for v in vals:
            w.add_event(
                event_pb2.Event(wall_time=T0 + s, step=s, summary=summary_pb2.Summary(value=[v]))
            )
    # a TF1-style event holding two values: not the fast layout, read by the fallback
    two = summary_pb2.Summary(value=[value("multi/a", 1.25, True), value("multi/b", 2.5, True)])
    w.add_event(event_pb2.Event(wall_time=T0 + 20, step=20, summary=two))
    w.close()


def keras(d: Path, update_freq: str | int = "epoch") -> None:
    """Keras 3 (TensorFlow backend) model.fit with the TensorBoard callback: train/, validation/."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras as k
    import numpy as np

    k.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 8)).astype("float32")
    y = (x[:, :4].sum(1) > 0).astype("int32")
    model = k.Sequential([k.Input((8,)), k.layers.Dense(16, activation="relu"), k.layers.Dense(2)])
    model.compile(
        optimizer=k.optimizers.Adam(1e-2),
        loss=k.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    cb = k.callbacks.TensorBoard(log_dir=str(d), write_graph=False, update_freq=update_freq)
    model.fit(x, y, epochs=12, batch_size=32, validation_split=0.25, callbacks=[cb], verbose=0)


def keras_batch(d: Path) -> None:
    """The same with update_freq=4: batch_* every 4 iterations, evaluation_*_vs_iterations."""
    keras(d, update_freq=4)


def resume(d: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(d))
    for s in range(30):
        w.add_scalar("train/loss", 3.0 - s / 30, s, walltime=T0 + s)
    w.close()
    time.sleep(1.1)  # the restarted process opens a new file (its name holds the unix time)
    w = SummaryWriter(str(d))
    for s in range(20, 40):
        w.add_scalar("train/loss", 2.5 - s / 40, s, walltime=T0 + 100 + s)
    w.close()


def lightning_tb(d: Path) -> None:
    import lightning.pytorch as pl
    import torch
    from lightning.pytorch.loggers import TensorBoardLogger

    torch.set_num_threads(1)
    pl.seed_everything(0)

    class M(pl.LightningModule):
        def __init__(self, lr: float = 0.05, batch_size: int = 16):
            super().__init__()
            self.save_hyperparameters()
            self.net = torch.nn.Linear(8, 3)

        def training_step(self, b, i):
            loss = torch.nn.functional.cross_entropy(self.net(b[0]), b[1])
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, b, i):
            self.log("val_loss", torch.nn.functional.cross_entropy(self.net(b[0]), b[1]))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 8, generator=g), torch.randint(3, (64,), generator=g)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    tr = pl.Trainer(
        max_epochs=2,
        logger=TensorBoardLogger(str(d)),
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        num_sanity_val_steps=0,
        accelerator="cpu",
    )
    tr.fit(M(), dl, dl)


def encoder(d: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(d))
    for i, s in enumerate([0, 1, 300, 2**40, -5]):
        w.add_scalar("train/loss", math.sin(i) + 2, s, walltime=T0 + i / 3)
        w.add_scalar("eval/loss", -1.5e-7 * i, s, walltime=T0 + i / 3)
    w.close()


def reference(d: Path) -> dict:
    """Every scalar point per file and tag, by tensorboard's own protos (the reference)."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto import event_pb2
    from tensorboard.util import tensor_util

    out: dict = {}
    for f in sorted(d.rglob("*tfevents*")):
        plugin: dict[str, str] = {}
        tags: dict[str, list] = {}
        for raw in RawEventFileLoader(str(f)).Load():
            ev = event_pb2.Event.FromString(raw)
            for v in ev.summary.value:
                if v.metadata.plugin_data.plugin_name:
                    plugin.setdefault(v.tag, v.metadata.plugin_data.plugin_name)
                if v.HasField("simple_value"):
                    x = v.simple_value
                elif v.HasField("tensor") and plugin.get(v.tag, "scalars") == "scalars":
                    x = float(tensor_util.make_ndarray(v.tensor).item())
                else:
                    continue
                x = x if math.isfinite(x) else str(x)
                tags.setdefault(v.tag, []).append([ev.step, x, ev.wall_time])
        out[f.relative_to(d).as_posix()] = tags
    return out


TORCH_ASSETS = ("torch_mixed", "tbx", "tf2", "resume", "lightning_tb", "encoder")


def make_assets(names: tuple[str, ...] = TORCH_ASSETS) -> None:
    """Regenerate these asset dirs and their references; the others' stay as committed.
    keras/ needs TensorFlow, which .venv-train lacks: in a venv of its own with
    `pip install tensorflow-cpu tensorboard`, run --keras."""
    path = ASSETS / "expected.json"
    ref = json.loads(path.read_text()) if path.is_file() else {}
    fns = [globals()[n] for n in names]
    for fn in fns:
        d = ASSETS / fn.__name__
        shutil.rmtree(d, ignore_errors=True)  # README.md next to them stays
        d.mkdir(parents=True)
        fn(d)
        ref[fn.__name__] = reference(d)
    path.write_text(json.dumps(ref, indent=1) + "\n")


def make_corpus(only: list[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from fixtures import common as mf
    from transformers.integrations import TensorBoardCallback

    cases = {
        "tensorboard-hf-healthy": (
            [],
            dict(
                lr=2e-3, max_steps=100, batch=16, sched="cosine", warmup_ratio=0.03, logging_steps=2
            ),
            "HF Trainer + TensorBoardCallback, the healthy-finetune-cosine recipe (code-pretrained "
            "tiny GPT-2 -> prose, LR 2e-3 cosine, 3% warmup, batch 16, 100 steps); only the event file kept.",
        ),
        "tensorboard-hf-lr-too-high": (
            ["lr-too-high"],
            dict(lr=0.3, max_steps=60, batch=8, accum=2, logging_steps=1, sched="constant"),
            "HF Trainer + TensorBoardCallback (what report_to=['tensorboard'] adds), the lr-too-high "
            "recipe: fine-tune the code-pretrained tiny GPT-2 at constant LR 0.3, no warmup. The loss "
            "jumps from 3.28 to 16.3, then bounces at 3.3-3.8, never below where it started. Only the "
            "event file is kept.",
        ),
    }
    for name, (ids, kw, story) in cases.items():
        if only and name not in only:
            continue
        out = mf.fresh(ROOT / "tests/corpus" / name)
        t = mf.trainer(out, mf.base_model(), mf.prose_ds(), callbacks=[TensorBoardCallback()], **kw)
        t.train()
        _events_only(out)
        loss = [h["loss"] for h in t.state.log_history if "loss" in h]
        also = ["warmup-too-short", "oscillating-plateau"] if ids else None
        mf.expect(out, ids, story, also, loss_first=loss[0], loss_last=loss[-1], loss_max=max(loss))
    resumed = {
        "tensorboard-hf-resume-healthy": ([], None),
        "tensorboard-hf-resume-schedule-restarted": (["schedule-restarted"], "scheduler.pt"),
    }
    for name, (ids, damage) in resumed.items():
        if only and name not in only:
            continue
        out = mf.fresh(ROOT / "tests/corpus" / name)
        kw = dict(
            lr=1e-3,
            max_steps=300,
            batch=8,
            sched="cosine",
            warmup_ratio=0.03,
            logging_steps=2,
            save_steps=150,
        )
        stop = mf.StopAt()(150)
        t = mf.trainer(
            out, mf.new_model(seed=0), mf.code_ds(), callbacks=[stop, TensorBoardCallback()], **kw
        )
        t.train()
        if damage:
            (out / "checkpoint-150" / damage).unlink()
        time.sleep(1.5)  # the resume's own dated runs/ dir, as hours later would give
        t = mf.trainer(
            out, mf.new_model(seed=0), mf.code_ds(), callbacks=[TensorBoardCallback()], **kw
        )
        t.train(resume_from_checkpoint=str(out / "checkpoint-150"))
        _events_only(out)
        lr = {h["step"]: h["learning_rate"] for h in t.state.log_history if "learning_rate" in h}
        story = (
            "HF Trainer + TensorBoardCallback, cosine with 3% warmup over 300 steps; stopped at "
            "checkpoint-150, then resumed by a new Trainer (a second dated dir under runs/). "
            + (
                "scheduler.pt was deleted first, so the schedule restarts its warmup at step 151."
                if damage
                else "Nothing was damaged: the LR continues its cosine."
            )
            + " Only the event files are kept."
        )
        mf.expect(out, ids, story, lr_150=lr.get(150), lr_152=lr.get(152))


def _events_only(out: Path) -> None:
    for p in sorted(out.rglob("*"), key=lambda q: -len(q.parts)):
        if p.is_file() and "tfevents" not in p.name:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--assets", action="store_true")
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--keras", action="store_true", help="also the keras/ asset (needs tensorflow)")
    ap.add_argument("--only", nargs="*", help="corpus case names to regenerate (default: all)")
    a = ap.parse_args()
    if a.keras:
        make_assets(("keras", "keras_batch"))
    elif a.assets or not a.corpus:
        make_assets()
    if a.corpus or not (a.assets or a.keras):
        make_corpus(a.only)
