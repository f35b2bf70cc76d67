"""Progress prints of real training loops, read the way an engineer reads them.

Each row is one format string as a public training script prints it (its source: repo and
path, or the `find_string` id where the index names no repo), rendered for a short curve
(loss falling with noise, the print's other fields beside it) with the prefixes, timestamps
and carriage returns the script prints. The reading asked of each: the loss series (printed
values, one per record, on the step/epoch axis the log counts), the eval loss, the
accuracy-like metrics and the LR under their names, and one run (no second run invented).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from traindoc.readers import load_runs

N = 12  # records per curve: short, as most pasted logs are
BS = "\b" * 80  # Keras' progress bar rubs its line out with backspaces


@dataclass(frozen=True)
class Pt:
    i: int  # record index 0..N-1
    loss: float
    val: float  # the eval loss at the same record
    acc: float  # an accuracy in [0, 1]
    lr: float


def _curve(n: int = N) -> list[Pt]:
    out = []
    for i in range(n):
        noise = 0.04 * math.sin(7.3 * i + 1.1)
        loss = 0.3 + 2.0 * math.exp(-i / 4) + noise
        val = 0.45 + 1.8 * math.exp(-i / 5) + 0.5 * noise
        acc = 0.95 - 0.8 * math.exp(-i / 4) + noise / 4
        out.append(Pt(i, loss, val, acc, 0.1 * 0.5 ** (i // 4)))
    return out


PTS = _curve()
ALL = lambda p: True  # noqa: E731
EVERY3 = lambda p: p.i % 3 == 2  # noqa: E731
FIRST3 = lambda p: p.i % 3 == 0  # noqa: E731
EVERY4 = lambda p: p.i % 4 == 3  # noqa: E731


@dataclass(frozen=True)
class Fmt:
    id: str
    source: str
    render: Callable[[list[Pt]], str]
    steps: list[float] | None  # the loss's axis as the log counts it; None: any increasing
    decimals: int = 4  # the loss's printed decimals
    loss_of: Callable[[Pt], float] | None = lambda p: p.loss
    want: list[float] | None = None  # the loss values when not one per Pt (bar states)
    eval_at: Callable[[Pt], bool] | None = None  # the records after which an eval loss prints
    eval_of: Callable[[Pt], float] = lambda p: p.val
    metrics: tuple[str, ...] = ()  # series that must be read ("a|b": under either name)
    absent: tuple[str, ...] = ()  # names that must not be read (a misnamed field)
    lr: bool = False  # the print carries the LR
    has_loss: bool = True
    xfail: str = ""  # not read yet, and why no general rule reads it


def _lines(f: Callable[[Pt], str], pts: list[Pt] = PTS) -> str:
    return "".join(f(p) + "\n" for p in pts)


def _clock(i: int) -> str:
    return f"2024-03-01 10:{i // 60:02d}:{i % 60:02d}"


FORMATS: list[Fmt] = [
    Fmt(
        "pytorch_word_language_model",
        "pytorch/examples word_language_model/main.py (find_string 48535437436)",
        lambda pts: "".join(
            f"| epoch {p.i // 3 + 1:3d} | {(p.i % 3 + 1) * 200:5d}/{2983:5d} batches | "
            f"lr {20.0:02.2f} | ms/batch {45.1:5.2f} | loss {p.loss:5.2f} | "
            f"ppl {math.exp(p.loss):8.2f}\n"
            + (
                "-" * 89 + f"\n| end of epoch {p.i // 3 + 1:3d} | time: {140.2:5.2f}s | "
                f"valid loss {p.val:5.2f} | valid ppl {math.exp(p.val):8.2f}\n" + "-" * 89 + "\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=2,
        eval_at=EVERY3,
    ),
    Fmt(
        "tf1_cifar10_train",
        "tensorflow/models tutorials/image/cifar10/cifar10_train.py (find_string 24923248088)",
        lambda pts: _lines(
            lambda p: (
                f"2017-05-01 10:00:{p.i:02d}.123456: step {p.i * 10}, loss = {p.loss:.2f} "
                f"({1210.3:.1f} examples/sec; {0.106:.3f} sec/batch)"
            ),
            pts,
        ),
        [i * 10 for i in range(N)],
        decimals=2,
    ),
    Fmt(
        "darknet_detector",
        "pjreddie/darknet examples/detector.c (find_string 8864594840)",
        lambda pts: _lines(
            lambda p: (
                "Loaded: 0.000035 seconds\nRegion Avg IOU: 0.5, Class: 0.6, Obj: 0.4, "
                f"No Obj: 0.01, Avg Recall: 0.5,  count: 8\n{p.i + 1}: {p.loss:f}, {p.loss:f} avg, "
                f"{p.lr:f} rate, 3.200000 seconds, {(p.i + 1) * 64} images"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "paddle_v2_event_handler",
        "PaddlePaddle book event_handler (find_string 7884450924)",
        lambda pts: _lines(
            lambda p: (
                f"Pass {p.i // 4}, Batch {(p.i % 4) * 100}, Cost {p.loss:f}, "
                f"{{'classification_error_evaluator': {1 - p.acc}}}"
            ),
            pts,
        ),
        None,
        decimals=6,
    ),
    Fmt(
        "mxnet_speedometer_ce",
        "apache/mxnet python/mxnet/callback.py Speedometer; BryanBo-Cao/x mxnet-practice",
        lambda pts: "".join(
            f"INFO:root:Epoch[{p.i // 3}] Batch [{(p.i % 3 + 1) * 100}]\tSpeed: 41641.14 "
            f"samples/sec\taccuracy={p.acc:f}\tcross-entropy={p.loss:f}\n"
            + (
                f"INFO:root:Epoch[{p.i // 3}] Train-accuracy={p.acc:f}\n"
                f"INFO:root:Epoch[{p.i // 3}] Train-cross-entropy={p.loss:f}\n"
                f"INFO:root:Epoch[{p.i // 3}] Time cost=1.429\n"
                f"INFO:root:Epoch[{p.i // 3}] Validation-accuracy={p.acc:f}\n"
                f"INFO:root:Epoch[{p.i // 3}] Validation-cross-entropy={p.val:f}\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=6,
        metrics=("accuracy",),
        eval_at=EVERY3,
    ),
    Fmt(
        "pytorch_imagenet_progress_meter",
        "pytorch/examples imagenet/main.py ProgressMeter",
        lambda pts: "".join(
            f"Epoch: [{p.i // 3}][{(p.i % 3) * 100:4d}/5005]\tTime  0.512 ( 0.533)\t"
            f"Data  0.001 ( 0.020)\tLoss {p.loss:.4e} ({p.loss:.4e})\t"
            f"Acc@1  {100 * p.acc:6.2f} ({100 * p.acc:6.2f})\tAcc@5  {100 * p.acc:6.2f} "
            f"({100 * p.acc:6.2f})\n"
            + (f" *   Acc@1 {100 * p.acc:.3f} Acc@5 {100 * p.acc:.3f}\n" if p.i % 3 == 2 else "")
            for p in pts
        ),
        None,
        decimals=4,
    ),
    Fmt(
        "pytorch_imagenet_prec_at_1_2017",
        "pytorch/examples imagenet/main.py (2017: AverageMeter Prec@1)",
        lambda pts: "".join(
            "Epoch: [{0}][{1}/{2}]\tTime {3:.3f} ({3:.3f})\tData {4:.3f} ({4:.3f})\t"
            "Loss {5:.4f} ({5:.4f})\tPrec@1 {6:.3f} ({6:.3f})\tPrec@5 {6:.3f} ({6:.3f})\n".format(
                p.i // 3, (p.i % 3) * 10, 5005, 0.5, 0.01, p.loss, 100 * p.acc
            )
            + (f" * Prec@1 {100 * p.acc:.3f} Prec@5 {100 * p.acc:.3f}\n" if p.i % 3 == 2 else "")
            for p in pts
        ),
        None,
    ),
    Fmt(
        "torchvision_references_metric_logger",
        "pytorch/vision references/classification/train.py + utils.py MetricLogger",
        lambda pts: "".join(
            f"Epoch: [{p.i // 3}]  [{(p.i % 3) * 10:4d}/5005]  eta: 1:02:03  lr: {p.lr}  "
            f"img/s: 512.3  loss: {p.loss:.4f} ({p.loss:.4f})  acc1: {100 * p.acc:.4f} "
            f"({100 * p.acc:.4f})  acc5: {100 * p.acc:.4f} ({100 * p.acc:.4f})  time: 0.2500  "
            "data: 0.0010  max mem: 10234\n"
            + (f"Test:  Acc@1 {100 * p.acc:.3f} Acc@5 {100 * p.acc:.3f}\n" if p.i % 3 == 2 else "")
            for p in pts
        ),
        None,
        lr=True,
    ),
    Fmt(
        "timm_train",
        "huggingface/pytorch-image-models train.py train_one_epoch/validate",
        lambda pts: "".join(
            f"Train: {p.i // 3} [{(p.i % 3) * 50:4d}/1251 ({(p.i % 3) * 4:3d}%)]  "
            f"Loss: {p.loss:#.3g} ({p.loss:#.3g})  Time: 0.512s,  500.1/s  (0.520s,  492.3/s)  "
            f"LR: {p.lr:.3e}  Data: 0.012 (0.015)\n"
            + (
                f"Test: [  48/48]  Time: 0.101 (0.320)  Loss:  {p.val:.4f} ({p.val:.4f})  "
                f"Acc@1: {100 * p.acc:.4f} ({100 * p.acc:.4f})  Acc@5: {100 * p.acc:.4f} "
                f"({100 * p.acc:.4f})\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=2,
        lr=True,
        eval_at=EVERY3,
    ),
    Fmt(
        "detectron2_events",
        "facebookresearch/detectron2 detectron2/utils/events.py CommonMetricPrinter",
        lambda pts: _lines(
            lambda p: (
                f"[03/14 10:{p.i:02d}:00 d2.utils.events]:  eta: 0:10:00  iter: "
                f"{p.i * 20 + 19}  total_loss: {p.loss:.3f}  loss_cls: {p.loss / 2:.3f}  "
                f"loss_box_reg: {p.loss / 3:.3f}  loss_rpn_cls: {p.loss / 8:.3f}  "
                f"loss_rpn_loc: {p.loss / 24:.3f}  time: 0.4012  data_time: 0.0100  "
                f"lr: {p.lr:.6g}  max_mem: 2042M"
            ),
            pts,
        ),
        [i * 20 + 19 for i in range(N)],
        decimals=3,
        lr=True,
    ),
    Fmt(
        "mmcv_text_logger",
        "open-mmlab/mmcv mmcv/runner/hooks/logger/text.py",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)},123 - mmdet - INFO - Epoch [{p.i // 4 + 1}]"
                f"[{(p.i % 4 + 1) * 50}/200]\tlr: {p.lr:.3e}, eta: 1 day, 0:00:00, time: 0.512, "
                f"data_time: 0.050, memory: 3000, loss_rpn_cls: {p.loss / 8:.4f}, "
                f"loss_rpn_bbox: {p.loss / 10:.4f}, loss_cls: {p.loss / 2:.4f}, "
                f"acc: {100 * p.acc:.4f}, loss_bbox: {p.loss / 4:.4f}, loss: {p.loss:.4f}"
            ),
            pts,
        ),
        None,
        lr=True,
    ),
    Fmt(
        "nanogpt_iter_and_eval",
        "karpathy/nanoGPT train.py",
        lambda pts: "".join(
            (
                f"step {p.i * 10}: train loss {p.loss:.4f}, val loss {p.val:.4f}\n"
                if p.i % 3 == 0
                else ""
            )
            + f"iter {p.i * 10}: loss {p.loss:.4f}, time 105.21ms, mfu 31.20%\n"
            for p in pts
        ),
        [i * 10 for i in range(N)],
        eval_at=FIRST3,
    ),
    Fmt(
        "microgpt_step_of_total",
        "yaneurao/Pytra test/fixtures/signature/ok_fstring_format_spec.py",
        lambda pts: _lines(lambda p: f"step {p.i + 1:4d} / {N:4d} | loss {p.loss:.4f}", pts),
        [i + 1 for i in range(N)],
    ),
    Fmt(
        "llm_c_train_gpt2",
        "karpathy/llm.c train_gpt2.c",
        lambda pts: "".join(
            (f"val loss {p.val:f}\n" if p.i % 3 == 0 else "")
            + f"step {p.i + 1:4d}/{N}: train loss {p.loss:f} (took 1021.315 ms)\n"
            for p in pts
        ),
        [i + 1 for i in range(N)],
        decimals=6,
        eval_at=FIRST3,
    ),
    Fmt(
        "sklearn_mlp_verbose",
        "scikit-learn sklearn/neural_network/_multilayer_perceptron.py",
        lambda pts: _lines(
            lambda p: f"Iteration {p.i + 1}, loss = {p.loss:.8f}\nValidation score: {p.acc:f}",
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=8,
    ),
    Fmt(
        "xgboost_eval_log",
        "dmlc/xgboost python-package/xgboost/callback.py EvaluationMonitor",
        lambda pts: _lines(
            lambda p: f"[{p.i}]\ttrain-logloss:{p.loss:.5f}\teval-logloss:{p.val:.5f}", pts
        ),
        list(range(N)),
        decimals=5,
        eval_at=ALL,
    ),
    Fmt(
        "lightgbm_log_evaluation",
        "microsoft/LightGBM python-package/lightgbm/callback.py log_evaluation",
        lambda pts: _lines(
            lambda p: (
                f"[{p.i + 1}]\ttraining's binary_logloss: {p.loss:g}\t"
                f"valid_1's binary_logloss: {p.val:g}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=5,
        eval_at=ALL,
    ),
    Fmt(
        "keras_fit_verbose2",
        "keras-team/keras keras/src/utils/progbar.py (verbose=2)",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1}/{N}\n1875/1875 - 3s - 2ms/step - accuracy: {p.acc:.4f} - "
                f"loss: {p.loss:.4f} - val_accuracy: {p.acc:.4f} - val_loss: {p.val:.4f}"
            ),
            pts,
        ),
        [(i + 1) * 1875 for i in range(N)],  # batches, as the bar counts
        eval_at=ALL,
        metrics=("accuracy", "eval_accuracy|val_accuracy"),
    ),
    Fmt(
        "fastai_table",
        "fastai/fastai fastai/callback/progress.py",
        lambda pts: (
            "epoch     train_loss  valid_loss  accuracy  time    \n"
            + _lines(
                lambda p: f"{p.i:<9} {p.loss:<11.6f} {p.val:<11.6f} {p.acc:<9.6f} 00:12   ", pts
            )
        ),
        list(range(N)),
        decimals=6,
        eval_at=ALL,
        metrics=("eval_accuracy",),
    ),
    Fmt(
        "hf_trainer_console_dicts",
        "huggingface/transformers src/transformers/trainer.py (log)",
        lambda pts: _lines(
            lambda p: (
                f"{{'loss': {p.loss:.4f}, 'grad_norm': 1.234, 'learning_rate': {p.lr}, "
                f"'epoch': {(p.i + 1) / 4}}}"
            ),
            pts,
        ),
        None,
        lr=True,
    ),
    Fmt(
        "tqdm_set_postfix_epoch_bars",
        "tqdm set_postfix in a plain loop (dhairyag/ImageNet1k_ResNet50 log_output.md shape)",
        lambda pts: "".join(
            f"\r  0%|          | 0/50 [00:00<?, ?it/s]\rEpoch {p.i}: 50%|#####     | 25/50 "
            f"[00:05<00:05,  4.90it/s, loss={p.loss + 0.1:.3f}, acc={p.acc:.3f}]"
            f"\rEpoch {p.i}: 100%|##########| 50/50 [00:10<00:00,  4.90it/s, "
            f"loss={p.loss:.3f}, acc={p.acc:.3f}]\n"
            for p in pts
        ),
        [e * 50 + k for e in range(N) for k in (25, 50)],
        decimals=3,
        loss_of=None,
        want=[v for p in PTS for v in (p.loss + 0.1, p.loss)],
    ),
    Fmt(
        "fairseq_train_inner_and_valid",
        "facebookresearch/fairseq fairseq/logging/progress_bar.py (simple)",
        lambda pts: "".join(
            f"{_clock(p.i)} | INFO | train_inner | epoch {p.i // 3 + 1:03d}:    "
            f"{(p.i % 3 + 1) * 100} / 300 loss={p.loss:.3f}, nll_loss={p.loss * 0.9:.3f}, "
            f"ppl={2**p.loss:.2f}, wps=12000, ups=3.1, wpb=4000, bsz=128, "
            f"num_updates={(p.i + 1) * 100}, lr={p.lr:g}, gnorm=1.23, train_wall=30, wall=60\n"
            + (
                f"{_clock(p.i)} | INFO | valid | epoch {p.i // 3 + 1:03d} | valid on 'valid' "
                f"subset | loss {p.val:.3f} | nll_loss {p.val * 0.9:.3f} | "
                f"ppl {2**p.val:.2f} | wps 30000 | wpb 4000 | bsz 128 | "
                f"num_updates {(p.i + 1) * 100}\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        [(i + 1) * 100 for i in range(N)],
        decimals=3,
        lr=True,
        eval_at=EVERY3,
    ),
    Fmt(
        "opennmt_statistics",
        "OpenNMT/OpenNMT-py onmt/utils/statistics.py output",
        lambda pts: _lines(
            lambda p: (
                f"[{_clock(p.i)},000 INFO] Step {(p.i + 1) * 50}/100000; "
                f"acc: {100 * p.acc:6.2f}; ppl: {math.exp(p.loss):5.2f}; xent: {p.loss:4.2f}; "
                f"lr: {p.lr:7.5f}; 3000/3100 tok/s;     10 sec"
            ),
            pts,
        ),
        [(i + 1) * 50 for i in range(N)],
        decimals=2,
        lr=True,
    ),
    Fmt(
        "cleanrl_episodic_return",
        "vwxyzjn/cleanrl cleanrl/ppo.py",
        lambda pts: _lines(
            lambda p: f"global_step={(p.i + 1) * 500}, episodic_return={10 + 15 * p.acc:.1f}",
            pts,
        ),
        None,
        has_loss=False,
        metrics=("reward",),
    ),
    Fmt(
        "pytorch_mnist_example",
        "pytorch/examples mnist/main.py",
        lambda pts: "".join(
            f"Train Epoch: {p.i // 3 + 1} [{(p.i % 3) * 640}/60000 ({(p.i % 3) * 1:.0f}%)]"
            f"\tLoss: {p.loss:.6f}\n"
            + (
                f"\nTest set: Average loss: {p.val:.4f}, Accuracy: {int(p.acc * 10000)}/10000 "
                f"({100 * p.acc:.0f}%)\n\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=6,
        eval_at=EVERY3,
    ),
    Fmt(
        "tf_estimator_hooks",
        "tensorflow/estimator basic_session_run_hooks.py LoggingTensorHook/StepCounterHook",
        lambda pts: _lines(
            lambda p: (
                f"INFO:tensorflow:loss = {p.loss}, step = {p.i * 100 + 1}"
                + (" (2.103 sec)" if p.i else "")
                + ("\nINFO:tensorflow:global_step/sec: 47.55" if p.i else "")
            ),
            pts,
        ),
        [i * 100 + 1 for i in range(N)],
        decimals=12,
    ),
    Fmt(
        "julia_flux_info_line",
        "HybridModelling LuxBackend _default_callback (find_string 45453361760)",
        lambda pts: _lines(lambda p: f"[ Info: Epoch {(p.i + 1) * 10}: Loss = {p.loss}", pts),
        [(i + 1) * 10 for i in range(N)],
        decimals=12,
    ),
    Fmt(
        "julia_flux_info_kwargs",
        'Flux GNN example `@info "Epoch $epoch" loss=...` (find_string 67450898105)',
        lambda pts: _lines(lambda p: f"┌ Info: Epoch {p.i + 1}\n└   loss = {p.loss}", pts),
        [i + 1 for i in range(N)],
        decimals=12,
    ),
    Fmt(
        "r_luz_fit",
        "mlverse/luz R/callbacks.R (luz_callback_print_progress)",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1}/{N}\nTrain metrics: Loss: {p.loss:.4f} - "
                f"Acc: {p.acc:.4f}\nValid metrics: Loss: {p.val:.4f} - Acc: {p.acc:.4f}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        eval_at=ALL,
    ),
    Fmt(
        "dgl_graphsage_sampling",
        "dmlc/dgl examples/pytorch/graphsage/train_sampling.py; SijingYu/GraphSAGE_MultiGPU loss.md",
        lambda pts: "".join(
            f"Epoch {p.i // 2:05d} | Step {(p.i % 2) * 20:05d} | Loss {p.loss:.4f} | "
            f"Train Acc {p.acc:.4f} | Speed (samples/sec) 43672.9658 | GPU 401.2 MB\n"
            + ("Epoch Time(s): 7.2513\n" if p.i % 2 else "")
            for p in pts
        ),
        None,
        metrics=("train_acc",),
    ),
    Fmt(
        "dgl_gcn",
        "dmlc/dgl examples/pytorch/gcn/train.py",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i:05d} | Time(s) 0.0123 | Loss {p.loss:.4f} | "
                f"Accuracy {p.acc:.4f} | ETputs(KTEPS) 856.12"
            ),
            pts,
        ),
        list(range(N)),
    ),
    Fmt(
        "noprop_epoch_line",
        "gaggenwaschke/NoProp logs/log_cifar100.md",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1:02d} loss {p.loss:.4f} | train 2.1s"
                + (f" | Acc {100 * p.acc:.2f}% | infer 4.4s" if p.i % 4 == 3 else "")
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
    ),
    Fmt(
        "finch_step_of_total",
        "zwjyyc/finch nlp-models/tensorflow/concat_conv_1d_text_clf_imdb_test.md",
        lambda pts: "".join(
            f"Epoch {p.i // 4 + 1}/3 | Step {(p.i % 4 + 1) * 50}/781 | train_loss: {p.loss:.4f} "
            f"| train_acc: {p.acc:.4f} | lr: {p.lr:.4f}\n"
            + (
                f"Epoch {p.i // 4 + 1}/3 | train_loss: {p.loss:.4f} | train_acc: {p.acc:.4f} | "
                f"test_loss: {p.val:.4f} | test_acc: {p.acc:.4f} | lr: {p.lr:.4f}\n"
                if p.i % 4 == 3
                else ""
            )
            for p in pts
        ),
        None,
        lr=True,
        eval_at=EVERY4,
    ),
    Fmt(
        "transfer_learning_tutorial",
        "pytorch/tutorials beginner_source/transfer_learning_tutorial.py",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i}/{N - 1}\n----------\ntrain Loss: {p.loss:.4f} "
                f"Acc: {p.acc:.4f}\nval Loss: {p.val:.4f} Acc: {p.acc:.4f}\n"
            ),
            pts,
        ),
        list(range(N)),
        eval_at=ALL,
    ),
    Fmt(
        "resnet_top1_top5",
        "deep-learning-algorithm/ResNet docs/resnet/log-resnet_18-vs-34-vs-50.md",
        lambda pts: _lines(
            lambda p: (
                f"resnet-50 - Epoch {p.i}/{N - 1}\n----------\ntrain Loss: {p.loss:.4f} "
                f"Top-1 Acc: {100 * p.acc:.4f} Top-5 Acc: {100 * p.acc:.4f}\ntest Loss: "
                f"{p.val:.4f} Top-1 Acc: {100 * p.acc:.4f} Top-5 Acc: {100 * p.acc:.4f}"
            ),
            pts,
        ),
        list(range(N)),
        eval_at=ALL,
    ),
    Fmt(
        "markdown_tensor_repr",
        "icelandman2/helping_hands classifier/exps/logs/resnet152.md",
        lambda pts: _lines(
            lambda p: (
                f"#### Epoch {p.i}/{N - 1}\ntrain loss: {p.loss:.11f}, acc: "
                f"tensor({p.acc:.4f}, device='cuda:0', dtype=torch.float64)<br>\nval loss: "
                f"{p.val:.11f}, acc: tensor({p.acc:.4f}, device='cuda:0', dtype=torch.float64)<br>\n"
            ),
            pts,
        ),
        list(range(N)),
        decimals=11,
        eval_at=ALL,
    ),
    Fmt(
        "cat_dog_bracket_epoch",
        "Aum2010/pytorch-cat-dog-simple-cnn workspace/torch-cats-dogs/logs.py",
        lambda pts: _lines(
            lambda p: f"[Epoch {p.i + 1}] Loss: {p.loss:.4f} | Accuracy: {p.acc * 100:.2f}%", pts
        ),
        [i + 1 for i in range(N)],
    ),
    Fmt(
        "keras_callback_no_epoch",
        "MichelleChaoChen/error-estimate-for-fem src/show_progress.py",
        lambda pts: _lines(lambda p: f"Loss = {p.loss} Validation Loss = {p.val}", pts),
        None,
        decimals=12,
        eval_at=ALL,
    ),
    Fmt(
        "epoch_pipe_train_test",
        "print_losses: 'Epoch: {epoch:3d}, Train loss: ..., Test loss: ...' (search: code)",
        lambda pts: _lines(
            lambda p: f"Epoch: {p.i:3d}, Train loss: {p.loss:3.3f}, Test loss: {p.val:3.3f}", pts
        ),
        list(range(N)),
        decimals=3,
        eval_at=ALL,
    ),
    Fmt(
        "monai_spleen_tutorial",
        "Project-MONAI/tutorials 3d_segmentation/spleen_segmentation_3d.ipynb",
        lambda pts: "".join(
            "----------\n"
            f"epoch {p.i + 1}/{N}\n"
            + "".join(f"{b}/4, train_loss: {p.loss + 0.02 * (2 - b):.4f}\n" for b in range(1, 5))
            + f"epoch {p.i + 1} average loss: {p.loss:.4f}\n"
            for p in pts
        ),
        [float(k) for k in range(1, 4 * N + 1)],  # the batch lines, 4 an epoch
        loss_of=None,
        want=[p.loss + 0.02 * (2 - b) for p in PTS for b in range(1, 5)],
    ),
    Fmt(
        "pyg_gcn_example",
        "pyg-team/pytorch_geometric examples/gcn.py",
        lambda pts: _lines(
            lambda p: (
                f"Epoch: {p.i + 1:03d}, Loss: {p.loss:.4f}, Train: {p.acc:.4f}, "
                f"Val: {p.acc - 0.05:.4f}, Test: {p.acc - 0.06:.4f}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        absent=("eval_loss",),
    ),
    Fmt(
        "clu_logging_writer",
        "google/CommonLoopUtils clu/metric_writers/logging_writer.py",
        lambda pts: _lines(
            lambda p: (
                f"I0301 10:00:{p.i:02d}.123456 140 logging_writer.py:48] "
                f"[{(p.i + 1) * 100}] learning_rate={p.lr}, train_accuracy={p.acc}, "
                f"train_loss={p.loss}"
            ),
            pts,
        ),
        [(i + 1) * 100 for i in range(N)],
        decimals=12,
        lr=True,
    ),
    Fmt(
        "flax_mnist_example",
        "google/flax examples/mnist/train.py",
        lambda pts: _lines(
            lambda p: (
                f"I0301 10:00:{p.i:02d}.1 1 train.py:150] epoch:{p.i + 1: 3d}, "
                f"train_loss: {p.loss:.4f}, train_accuracy: {100 * p.acc:.2f}, "
                f"test_loss: {p.val:.4f}, test_accuracy: {100 * p.acc:.2f}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        eval_at=ALL,
    ),
    Fmt(
        "gluoncv_cifar_train_val",
        "dmlc/gluon-cv scripts/classification/cifar/train_cifar10.py",
        lambda pts: _lines(
            lambda p: (
                f"INFO:root:[Epoch {p.i}] train={p.acc:f} val={p.acc - 0.03:f} "
                f"loss={p.loss:f} time: 25.31"
            ),
            pts,
        ),
        list(range(N)),
        decimals=6,
        absent=("eval_loss",),
    ),
    Fmt(
        "espnet2_reporter",
        "espnet/espnet espnet2/train/reporter.py + trainer.py",
        lambda pts: "".join(
            f"[host] {_clock(p.i)},100 (trainer:{700 + p.i}) INFO: {p.i // 3 + 1}epoch:train:"
            f"{(p.i % 3) * 100 + 1}-{(p.i % 3 + 1) * 100}batch: iter_time=1.2e-04, "
            f"forward_time=0.101, loss={p.loss * 100:.3f}, acc={p.acc:.3f}, "
            f"backward_time=0.090, optim_step_time=0.010, optim0_lr0={p.lr:.3e}, "
            "train_time=0.250\n"
            for p in pts
        ),
        None,
        decimals=1,
        loss_of=lambda p: p.loss * 100,
        lr=True,
    ),
    Fmt(
        "tf2_quickstart_advanced",
        "tensorflow/docs site/en/tutorials/quickstart/advanced.ipynb",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1}, Loss: {p.loss}, Accuracy: {100 * p.acc}, "
                f"Test Loss: {p.val}, Test Accuracy: {100 * p.acc}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=12,
        eval_at=ALL,
    ),
    Fmt(
        "yolox_loguru",
        "Megvii-BaseDetection/YOLOX yolox/core/trainer.py after_iter",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)} | INFO     | yolox.core.trainer:261 - epoch: "
                f"{p.i // 4 + 1}/300, iter: {(p.i % 4 + 1) * 10}/40, mem: 5000Mb, iter_time: 0.512s, "
                f"data_time: 0.010s, total_loss: {p.loss:.1f}, iou_loss: {p.loss / 3:.1f}, "
                f"l1_loss: 0.0, conf_loss: {p.loss / 2:.1f}, cls_loss: {p.loss / 6:.1f}, "
                f"lr: {p.lr:.3e}, size: 640, ETA: 10 days, 1:02:03"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],  # (epoch - 1) * 40 + iter
        decimals=1,
        lr=True,
    ),
    Fmt(
        "allennlp_tqdm_description",
        "allenai/allennlp allennlp/training/util.py description_from_metrics",
        lambda pts: "".join(
            f"accuracy: {p.acc:.4f}, loss: {p.loss + 0.05:.4f} ||:  50%|#####     | 25/50 "
            f"[00:05<00:05,  4.90it/s]\raccuracy: {p.acc:.4f}, loss: {p.loss:.4f} ||: "
            "100%|##########| 50/50 [00:10<00:00,  4.90it/s]\n"
            for p in pts
        ),
        [e * 50 + k for e in range(N) for k in (25, 50)],
        loss_of=None,
        want=[v for p in PTS for v in (p.loss + 0.05, p.loss)],
    ),
    Fmt(
        "loguru_plain_loop",
        "loguru default format around a plain `Epoch {e} | loss: ... | val_loss: ...`",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)}.123 | INFO     | __main__:train:42 - Epoch {p.i + 1} | "
                f"loss: {p.loss:.4f} | val_loss: {p.val:.4f} | lr: {p.lr:.2e}"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        eval_at=ALL,
        lr=True,
    ),
    Fmt(
        "yunjey_pytorch_tutorial",
        "yunjey/pytorch-tutorial tutorials/*/main.py (find_string 4503244911)",
        lambda pts: _lines(
            lambda p: (
                f"Epoch [{p.i // 4 + 1}/3], Step [{(p.i % 4 + 1) * 100}/600], Loss: {p.loss:.4f}"
            ),
            pts,
        ),
        None,
    ),
    Fmt(
        "ignite_results",
        "pytorch/ignite examples/mnist/mnist.py (find_string 6727308040)",
        lambda pts: _lines(
            lambda p: (
                f"Epoch[{p.i + 1}] Iteration[{(p.i + 1) * 469}/5628] Loss: {p.loss:.2f}\n"
                f"Training Results - Epoch: {p.i + 1}  Avg accuracy: {p.acc:.2f} "
                f"Avg loss: {p.loss:.2f}\nValidation Results - Epoch: {p.i + 1}  "
                f"Avg accuracy: {p.acc:.2f} Avg loss: {p.val:.2f}"
            ),
            pts,
        ),
        None,
        decimals=2,
        eval_at=ALL,
    ),
    Fmt(
        "llms_from_scratch_ep_step",
        "rasbt/LLMs-from-scratch ch05 train_model_simple (find_string 12977245727)",
        lambda pts: _lines(
            lambda p: (
                f"Ep {p.i // 4 + 1} (Step {p.i * 5:06d}): Train loss {p.loss:.3f}, "
                f"Val loss {p.val:.3f}"
            ),
            pts,
        ),
        [i * 5 for i in range(N)],
        decimals=3,
        eval_at=ALL,
    ),
    Fmt(
        "mlx_lm_lora",
        "ml-explore/mlx-examples lora/lora.py train (find_string 1411726877)",
        lambda pts: "".join(
            (
                f"Iter {p.i * 10 + 1}: Val loss {p.val:.3f}, Val took 2.345s\n"
                if p.i % 3 == 0
                else ""
            )
            + f"Iter {(p.i + 1) * 10}: Train loss {p.loss:.3f}, It/sec 1.234, "
            "Tokens/sec 456.789\n"
            for p in pts
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=3,
        eval_at=FIRST3,
    ),
    Fmt(
        "chainer_print_report",
        "chainer/chainer chainer/training/extensions/print_report.py",
        lambda pts: (
            "epoch       main/loss   validation/main/loss  main/accuracy  "
            "validation/main/accuracy  elapsed_time\n"
            + _lines(
                lambda p: (
                    f"{p.i + 1:<11} {p.loss:<11.6g} {p.val:<21.6g} {p.acc:<14.6g} "
                    f"{p.acc:<25.6g} {2.5 * (p.i + 1):.6g}"
                ),
                pts,
            )
        ),
        [i + 1 for i in range(N)],
        decimals=5,
        eval_at=ALL,
    ),
    Fmt(
        "cntk_progress_printer",
        "microsoft/CNTK bindings/python/cntk/logging/progress_print.py",
        lambda pts: _lines(
            lambda p: (
                f"Finished Epoch[{p.i + 1} of {N}]: [Training] loss = {p.loss:.6f} * 60000, "
                f"metric = {100 * (1 - p.acc):.2f}% * 60000 2.345s (25586.4 samples/s);"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=6,
    ),
    Fmt(
        "coqui_tts_console_logger",
        "coqui-ai/TTS TTS/utils/logging/console_logger.py",
        lambda pts: _lines(
            lambda p: (
                f"\n   --> STEP: {p.i * 25}/406 -- GLOBAL_STEP: {p.i * 25 + 25}\n"
                f"     | > loss: {p.loss:.5f}  ({p.loss + 0.1:.5f})\n"
                f"     | > log_mle: {p.loss / 2:.5f}  ({p.loss / 2:.5f})\n"
                f"     | > current_lr: {p.lr:.5f} \n     | > step_time: 0.51230  (0.50000)"
            ),
            pts,
        ),
        [i * 25 + 25 for i in range(N)],
        decimals=5,
        lr=True,
    ),
    Fmt(
        "paddleocr_train",
        "PaddlePaddle/PaddleOCR tools/program.py train",
        lambda pts: _lines(
            lambda p: (
                f"[2024/03/01 10:00:{p.i:02d}] ppocr INFO: epoch: [{p.i // 4 + 1}/500], "
                f"global_step: {(p.i + 1) * 10}, lr: {p.lr:.6f}, acc: {p.acc:.6f}, "
                f"norm_edit_dis: {p.acc:.6f}, loss: {p.loss:.6f}, avg_reader_cost: 0.01000 s, "
                "avg_batch_cost: 0.51000 s, avg_samples: 64.0, ips: 125.49 samples/s, "
                "eta: 1 day, 2:03:04"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "mmengine_logger",
        "open-mmlab/mmengine mmengine/runner/log_processor.py",
        lambda pts: _lines(
            lambda p: (
                f"03/01 10:00:{p.i:02d} - mmengine - INFO - Epoch(train)  "
                f"[{p.i // 4 + 1}][{(p.i % 4 + 1) * 50}/200]  base_lr: {p.lr:.4e} lr: {p.lr:.4e}  "
                f"eta: 1:02:03  time: 0.5123  data_time: 0.0100  memory: 3000  "
                f"loss: {p.loss:.4f}  loss_cls: {p.loss / 2:.4f}  loss_bbox: {p.loss / 2:.4f}"
            ),
            pts,
        ),
        None,
        lr=True,
    ),
    Fmt(
        "catboost_verbose",
        "catboost/catboost (verbose metric line)",
        lambda pts: _lines(
            lambda p: (
                f"{p.i}:\tlearn: {p.loss:.7f}\ttest: {p.val:.7f}\tbest: {p.val:.7f} ({p.i})"
                f"\ttotal: {10 * p.i + 5}ms\tremaining: 1.2s"
            ),
            pts,
        ),
        list(range(N)),
        decimals=7,
        eval_at=ALL,
    ),
    Fmt(
        "tensorpack_monitor",
        "tensorpack/tensorpack tensorpack/callbacks/monitor.py ScalarPrinter",
        lambda pts: _lines(
            lambda p: (
                f"[0301 10:00:{p.i:02d} @base.py:285] Epoch {p.i + 1} (global_step "
                f"{(p.i + 1) * 500}) finished, time:12.3 seconds.\n"
                f"[0301 10:00:{p.i:02d} @monitor.py:474] cross_entropy_loss: {p.loss:.5f}\n"
                f"[0301 10:00:{p.i:02d} @monitor.py:474] learning_rate: {p.lr}\n"
                f"[0301 10:00:{p.i:02d} @monitor.py:474] val-error-top1: {1 - p.acc:.5f}"
            ),
            pts,
        ),
        [(i + 1) * 500 for i in range(N)],  # its global_step
        decimals=5,
        lr=True,
    ),
    Fmt(
        "lightning_tqdm_bar",
        "Lightning src/lightning/pytorch/callbacks/progress/tqdm_progress.py",
        lambda pts: "".join(
            f"\rEpoch {p.i}:  50%|#####     | 50/100 [00:02<00:02, 20.00it/s, v_num=0, "
            f"train_loss={p.loss + 0.1:.3f}]\rEpoch {p.i}: 100%|##########| 100/100 "
            f"[00:05<00:00, 20.00it/s, v_num=0, train_loss={p.loss:.3f}, val_loss={p.val:.3f}]"
            + ("\n" if p.i == N - 1 else "")
            for p in pts
        ),
        [e * 100 + k for e in range(N) for k in (50, 100)],
        decimals=3,
        loss_of=None,
        want=[v for p in PTS for v in (p.loss + 0.1, p.loss)],
        eval_at=ALL,
    ),
    Fmt(
        "megatron_training_log",
        "NVIDIA/Megatron-LM megatron/training/training.py training_log",
        lambda pts: _lines(
            lambda p: (
                f" [{_clock(p.i)}] iteration      {(p.i + 1) * 10}/     500 | "
                f"consumed samples:         {(p.i + 1) * 5120} | elapsed time per iteration (ms): "
                f"512.3 | learning rate: {p.lr:.6E} | global batch size:   512 | lm loss: "
                f"{p.loss:.6E} | loss scale: 65536.0 | grad norm: 1.234 | number of skipped "
                "iterations:   0 | number of nan iterations:   0 |"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "torchtitan_metrics",
        "pytorch/torchtitan torchtitan/components/metrics.py",
        lambda pts: _lines(
            lambda p: (
                f"[rank0]:[titan] {_clock(p.i)},123 - root - INFO - step: {(p.i + 1) * 10:2}  "
                f"loss: {p.loss:7.4f}  memory: 30.12GiB(38.07%)  tps: 5,123  tflops: 300.12  "
                "mfu: 30.35%"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
    ),
    Fmt(
        "deepspeech_progress",
        "mozilla/DeepSpeech training/deepspeech_training/train.py",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i} |   Training | Elapsed Time: 0:01:02 | Steps: 100 | "
                f"Loss: {p.loss * 40:.6f}\nEpoch {p.i} | Validation | Elapsed Time: 0:00:10 | "
                f"Steps: 20 | Loss: {p.val * 40:.6f} | Dataset: dev.csv"
            ),
            pts,
        ),
        None,
        decimals=6,
        loss_of=lambda p: p.loss * 40,
        eval_of=lambda p: p.val * 40,
        eval_at=ALL,
    ),
    Fmt(
        "spacy_v3_table",
        "explosion/spaCy spacy/training/loggers.py console_logger",
        lambda pts: (
            "E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE \n"
            "---  ------  ------------  --------  ------  ------  ------  ------\n"
            + _lines(
                lambda p: (
                    f"{p.i // 4:>3}  {p.i * 200:>6}  {p.loss * 10:>12.2f}  "
                    f"{p.loss * 100:>8.2f}  {100 * p.acc:>6.2f}  {100 * p.acc:>6.2f}  "
                    f"{100 * p.acc:>6.2f}  {p.acc:>6.2f}"
                ),
                pts,
            )
        ),
        [i * 200 for i in range(N)],
        decimals=2,
        has_loss=False,
    ),
    Fmt(
        "tacotron2_train_loss_iteration",
        "NVIDIA/tacotron2 train.py (find_string 10970059053)",
        lambda pts: "".join(
            f"Train loss {p.i * 10} {p.loss:.6f} Grad Norm {2.1 + p.i / 10:.6f} 1.23s/it\n"
            + (f"Validation loss {p.i * 10}: {p.val:9f}  \n" if p.i % 3 == 2 else "")
            for p in pts
        ),
        [i * 10 for i in range(N)],
        decimals=6,
        eval_at=EVERY3,
    ),
    Fmt(
        "mingpt_bar_description",
        "karpathy/minGPT mingpt/trainer.py (find_string 31223165490)",
        lambda pts: "".join(
            f"\repoch {p.i // 4 + 1} iter {(p.i % 4) * 10}: train loss {p.loss:.5f}. "
            f"lr {p.lr:e}: {(p.i % 4) * 25:3d}%|##        | {(p.i % 4) * 10}/40 "
            "[00:01<00:03, 9.95it/s]" + ("\n" if p.i % 4 == 3 else "")
            for p in pts
        ),
        None,
        decimals=5,
        lr=True,
    ),
    Fmt(
        "pytorch_vae_example",
        "pytorch/examples vae/main.py (find_string 32564075460)",
        lambda pts: "".join(
            f"Train Epoch: {p.i // 3 + 1} [{(p.i % 3) * 12800}/60000 "
            f"({(p.i % 3) * 21:.0f}%)]\tLoss: {p.loss * 100:.6f}\n"
            + (
                f"====> Epoch: {p.i // 3 + 1} Average loss: {p.loss * 100 - 5:.4f}\n"
                f"====> Test set loss: {p.val * 100:.4f}\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=4,
        loss_of=lambda p: p.loss * 100,
        eval_of=lambda p: p.val * 100,
        eval_at=EVERY3,
    ),
    Fmt(
        "mindspore_loss_monitor",
        "mindspore-ai/mindspore train/callback/_loss_monitor.py (find_string 3977415191)",
        lambda pts: _lines(
            lambda p: f"epoch: {p.i // 4 + 1} step: {(p.i % 4 + 1) * 100}, loss is {p.loss:.7f}",
            pts,
        ),
        None,
        decimals=7,
    ),
    Fmt(
        "lasagne_mnist_epoch_block",
        "Lasagne/Lasagne examples/mnist.py (find_string 23013131552)",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1} of {N} took 10.123s\n  training loss:\t\t{p.loss:.6f}\n"
                f"  validation loss:\t\t{p.val:.6f}\n  validation accuracy:\t\t{100 * p.acc:.2f} %"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=6,
        eval_at=ALL,
    ),
    Fmt(
        "tff_round_metrics",
        "tensorflow/federated docs tutorials (find_string 24840143283)",
        lambda pts: _lines(
            lambda p: (
                f"round {p.i + 1:2d}, metrics=OrderedDict([('broadcast', ()), "
                f"('aggregation', OrderedDict([('mean_value', ()), ('mean_weight', ())])), "
                f"('train', OrderedDict([('sparse_categorical_accuracy', {p.acc}), "
                f"('loss', {p.loss}), ('num_examples', 4860), ('num_batches', 248)])), "
                "('stat', OrderedDict([('num_examples', 4860)]))])"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=12,
    ),
    Fmt(
        "pytorch_super_resolution",
        "pytorch/examples super_resolution/main.py",
        lambda pts: _lines(
            lambda p: (
                f"===> Epoch[{p.i // 3 + 1}]({p.i % 3 + 1}/3): Loss: {p.loss:.4f}"
                + (
                    f"\n===> Epoch {p.i // 3 + 1} Complete: Avg. Loss: {p.loss:.4f}\n"
                    f"===> Avg. PSNR: {20 + 5 * p.acc:.4f} dB"
                    if p.i % 3 == 2
                    else ""
                )
            ),
            pts,
        ),
        None,
        loss_of=None,
        want=[p.loss for p in PTS],
    ),
    Fmt(
        "pytorch_seq2seq_tutorial",
        "pytorch/tutorials intermediate_source/seq2seq_translation_tutorial.py",
        lambda pts: _lines(
            lambda p: (
                f"{p.i // 2}m {10 + p.i}s (- {12 - p.i}m 5s) ({(p.i + 1) * 5000} "
                f"{(p.i + 1) * 8}%) {p.loss:.4f}"
            ),
            pts,
        ),
        [(i + 1) * 5000 for i in range(N)],
        xfail="the loss is printed with no name (`(5000 6%) 2.8540`): nothing but the tutorial's code says the last number is a loss",
    ),
    Fmt(
        "fast_neural_style",
        "pytorch/examples fast_neural_style/neural_style/neural_style.py",
        lambda pts: _lines(
            lambda p: (
                f"Mon Mar  4 10:00:{p.i:02d} 2024\tEpoch {p.i // 4 + 1}:\t"
                f"[{(p.i % 4 + 1) * 8000}/83000]\tcontent: {p.loss * 1e5 / 2:.6f}\t"
                f"style: {p.loss * 1e5 / 2:.6f}\ttotal: {p.loss * 1e5:.6f}"
            ),
            pts,
        ),
        None,
        decimals=1,
        loss_of=lambda p: p.loss * 1e5,
        xfail="`content: .. style: .. total: ..` names no loss: `total` is the loss here, a count elsewhere (`correct: 90 total: 100`)",
    ),
    Fmt(
        "flair_model_trainer",
        "flairNLP/flair flair/trainers/trainer.py",
        lambda pts: "".join(
            f"{_clock(p.i)},123 epoch {p.i // 3 + 1} - iter {(p.i % 3 + 1) * 10}/30 - "
            f"loss {p.loss:.8f} - time (sec): 1.23 - samples/sec: 412.35 - lr: {p.lr:.6f}\n"
            + (
                f"{_clock(p.i)},200 {'-' * 20}\n{_clock(p.i)},200 EPOCH {p.i // 3 + 1} done: "
                f"loss {p.loss:.4f} - lr {p.lr:.6f}\n{_clock(p.i)},300 DEV : loss "
                f"{p.val:.8f} - f1-score (micro avg)  {p.acc:.4f}\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        None,
        decimals=8,
        eval_at=EVERY3,
        lr=True,
    ),
    Fmt(
        "marian_training_line",
        "marian-nmt/marian src/training/scheduler.h",
        lambda pts: _lines(
            lambda p: (
                f"[2024-03-01 10:00:{p.i:02d}] Ep. {p.i // 4 + 1} : Up. {(p.i + 1) * 1000} "
                f": Sen. {(p.i + 1) * 100:,}00 : Cost {p.loss:.8f} * 1,234,567 @ 12,345 after "
                f"{(p.i + 1) * 12:,}000 : Time 100.12s : 10123.45 words/s : gNorm 1.2345 : "
                f"L.r. {p.lr:.4e}"
            ),
            pts,
        ),
        [(i + 1) * 1000 for i in range(N)],
        decimals=8,
        lr=True,
    ),
    Fmt(
        "flashlight_asr_epoch_line",
        "flashlight/wav2letter Train.cpp getProgressString",
        lambda pts: _lines(
            lambda p: (
                f"epoch: {p.i + 1:8d} | nupdates: {(p.i + 1) * 1000:11d} | lr: {p.lr:.6f} | "
                f"lrcriterion: 0.000000 | runtime: 00:10:00 | bch(ms): 600.12 | "
                f"loss: {p.loss * 10:10.5f} | train-TER: {50 * p.acc:5.2f} | "
                f"dev-clean-loss: {p.val * 10:10.5f} | dev-clean-TER: {50 * p.acc:5.2f} | "
                "avg-isz: 1200 | avg-tsz: 040 | max-tsz: 081 | hrs:  100.12 | thrpt(sec/sec): 600.1"
            ),
            pts,
        ),
        [(i + 1) * 1000 for i in range(N)],
        decimals=5,
        loss_of=lambda p: p.loss * 10,
        eval_of=lambda p: p.val * 10,
        eval_at=ALL,
        lr=True,
    ),
    Fmt(
        "fasttext_progress",
        "facebookresearch/fastText src/fasttext.cc printInfo",
        lambda pts: (
            "".join(
                f"\rProgress: {100 * (p.i + 1) / N:5.1f}% words/sec/thread:  523456 "
                f"lr:  {p.lr:.6f} avg.loss:  {p.loss:.6f} ETA:   0h 0m{12 - p.i:2d}s"
                for p in pts
            )
            + "\n"
        ),
        None,
        decimals=6,
        lr=True,
    ),
    Fmt(
        "trax_training_loop",
        "google/trax trax/supervised/training.py _log_step / log_summary",
        lambda pts: _lines(
            lambda p: (
                f"\nStep {(p.i + 1) * 100:6d}: Ran 100 train steps in 10.12 secs\n"
                f"Step {(p.i + 1) * 100:6d}: train CrossEntropyLoss |  {p.loss:.8f}\n"
                f"Step {(p.i + 1) * 100:6d}: eval  CrossEntropyLoss |  {p.val:.8f}\n"
                f"Step {(p.i + 1) * 100:6d}: eval          Accuracy |  {p.acc:.8f}"
            ),
            pts,
        ),
        [(i + 1) * 100 for i in range(N)],
        decimals=8,
        eval_at=ALL,
        xfail="`Step 100: train CrossEntropyLoss |  2.33` separates a name from its value by a pipe, which elsewhere separates fields",
    ),
    Fmt(
        "sklearn_hist_gradient_boosting",
        "scikit-learn sklearn/ensemble/_hist_gradient_boosting/gradient_boosting.py",
        lambda pts: (
            "Binning 0.012 GB of training data: 0.123 s\nFitting gradient boosted rounds:\n"
            + _lines(
                lambda p: (
                    f"[{p.i + 1}/{N}] 1 tree, 31 leaves, max depth = 8, train loss: "
                    f"{p.loss:.5f}, val loss: {p.val:.5f}, in 0.012s"
                ),
                pts,
            )
        ),
        [i + 1 for i in range(N)],
        decimals=5,
        eval_at=ALL,
    ),
    Fmt(
        "sklearn_gradient_boosting_table",
        "scikit-learn sklearn/ensemble/_gb.py VerboseReporter",
        lambda pts: (
            "      Iter       Train Loss   Remaining Time \n"
            + _lines(lambda p: f"{p.i + 1:>10d} {p.loss:>16.4f} {12 - p.i:>15.2f}s", pts)
        ),
        [i + 1 for i in range(N)],
    ),
    Fmt(
        "sklearn_sgd_verbose",
        "scikit-learn sklearn/linear_model/_sgd_fast.pyx",
        lambda pts: _lines(
            lambda p: (
                f"-- Epoch {p.i + 1}\nNorm: {1 + p.i / 10:.2f}, NNZs: 784, Bias: -0.123456, "
                f"T: {(p.i + 1) * 60000}, Avg. loss: {p.loss:.6f}\nTotal training time: 0.12 seconds."
            ),
            pts,
        ),
        None,
        decimals=6,
    ),
    Fmt(
        "r_nnet_trace",
        "cran/nnet R/nnet.R (nnet trace=TRUE)",
        lambda pts: (
            "# weights:  19\ninitial  value 165.794\n"
            + _lines(lambda p: f"iter {(p.i + 1) * 10:3d} value {p.loss * 50:.6f}", pts)
            + f"final  value {PTS[-1].loss * 50:.6f} \nconverged\n"
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=6,
        loss_of=lambda p: p.loss * 50,
        xfail="R's optim trace `iter  10 value 116.78` names the objective `value`, a word too generic to read as a loss",
    ),
    Fmt(
        "matlab_trainnetwork_verbose",
        "MATLAB Deep Learning Toolbox trainNetwork (Verbose=true) table",
        lambda pts: (
            "|========================================================================================|\n"
            "|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Mini-batch  |  Base Learning  |\n"
            "|         |             |   (hh:mm:ss)   |   Accuracy   |     Loss     |      Rate       |\n"
            "|========================================================================================|\n"
            + _lines(
                lambda p: (
                    f"| {p.i // 4 + 1:7d} | {(p.i + 1) * 50:11d} |       00:00:{p.i:02d} | "
                    f"{100 * p.acc:11.2f}% | {p.loss:12.4f} | {p.lr:15.4f} |"
                ),
                pts,
            )
        ),
        [(i + 1) * 50 for i in range(N)],
        lr=True,
    ),
    Fmt(
        "tf_slim_global_step",
        "tensorflow/models research/slim (tf.contrib.slim learning.train_step)",
        lambda pts: _lines(
            lambda p: (
                f"INFO:tensorflow:global step {(p.i + 1) * 10}: loss = {p.loss:.4f} "
                "(0.512 sec/step)"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
    ),
    Fmt(
        "tf_od_api_v2_dict",
        "tensorflow/models research/object_detection/model_lib_v2.py",
        lambda pts: _lines(
            lambda p: (
                f"I0301 10:00:{p.i:02d}.123456 140 model_lib_v2.py:705] Step "
                f"{(p.i + 1) * 100} per-step time 0.512s\nINFO:tensorflow:{{'Loss/classification_loss'"
                f": {p.loss / 2:.9f},\n 'Loss/localization_loss': {p.loss / 3:.9f},\n "
                f"'Loss/regularization_loss': {p.loss / 6:.9f},\n 'Loss/total_loss': {p.loss:.9f},\n"
                f" 'learning_rate': {p.lr}}}"
            ),
            pts,
        ),
        [(i + 1) * 100 for i in range(N)],
        decimals=9,
        lr=True,
    ),
    Fmt(
        "diffusers_steps_bar",
        "huggingface/diffusers examples/text_to_image/train_text_to_image.py",
        lambda pts: (
            "".join(
                f"\rSteps:  {(p.i + 1) * 8:2d}%|#         | {(p.i + 1) * 10}/120 [00:{p.i:02d}<01:00, "
                f" 1.67it/s, lr={p.lr}, step_loss={p.loss:.3g}]"
                for p in pts
            )
            + "\n"
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=2,
        lr=True,
    ),
    Fmt(
        "simpletransformers_running_loss",
        "ThilinaRajapakse/simpletransformers classification_model.py train",
        lambda pts: "".join(
            f"\rEpochs {p.i // 4}/3. Running Loss:    {p.loss:.4f}: "
            f"{(p.i % 4 + 1) * 25:3d}%|####      | {(p.i % 4 + 1) * 25}/100 [00:05<00:05, 4.9it/s]"
            + ("\n" if p.i % 4 == 3 else "")
            for p in pts
        ),
        None,
    ),
    Fmt(
        "rasa_diet_bar",
        "RasaHQ/rasa rasa/utils/tensorflow/models.py (tqdm postfix)",
        lambda pts: (
            "".join(
                f"\rEpochs:  {(p.i + 1) * 8:2d}%|#         | {p.i + 1}/{N} [00:{p.i:02d}<00:10, "
                f"1.23it/s, t_loss={p.loss:.3f}, i_acc={p.acc:.3f}, e_f1={p.acc:.3f}]"
                for p in pts
            )
            + "\n"
        ),
        [i + 1 for i in range(N)],
        decimals=3,
    ),
    Fmt(
        "tianshou_epoch_bar",
        "thu-ml/tianshou tianshou/trainer/base.py",
        lambda pts: _lines(
            lambda p: (
                f"Epoch #{p.i + 1}: 1001it [00:05, 190.12it/s, env_step={(p.i + 1) * 1000}, "
                f"len=20, loss={p.loss:.3f}, n/ep=5, n/st=100, rew={10 + 15 * p.acc:.2f}]\n"
                f"Epoch #{p.i + 1}: test_reward: {10 + 15 * p.acc:.6f} ± 1.234567, best_reward: "
                f"{10 + 15 * p.acc:.6f} ± 1.234567 in #{p.i + 1}"
            ),
            pts,
        ),
        None,
        decimals=3,
    ),
    Fmt(
        "ml_agents_summary",
        "Unity-Technologies/ml-agents mlagents/trainers/stats.py ConsoleWriter",
        lambda pts: _lines(
            lambda p: (
                f"[INFO] 3DBall. Step: {(p.i + 1) * 12000}. Time Elapsed: {20.1 * (p.i + 1):.3f} s."
                f" Mean Reward: {10 * p.acc:.3f}. Std of Reward: 0.512. Training."
            ),
            pts,
        ),
        [(i + 1) * 12000 for i in range(N)],
        has_loss=False,
        metrics=("reward",),
    ),
    Fmt(
        "paddleseg_train",
        "PaddlePaddle/PaddleSeg paddleseg/core/train.py",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)} [INFO]\t[TRAIN] epoch: {p.i // 4 + 1}, iter: {(p.i + 1) * 10}"
                f"/1000, loss: {p.loss:.4f}, lr: {p.lr:.6f}, batch_cost: 0.5123, reader_cost: "
                "0.01234, ips: 15.6164 samples/sec | ETA 00:10:00"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
        lr=True,
    ),
    Fmt(
        "paddlenlp_global_step",
        "PaddlePaddle/PaddleNLP examples (run_glue.py)",
        lambda pts: _lines(
            lambda p: (
                f"global step {(p.i + 1) * 10}/120, epoch: {p.i // 4}, batch: "
                f"{(p.i % 4 + 1) * 10}, rank_id: 0, loss: {p.loss:.6f}, lr: {p.lr:.10f}, "
                "speed: 5.1234 step/s"
            ),
            pts,
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "deepspeed_chat_sft",
        "microsoft/DeepSpeedExamples applications/DeepSpeed-Chat step1 main.py",
        lambda pts: _lines(
            lambda p: f"Epoch: {p.i // 4}, Step: {(p.i % 4) * 10}, Rank: 0, loss = {p.loss}",
            pts,
        ),
        None,
        decimals=12,
    ),
    Fmt(
        "ogb_arxiv_example",
        "snap-stanford/ogb examples/nodeproppred/arxiv/gnn.py",
        lambda pts: _lines(
            lambda p: (
                f"Run: 01, Epoch: {p.i + 1:02d}, Loss: {p.loss:.4f}, Train: "
                f"{100 * p.acc:.2f}%, Valid: {100 * p.acc - 2:.2f}% Test: {100 * p.acc - 3:.2f}%"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        absent=("eval_loss",),
    ),
    Fmt(
        "candle_mnist_training",
        "huggingface/candle candle-examples/examples/mnist-training/main.rs",
        lambda pts: _lines(
            lambda p: f"{p.i + 1:4} train loss {p.loss:8.5} test acc: {100 * p.acc:5.2f}%", pts
        ),
        [i + 1 for i in range(N)],
        decimals=5,
    ),
    Fmt(
        "tfjs_node_fit",
        "tensorflow/tfjs tfjs-node/src/callbacks.ts ProgbarLogger",
        lambda pts: _lines(
            lambda p: (
                f"Epoch {p.i + 1} / {N}\neta=0.0 ===========================================>"
                f" \n3210ms 107us/step - acc={p.acc:.3f} loss={p.loss:.3f} val_acc={p.acc:.3f} "
                f"val_loss={p.val:.3f} "
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=3,
        eval_at=ALL,
    ),
    Fmt(
        "brainjs_training_error",
        "BrainJS/brain.js src/neural-network.ts trainingTick log",
        lambda pts: _lines(
            lambda p: f"iterations: {(p.i + 1) * 10}, training error: {p.loss / 10}", pts
        ),
        [(i + 1) * 10 for i in range(N)],
        decimals=12,
        loss_of=lambda p: p.loss / 10,
        xfail="`training error` is brain.js's MSE loss, but an error is as often a rate (`validation error 9.5 %`)",
    ),
    Fmt(
        "opacus_dp_epoch",
        "pytorch/opacus examples/mnist.py",
        lambda pts: _lines(
            lambda p: (
                f"Train Epoch: {p.i + 1} \tLoss: {p.loss:.6f} (ε = {0.5 + p.i / 10:.2f}, δ = 1e-05)"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=6,
    ),
    Fmt(
        "stanza_trainer",
        "stanfordnlp/stanza stanza/models/tagger.py",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)} INFO: Finished STEP {(p.i + 1) * 20}/50000, loss = "
                f"{p.loss:.6f} (0.100 sec/batch), lr: {p.lr:.6f}"
            ),
            pts,
        ),
        [(i + 1) * 20 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "gluonts_trainer",
        "awslabs/gluonts src/gluonts/mx/trainer/_base.py",
        lambda pts: _lines(
            lambda p: (
                f"INFO:gluonts.trainer:Epoch[{p.i}] Learning rate is {p.lr}\n"
                f"100%|##########| 50/50 [00:02<00:00, 24.51it/s, epoch={p.i + 1}/{N}, "
                f"avg_epoch_loss={p.loss:.3g}]\nINFO:gluonts.trainer:Epoch[{p.i}] Elapsed time "
                f"2.041 seconds\nINFO:gluonts.trainer:Epoch[{p.i}] Evaluation metric "
                f"'epoch_loss'={p.loss:f}"
            ),
            pts,
        ),
        None,
        decimals=2,
        lr=True,
    ),
    Fmt(
        "keras_verbose1_backspaces",
        "keras-team/keras keras/src/utils/progbar.py (verbose=1, a terminal capture)",
        lambda pts: "".join(
            f"Epoch {p.i + 1}/{N}\n"
            + "".join(
                f"{BS}\r{b:4d}/1875 [{'=' * (b * 30 // 1875):<30}] - ETA: 1s - "
                f"accuracy: {p.acc:.4f} - loss: {p.loss + 0.1 * (1875 - b) / 1875:.4f}"
                for b in (625, 1250)
            )
            + f"{BS}\r1875/1875 [==============================] - 3s 2ms/step - "
            f"accuracy: {p.acc:.4f} - loss: {p.loss:.4f} - val_accuracy: {p.acc:.4f} - "
            f"val_loss: {p.val:.4f}\n"
            for p in pts
        ),
        None,
        loss_of=None,
        want=[
            v for p in PTS for v in (p.loss + 0.1 * 1250 / 1875, p.loss + 0.1 * 625 / 1875, p.loss)
        ],
        eval_at=ALL,
    ),
    Fmt(
        "caffe_solver",
        "BVLC/caffe src/caffe/solver.cpp + sgd_solver.cpp",
        lambda pts: "".join(
            f"I0301 10:00:{p.i:02d}.123456  1234 solver.cpp:218] Iteration {p.i * 100} "
            f"(5.1 iter/s, 19.6s/100 iters), loss = {p.loss:g}\n"
            f"I0301 10:00:{p.i:02d}.123456  1234 solver.cpp:237]     Train net output #0: "
            f"loss = {p.loss:g} (* 1 = {p.loss:g} loss)\n"
            f"I0301 10:00:{p.i:02d}.123456  1234 sgd_solver.cpp:105] Iteration {p.i * 100}, "
            f"lr = {p.lr:g}\n"
            + (
                f"I0301 10:00:{p.i:02d}.2  1234 solver.cpp:330] Iteration {p.i * 100 + 100}, "
                "Testing net (#0)\n"
                f"I0301 10:00:{p.i:02d}.3  1234 solver.cpp:397]     Test net output #0: "
                f"accuracy = {p.acc:g}\n"
                f"I0301 10:00:{p.i:02d}.3  1234 solver.cpp:397]     Test net output #1: "
                f"loss = {p.val:g} (* 1 = {p.val:g} loss)\n"
                if p.i % 3 == 2
                else ""
            )
            for p in pts
        ),
        [i * 100 for i in range(N)],
        decimals=5,
        eval_at=EVERY3,
        lr=True,
    ),
    Fmt(
        "detectron_caffe2_json_stats",
        "facebookresearch/Detectron detectron/utils/training_stats.py",
        lambda pts: _lines(
            lambda p: (
                f'json_stats: {{"accuracy_cls": {p.acc:.6f}, "eta": "1 day, 2:03:04", '
                f'"iter": {p.i * 20}, "loss": {p.loss:.6f}, "loss_bbox": {p.loss / 3:.6f}, '
                f'"loss_cls": {p.loss / 2:.6f}, "lr": {p.lr:.6f}, "mb_qsize": 64, "mem": 3000, '
                '"time": 0.512345}'
            ),
            pts,
        ),
        [i * 20 for i in range(N)],
        decimals=6,
        lr=True,
    ),
    Fmt(
        "maskrcnn_benchmark_metric_logger",
        "facebookresearch/maskrcnn-benchmark maskrcnn_benchmark/engine/trainer.py",
        lambda pts: _lines(
            lambda p: (
                f"{_clock(p.i)},123 maskrcnn_benchmark.trainer INFO: eta: 1 day, 0:00:00  "
                f"iter: {(p.i + 1) * 20}  loss: {p.loss:.4f} ({p.loss + 0.1:.4f})  "
                f"loss_classifier: {p.loss / 2:.4f} ({p.loss / 2:.4f})  time: 0.5123 (0.6000)  "
                f"data: 0.0100 (0.0200)  lr: {p.lr:.6f}  max mem: 3000"
            ),
            pts,
        ),
        [(i + 1) * 20 for i in range(N)],
        lr=True,
    ),
    Fmt(
        "theano_dlt_validation_error",
        "lisa-lab/DeepLearningTutorials code/convolutional_mlp.py",
        lambda pts: _lines(
            lambda p: (
                f"epoch {p.i + 1}, minibatch 2500/2500, validation error {100 * (1 - p.acc):f} %"
            ),
            pts,
        ),
        [i + 1 for i in range(N)],
        has_loss=False,
        absent=("eval_loss",),
    ),
    Fmt(
        "char_rnn_lua",
        "karpathy/char-rnn train.lua",
        lambda pts: _lines(
            lambda p: (
                f"{(p.i + 1) * 100}/21150 (epoch {(p.i + 1) * 100 / 423:.3f}), "
                f"train_loss = {p.loss:.8f}, grad/param norm = 2.4012e-01, time/batch = 0.5123s"
            ),
            pts,
        ),
        [(i + 1) * 100 for i in range(N)],
        decimals=8,
    ),
    Fmt(
        "min_char_rnn",
        "karpathy min-char-rnn.py (gist)",
        lambda pts: _lines(lambda p: f"iter {p.i * 100}, loss: {p.loss * 40:f}", pts),
        [i * 100 for i in range(N)],
        decimals=6,
        loss_of=lambda p: p.loss * 40,
    ),
    Fmt(
        "glove_cost",
        "stanfordnlp/GloVe src/glove.c",
        lambda pts: _lines(
            lambda p: f"03/01/24 - 10:00.{p.i:02d}AM, iter: {p.i + 1:03d}, cost: {p.loss / 20:f}",
            pts,
        ),
        [i + 1 for i in range(N)],
        decimals=6,
        loss_of=lambda p: p.loss / 20,
    ),
    Fmt(
        "haiku_mnist_example",
        "google-deepmind/dm-haiku examples/mnist.py",
        lambda pts: _lines(
            lambda p: (
                f"[Step {p.i * 1000}] Train / Test accuracy: {p.acc:.3f} / {p.acc - 0.01:.3f}."
            ),
            pts,
        ),
        [i * 1000 for i in range(N)],
        has_loss=False,
    ),
    Fmt(
        "opennmt_lua",
        "OpenNMT/OpenNMT onmt/train/Trainer.lua",
        lambda pts: _lines(
            lambda p: (
                f"[03/01/24 10:00:{p.i:02d} INFO] Epoch {p.i // 4 + 1} ; Iteration "
                f"{(p.i % 4 + 1) * 50}/1000 ; Optim SGD LR {p.lr:.4f} ; Source tokens/s 3000 ; "
                f"Perplexity {math.exp(p.loss):.2f}"
            ),
            pts,
        ),
        None,
        has_loss=False,
        lr=True,
    ),
    Fmt(
        "nematus_update_line",
        "EdinburghNLP/nematus nematus/train.py",
        lambda pts: _lines(
            lambda p: (
                f"2024-03-01 10:00:{p.i:02d},123 INFO: [2024-03-01 10:00:{p.i:02d}] Epoch: "
                f"{p.i // 4} Update: {(p.i + 1) * 100} Loss/word: {p.loss:.4f} Words/sec: 5000.12 "
                "Sents/sec: 150.12"
            ),
            pts,
        ),
        [(i + 1) * 100 for i in range(N)],
    ),
    Fmt(
        "sockeye_speedometer",
        "awslabs/sockeye sockeye/training.py (Speedometer)",
        lambda pts: _lines(
            lambda p: (
                f"[INFO:sockeye.training] Epoch[{p.i // 4}] Batch [{(p.i % 4 + 1) * 50}]\t"
                f"Speed: 650.23 samples/sec 20000.12 tokens/sec 2.10 updates/sec\t"
                f"perplexity={math.exp(p.loss):f}"
            ),
            pts,
        ),
        None,
        has_loss=False,
    ),
    Fmt(
        "spacy_v2_table",
        "explosion/spaCy v2 spacy/cli/train.py",
        lambda pts: (
            "Itn  NER Loss   NER P   NER R   NER F   Token %  CPU WPS\n"
            "---  ---------  ------  ------  ------  -------  -------\n"
            + _lines(
                lambda p: (
                    f"{p.i + 1:>3}  {p.loss * 1000:>9.3f}  {100 * p.acc:>6.3f}  "
                    f"{100 * p.acc:>6.3f}  {100 * p.acc:>6.3f}  100.000    24855"
                ),
                pts,
            )
        ),
        [i + 1 for i in range(N)],
        decimals=3,
        loss_of=lambda p: p.loss * 1000,
    ),
    Fmt(
        "cntk_minibatch_summary",
        "microsoft/CNTK ProgressPrinter (log_to_file / console)",
        lambda pts: _lines(
            lambda p: (
                f" Minibatch[{p.i * 10 + 1:4d}-{p.i * 10 + 10:4d}]: loss = {p.loss:.6f} "
                f"* 640, metric = {100 * (1 - p.acc):.2f}% * 640;"
            ),
            pts,
        ),
        None,
        decimals=6,
    ),
    Fmt(
        "tf_agents_dqn_tutorial",
        "tensorflow/agents docs/tutorials/1_dqn_tutorial.ipynb",
        lambda pts: "".join(
            f"step = {(p.i + 1) * 200}: loss = {p.loss * 10}\n"
            + (
                f"step = {(p.i + 1) * 200}: Average Return = {10 + 100 * p.acc}\n"
                if p.i % 4 == 3
                else ""
            )
            for p in pts
        ),
        [(i + 1) * 200 for i in range(N)],
        decimals=12,
        loss_of=lambda p: p.loss * 10,
        metrics=("reward",),
    ),
    Fmt(
        "yolov7_table_bar",
        "WongKinYiu/yolov7 train.py (tqdm description)",
        lambda pts: (
            "     Epoch   gpu_mem       box       obj       cls     total    labels  "
            "img_size\n"
            + _lines(
                lambda p: (
                    f"     {p.i}/{N - 1}     3.21G   {p.loss / 2:.5f}   {p.loss / 3:.5f}   "
                    f"{p.loss / 6:.5f}   {p.loss:.5f}        45       640: 100%|##########| 8/8 "
                    "[00:05<00:00,  1.52it/s]"
                ),
                pts,
            )
        ),
        list(range(N)),
        decimals=5,
    ),
    Fmt(
        "pytorch_cifar_progress_bar",
        "kuangliu/pytorch-cifar utils.py progress_bar + main.py (find_string 14891019479)",
        lambda pts: "".join(
            (f"\nEpoch: {p.i // 3}\n" if p.i % 3 == 0 else "")
            + f" [{'=' * 20}>{'.' * 44}]  Step: 12ms | Tot: {p.i % 3 * 4 + 3}s123ms | "
            f"Loss: {p.loss:.3f} | Acc: {100 * p.acc:.3f}% ({int(p.acc * 12800)}/12800)  "
            f"{(p.i % 3 + 1) * 100}/300 "
            + (
                "\r"
                if p.i % 3 < 2
                else f"\n [{'=' * 65}]  Step: 5ms | Tot: 1s2ms | Loss: {p.val:.3f} | "
                f"Acc: {100 * p.acc:.3f}% ({int(p.acc * 10000)}/10000)  100/100 \n"
            )
            for p in pts
        ),
        [e * 300 + k for e in range(N // 3) for k in (100, 200, 300)],
        decimals=3,
        eval_at=EVERY3,
    ),
]


def _dump(runs) -> str:  # the reading, for the failure message
    return "; ".join(
        f"{n}[{len(s.values)}]@{list(s.steps[:3])}={[round(float(v), 4) for v in s.values[:3]]}"
        for r in runs
        for n, s in r.series.items()
    )


@pytest.mark.parametrize(
    "fmt",
    [
        pytest.param(f, marks=pytest.mark.xfail(reason=f.xfail, strict=True)) if f.xfail else f
        for f in FORMATS
    ],
    ids=[f.id for f in FORMATS],
)
def test_printed_format_is_read(tmp_path: Path, fmt: Fmt) -> None:
    log = tmp_path / "train.log"
    log.write_text(fmt.render(PTS))
    runs = load_runs(log)  # the whole pipeline: detection, the text reader, derived facts
    assert len(runs) == 1, f"{len(runs)} runs: {_dump(runs)}"
    (run,) = runs
    seen = _dump(runs)
    if fmt.has_loss:
        loss = run.get("loss")
        assert loss is not None, seen
        tol = 0.6 * 10.0**-fmt.decimals + 1e-9
        want = fmt.want if fmt.loss_of is None else [fmt.loss_of(p) for p in PTS]
        assert [float(v) for v in loss.values] == pytest.approx(want, abs=tol, rel=1e-3), seen
        steps = [float(s) for s in loss.steps]
        if fmt.steps is not None:
            assert steps == fmt.steps, seen
        assert all(b > a for a, b in itertools.pairwise(steps)), seen
    ev = run.get("eval_loss")
    if fmt.eval_at is not None:
        assert ev is not None, seen
        want = [fmt.eval_of(p) for p in PTS if fmt.eval_at(p)]
        assert [float(v) for v in ev.values] == pytest.approx(want, abs=6e-3, rel=1e-3), seen
    for names in fmt.metrics:
        assert any(run.get(n) is not None for n in names.split("|")), seen
    for name in fmt.absent:
        assert run.get(name) is None, seen
    if fmt.lr:
        assert run.get("lr") is not None, seen


# -- near misses of the rules the table asked for ---------------------------------------------


def test_near_miss_eval_lines_on_the_train_counter_keep_their_own_steps(tmp_path: Path) -> None:
    # the eval line prints the train's own count (it does not start over within an epoch):
    # it stays at its printed step, unlike DeepSpeech's eval batch count
    body = "".join(
        f"epoch {e} | step {k} | loss {2.0 - 0.1 * e - 0.01 * k / 50:.3f}\n"
        + (f"epoch {e} | validation | step {k} | loss {2.1 - 0.1 * e:.3f}\n" if k == 100 else "")
        for e in range(1, 5)
        for k in (50, 100)
    )
    log = tmp_path / "train.log"
    log.write_text(body)
    (run,) = load_runs(log)
    assert [float(s) for s in run.get("loss").steps] == [50, 100, 150, 200, 250, 300, 350, 400]
    assert [float(s) for s in run.get("eval_loss").steps] == [100, 200, 300, 400]


def test_near_miss_a_one_hash_comment_is_no_heading(tmp_path: Path) -> None:
    # "# epoch 3" is a comment in a pasted script, not an epoch heading over the lines below
    body = "# epoch 3 of the old run\n" + "".join(
        f"iter {i * 10} || Loss: {3.0 - 0.1 * i:.4f} || timer: 0.08 sec.\n" for i in range(6)
    )
    log = tmp_path / "train.log"
    log.write_text(body)
    (run,) = load_runs(log)
    assert [float(s) for s in run.get("loss").steps] == [0, 10, 20, 30, 40, 50]
    assert run.get("epoch") is None
