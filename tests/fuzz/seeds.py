"""Seed inputs: small real files from the repo (tests/corpus, tests/ckpt/assets),
trimmed, plus a few built here (optimizer.pt, Parquet, YAML) where the repo has none.

A seed is a set of files and the command lines that read them; `{in}` is the
input directory and `{out}` a scratch directory outside it (for --html).
"""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.fuzz import pickles

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "tests" / "corpus"
ASSETS = ROOT / "tests" / "ckpt" / "assets"


@dataclass(frozen=True)
class Seed:
    name: str
    files: dict[str, bytes]
    argvs: tuple[tuple[str, ...], ...]
    # relative path -> mutator kind (see harness.MUTATORS); files not named are left whole
    targets: dict[str, str] = field(default_factory=dict)


def _read(p: Path) -> bytes:
    return p.read_bytes()


def _lines(p: Path, n: int) -> bytes:
    return b"\n".join(p.read_bytes().split(b"\n")[:n]) + b"\n"


def _state(p: Path, n: int = 40) -> bytes:
    doc = json.loads(p.read_text())
    doc["log_history"] = doc.get("log_history", [])[:n]
    return json.dumps(doc, indent=2).encode()


def _tree(root: Path, prefix: str = "") -> dict[str, bytes]:
    return {
        prefix + str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()
    }


def _parquet() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [f"sample {i} says {'yes' if i % 3 else 'no'}" for i in range(60)]
    table = pa.table({"text": rows, "label": [i % 2 for i in range(60)]})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=20, compression="snappy")
    return buf.getvalue()


def _optimizer() -> bytes:
    """optimizer.pt as torch writes it: state {0: {step: 0-d tensor, exp_avg: ...}}."""
    step = pickles.tensor("0", "FloatStorage", ())
    avg = pickles.tensor("1", "FloatStorage", (2, 2))
    per = b"}(" + pickles.text("step") + step + pickles.text("exp_avg") + avg + b"u"
    groups = b"](}(" + pickles.text("lr") + pickles.flt(1e-4) + pickles.text("params")
    groups += b"]" + pickles.num(0) + b"aua"
    body = b"}(" + pickles.text("state") + b"}(" + pickles.num(0) + per + b"u"
    body += pickles.text("param_groups") + groups + b"u"
    import struct

    return pickles.torch_zip(
        {
            "data.pkl": pickles.pickle(body),
            "data/0": struct.pack("<f", 20.0),
            "data/1": struct.pack("<4f", 0.1, 0.2, 0.3, 0.4),
            "version": b"3\n",
        }
    )


def _scheduler() -> bytes:
    body = b"}(" + pickles.text("last_epoch") + pickles.num(20) + pickles.text("base_lrs")
    body += b"]" + pickles.flt(1e-4) + b"au"
    return pickles.torch_zip({"data.pkl": pickles.pickle(body), "version": b"3\n"})


_YAML = b"""base_model: gpt2
learning_rate: 0.0002
micro_batch_size: 4
gradient_accumulation_steps: 2
num_epochs: 3
warmup_ratio: 0.03
lr_scheduler: cosine
adapter: lora
lora_r: 8
sequence_len: 512
bf16: true
"""
_CONSOLE_BARS = (
    b"".join(f"{i}/100 [00:0{i % 10}<00:10, 9.8it/s]\r".encode() + b"\x1b[A" for i in range(30))
    + b"\n{'loss': 2.5, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch': 0.1}\n"
)


