"""Log lines that are evidence by themselves: found per block, placed at a step, made facts.

One table (EVENTS: pattern -> event kind) reads the diagnoses trainers print about their
own run, so that rules consume the kind, never the wording: a non-finite loss
("Loss is nan, stopping training", Keras' "Invalid loss, terminating training", NeMo's
"Loss is NaN", mmengine's "loss become infinite or NaN!"), a non-finite gradient
(autograd's "returned nan values", Megatron's "found NaN in local grad norm"), a loss
scaler's skipped step (apex, DeepSpeed, fairseq, mmcv, Colossal-AI, Paddle) and its floor,
a skipped update on a NaN grad norm (ESPnet), the trainer's own blow-up abort
(neuraltalk's "cost seems to be exploding"), an epoch with no batch (HF), and resume data
skipping ("Will skip the first N batches", kohya's "skipping epoch N because initial_step
..."), NCCL timeouts and PEFT's trainable-parameter count. Each becomes a `Run.events`
entry at the step logged just before it (a resume at its own step), and facts where it
states one (precision fp16, resume_steps, trainable_params), each with a "console:
file:line" source. The code that prints a message, quoted in a paste, is no event.

What an event means is the rule's to judge: a few scaler overflows at the start of fp16
training are the scaler calibrating (fp16-instability counts them past that allowance).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from traindoc.model import Event, Fact, Series
from traindoc.model.numbers import count
from traindoc.readers.logs.numbers import NUM_SRC, parse

NUM = NUM_SRC
STAMP = re.compile(rb"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[,.](\d{1,6}))?")

# Lines that are evidence by themselves: (Event kind, pattern); group 1, if any, is the value.
# KEYS: literals one of which the line must contain; a memchr-speed find() skips the
# regex (which has no literal prefix to speed its scan) on the many logs without them.
EVENTS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    # apex/fairseq/Megatron "Gradient overflow.  Skipping step, ... reducing loss scale to X";
    # DeepSpeed "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768";
    # apex.fp16_utils' FP16_Optimizer (and the copies in tacotron2, transformer-xl, ...)
    # "OVERFLOW! Skipping step. Attempted loss scale: 2097152.0, reducing to 1048576.0" (older
    # copies print the attempted scale alone: a skip, its new scale unsaid); DeepSpeed's
    # unfused optimizer "[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted ...";
    # fairseq (legacy) "| WARNING: overflow detected, setting loss scale to: 0.25", and since
    # 0.9 "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 2.0";
    # Colossal-AI's zero / gemini optimizers "Found overflow. Skip step" (no scale printed);
    # PaddlePaddle's AmpScaler "Found inf or nan, current scale is: 32768.0, decrease to:
    # 32768.0*0.5" (the update is skipped; the new scale is printed as a product, the
    # scale times the scaler's decr_ratio: read as that product, 16384);
    # fairseq's AMPOptimizer (--amp, torch's GradScaler) "AMP: overflow detected, setting
    # scale to to 64.0" (the doubled "to" is fairseq's own); mmcv's Fp16OptimizerHook
    # (mmcv/runner/hooks/optimizer.py, mmdet 2 / mmseg / mmpose fp16 configs) "Check
    # overflow, downscale loss scale to 256.0"; Marian's fp16 cost scaling (its loss scale:
    # src/training/graph_group.cpp) "Seen NaN/Inf in gradient, skipping update, reducing
    # cost-scaling factor to 2048"
    (
        "fp16-overflow",
        re.compile(
            rb"(?:Gradient overflow\.?\s+Skipping step|(?:OVERFLOW|[Oo]verflow)! (?:Rank \d+ )?Skipping step|"
            rb"[Oo]verflow detected\.? [Ss]kipping step|"
            rb"(?<![\"'`])[Oo]verflow detected,(?: ignoring gradient,)?(?= setting (?:loss )?scale to)|"
            rb"Found overflow\. Skip step|Found inf or nan, current scale is:? ?(?=\d)|"
            rb"Check overflow, (?=downscale loss scale to)|"
            rb"Seen NaN/Inf in gradient, skipping update(?=, reducing cost-scaling factor to))"
            rb"(?:[^\n\r]*?(?:reducing to|reducing loss scale to|setting loss scale to:?|"
            rb"setting scale to:?(?: to)?|decrease to:?|downscale loss scale to|"
            rb"reducing cost-scaling factor to)\s*(" + NUM + rb")(?:\*(" + NUM + rb"))?)?"
        ),
    ),
    # ESPnet2's trainer "The grad norm is nan. Skipping updating the model." (also inf): a
    # skipped update on a non-finite gradient, as a scaler's, but printed in fp32 too (no
    # scale, no precision said): under amp it is the scaler's overflow, else a NaN gradient.
    # The same skip in the Lightning recipe many repos copy into on_after_backward:
    # "detected inf or nan values in gradients. not updating model parameters" (also
    # capitalised; "NaN gradients detected, not updating model parameters")
    (
        "skipped-update",
        re.compile(
            rb"[Gg]rad norm is [-+]?(?:nan|inf)\.?\s+Skipping updating the model|"
            rb"(?<![\"'`])(?i:detected inf or nan values in gradients\. not updating model "
            rb"parameters|nan gradients detected, not updating model parameters)"
        ),
    ),
    # A printed confusion matrix (numpy / sklearn: rows the true classes, columns the
    # predicted ones) "[[    0     0  7917     0     0]\n [    0     0  2748 ...]]": kept
    # (value: the predicted class's share of the samples) only when every prediction falls
    # in one column while 2+ true classes occur: the model predicts one class (_one_class)
    (
        "one-class-predictions",
        re.compile(rb"\[\[[ \t]*\d[\d \t]*\](?:\s*\[[ \t]*\d[\d \t]*\]){1,99}\]"),
    ),
    # Kaldi's scoring line (compute-wer; ESPnet, icefall and k2 recipes print it too):
    # "%WER 100.00 [ 20138 / 20138, 0 ins, 20138 del, 0 sub ]": the errors over the reference
    # words, then insertions, deletions, substitutions. Kept as "empty-output" (value: the
    # reference word count) when every reference word is deleted and nothing is inserted:
    # the decoder emitted no word for any utterance; any other breakdown is an "asr-score".
    (
        "empty-output",
        re.compile(
            rb"[%$]?\s*[WCST]ER\s*[=:]?\s*" + NUM + rb"\s*%?\s*\[\s*(\d+)\s*/\s*(\d+)\s*,\s*"
            rb"(\d+)\s*ins\s*,\s*(\d+)\s*del\s*,\s*(\d+)\s*sub\s*\]"
        ),
    ),
    # (icefall's GradScaler guard: "RuntimeError: grad_scale is too small, exiting: 9.5e-06",
    # the scale halved below 1e-5: its floor)
    (
        "loss-scale-minimum",
        re.compile(
            rb"(?:loss scale already at minimum|[Mm]inimum loss scale reached|"
            rb"grad_scale is too small, exiting)"
        ),
    ),
    # HF v4 "Will skip the first 0 epochs then the first 4000 batches in the first epoch."
    # HF v5 "Fast-forwarding the dataloader past 0 epochs and 10 batches to resume ..."
    (
        "resume-skip-batches",
        re.compile(
            rb"(?:Will skip the first \d+ epochs then the first|"
            rb"Fast-forwarding the dataloader past \d+ epochs and) (\d+) batches"
        ),
    ),
    # HF v4 "Continuing training from global step 300"; v5 "... with epoch 0 and global step 10";
    # kohya sd-scripts (--skip_until_initial_step) "skipping 500 steps / 500ステップをスキップします"
    (
        "resume",
        re.compile(
            rb"(?:Continuing training from global step|"
            rb"Resuming training from checkpoint with epoch \d+ and global step) (\d+)"
            rb"|\bskipping (\d+) steps / "
        ),
    ),
    # kohya sd-scripts then skips whole epochs: "skipping epoch 3 because initial_step
    # (multiplied) is 1800" (the value is the epoch; the line keeps what is left to skip)
    ("resume-skip-epoch", re.compile(rb"\bskipping epoch (\d+) because initial_step")),
    (
        "nccl-timeout",
        re.compile(
            rb"(?:Watchdog caught collective operation timeout|"
            rb"NCCL[^\n\r]{0,120}?(?:timed out|[Tt]imeout\b(?!\s*=)))"
        ),
    ),
    # PEFT print_trainable_parameters(): "trainable params: 0 || all params: 124,439,808 || ..."
    ("trainable-params", re.compile(rb"trainable params: ([\d,]+) \|\| all params")),
)

# A decoded sample printed with its reference (kur, DeepSpeech and seq2seq loops:
# 'Prediction: ""' then 'Truth: "that's it on your account"'): "empty-prediction" (value:
# the reference's word count) when the prediction is empty or blank and the reference is
# not, else "sample-prediction" (the model emits something).
EVENTS = (
    *EVENTS,
    (
        "empty-prediction",
        re.compile(
            rb"(?im)^[ \t>]*(?:prediction|predicted|hypothesis|hyp|decoded|pred)[ \t]*[:=][ \t]*"
            rb"(?:\"([^\"\n]*)\"|'([^'\n]*)')[ \t]*\r?\n[ \t>]*"
            rb"(?:truth|ground[ _]truth|target|reference|ref|label|actual)[ \t]*[:=][ \t]*"
            rb"(?:\"([^\"\n]*)\"|'([^'\n]*)')"
        ),
    ),
)

# A framework's own warning that the loss went non-finite (NeMo, Lightning, YOLOv3, custom loops).
EVENTS = (
    *EVENTS,
    (
        "nonfinite-loss",
        re.compile(
            # (mmdet 3's CheckInvalidLossHook: "loss become infinite or NaN!")
            # (and the same said in other words: "Loss has become NaN", "loss went to nan",
            # "The loss value is nan", "Detected NaN loss at step 100", "Encountered NaN
            # loss, skipping batch": a sentence that says the loss is not finite)
            rb"(?i:loss(?: values?)? (?:has |had )?(?:is|became|become|becomes|was|went|gone"
            rb"|goes|turned|turns)(?: to)? "
            rb"(?:nan|inf(?:inite|inity)?|NaN or inf|non-?finite)(?![a-z])"
            rb"|(?:nan|non-?finite) loss (?:detected|encountered)"
            rb"|(?:detected|encountered) (?:an? )?(?:nan|inf|non-?finite) loss\b"
            # TensorFlow's NanLossDuringTrainingError: "...NanLossDuringTrainingError: NaN loss
            # during training." (the exception's message, after "Error: " or opening a line:
            # never prose such as "... This prevents NaN loss during training.")
            rb"|(?:(?<=Error: )|(?m:^)[ \t]*)nan loss during training\b"
            # Ultralytics 8.3's NaN recovery: "Loss NaN/Inf detected (attempt 1/3), recovering
            # from last.pt..." (or "... but can not recover"), then "Training failed: NaN
            # persisted for 4 epochs"
            rb"|loss nan/inf detected|\bNaN persisted for \d+ epochs"
            # ESPnet1's loss check drops a batch whose loss is non-finite (or past its CTC
            # threshold): "WARNING: loss (=inf) is not correct"; only a nan / inf one is this
            rb"|\bloss \(=[-+]?(?:nan|inf)\) is not correct"
            # ultralytics yolov3 / its many copies: "WARNING: non-finite loss, ending training
            # tensor([nan, ...])" (the code that prints it, quoted in a paste, is no event)
            rb"|non-finite loss, ending training\s+(?=tensor|\[|\{|nan|inf)"
            # Lightning's terminate_on_nan: "The loss returned in `training_step` is nan."
            rb"|loss returned in .training_step. is (?=tensor\(-?(?:nan|inf)|nan|inf|-inf))"
            # Lightning's EarlyStopping(check_finite=True) stops on a monitored loss gone
            # non-finite: "Monitored metric val_loss = nan is not finite. Previous best value
            # was 0.412. Signaling Trainer to stop." (the value a tensor's print in some
            # versions: "= tensor(nan, device='cuda:0')"); a monitored accuracy is no loss
            rb"|\bMonitored metric [\w/.\-]*loss[\w/.\-]* = (?:tensor\()?[-+]?(?:nan|inf)\b"
            rb"[^\n]{0,60}? is not finite"
            # TensorFlow's NanTensorHook / Estimator (and OpenNMT-tf, tensor2tensor, the TF
            # Object Detection API) stop with "Model diverged with loss = NaN.";
            # detectron2 stops with "Predicted boxes or scores contain Inf/NaN. Training has
            # diverged." (its outputs went non-finite, so does the loss). Either quoted in
            # the code of a pasted traceback ('raise ...("Model diverged ...")') is no event
            rb"|(?<![\"'`])Model diverged with loss = (?:NaN|nan|inf|Inf)"
            rb"|(?<![\"'`])Predicted boxes or scores contain Inf/NaN\. Training has diverged"
            # Keras' TerminateOnNaN callback, on a NaN or Inf batch loss: "Batch 6: Invalid
            # loss, terminating training" (its code prints the number with %d or {batch}: a
            # quoted format string has no digits there, so it is no event)
            rb"|\bBatch \d+: Invalid loss, terminating training"
            # YOLACT's MovingAverage drops a non-finite loss from its average and says so:
            # "Warning: Moving average ignored a value of nan" (or inf); the printed
            # averages stay finite, the step's loss was not
            rb"|\bMoving average ignored a value of (?:nan|inf)\b"
            # MindSpore's LossMonitor raises on a NaN/Inf step loss: "ValueError: epoch: 3
            # step: 25. Invalid loss, terminating training." (mindocr / ModelZoo copies print
            # "Epoch: [  3/ 10], step: [ 25/100]. Invalid loss, ..."): the step it names and
            # a full stop before the message, which its format string never has
            rb"|(?<=[\d\]]\. )Invalid loss, terminating training"
            # TensorFlow's check_numerics failing at run time: "InvalidArgumentError:
            # LossTensor is inf or nan : Tensor had NaN values" (the Object Detection API's
            # and many TF1 trainers' check on the total loss), or any checked tensor
            # ("<name> : Tensor had Inf values", tf.add_check_numerics_ops on activations:
            # the loss computed from them is non-finite too). Only the runtime error has
            # "Tensor had ... values"; the quoted call or its node's message="..." has not.
            # A check with no message (tf.debugging.check_numerics(x, ""), add_check_numerics_ops
            # on an unnamed op) leaves the error's text bare: "InvalidArgumentError: Tensor
            # had NaN values", "InvalidArgumentError (see above for traceback): Tensor had NaN
            # values", "(0) Invalid argument: Tensor had NaN values".
            # A checked gradient ("... grad ...", clip_by_global_norm's "Found Inf or NaN
            # global norm.") is read as a non-finite gradient instead (find())
            rb"|(?<![\"'])LossTensor is inf or nan\b"
            rb"|(?:(?<=\S) :|(?:Error(?: \(see above for traceback\))?|Invalid argument):"
            rb"(?:[ \t]+:)?)[ \t]*Tensor had (?:NaN|Inf) values"
            # TensorFlow's summary writer refusing a histogram of a tensor that holds NaN
            # or Inf: "InvalidArgumentError: Nan in summary histogram for: image_pooling/
            # BatchNorm/moving_variance_1" (also "Infinity in summary histogram for: ...").
            # A variable (a weight, a batch-norm statistic) went non-finite, and with it
            # every output and loss computed from it; a gradient's histogram is a gradient
            rb"|\b(?:Nan|Infinity) in summary histogram for:?"
            # Megatron-LM's training_log counts the iterations of the interval whose loss
            # was NaN or Inf ("| number of skipped iterations:   3 | number of nan
            # iterations:   3 |") and leaves them out of the lm loss it averages: the line's
            # loss is finite, its count says the loss was not (group 1: the count, > 0)
            rb"|\bnumber of nan iterations:\s*([1-9]\d*)"
            # Lightning's NaN check on the parameters (terminate_on_nan, detect_nan_parameters):
            # "ValueError: Detected nan and/or inf values in `c_d1.bias`. Check your forward
            # pass ..." - a weight went non-finite, and so does every loss after it (its
            # f-string quoted in source has `{name}` there, no parameter)
            rb"|\bDetected nan and/or inf values in `(?!\{)[^`\n\r]+`"
            # JAX's jax_debug_nans: "FloatingPointError: invalid value (nan) encountered in
            # mul" (also "divide by zero (inf) encountered in ..."): a NaN/Inf was produced
            rb"|FloatingPointError: (?:invalid value \(nan\)|divide by zero \(inf\)) encountered in"
            # torch.distributions' argument check on a policy's / a head's output (SB3, RLlib,
            # CleanRL, any Normal/Categorical): "Expected parameter loc (...) to satisfy the
            # constraint Real(), but found invalid values:\ntensor([[nan, nan], ...": a NaN
            # (or inf) among the printed values (not always the first row) is the network's
            # output gone non-finite, and so every loss computed from it. Values that are
            # only out of range (negative probs) are no NaN.
            rb"|\bbut found invalid values:\s*(?:tensor\()?[^)]{0,2000}?(?<![\w.])[-+]?(?:nan|inf)\b"
        ),
    ),
    # A trainer's own blow-up guard, printed as it aborts the run: its loss is past a
    # multiple of its first value. karpathy/neuraltalk driver.py: "Aboring, cost seems to be
    # exploding. Run gradcheck? Lower the learning rate?" (2x the first cost; its Matlab
    # version "WARNING! COST SEEMS TO BE EXPLODING. ABORTING." at 10x); neuraltalk2's and
    # densecap's train.lua "loss seems to be exploding, quitting." (20x); char-rnn's
    # train.lua and its many copies "loss is exploding, aborting." (3x); keithito's tacotron
    # train.py and the Tacotron-2 / Real-Time-Voice-Cloning trainers built on it "Loss
    # exploded to 412.27264 at step 2140!" (past 100, or NaN: then a non-finite loss, at the
    # step it names); NCRF++ main.py "ERROR: LOSS EXPLOSION (>1e8) ! PLEASE SET PROPER
    # PARAMETERS AND STRUCTURE! EXIT...." (past 1e8, or NaN). The abort is part of the
    # message: a user's "my loss is exploding" in an issue's prose is no trainer's word; nor
    # is the print quoted in a pasted source line (_SOURCE_LINE).
    (
        "loss-exploding",
        re.compile(
            rb"(?i:(?<![\"'])\b(?:abort?ing, cost seems to be exploding\b|"
            rb"(?:loss|cost) (?:seems to be|is) exploding[.,!]*\s*(?:aborting|quitting)\b))"
            rb"|(?<![\"'])\bLoss exploded to (" + NUM + rb")(?= at step \d+)"
            rb"|\bERROR: LOSS EXPLOSION \(>1e8\) ! PLEASE SET PROPER PARAMETERS"
        ),
    ),
    # HF Trainer's epoch loop that got no batch at all: "There seems not to be a single
    # sample in your epoch_iterator, stopping training at step 0! This is expected if
    # you're using an IterableDataset and set num_steps (100) higher than the number of
    # available samples." (transformers trainer.py; older versions say "epoch iterator").
    # The run stops there: an exhausted or empty dataset, or a resume at a step past
    # max_steps. The value is the step it stopped at (the f-string in source has none).
    (
        "empty-epoch",
        re.compile(
            rb"There seems not to be a single sample in your epoch[ _]iterator, "
            rb"stopping training at step (\d+)"
        ),
    ),
    # PyTorch's autograd anomaly mode (torch.autograd.detect_anomaly / set_detect_anomaly,
    # Lightning's detect_anomaly=True) stops the backward pass on the first NaN it meets:
    # "RuntimeError: Function 'LogSoftmaxBackward' returned nan values in its 0th output."
    # A gradient went NaN (the loss may still be finite): the gradient norm of that step is
    # NaN. Its source in a pasted traceback quotes no function name with a number after it.
    # torch.nn.utils.clip_grad_norm_(error_if_nonfinite=True) (Lightning's and timm's
    # clipping call it): "RuntimeError: The total norm of order 2.0 for gradients from
    # `parameters` is non-finite, so it cannot be clipped."; Megatron-LM's
    # check_for_nan_in_grad: "Rank 0: found NaN in local grad norm in backward pass before
    # data-parallel communication collective". Both: the step's gradient norm is NaN/Inf.
    (
        "nonfinite-gradients",
        re.compile(
            rb"Function '\w+' returned (?:nan|inf) values in its \d+(?:st|nd|rd|th) output"
            rb"|for gradients from .parameters. is non-finite, so it cannot be clipped"
            rb"|\bfound (?:NaN|Inf|nan|inf) in local grad norm"
            # TensorFlow's tf.clip_by_global_norm checks the norm it clips by: the log line
            # "E .../check_numerics_op.cc:185] abnormal_detected_host @0x... = {1, 0} Found
            # Inf or NaN global norm." (its "... : Tensor had NaN values" error is read
            # above); the message quoted in a traceback's source line is no event
            rb"|(?<![\"'])Found Inf or NaN global norm\.?(?! : Tensor had)"
            # fairseq's trainer on a non-finite gradient norm outside AMP:
            # "FloatingPointError: gradients are Nan/Inf"
            rb"|FloatingPointError: gradients are Nan/Inf"
        ),
    ),
    # Unity ml-agents ends each summary line with the trainer's status: "... Step: 0. Mean
    # Reward: 0.250. Std of Reward: 0.431. Not Training." (or "No episode was completed
    # since last summary. Not Training."): the trainer is not updating its policy
    # (mlagents-learn without --train in 0.x, --inference, or past max_steps). The value
    # is the step the line prints.
    (
        "rl-not-training",
        re.compile(rb"\bStep: (\d+)\.[^\n\r]{0,200}?[\s.]Not Training\."),
    ),
    # A margin-softmax head (ArcFace / CosFace / SphereFace / AM- and AAM-Softmax and their
    # kin, named, or printed as its scale and margin: insightface's margin_list, a
    # "STgram-MFN(m=0.7,s=30)" repr, ArcMarginProduct(s=30.0, m=0.50)): its loss is a
    # cross-entropy over logits scaled by s with the true class's pushed down by m, so an
    # untrained model starts near ln(C) + s*sin(m) (24 for s=30, m=0.7, 41 classes), not at
    # ln(C), and never reaches ln(C) as a "uniform" plateau either
    (
        "margin-softmax",
        re.compile(
            rb"(?i:\b(?:arc|cos|sphere|curricular|mag|ada)face\b|\barc_?margin|\bcosface|"
            rb"\ba{1,2}m-?softmax\b|additive angular margin|\bmargin_list\b)|"
            rb"\bs\s*=\s*\d+(?:\.\d+)?\s*,\s*m\s*=\s*0?\.\d+|\bm\s*=\s*0?\.\d+\s*,\s*s\s*=\s*\d+"
        ),
    ),
)

KEYS = {
    "nonfinite-loss": (
        b"oss is",
        b"oss has",
        b"oss had",
        b"oss value",
        b"oss goes",
        b"oss gone",
        b"oss turn",
        b"OSS HAS",
        b"NaN loss",
        b"nan loss",
        b"NAN loss",
        b"inf loss",
        b"Inf loss",
        b"finite loss",
        b"oss became",
        b"oss was",
        b"oss went",
        b"loss detected",
        b"loss encountered",
        b"OSS IS",
        b"finite loss,",
        b"loss returned in",
        b"is not finite",
        b"diverged with loss",
        b"Training has diverged",
        b"Invalid loss, terminating",
        b"OSS BECAME",
        b"oss become",
        b"OSS BECOME",
        b"loss during training",
        b"LOSS DURING TRAINING",
        b"oss NaN/Inf",
        b"NaN persisted",
        b"is not correct",
        b"found invalid values",
        b"average ignored a value",
        b"Invalid loss, terminating",
        b"LossTensor is",
        b"Tensor had",
        b"in summary histogram",
        b"nan iterations",
        b"nan and/or inf values",
        b"encountered in",
    ),
    "nonfinite-gradients": (
        b"values in its",
        b"cannot be clipped",
        b"in local grad norm",
        b"NaN global norm",
        b"gradients are Nan/Inf",
    ),
    "fp16-overflow": (b"verflow", b"OVERFLOW", b"inf or nan", b"skipping update,"),
    "skipped-update": (b"Skipping updating", b"updating model parameters"),
    "loss-scale-minimum": (b"inimum", b"too small, exiting"),
    "one-class-predictions": (b"[[",),
    "empty-output": (b" del",),
    "empty-prediction": (b"redict", b"ypothesis", b"decoded", b"Decoded", b"hyp", b"HYP", b"pred"),
    "resume-skip-batches": (b" batches",),
    "resume": (b"global step", b" steps / "),
    "resume-skip-epoch": (b"skipping epoch",),
    "nccl-timeout": (b"NCCL", b"Watchdog"),
    "trainable-params": (b"trainable params",),
    "rl-not-training": (b"Not Training.",),
    "loss-exploding": (b"xploding", b"XPLODING", b"xploded to", b"LOSS EXPLOSION"),
    "empty-epoch": (b"single sample in your epoch",),
    "margin-softmax": (b"face", b"Face", b"FACE", b"argin", b"oftmax", b"angular", b"m="),
}


# A loss scaler's skipped-step message: evidence (an event), never a metric record; cut
# mid-message ("Attempted loss scale: 1, r") it would read as one ("attempted_loss_scale").
SKIP_MESSAGE = re.compile(
    rb"Gradient overflow\.?\s+Skipping step|(?:OVERFLOW|[Oo]verflow)! (?:Rank \d+ )?Skipping step|"
    rb"[Oo]verflow detected\.? [Ss]kipping step|Found overflow\. Skip step"
)

# A line of source code that prints or raises a message (a traceback's or a paste's quoted
# code): "print('loss seems to be exploding, quitting.')", "print 'Aboring, cost seems
# ...'", detectron2's 'raise FloatingPointError("Loss became infinite or NaN at
# iteration={}!" ...'. The message it quotes is no event: nothing was printed yet.
_SOURCE_LINE = re.compile(
    rb"\b(?:f?printf?|warn|logger\.\w+|logging\.\w+|raise\s+\w+)\s*\(?\s*[fr]?['\"]"
)
# The kinds whose messages a trainer prints from such a line.
_SOURCE_CHECKED = frozenset(
    {"loss-exploding", "nonfinite-loss", "nonfinite-gradients", "skipped-update"}
)

# Keras' TerminateOnNaN message: about the batch logged just before it, not a later one.
_SAME_BATCH = re.compile(r"\bBatch \d+: Invalid loss, terminating training")

# A NaN message that names its own step: detectron2's "FloatingPointError: Loss became
# infinite or NaN at iteration=27!" (loss_dict on the next line), "loss is nan at step
# 500". The loss of that iteration is the NaN one, wherever the last metric line was.
_AT_ITERATION = re.compile(rb"\s+at (?:iteration|iter|step)\s*[=:]?\s*(\d+)\b")

# A TensorFlow check_numerics / histogram message about a gradient, not the loss: the
# checked tensor's name or message says grad (gradients/..., Gradient for ...) or the
# clipped global norm.
_CHECKED_GRADIENT = re.compile(
    r"(?i)(?:\bgrad|global norm)[^\n]*? : Tensor had (?:NaN|Inf) values"
    r"|in summary histogram for:?\s*\S*grad"
)

# The kinds whose message may name its own step ("... at step 2140!"), kept over the
# step of the metric line before it.
_NAMES_STEP = frozenset({"nonfinite-loss", "loss-exploding"})

# Megatron's record opens with the iteration it closes: " iteration      200/  500000 |".
_MEGATRON_ITER = re.compile(rb"\biteration\s+(\d+)\s*/\s*\d+\s*\|")

# A skipped step, a scaler's or a trainer's on a non-finite gradient: placed on a tqdm bar's
# line by the bar's count (_bar_step).
SKIPS = frozenset({"fp16-overflow", "skipped-update"})


def find(body: bytes, first_line: int, path: Path) -> list[Event]:
    """Evidence lines in one block of whole lines (line numbers count from first_line)."""
    if not any(k in body for keys in KEYS.values() for k in keys):
        return []
    from traindoc.readers.logs.steps import stamp

    nl = np.flatnonzero(np.frombuffer(body, np.uint8) == 10)
    out = []
    for kind, rx in EVENTS:
        if not any(k in body for k in KEYS[kind]):
            continue
        for m in rx.finditer(body):
            a = max(body.rfind(b"\n", 0, m.start()), body.rfind(b"\r", 0, m.start())) + 1
            ends = (body.find(b"\n", m.end()), body.find(b"\r", m.end()), len(body))
            b = min(x for x in ends if x >= 0)
            if kind in _SOURCE_CHECKED and _in_source(body, a, m.start()):
                continue  # the print in quoted code, not the message it prints
            text = body[a:b].decode("utf-8", "replace").strip()[:300]
            got = next((g for g in m.groups() if g), None)  # the alternative that matched
            value = parse(got) if got else None
            if kind == "fp16-overflow" and value is not None and m.lastindex == 2:
                # Paddle's new scale printed as a product "S*0.5": the scale it was cut to
                ratio = parse(m.group(2))
                value = value * ratio if ratio is not None else None
            kind_here = kind
            if kind == "nonfinite-loss" and _CHECKED_GRADIENT.search(text):
                kind_here = "nonfinite-gradients"  # a checked gradient (check_numerics, histogram)
            if kind == "loss-exploding" and value is not None and not np.isfinite(value):
                kind_here, value = "nonfinite-loss", None  # "Loss exploded to nan at step 9!"
            if kind == "empty-output":
                kind_here, value = _asr_breakdown(m)
            if kind == "empty-prediction":
                kind_here, value = _sample_pair(m)
            if kind == "one-class-predictions":
                square, value = _one_class(m.group(0))
                if not square:
                    continue
                kind_here = kind if value is not None else "confusion-matrix"
                text = re.sub(r"\s+", " ", m.group(0).decode("ascii", "replace"))[:300]
            line = int(np.searchsorted(nl, m.start())) + first_line
            ts = STAMP.search(body, a, b)
            t = stamp(ts) if ts else None
            at = _bar_step(body, a, m.start(), b) if kind in SKIPS else None
            if kind in _NAMES_STEP and (it := _AT_ITERATION.search(body, m.end(), b)):
                at = int(it.group(1))
            elif kind == "nonfinite-loss" and (it := _MEGATRON_ITER.search(body, a, m.start())):
                at = int(it.group(1))  # the interval its NaN iterations are in ends here
            if kind_here.startswith("nonfinite") and any(
                e.kind == kind_here and e.line == line for _, e in out
            ):
                continue  # one message, matched twice ("LossTensor is inf or nan : Tensor had")
            out.append((m.start(), Event(kind_here, text, str(path), line, at, value, t)))
    return [e for _, e in sorted(out, key=lambda e: e[0])]


def _in_source(body: bytes, a: int, start: int) -> bool:
    """The match at `start` lies inside the string a print / raise on its line opened (no
    quote closes it before the match): a traceback collapsed onto one line quotes the
    raise and then prints its message, and the message after the closing quote is one."""
    last = _last(_SOURCE_LINE.finditer(body, a, start))
    return last is not None and not re.search(rb"[\"']", body[last.end() : start])


def _asr_breakdown(m: re.Match[bytes]) -> tuple[str, float | None]:
    """A Kaldi scoring line's kind and value: "empty-output" with the reference word count
    when every reference word is a deletion and none is inserted, else "asr-score"."""
    errs, words, ins, dels, _sub = (int(x) for x in m.groups()[-5:])
    if words > 0 and dels == words and ins == 0 and errs == words:
        return "empty-output", float(words)
    return "asr-score", None


def _sample_pair(m: re.Match[bytes]) -> tuple[str, float | None]:
    """A printed (prediction, reference) pair's kind and value: "empty-prediction" with the
    reference's word count when the prediction is blank and the reference is not, else
    "sample-prediction"."""
    pred = (m.group(1) if m.group(1) is not None else m.group(2) or b"").strip()
    ref = (m.group(3) if m.group(3) is not None else m.group(4) or b"").split()
    if not pred and ref:
        return "empty-prediction", float(len(ref))
    return "sample-prediction", None


def _one_class(matrix: bytes) -> tuple[bool, float | None]:
    """Whether a square confusion matrix (2+ classes) was printed, and the predicted
    class's share of the samples when every count lies in one column while 2+ true
    classes occur (else None: a mixed matrix, kind "confusion-matrix")."""
    rows = [[int(x) for x in r.split()] for r in re.findall(rb"\[([\d \t]*)\]", matrix)]
    k = len(rows)
    if k < 2 or any(len(r) != k for r in rows):
        return False, None
    cols = [j for j in range(k) if any(r[j] for r in rows)]
    present = sum(1 for r in rows if any(r))
    if len(cols) != 1 or present < 2:
        return True, None
    j = cols[0]
    return True, rows[j][j] / sum(sum(r) for r in rows)


# A tqdm bar's "| 378/2724 [13:58:09<86:18:35, 132.44s/it]" (its count is group 1).
_BAR = re.compile(rb"\|\s*(\d+)/\d+\s*\[[^\]\n\r]{0,300}\]")
_BAR_AT_START = re.compile(rb"[^|\n\r]{0,200}?\d{1,3}%\|[^|\n\r]{0,200}(?=\|)")


def _bar_step(body: bytes, a: int, start: int, b: int) -> int | None:
    """The step an overflow message printed on a tqdm bar's line was in: a message printed
    after bar n is step n + 1's (HF runs the optimizer step, DeepSpeed prints, then the bar
    is drawn to n + 1 over it). A message on a line of its own whose next line is such a
    bar-and-message line (a paste cut the bar before it) is in the step that bar ends, n.
    None otherwise: a bar drawn on a line of its own (apex's prints under a GAN's bar,
    several scalers a step) does not say which step a message was in."""
    if (m := _last(_BAR.finditer(body, a, start))) is not None:
        return int(m.group(1)) + 1
    if a and body[a - 1 : a] == b"\r":
        return None  # a piece of a line redrawn over: not a line of its own
    nxt = b + 1
    end = min(x for x in (body.find(b"\n", nxt), len(body)) if x >= 0)
    head = _BAR_AT_START.match(body, nxt, end)
    if head is None or (m := _BAR.match(body, head.end(), end)) is None:
        return None
    return int(m.group(1)) if body[m.end() : end].strip() else None


def _last(it):
    m = None
    for m in it:  # noqa: B007 - the last match is the one wanted
        pass
    return m


def place(
    found: list[Event], rec_line: np.ndarray, rec_step: np.ndarray, by_bar: bool = False
) -> list[Event]:
    """Each event at the step of the last metric line before it (a resume at its own).
    An overflow message printed on a tqdm bar's line keeps the step the bar says (see
    _bar_step) where the records are numbered by that bar too (or there are none)."""
    out, resumed = [], None
    for e in found:
        if e.step is not None and ((e.kind in SKIPS and by_bar) or e.kind in _NAMES_STEP):
            out.append(e)  # (a NaN message's step is the one it names: _AT_ITERATION)
            continue
        if e.kind == "resume":
            resumed = count(e.value)
            out.append(replace(e, step=resumed))
            continue
        j = int(np.searchsorted(rec_line, e.line or 0, side="right")) - 1
        if e.kind == "nonfinite-loss" and j >= 0 and e.line is not None and rec_line[j] == e.line:
            # BigDL's "... Loss is Infinity. Current learning rate is ...": the metric line
            # says it of its own loss, read as its value, not of a batch after it
            continue
        step = int(rec_step[j]) if j >= 0 else (int(rec_step[0]) if rec_step.size else None)
        if e.kind in ("resume-skip-batches", "resume-skip-epoch") and resumed is not None:
            step = resumed
        out.append(replace(e, step=step))
    return out


def add_facts(events: list[Event], facts: dict[str, Fact], series: dict, path: Path) -> None:
    """Facts the events state, and the loss-scale series overflow lines print (in place)."""

    def src(e: Event) -> str:
        return f"console: {path.name}:{e.line}"

    counts = [e for e in events if e.kind == "trainable-params" and e.value is not None]
    if counts:
        last = counts[-1]
        if (n := count(last.value)) is not None:
            facts["trainable_params"] = Fact(n, f"{src(last)}: {last.text}")
            _adapter_facts(n, last, facts, src(last))
    starts = [
        s
        for e in events
        if e.kind in ("resume", "resume-skip-batches") and (s := count(e.step, 1)) is not None
    ]
    if starts:
        old = tuple(facts["resume_steps"].value) if "resume_steps" in facts else ()
        first = next(e for e in events if e.kind in ("resume", "resume-skip-batches"))
        facts["resume_steps"] = Fact(tuple(sorted({*old, *starts})), f"{src(first)}: {first.text}")
    margin = next((e for e in events if e.kind == "margin-softmax"), None)
    if margin is not None:
        facts["margin_softmax"] = Fact(True, f"{src(margin)}: {margin.text}")
    # a loss scaler's messages say fp16; a skipped update (ESPnet's) happens in fp32 too
    over = [e for e in events if e.kind in ("fp16-overflow", "loss-scale-minimum")]
    if over:
        facts["precision"] = Fact(
            "fp16",
            f"{src(over[0])}: {len(over)} fp16 loss-scale message(s), e.g. {over[0].text!r}",
        )
    # "Loss is NaN" warnings: a NaN loss just after the step logged before each (the
    # step's own logged value stays: the warning is about a later batch)
    # Keras' TerminateOnNaN runs at the end of the batch its progress bar has just printed
    # ("39/100 [...] - loss: nan" then "Batch 38: Invalid loss", 0-based): that step's own
    nans = sorted(
        {
            s + (0 if _SAME_BATCH.search(e.text) or _AT_ITERATION.search(e.text.encode()) else 1)
            for e in events
            if e.kind == "nonfinite-loss" and (s := count(e.step)) is not None
        }
    )
    if nans:
        _nan_points(
            series, "loss", nans, f"{len(nans)} 'loss is NaN' warning(s)", "'loss is NaN' warnings"
        )
    elif "loss" not in series and any(e.kind == "nonfinite-loss" for e in events):
        # a framework's NaN stop ("Model diverged with loss = NaN") in a log with no metric
        # line: the loss went non-finite, when is not logged - one point, its step ordinal
        first = next(e for e in events if e.kind == "nonfinite-loss")
        series["loss"] = Series.from_arrays(
            "loss", np.array([1.0]), np.array([np.nan]), None, f"{src(first)}: {first.text}"
        )
        facts.setdefault("steps_ordinal", Fact(True, f"{path.name}: no step is printed"))
    # autograd's anomaly mode (and clip_grad_norm_'s, Megatron's non-finite norm checks):
    # a NaN gradient in the step after the one logged before it (the backward of the
    # batch that follows that log), never a finite norm replaced. ESPnet2's "The grad
    # norm is nan. Skipping updating the model." says the same of the step it skips
    # (also kept as a skip: under amp it is the scaler's)
    bad_grads = [e for e in events if e.kind in ("nonfinite-gradients", "skipped-update")]
    if bad_grads:
        old = series.get("grad_norm")
        at = sorted({s + 1 for e in bad_grads if (s := count(e.step)) is not None})
        if at:
            new = (~np.isin(at, old.steps)).sum() if old is not None else len(at)
            alone = f"{src(bad_grads[0])}: {bad_grads[0].text}"
            _nan_points(series, "grad_norm", at, f"{new} non-finite gradient message(s)", alone)
        elif old is None:
            # no metric line to place it after: one point, its step ordinal
            series["grad_norm"] = Series.from_arrays(
                "grad_norm",
                np.array([1.0]),
                np.array([np.nan]),
                None,
                f"{src(bad_grads[0])}: {bad_grads[0].text}",
            )
            facts.setdefault("steps_ordinal", Fact(True, f"{path.name}: no step is printed"))
    if _scale_series(over, series):
        facts.setdefault("steps_ordinal", Fact(True, f"{path.name}: no step is printed"))
        # each message is one skipped step: numbered by their order as the scale's points
        # are (a message cut before its value is a skip too, numbered where it stands)
        skips = [e for e in over if e.kind == "fp16-overflow"]
        order = {id(e): k for k, e in enumerate(skips, 1)}
        events[:] = [replace(e, step=order[id(e)]) if id(e) in order else e for e in events]


def _scale_series(over: list[Event], series: dict) -> bool:
    """The loss scale the overflow lines print, as a series (in place). A log with no step
    at all (apex's messages alone) numbers them by their order: each is one skipped
    step. Where the log's own records print the scale, the lines after its last record
    say where it went next: one point, the last value, one step on (a skipped update
    does not advance the step counter, so no step of its own is printed for them).
    True when the steps are the lines' order."""
    if not any(e.value is not None for e in over):
        return False
    old = series.get("loss_scale")
    if old is None:
        if all(e.step is None for e in over):
            skips = [e for e in over if e.kind == "fp16-overflow"]
            at = [(k, e.value) for k, e in enumerate(skips, 1) if e.value is not None]
            steps = np.array([k for k, _ in at], np.float64)
            vals = np.array([v for _, v in at], np.float64)
            src = "console: overflow lines, numbered by their order (no step printed)"
        else:
            pts = np.array(
                [(e.step, e.value) for e in over if e.step is not None and e.value is not None],
                np.float64,
            )
            if not pts.size:
                return False
            steps, vals, src = pts[:, 0], pts[:, 1], "console: overflow lines"
        series["loss_scale"] = Series.from_arrays("loss_scale", steps, vals, None, src)
        return "order" in src
    if not len(old):
        return False
    last = float(old.steps[-1])
    after = [e for e in over if e.step is not None and e.value is not None and e.step >= last]
    if after:
        steps = np.r_[old.steps, last + 1]
        vals = np.r_[old.values, after[-1].value]
        src = f"{old.source} + the last of {len(after)} overflow line(s) after it"
        series["loss_scale"] = Series.from_arrays("loss_scale", steps, vals, None, src)
    return False


# PEFT's print names the whole model's size too: "|| all params: 6,742,609,920 ||".
_ALL_PARAMS = re.compile(r"all params: ([\d,]+)")
# Under a tenth of the weights training is an adapter (LoRA, IA3, prefix tuning: PEFT
# prints this line for its own models; LoRA trains 0.01-5%), far from a full fine-tune's
# 100%: the LR ranges of the adapter regime apply.
ADAPTER_SHARE = 0.1


def _adapter_facts(trainable: int, e: Event, facts: dict[str, Fact], where: str) -> None:
    """The model's size and, when only a small share of it trains, the adapter regime."""
    m = _ALL_PARAMS.search(e.text)
    total = count(m.group(1).replace(",", ""), 1) if m else None
    if not total:
        return
    facts.setdefault("n_params", Fact(total, f"{where}: {e.text}"))
    if 0 < trainable < ADAPTER_SHARE * total and "regime" not in facts:
        share = f"{100 * trainable / total:.2g}%"
        facts["regime"] = Fact("lora", f"{where}: {share} of the parameters train (an adapter)")


def _nan_points(series: dict[str, Series], name: str, at: list[int], more: str, alone: str) -> None:
    """NaN points at the steps `at` that the series `name` does not log yet (a message
    saying the value went non-finite there), in place; `more` / `alone` name the source
    beside the series' own / when there is no series."""
    old = series.get(name)
    add = np.array(at, np.float64)
    if old is not None:
        add = add[~np.isin(add, old.steps)]
        steps, vals = np.r_[old.steps, add], np.r_[old.values, np.full(add.size, np.nan)]
        source = f"{old.source} + {more}"
    else:
        steps, vals, source = add, np.full(add.size, np.nan), alone
    series[name] = Series.from_arrays(name, steps, vals, None, source)