@cache
def seeds() -> tuple[Seed, ...]:
    hf = CORPUS / "healthy-finetune-cosine"
    args_bin = _read(hf / "training_args.bin")
    jsonl = _lines(CORPUS / "jsonl-healthy" / "metrics.jsonl", 60)
    ckpt20 = ASSETS / "healthy-run" / "checkpoint-20"
    lf = CORPUS / "llamafactory-healthy" / "output"
    tb = next((CORPUS / "tensorboard-hf-healthy" / "runs").rglob("*tfevents*"))
    wb = next((CORPUS / "wandb-healthy").rglob("*.wandb"))
    rng = random.Random(0)
    sd_pkl, storages = pickles.state_dict(rng)
    own_bin = pickles.torch_zip({"data.pkl": sd_pkl, **storages, "version": b"3\n"})
    d = ("diagnose",)
    out = [
        Seed(
            "jsonl",
            {"metrics.jsonl": jsonl},
            (
                (*d, "{in}/metrics.jsonl", "-f", "json"),
                (*d, "{in}/metrics.jsonl", "--html", "{out}/r.html"),
                (*d, "{in}", "-f", "markdown"),
            ),
            {"metrics.jsonl": "jsonl"},
        ),
        Seed(
            "hf",
            {
                "trainer_state.json": _state(hf / "trainer_state.json"),
                "config.json": _read(hf / "config.json"),
                "training_args.bin": args_bin,
            },
            ((*d, "{in}", "-f", "json"), (*d, "{in}", "--html", "{out}/r.html")),
            {"trainer_state.json": "json", "config.json": "json", "training_args.bin": "zip"},
        ),
        Seed(
            "hf-ckpt",
            {
                "trainer_state.json": _state(ASSETS / "healthy-run" / "trainer_state.json"),
                "checkpoint-20/trainer_state.json": _read(ckpt20 / "trainer_state.json"),
                "checkpoint-20/config.json": _read(ckpt20 / "config.json"),
                "checkpoint-20/model.safetensors": _read(ckpt20 / "model.safetensors"),
                "checkpoint-30/pytorch_model.bin": own_bin,
            },
            ((*d, "{in}", "-f", "json"), ("ckpt", "{in}", "-f", "json")),
            {
                "checkpoint-20/trainer_state.json": "json",
                "checkpoint-20/model.safetensors": "safetensors",
                "checkpoint-30/pytorch_model.bin": "zip",
                "trainer_state.json": "json",
            },
        ),
        Seed(
            "console",
            {"train.log": _read(CORPUS / "console-hf-healthy" / "train.log")},
            ((*d, "{in}/train.log", "-f", "json"), (*d, "{in}/train.log")),
            {"train.log": "text"},
        ),
        Seed(
            "nanogpt",
            {"train.log": _read(CORPUS / "console-nanogpt-healthy" / "train.log")},
            ((*d, "{in}/train.log", "-f", "json"),),
            {"train.log": "text"},
        ),
        Seed(
            "bars",
            {"train.log": _CONSOLE_BARS},
            ((*d, "{in}/train.log", "-f", "json"),),
            {"train.log": "text"},
        ),
        Seed(
            "pattern",
            {"train.log": b"step 1 loss 2.5\nstep 2 loss 2.4\n" + b"x" * 3000 + b"\n"},
            (
                (*d, "{in}/train.log", "--pattern", r"step (?P<step>\d+) loss (?P<loss>\S+)"),
                (*d, "{in}/train.log", "--pattern", r"(?P<loss>(x+x+)+y)"),
                (*d, "{in}/train.log", "--pattern", r"(?P<step>(\d|\d\d|x)*)+!"),
                (*d, "{in}/train.log", "--pattern", r"(?P<loss>["),
            ),
            {"train.log": "text"},
        ),
        Seed(
            "llamafactory",
            {
                "trainer_log.jsonl": _lines(lf / "trainer_log.jsonl", 40),
                "trainer_state.json": _state(lf / "trainer_state.json", 20),
            },
            ((*d, "{in}", "-f", "json"),),
            {"trainer_log.jsonl": "jsonl", "trainer_state.json": "json"},
        ),
        Seed(
            "lightning",
            {
                "metrics.csv": _lines(
                    CORPUS / "lightning-healthy" / "lightning_logs" / "version_0" / "metrics.csv",
                    80,
                )
            },
            ((*d, "{in}/metrics.csv", "-f", "json"),),
            {"metrics.csv": "text"},
        ),
        Seed(
            "mlflow",
            _tree(CORPUS / "mlflow-healthy" / "mlruns", "mlruns/"),
            ((*d, "{in}", "-f", "json"),),
            {"*": "text"},
        ),
        Seed(
            "tensorboard",
            {tb.name: _read(tb)},
            ((*d, "{in}", "-f", "json"), (*d, "{in}/" + tb.name, "--html", "{out}/r.html")),
            {tb.name: "tfrecord"},
        ),
        Seed(
            "wandb",
            {f"wandb/offline-run-1/{wb.name}": _read(wb)},
            ((*d, "{in}", "-f", "json"),),
            {f"wandb/offline-run-1/{wb.name}": "wandb"},
        ),
        Seed(
            "args",
            {"training_args.bin": args_bin},
            (
                (*d, "{in}/training_args.bin"),
                ("preflight", "--config", "{in}/training_args.bin", "-f", "json"),
            ),
            {"training_args.bin": "zip"},
        ),
        Seed(
            "args-raw",
            {
                "training_args.bin": pickles.training_args(
                    {
                        "learning_rate": pickles.flt(1e-4),
                        "per_device_train_batch_size": pickles.num(8),
                        "max_steps": pickles.num(100),
                        "warmup_ratio": pickles.flt(0.1),
                    }
                )
            },
            ((*d, "{in}/training_args.bin"),),
            {"training_args.bin": "pickle"},
        ),
        Seed(
            "safetensors",
            {
                "model.safetensors": _read(ckpt20 / "model.safetensors"),
                "config.json": _read(ckpt20 / "config.json"),
            },
            (
                ("ckpt", "{in}/model.safetensors", "-f", "json"),
                ("ckpt", "{in}"),
                ("preflight", "--model", "{in}", "-f", "json"),
            ),
            {"model.safetensors": "safetensors", "config.json": "json"},
        ),
        Seed(
            "torch-bin",
            {
                "pytorch_model.bin": _read(ASSETS / "formats" / "bin" / "pytorch_model.bin"),
                "config.json": _read(ASSETS / "formats" / "bin" / "config.json"),
            },
            (("ckpt", "{in}/pytorch_model.bin", "-f", "json"), ("ckpt", "{in}")),
            {"pytorch_model.bin": "zip"},
        ),
        Seed(
            "own-bin",
            {"pytorch_model.bin": own_bin},
            (("ckpt", "{in}/pytorch_model.bin", "-f", "json"),),
            {"pytorch_model.bin": "zip"},
        ),
        Seed(
            "resume",
            {
                "checkpoint-20/optimizer.pt": _optimizer(),
                "checkpoint-20/scheduler.pt": _scheduler(),
                "checkpoint-20/trainer_state.json": _read(ckpt20 / "trainer_state.json"),
                "checkpoint-20/training_args.bin": args_bin,
            },
            (
                ("preflight", "--resume", "{in}/checkpoint-20", "-f", "json"),
                ("preflight", "--resume", "{in}/checkpoint-20/optimizer.pt"),
            ),
            {
                "checkpoint-20/optimizer.pt": "zip",
                "checkpoint-20/scheduler.pt": "zip",
                "checkpoint-20/trainer_state.json": "json",
                "checkpoint-20/training_args.bin": "zip",
            },
        ),
        Seed(
            "yaml",
            {
                "axolotl.yml": _YAML,
                "tiny_pt.yaml": _read(CORPUS / "llamafactory-healthy" / "tiny_pt.yaml"),
            },
            (
                ("preflight", "--config", "{in}/axolotl.yml", "-f", "json"),
                ("preflight", "--config", "{in}/tiny_pt.yaml"),
            ),
            {"axolotl.yml": "yaml", "tiny_pt.yaml": "yaml"},
        ),
        Seed(
            "data-jsonl",
            {
                "train.jsonl": _lines(
                    CORPUS / "data-duplicates-overfitting" / "data" / "train.jsonl", 60
                ),
                "eval.jsonl": _lines(
                    CORPUS / "data-duplicates-overfitting" / "data" / "eval.jsonl", 20
                ),
            },
            (
                ("data", "{in}/train.jsonl", "-f", "json"),
                ("data", "{in}/train.jsonl", "--eval", "{in}/eval.jsonl"),
                ("preflight", "--data", "{in}/train.jsonl", "-f", "json"),
            ),
            {"train.jsonl": "jsonl", "eval.jsonl": "jsonl"},
        ),
        Seed(
            "data-csv",
            {
                "train.csv": b"text,label\n"
                + b"".join(f"row {i},{i % 3}\n".encode() for i in range(50))
            },
            (("data", "{in}/train.csv", "-f", "json"),),
            {"train.csv": "text"},
        ),
        Seed(
            "data-parquet",
            {"train.parquet": _parquet()},
            (("data", "{in}/train.parquet", "-f", "json"), ("data", "{in}")),
            {"train.parquet": "parquet"},
        ),
        Seed(
            "compare",
            {"a.jsonl": jsonl, "b.jsonl": jsonl},
            (
                ("compare", "{in}/a.jsonl", "{in}/b.jsonl", "-f", "json"),
                ("compare", "{in}/a.jsonl", "{in}/b.jsonl", "--html", "{out}/c.html"),
            ),
            {"b.jsonl": "jsonl"},
        ),
        Seed(
            "many",
            {"a/metrics.jsonl": jsonl, "b/metrics.jsonl": jsonl},
            ((*d, "{in}", "-f", "json"), (*d, "{in}")),
            {"b/metrics.jsonl": "jsonl"},
        ),
        Seed(
            "watch",
            {"trainer_state.json": _state(hf / "trainer_state.json")},
            (("watch", "{in}", "--once"),),
            {"trainer_state.json": "json"},
        ),
    ]
    return tuple(out)
