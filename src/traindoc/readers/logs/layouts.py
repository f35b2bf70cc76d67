"""Log layouts that spread one record over several lines, or write it in no key/value
syntax the shape analysis knows, each read by a small state machine of its own.

- Stable-Baselines3's logger table: `| time/ | |` section rows, `|    loss | 0.01 |`
  rows; one table is one record, numbered by its `time/total_timesteps`.
- A vertical epoch block: pytorch-template's padded `    loss           : 1.48` lines
  under `    epoch          : 65`, or a printed pandas Series under `TRAIN EPOCH  3:`
  (`loss             1.386` rows up to `dtype: float64`). One block is one record;
  `val_` keys are the epoch's eval record.
- darknet's iteration line `999: 0.0, 0.0 avg, 0.001 rate, 3.2 seconds, 64 images`
  (its classifier's `40245, 4.021: ...` with the epoch after the iteration; its
  `Region 94 Avg IOU: ...` lines are per-layer diagnostics, not records).
- Comma-separated name,value pairs: `[3,    12] loss,0.41,,,` per batch (epoch, batch)
  and `epoch,3, loss,3.7, mae,13.4,,` per epoch (the validation).
- Caffe's glog net outputs: `Test net output #0: accuracy = 0.68` under `Iteration 1000,
  Testing net (#0)` is the eval at 1000; `Train net output #1: xent = 9.2 (* 20 = 184
  loss)` a train value of the iteration before it (its `Iteration N, loss = X` and
  `lr = X` lines are key/value records the shape analysis reads).
- A trainer's validation summary on lines of its own, numbered by the train record
  before it: OpenNMT-py's `Validation perplexity: 56.1`, timm's last `Test: [  48/48]`
  line (its running means), the `all  128  929  0.5  0.4  0.45  0.3` row under a YOLOv5 /
  YOLOv7 console table (P, R, mAP@.5, mAP@.5:.95). timm's `Train: 3 [ 50/1251 (  4%)]`
  line is read here too: its step is epoch * batches + batch.
- RLlib's result dict printed as YAML (Tune's `Result for PPO_CartPole-v0_0:` block, a
  script's `print(pretty_print(result))`): one block is one record at its
  `training_iteration`; see `_RLLIB_OPEN`.
- fairseq-py's progress line inside a validation (`valid on 'valid' subset  1000 /
  1311 loss=2.72`): a running mean of an unfinished evaluation, taken and dropped.
- rsl_rl's (legged_gym, Isaac Lab) PPO iteration block: a centred `Learning iteration
  N/M` head, then right-aligned `Mean reward: 4.2` rows; one block is one record at
  iteration N. See `_RSL_HEAD`.
- A gradient-boosting evaluation line, LightGBM's `[25]\ttraining's l2: 0.09\tvalid_1's
  l2: 0.10` (the R package's `[25]:  train's l2:0.09`): one record per boosting round,
  numbered by it; see `_gbdt`.

Each is offered a line before the shape analysis (text.TextLog._line) and says
whether it took it; gating on the first bytes keeps the cost off other lines.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import TYPE_CHECKING

from traindoc.model.signals import METRIC_KINDS, is_eval, kind
from traindoc.readers import _coco
from traindoc.readers.logs.numbers import parse
from traindoc.readers.logs.records import metric_name
from traindoc.readers.logs.steps import SRC_EPOCH_ONLY, SRC_NONE, SRC_STEP, TABLE_TOTAL

if TYPE_CHECKING:
    from traindoc.readers.logs.text import TextLog


# -- Stable-Baselines3 ----------------------------------------------------------------------
_SB3_SECTION = re.compile(rb"^\|\s*([a-z_]+)/\s*\|\s*\|\s*$")
_SB3_ROW = re.compile(rb"^\|\s+([A-Za-z_][\w.]*)\s+\|\s*(\S+)\s*\|\s*$")
# SB3's own names -> ours; keys not here keep their own name, the counters and
# settings of its time/ section and of train/ (n_updates, clip_range) are not metrics.
# rollout/ep_rew_mean keeps its name (canonical: the reward): an episode's return by its
# name, it owns the reward over a bare per-step "reward" row (FinRL's train/reward)
_SB3_NAMES = {
    "rollout/ep_rew_mean": "ep_rew_mean",
    "eval/mean_reward": "eval_reward",
    "train/loss": "loss",
    "train/learning_rate": "lr",
    "train/approx_kl": "approx_kl",
    "train/entropy_loss": "entropy",
}
_SB3_SKIP = frozenset({"train/n_updates", "train/clip_range", "train/clip_range_vf"})
# OpenAI baselines' own logger (and SB2's): the same boxed table without sections, keys
# that may carry their own prefix ("| test/success_rate | 0.05 |"), opened by a line of
# dashes so that a two-column markdown table is not read as one. deepq's keys are phrases
# ("| % time spent exploring  | 2 |", "| mean 100 episode reward | 8.9 |"): words joined by
# single spaces, a leading "%".
_FLAT_ROW = re.compile(rb"^\|\s+([A-Za-z_%][\w./%]*(?: [\w./%]+)*)\s+\|\s*(\S+)\s*\|\s*$")
_DASHES = re.compile(rb"^-{10,}\s*$")
# its counters, most trusted first: the step of the record, never a metric
_FLAT_STEPS = (
    "total/steps",  # baselines DDPG
    "total_timesteps",
    "serial_timesteps",
    "timesteps_so_far",
    "steps",
    "step",  # guided- / improved-diffusion's TrainLoop: the optimizer step (+ resume step)
    "nupdates",
    "iterations",
    "epoch",
)
_FLAT_SKIP = frozenset(
    {
        *_FLAT_STEPS,
        "fps",
        "time_elapsed",
        "timeelapsed",
        "episode",
        "episodes",
        "n_updates",
        "cliprange",
        "% time spent exploring",  # deepq's epsilon schedule, in percent
        "samples",  # the diffusion TrainLoop's images seen: the step times the batch
    }
)
# The logger prints every number, its counters too, with "%-8.3g": three significant
# digits, so a step from 1000 on is rounded ("| step | 1.53e+05 |") and successive dumps
# can print the same one. The dumps come in step order, so where the rounded value
# repeats, the dumps that share it are spread evenly up to the next value printed.
_ROUNDED = re.compile(rb"^[-+]?\d(?:\.\d*)?[eE]\+?\d+$")

# -- vertical blocks ------------------------------------------------------------------------
# pytorch-template pads its keys ('    {:15s}: {}'): the space before the colon is what
# sets it apart from a YAML config ("  epochs: 100"), which has none
_PADDED = re.compile(rb"^(\s+)([A-Za-z_][\w/]*)\s+:\s+(\S+)\s*$")
_SERIES_HEAD = re.compile(rb"^(?i:train(?:ing)?)\s+(?i:epoch)\s+(\d+)\s*:\s*$")
_SERIES_ROW = re.compile(rb"^([A-Za-z_][\w/]*)\s{2,}(\S+)\s*$")
_SERIES_END = b"dtype:"
_MAX_BLOCK = 200  # rows: a block past this is a table dump, not one epoch's record
# GluonCV's detection scripts (train_ssd / train_yolo3 / train_faster_rcnn /
# train_center_net) log each validation as "[Epoch 3] Validation: \n" + one "name=value"
# per line: VOC07MApMetric's AP of each class ("aeroplane=0.14", "train=0.08": a class
# name, not a split), then "mAP=0.17". One eval record; of its rows only those named
# like a metric are kept (the per-class APs are understood and left out).
_VAL_BLOCK_HEAD = re.compile(rb"\[Epoch (\d+)\] Validation:\s*$")
_VAL_BLOCK_ROW = re.compile(rb"^([^\s=][^=]{0,80}?)=(\S+)\s*$")

# -- darknet --------------------------------------------------------------------------------
# its classifier (classifier.c) prints the epoch after the iteration, as images seen over
# the training set's size: "40245, 4.021: 6.907692, 6.910023 avg, 0.081346 rate, ..."
_DARKNET = re.compile(
    rb"^\s*(\d+)(?:, (\d+(?:\.\d+)?))?: (\S+), (\S+) avg(?: loss)?, (\S+) rate, (\S+) seconds, \d+ images"
)
_DARKNET_REGION = re.compile(rb"^\s*(?:v3 \(.*\) )?Region \d+ Avg \(?IOU: ")

# -- EESEN (Kaldi-based CTC) --------------------------------------------------------------
# train-ctc-parallel's report every N sequences: "VLOG[1] (train-ctc-parallel:EvalParallel():
# ctc-loss.cc:182) After 280196 sequences (343.467Hr): Obj(log[Pzx]) = -34.12   TokenAcc =
# 65.5557%" (GitHub escapes the "()" of a pasted one as "%28%29"). Obj is the mean CTC
# log-likelihood log P(z|x), the negative of the CTC loss: the loss is -Obj (EESEN's
# log-zero floor -1e+30 reads as a loss of 1e30, a probability that underflowed to 0).
# The sequences seen count the steps; token accuracy is a percentage.
_EESEN = re.compile(
    rb"After (\d+) sequences \([\d.]+ ?Hr\): Obj\(log\[Pzx\]\) = (\S+)\s+TokenAcc = (\S+?)%"
)

# -- Kaldi nnet3 ----------------------------------------------------------------------------
# nnet3-train (and nnet3-chain-train) log the objective of the 'output' node, a per-frame
# log-likelihood (chain: the LF-MMI objective), per phase of minibatches and for the whole
# iteration: "LOG (nnet3-train[5.5]:PrintStatsForThisPhase():nnet-training.cc:280)
# Average objective function for 'output' for minibatches 0-9 is -3.90735 over 12800
# frames." and "LOG (nnet3-train[5.5]:PrintTotalStats():nnet-training.cc:348) Overall
# average objective function for 'output' is -2.81208 over 435200 frames." (with a
# regularizer: "is -0.087 + -0.023 = -0.110 over ..."; the sum is the objective). The loss
# is -objective, as for EESEN; "-nan" is a non-finite loss. A side output ('output-xent')
# is not the objective trained. One iteration is one log file (exp/.../log/train.N.J.log,
# J the parallel job): `grep ... log/train.*.log` names it before the line, and then the
# iteration is the step (its first job's line: the jobs train copies of one model).
_KALDI = re.compile(
    rb"\b(Overall average|Average) objective function for 'output' "
    rb"(?:for minibatches (\d+)-(\d+) )?is (\S+)(?: \+ \S+ = (\S+))? over \S+ frames"
)
_KALDI_FILE = re.compile(rb"(?<![\w.])train\.(\d+)\.\d+\.log:")

# -- Tesseract lstmtraining -------------------------------------------------------------------
# LSTMTrainer::PrepareLogMsg: "At iteration 100/120/120, mean rms=4.5%, delta=19.9%, BCER
# train=98.1%, BWER train=100%, skip ratio=0%," (tesseract 4.0: "Mean rms", "char train",
# "word train"): the learning / training / sample iterations, then the running error rates
# over the recent training lines, in percent. "char train" and "word train" are the
# character and word ERROR rates (100% is nothing right; above 100 the output has more
# wrong characters than the truth has characters), never accuracies. The evaluator's
# result may be glued after it: "At iteration 1553, stage 0, Eval Char error rate=267.3,
# Word error rate=100": the error rates on the eval list, in percent, of the checkpoint of
# that training iteration (evaluated in the background, so reported later). The training
# iteration is the step; a glued eval is read where it was reported (its own iteration
# lies behind the line's), a lone one (lstmeval's) at its own. "mean rms" is the running
# RMS of the output error (targets minus the softmax outputs) over the recent training
# lines, in percent: the objective's own measure, the loss curve of lstmtraining ("delta",
# the RMS of the back-propagated deltas, moves with it and is not kept).
# insightface's verification test (recognition/train.py, arcface_torch's
# CallBackVerification): per target set and global batch, "[lfw][4000]XNorm: 11.2" (the
# mean feature norm), "[lfw][4000]Accuracy-Flip: 0.99533+-0.00356" (the 10-fold
# verification accuracy with flipped images added, and its spread over the folds; old
# scripts also printed the plain "Accuracy:"), then "[lfw][4000]Accuracy-Highest: 0.99533"
# or "[4000]Accuracy-Highest: 0.99533" (a running best). verification.py run alone prints
# "[lfw]XNorm: 22.13" without the batch; arcface_torch's logger puts its own prefix
# before the line. The accuracy is an eval of that set, after the train line before it;
# the set's name is not a metric and the batch is no value. The norm and the best are
# understood, not kept.
_VERIFY = re.compile(
    rb"\[([A-Za-z][\w.-]{0,40})\](?:\[\d+\])?(XNorm|Accuracy(?:-Flip|-Highest)?): "
    rb"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|-?nan|-?inf)(\+-\S+)?\s*$"
)
_VERIFY_BEST = re.compile(rb"^\[\d+\]Accuracy-Highest:(?: [\d.]+)+\s*$")
_VERIFY_NAMES = {b"Accuracy-Flip": "acc", b"Accuracy": "acc_noflip"}
# NCRF++ (jiesutd/NCRFpp main.py) evaluates each epoch on the dev set, then on the test
# set: "Dev: time: 4.53s, speed: 724.57st/s; acc: 0.8325, p: 0.1667, r: 0.0002, f: 0.0003"
# and "Test: time: ...; acc: ..., p: ..., r: ..., f: ..." (token accuracy, then the span
# precision, recall and F1; "acc" alone for a tagger without spans). Two held-out sets at
# one epoch: the dev scores are the eval_* curves model selection reads, the test scores
# test_*; under one name the test line would overwrite the dev one. Before each, its
# evaluate() prints "Right token =  42757  All token =  51362  acc =  0.83246": the same
# token accuracy unrounded, understood and not read a second time.
_NCRF_NUM = rb"([-+]?\d+(?:\.\d+)?|-?nan|-?inf)"
_NCRF = re.compile(
    rb"^(Dev|Test): time: [\d.]+s,? speed: [\d.]+st/s; acc: "
    + _NCRF_NUM
    + rb"(?:, p: "
    + _NCRF_NUM
    + rb")?(?:, r: "
    + _NCRF_NUM
    + rb")?(?:, f: "
    + _NCRF_NUM
    + rb")?"
)
_NCRF_TOKENS = re.compile(rb"^Right token =\s+\d+\s+All token =\s+\d+\s+acc =\s+\S+\s*$")
_NCRF_NAMES = ("acc", "precision", "recall", "f1")
_TESS_NUM = rb"([-+]?\d+(?:\.\d+)?|-?nan|-?inf)"
_TESS_TRAIN = re.compile(
    rb"At iteration \d+/(\d+)/\d+, [Mm]ean rms="
    + _TESS_NUM
    + rb"%, delta=\S+%, (?:char|BCER) train="
    + _TESS_NUM
    + rb"%, (?:word|BWER) train="
    + _TESS_NUM
    + rb"%"
)
_TESS_EVAL = re.compile(
    rb"At iteration (\d+), stage \d+, Eval Char error rate="
    + _TESS_NUM
    + rb", Word error rate="
    + _TESS_NUM
)

# -- hand-written RL loops -----------------------------------------------------------------
# an episode's return said in a sentence, the whole message: "Total rewards in episode 12
# is 200.0", "Reward for episode 3: -21.0", "Total return of episode 40 = 180", and the
# tutorials' "Run episode 12 with rewards 200.0" (the episode is the step). It opens the
# line or follows a logger's prefix ("... DEBUG - ", "end_of_round: "), never prose. The
# bare "Episode 12: 200.0" of a hand-written loop (print(f"Episode {i}: {ep_reward}")) says
# the same: a line that is only an episode number and one number names that episode's
# return; anything else after the colon ("Episode 12: loss 0.3") is another record.
_EPISODE_NUM = rb"([-+]?\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf)\.?\s*$"
_EPISODE_RETURN = re.compile(
    rb"(?:^\s*|(?<=[:\]|-] ))(?:"
    rb"(?i:(?:total |mean |average )?(?:rewards?|returns?|score) (?:in|of|for|at) episode)"
    rb" #?(\d+)\s*(?:is|was|:|=)\s*"
    rb"|(?i:run )?episode ?(\d+) with (?:total )?rewards? "
    rb"|(?i:episode) #?(\d+):\s*)" + _EPISODE_NUM
)

# keras-rl's test(): "Testing for 5 episodes ..." then one "Episode 1: reward: -1583.770,
# steps: 200" per test episode (its TestLogger); fit() ends in "done, took 304.161 seconds"
# (TrainIntervalLogger) just before test() starts, and "Training for 50000 steps ..."
# opens the next fit(). After either of the first two, the episode lines are evaluations:
# their return is eval_reward, not a point of the train reward (the interval bar's "-
# reward: -7.3978" is the mean reward per step, its "episode_reward:" the train return).
_KERAS_RL_TEST = re.compile(rb"(?:Testing for \d+ episodes \.\.\.|done, took [\d.]+ seconds)\s*$")
_KERAS_RL_EPISODE = re.compile(rb"Episode (\d+): reward: (\S+), steps: \d+\s*$")

# -- sentence loss lines of the classic tutorials --------------------------------------------
# TensorFlow's MNIST book/tutorial scripts: "After %d training step(s), loss on training batch
# is %g." and DL4J's ScoreIterationListener: "Score at iteration {} is {}" (the score is the
# loss the network minimises). The number in the sentence is the optimizer step. It opens the
# line or follows a logger's prefix ("... ScoreIterationListener - "), never prose.
_SENTENCE_LOSS = re.compile(
    rb"(?:^\s*|(?<=[:\]|-] ))(?:After (\d+) training step\(s\), loss on training batch is"
    rb"|Score at iteration (\d+) is) "
    rb"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|(?i:[-+]?nan|[-+]?inf(?:inity)?))\.?\s*$"
)

# -- comma pairs ----------------------------------------------------------------------------
_BATCH_PREFIX = re.compile(rb"^\[\s*(\d+),\s*(\d+)\]\s*")
_COLON_PAIR = re.compile(rb"([A-Za-z_]\w{0,60}):\s*([-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf))")
_COLON_PAIRS = re.compile(
    rb"\s*(?:[A-Za-z_]\w{0,60}:\s*[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf)[,;]?\s*)+"
)
_NAME = re.compile(rb"^[A-Za-z_]\w{0,60}$")
_EPOCH_KEYS = (b"epoch", b"step", b"iter", b"iteration")
_COMMA_HEADS = (b"epoch", b"step,", b"iter,", b"itera", b"best_")

# -- Caffe (glog) ---------------------------------------------------------------------------
# (NVIDIA's Caffe fork tags each solver message with its solver rank and device after the
# prefix, "solver.cpp:361]     [0.0]     Train net output #0: mbox_loss = inf": the tag
# is part of the prefix, the message Caffe's own)
_GLOG = re.compile(rb"^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\]\s*(?:\[\d+\.\d+\]\s*)?")
_CAFFE_ITER = re.compile(rb"Iteration (\d+)(, Testing net \(#\d+\))?")
# tianshou's trainer: a tqdm bar per epoch, "Epoch #1: 2001it [00:36, 54.27it/s,
# env_step=2000, len=1001, loss/actor=11.228, n/ep=0, n/st=1, rew=-943.40]", numbered by
# its env_step (the run's env steps), and after it the epoch's test line "Epoch #1:
# test_reward: -943.400000 ± 0.000000, best_reward: -943.400000 ± 0.000000 in #0": the
# deterministic test return, the spread of the test episodes, and the epoch of the best
# test return so far (#0: the test before any training). A paste can glue the test line
# to the bar before it (its carriage returns lost), so it is searched, not matched.
_TIANSHOU_BAR = re.compile(rb"Epoch #(\d+): [^\[\]]*\[[^\]]*?\benv_step=(\d+)([^\]]*)\]")
_TIANSHOU_PAIR = re.compile(rb"([A-Za-z_][\w/]*)=([-+\w.]+)")
_TIANSHOU_TEST = re.compile(
    rb"Epoch #(\d+): test_reward: (\S+) \xc2\xb1 (\S+), best_reward: (\S+) \xc2\xb1 (\S+) in #(\d+)"
)
# its bar's names -> ours. "rew" is the trainer's last_rew: the mean return of the
# episodes the last collect that finished any finished, printed again unchanged while
# collects finish none (n/ep=0), and 0.00 before the first episode ends. So it is the
# reward where the bar's own collect finished episodes (n/ep > 0), or where it differs
# from the rew read before (episodes ended between two printed bars); a repeat beside
# n/ep=0 is the same number again, and the 0.00 opening a log before any episode the
# placeholder: neither is a new reading, and their runs of equal values no flat reward.
_TIANSHOU_NAMES: dict[str, str] = {}
_TIANSHOU_SKIP = frozenset({"env_step", "len", "n/ep", "n/st", "rew"})
# Grokking Deep RL's (mimoralea/gdrl) training loops, one line per minute: "el 00:01:06, ep
# 3335, ts 031432, ar 10 001.0±000.0, 100 001.0±000.0, ex 100 0.0±0.0, ev 009.5±000.7" -
# elapsed time, episodes, env steps, the mean ± std of the return of the last 10 and 100
# training episodes, their share of exploratory actions, and the evaluation score
# (mean ± std over the last 100 evaluations). Numbered by the env steps; the 100-episode
# mean is the book's training curve (the reward), its std the spread of those returns.
_GDRL = re.compile(
    rb"^el \d+:\d\d:\d\d, ep (\d+), ts (\d+), ar 10 (\S+)\xc2\xb1(\S+), 100 (\S+)\xc2\xb1(\S+),"
    rb" ex 100 \S+\xc2\xb1\S+, ev (\S+)\xc2\xb1(\S+)"
)
# Dopamine's runner, absl-logged (the glog prefix Caffe's solver uses): "Starting iteration
# N" opens each iteration, whose training phase ends in "Average undiscounted return per
# training episode: -20.61" (the mean return of the iteration's training episodes) and
# whose evaluation phase, if any, in "... per evaluation episode: X".
_DOPAMINE_ITER = re.compile(rb"Starting iteration (\d+)\s*$")
_DOPAMINE_RETURN = re.compile(
    rb"Average undiscounted return per (training|evaluation) episode: (\S+)\s*$"
)
_DOPAMINE_BARE = (b"Starting iteration ", b"Average undiscounted return per ")
# FinRL's stock-trading env, at the end of each episode (env_stocktrading.py): "day: 2515,
# episode: 100", then one "name: value" line each for begin_total_asset, end_total_asset,
# total_reward (the episode's return), total_cost, total_trades, Sharpe, and a line of "="
_FINRL_HEAD = re.compile(rb"^day: (\d+), episode: (\d+)\s*$")
_FINRL_ROW = re.compile(
    rb"^(begin_total_asset|end_total_asset|total_reward|total_cost|total_trades|Sharpe):\s*(\S+)\s*$"
)
_FINRL_NAMES = {"total_reward": "reward", "Sharpe": "sharpe"}
_CAFFE_OUT = re.compile(
    rb"(Train|Test) net output #\d+: (\S+) = (\S+)(?: \(\* \S+ = (\S+) loss\))?"
)
# Caffe before its outputs had names (2014): "Test score #0: 0.00699999" ("Test score # 1:
# 6.90977"), the test net's output blobs in their order. Caffe's reference nets of the
# time (LeNet, CIFAR-10, CaffeNet) end in an accuracy layer and then the loss, and its
# MNIST tutorial reads "Test score #0: 0.9897 / #1: 0.0305" as accuracy and loss: a
# block of exactly those two, #0 a share in [0, 1], is named so; other blocks keep their
# numbers (eval_output_k, no measure the rules read).
# the weighted value "(* w = v loss)" of a train output: a term of the iteration's loss
_CAFFE_TERM = "\0caffe_loss_term"
_CAFFE_SCORE = re.compile(rb"Test score #\s?(\d+): (\S+)\s*$")
_CAFFE_BARE = (b"Iteration ", b"Test net output #", b"Train net output #", b"Test score #")

# -- validation summaries -------------------------------------------------------------------
_ONMT_STEP = re.compile(rb"\bStep (\d+)/\s*\d+;")
_ONMT_VALID = re.compile(rb"(?:^|\] )Validation (perplexity|accuracy|xent): (\S+)\s*$")
_TIMM_TRAIN = re.compile(
    rb"^Train: (\d+) \[\s*(\d+)/(\d+) \(\s*\d+%\)\]\s+Loss:\s*(\S+) \(\s*\S+\)"
)
_TIMM_TEST = re.compile(rb"^Test(?: \(EMA\))?: \[\s*(\d+)/(\d+)\]")
_TIMM_PAIR = re.compile(rb"(Loss|Acc@1|Acc@5|LR):\s*(\S+)(?: \(\s*(\S+)\))?")
_TIMM_NAMES = {b"Loss": "loss", b"Acc@1": "acc1", b"Acc@5": "acc5", b"LR": "lr"}
# The MetricLogger of torchvision's reference scripts, which DETR, DeiT, MAE, DINO and
# ConvNeXt copy: its eval prints "Test:  [65/66]  eta: 0:00:00  loss: 6.8166 (6.8224)
# acc1: 0.0000 (1.0280)  acc5: 3.1250 (4.3120)  time: 0.2063  data: 0.0002  max mem: 13577"
# per batch: each meter's latest value, then in brackets its mean over the batches so far.
# Swin Transformer's validate() (and SimMIM, CSWin, DAT, ... after it) prints the same
# meters behind its logger's prefix, without colons: "[2022-06-08 07:34:50 swinv2](main.py
# 258): INFO Test: [0/196]\tTime 1.895 (1.895)\tLoss 0.8066 (0.8066)\tAcc@1 84.766
# (84.766)\tAcc@5 95.312 (95.312)\tMem 36916MB". The last batch's means ([N-1/N]) are the
# evaluation's result; the lines before are its progress (under the names of the train
# meters, they were read as train values). The classifiers then print the same means
# once more: "* Acc@1 1.028 Acc@5 4.312 loss 6.822" (torchvision's newer scripts:
# "Test:  Acc@1 72.100 Acc@5 91.000"; Swin's "INFO  * Acc@1 82.766 Acc@5 95.312").
_MLOG_TEST = re.compile(rb"(?:^|\bINFO\s+)Test:\s+\[\s*(\d+)/(\d+)\]\s+(?:eta: |Time )")
_MLOG_PAIR = re.compile(rb"([A-Za-z][\w@]*):? (\S+) \((?:avg )?(\S+)\)")
_MLOG_ACC = re.compile(
    rb"(?:^|\bINFO\b)\s*(?:\*\s*|Test:(?: EMA)?\s+)?(?:Acc|Prec)@1\s+(\S+)\s+(?:Acc|Prec)@5\s+(\S+)"
    rb"(?: loss (\S+))?\s*$"
)
# (the older ImageNet example, and its forks, print the same summary as " * Prec@1 52.365
# Prec@5 80.394": Prec@k is its name for the top-k accuracy)
_YOLO_ROW = re.compile(rb"^\s*(\d+)/\d+\s+\d")
# Images, Labels, P, R, mAP@.5, mAP@.5:.95
# (a segmentation or pose run's row goes on with a second P, R, mAP50, mAP50-95 group: its
# Mask(...) or Pose(...) columns)
_YOLO_ALL = re.compile(rb"^\s+all\s+(\S+)\s+(\S+)((?:\s+\S+){4}|(?:\s+\S+){8})\s*$")
_YOLO_EVAL = ("eval_precision", "eval_recall", "eval_map50", "eval_map50_95")
# The validation table's header over that row, as its val.py / validator prints it: YOLOv5's
# ('%20s' + '%11s' * 6) % ('Class', 'Images', 'Labels', 'P', 'R', 'mAP@.5', 'mAP@.5:.95')
# (later 'Instances', 'mAP50', 'mAP50-95'), ultralytics' ("%22s" + "%11s" * 6) % ("Class",
# "Images", "Instances", "Box(P", "R", "mAP50", "mAP50-95)") with "Mask(P" / "Pose(P" ...
# after it for a segmentation / pose model; the validation's tqdm bar may follow on the
# line. Its values are the `all` row's: the header itself is understood, no record. A paste
# cut at the terminal's width ends it inside its last column ("...  mAP50  mAP50-"): still
# the header (its `all` row is read as a box row, four values).
_YOLO_HEAD = re.compile(
    rb"^\s*Class\s+Images\s+(?:Labels|Instances|Targets)\s+(?:Box\()?P\s+R\s+mAP"
    rb"(?:@\.5|50)(?:\s+mAP(?:@\.5:\.95|50-95)\)?(?:\s+(Mask|Pose)\(P\s+R\s+mAP50\s+mAP50-95\))?"
    rb"|\s+mAP[\w@.:-]*)?(?=\s*(?::|$))"
)


# pycocotools' COCOeval.summarize(), which detectron2, mmdetection, torchvision's detection
# references, DETR and YOLOX print after each evaluation: twelve lines (ten for keypoints)
# ' {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}', the title "Average
# Precision" or "Average Recall" and (AP) or (AR). The first, AP at IoU=0.50:0.95 over all
# areas, is the COCO mAP; AP at IoU=0.50 and 0.75 its two other headline values. The
# per-area APs and the recalls are understood and not kept; -1 marks an empty area.
# The block is one eval record, numbered like the train record before it; the iou type
# pycocotools printed before it ("Evaluate annotation type *segm*", torchvision's "IoU
# metric: segm") names a mask or keypoint block. mmdetection's CocoMetric announces it
# as "Evaluating segm..." and logs the same values on its val line right after the block
# ("Epoch(val) [1][13] bbox_mAP: 0.0057, bbox_mAP_50: ..."), numbered there: its block is
# understood and not read twice.
_COCO = re.compile(
    rb"^\s*Average (?:Precision|Recall)\s+\((AP|AR)\) @\[ IoU=([\d.:]+)\s*\| area=\s*(\w+)"
    rb" \| maxDets=\s*\d+ \] = (-?[\d.]+)\s*$"
)
_COCO_TYPE = re.compile(rb"(?:annotation type \*|Evaluating |IoU metric: )(bbox|segm|keypoints)\b")
_COCO_KEYS = dict(zip((b"0.50:0.95", b"0.50", b"0.75"), _coco.STATS, strict=True))
_COCO_PREFIX = {k.encode(): v for k, v in _coco.PREFIX.items()}


# Kaldi's compute-wer: "%WER 20.47 [ 11780 / 57534, 1055 ins, 2275 del, 8450 sub ]" (its
# sentence error rate "%SER 73.27 [ 1234 / 1684 ]"); icefall and k2 print the same with a
# percent sign after the rate ("%WER 2.46% [1294 / 52576, 153 ins, 120 del, 1021 sub ]").
# The bracket counts errors over reference words (sentences): no step of any kind. The
# rate is a held-out decode's, in percent. A retyped paste may lead with "$" for the "%"
# ("$WER 100.00%[20138/20138,0 ins, 20138 del, 0sub]"), as the empty-output event allows.
_ERR_RATE = re.compile(
    rb"[%$](WER|CER|SER)\s+(\d+(?:\.\d+)?)%?\s*\[\s*\d+\s*/\s*\d+\s*"
    rb"(?:,\s*\d+\s*ins,\s*\d+\s*del,\s*\d+\s*sub\s*)?\]"
)


# PaddleDetection's VOCMetric (ppdet/metrics/metrics.py) after each Pascal-VOC-style
# evaluation: "mAP(0.50, 11point) = 75.81%" ("integral" for the area under the whole
# curve), the mAP at that IoU threshold in percent: the eval's mAP@0.5 (at 0.50), kept as
# the fraction YOLO's and COCO's mAPs are.
_VOC_MAP = re.compile(rb"\bmAP\((0\.50?), (?:11point|integral)\) = (\d+(?:\.\d+)?)%")


# Coqui TTS's trainer (and Mozilla TTS before it) prints each record as a block: a head
# line, then one "     | > name: value" row per value. A training step's head is
# "   --> TIME: ... -- STEP: k/N -- GLOBAL_STEP: g" (older: no TIME), its rows "name:
# value  (running average)"; an evaluation ends with "  --> EVAL PERFORMANCE", whose rows
# are the eval's averages "avg_name: value (change since the last eval)". An eval batch's
# "   --> STEP: k" and the epoch's "--> TRAIN PERFORMACE" averages are not records.
_COQUI_TRAIN = re.compile(rb"-->(?: TIME: [^\n]*?--)? STEP: \d+/\d+ -- GLOBAL_STEP: (\d+)")
_COQUI_EVAL = re.compile(rb"^\s*-->\s*EVAL PERFORMANCE\s*$")
_COQUI_OTHER = re.compile(rb"^\s*-->\s*(?:STEP: \d+\s*$|TRAIN PERFORMACE)")
_COQUI_OPT0 = {"loss_0": "loss", "grad_norm_0": "grad_norm", "current_lr_0": "lr"}
_COQUI_ROW = re.compile(rb"^\s*\| > ([^:|]{1,80}):\s*(\S+)(?:\s+\((\S+)\))?\s*$")


# fairseq-py's (2018) simple progress during validation: "| epoch 005 | valid on 'valid'
# subset  1000 / 1311 loss=2.72", batch k of n of the subset and the running mean so far.
# An evaluation not yet finished: its value is the "| valid loss 3.13 | ..." summary line
# after it, and the batch counter is no step of the run.
_FAIRSEQ_VALID_BATCH = re.compile(rb"valid on '[^']+' subset\s+\d+ / \d+ ")

# RLlib's result of one training iteration, printed as sorted YAML by Tune's reporter
# ("Result for PPO_CartPole-v0_0:" then rows indented two spaces) or by a script's
# `print(pretty_print(result))` (no head, top-level keys unindented, results apart by a
# blank line). The keys sort alphabetically, so `training_iteration`, the record's step,
# comes last: the block is read whole. A headless block opens only on a key of RLlib's
# own result dict. Nested learner stats (`info: learner: default_policy: learner_stats:`,
# old `info: default:`, new `learners: default_policy:`) give the losses of the first
# policy; `evaluation:` holds the evaluation's return.
_RLLIB_HEAD = re.compile(rb"^Result for \S+:\s*$")
_RLLIB_OPEN = re.compile(
    rb"^(?:agent_timesteps_total|custom_metrics|counters|episode_reward_max|"
    rb"episode_reward_mean|episode_len_mean|env_runners|num_env_steps_sampled_lifetime):"
    rb"(?: \S+)?\s*$"  # the key alone on its line: "episode_reward_mean: 5, loss: 0.3" is not
)
_RLLIB_ROW = re.compile(rb"^( *)([\w./-]+):(?: (.*?))?\s*$")
_RLLIB_RETURNS = frozenset({"episode_reward_mean", "episode_return_mean"})
_RLLIB_LEARNER = {
    "total_loss": "loss",
    "policy_loss": "policy_loss",
    "vf_loss": "value_loss",
    "entropy": "entropy",
    "cur_lr": "lr",
    "grad_gnorm": "grad_norm",
}

# rsl_rl's OnPolicyRunner (legged_gym, Isaac Lab, HOVER...) prints one block per PPO
# iteration: a line of '#', the centred head "Learning iteration N/M", then one row per
# value, its name right-aligned before a colon ("          Mean reward: -4.08",
# "Value function loss: 0.0112"), timings under a line of dashes. A block is one record
# at iteration N (its "Total timesteps" is N times the rollout, a counter). Its losses are
# the critic's regression and the clipped surrogate of the policy: components, there is
# no total loss. The per-term rows ("Mean episode rew_lin_vel: ...", "Episode_Reward/x:")
# and the timings are not learning signals and are left out.
_RSL_HEAD = re.compile(rb"^\W*(?:\[1m)?\s*Learning iteration (\d+)/(\d+)\s*(?:\[0m)?\s*$")
_RSL_ROW = re.compile(rb"^\s*([A-Za-z][\w /.-]{0,80}?):\s+(\S+)")
_RSL_NAMES = {
    "value function loss": "value_loss",
    "value_function loss": "value_loss",
    "value loss": "value_loss",
    "surrogate loss": "policy_loss",
    "entropy loss": "entropy",  # rsl_rl logs the policy's entropy under this name
    "entropy": "entropy",
    "reward": "reward",
    "episode length": "episode_length",
    "action noise std": "action_std",
    "action std": "action_std",
}

# -- gradient boosting (LightGBM) -----------------------------------------------------------
# LightGBM's evaluation callback prints "[%d]\t%s's %s: %g" per (data set, metric), tab
# joined (the R package "[%d]:  %s's %s:%g"). The round is the step; the data set named
# train*/training is the training data, every other one held-out data (valid_0, valid_1,
# eval, test, or a name the user chose).
# XGBoost prints "[%d]\t%s-%s:%f" (`[12000]\teval-logloss:0.91\ttrain-logloss:0.002`),
# the data set's name, a dash, the metric; its console logger may put the time first
# ("[20:01:02] [0]\ttest-error:0.0272").
_GBDT_HEAD = re.compile(
    rb"^(?:\[\d\d:\d\d:\d\d\]\s+)?\[(\d{1,7})\]:?\s+"
    rb"(?=[^\s'\[\]]+'s |[A-Za-z_][\w.]{0,40}-[\w@.-]{1,60}:)"
)
# Cross-validation prints each metric's mean over the folds, then its standard deviation
# across them: xgb.cv "[%d]\t%s-%s:%f+%f" (`train-logloss:0.528952+0.000417`), lgb.cv
# "cv_agg's valid binary_logloss: 0.5 + 0.01" (the fold sets' aggregate, its split before
# the metric: `train` or `valid`, none before LightGBM 4). The mean is the curve; the
# deviation is no point of it.
_NUM = rb"[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf)"
_GBDT_PAIR = re.compile(
    rb"\s*(?:([^\s'\[\]]+)'s ((?:(?:train|valid) )?[\w@.:-]{1,60})"
    rb"|([A-Za-z_][\w.]{0,40})-([\w@.-]{1,60}))"
    rb":\s*(" + _NUM + rb")(?: ?\+ ?" + _NUM + rb")?"
)
# CatBoost's verbose line: "600:\tlearn: 0.1498213\ttest: 0.1367448\tbest: 0.1366783 (566)\t
# total: 28.9s\tremaining: 19.2s" (more eval sets: "test1: ..."). learn/test are its eval
# metric, by default the loss function; "best" (the best test value so far) tells a score
# (best above the current test value: higher is better) from a loss.
_CATBOOST = re.compile(
    rb"^(\d{1,7}):\s+learn: (\S+)((?:\s+test\d*: \S+)*)(?:\s+best: (\S+) \(\d+\))?"
    rb"\s+total: [^\t]*?\s+remaining: .*$"
)
_CATBOOST_TEST = re.compile(rb"\s+test(\d*): (\S+)")

# The metrics that are a booster's objective (its default metric is its objective's
# loss: l2 for regression, binary_logloss for binary, multi_logloss for multiclass...):
# lower is better and the first of them is the loss the rounds minimise. Any other
# (auc, ndcg@k, map, binary_error) is a task metric and keeps its name.
_GBDT_LOSSES = frozenset(
    {
        "l1", "l2", "l2_root", "rmse", "mae", "mse", "regression", "regression_l1",
        "huber", "fair", "poisson", "quantile", "mape", "gamma", "gamma_deviance",
        "tweedie", "binary_logloss", "multi_logloss", "cross_entropy", "xentropy",
        "cross_entropy_lambda", "kullback_leibler", "logloss", "mlogloss",
    }
)  # fmt: skip


class Layouts:
    """The multi-line and unusual layouts of one text log, fed line by line."""

    def __init__(self, log: TextLog) -> None:
        self.log = log
        self._table: list[tuple[str, bytes]] | None = None  # SB3 rows so far
        self._table_at = (0, 0, False)  # (line, seq, a stepless record waited for it)
        self._flat = False  # the open table is baselines' sectionless one
        # (loose record, printed step) of the flat tables whose step was rounded, in order
        self._rounded: list[tuple[int, float]] = []
        self._dash_at = -2  # the line number of the last line of dashes
        self._block: list[tuple[str, float]] | None = None  # a vertical block's pairs
        # an open GluonCV validation block: (its head's line, its epoch, its rows)
        self._val_block: tuple[int, float, list[tuple[bytes, bytes]]] | None = None
        self._block_at = (0, b"", math.nan)  # (line, indent or b"" for a Series, epoch)
        self._per_epoch: dict[int, int] = {}  # batches seen per epoch ([e, i] lines)
        self._iter = math.nan  # the step of the last Caffe `Iteration N` / OpenNMT `Step N`
        self._test_at = math.nan  # the iteration of Caffe's `Testing net` line
        self._outs: tuple[int, bool, list[tuple[str, float]]] | None = None  # Caffe's
        self._at = (math.nan, math.nan)  # (step, epoch) of the last timm / YOLO train line
        self._mlog_at = -10  # the line of the last MetricLogger eval read (its last batch)
        self._rew = math.nan  # the rew of the last tianshou bar
        self._finrl: tuple[int, float, list[tuple[str, float]]] | None = None  # an open summary
        self._coco: list[tuple[str, float]] | None = None  # an open COCOeval summary
        self._coco_at = 0  # its first line
        self._coco_type = b"bbox"  # the iou type pycocotools last named
        self._coco_mmdet = False  # ... named by mmdetection, which logs the values itself
        self._yolo_second = ""  # "mask" / "pose": the second group of a YOLO val header
        self._cat_score = False  # CatBoost's metric is a score (its best above a test value)
        # Coqui's open block: (line, step, "train" | "eval" | "skip", its (name, value) rows)
        self._coqui: tuple[int, float, str, list[tuple[str, float]]] | None = None
        self._coqui_at = math.nan  # the GLOBAL_STEP of the last training block
        self._kaldi_base = 0.0  # minibatches of the Kaldi iterations before this one
        self._kaldi_last = -1.0  # the last minibatch of this iteration's phase lines
        self._kaldi_iters: set[float] = set()  # iterations (train.N.J.log) read
        # RLlib's open result block: (its first line, the indent of its top-level keys,
        # the key path of each open level, its (path, value) rows)
        self._rllib: (
            tuple[int, int, list[tuple[int, str]], list[tuple[tuple[str, ...], bytes]]] | None
        ) = None
        self._rllib_at = math.nan  # the training_iteration of the last RLlib block
        self._rllib_top, self._rllib_no = "", 0  # its last top-level key, the line
        # rsl_rl's open iteration block: (its head's line, the iteration, its rows)
        self._rsl: tuple[int, float, list[tuple[str, float]]] | None = None
        # the returns of keras-rl's test episodes so far (None outside its test phase)
        self._rl_test: list[float] | None = None

    def offer(self, no: int, text: bytes) -> bool:
        """True when a layout took the line (it is then not analysed as a shape)."""
        c = text[:1]
        if self._coco is not None:
            if (m := _COCO.match(text)) is not None:
                return self._coco_line(m)
            self.close_coco()
        if c in b" A" and c and (m := _COCO.match(text)) is not None:
            self._coco, self._coco_at = [], no
            return self._coco_line(m)
        if (b"valuat" in text or b"IoU metric: " in text) and (t := _COCO_TYPE.search(text)):
            self._coco_type = t.group(1)
            self._coco_mmdet = t.group(0).startswith(b"Evaluating ")
        if self._val_block is not None:
            rows = self._val_block[2]
            if len(rows) <= _MAX_BLOCK and (row := _VAL_BLOCK_ROW.match(text)) is not None:
                rows.append((row.group(1), row.group(2)))
                return True
            self.close_val_block()
        if b"] Validation:" in text and (m := _VAL_BLOCK_HEAD.search(text)) is not None:
            self._val_block = (no, float(m.group(1)), [])
            return True
        if self._table is not None:
            if c == b"|" and self._table_row(text):
                return True
            self.close_table()
        if self._block is not None:
            if self._block_row(text):
                return True
            self.close_block()
        if self._rllib is not None and self._rllib_row(text):
            return True
        if text[:1] in b"Racene" and text[:1] and self._rllib_open(no, text):
            return True
        if self._rsl is not None and self._rsl_row(text):
            return True
        if b" subset " in text and _FAIRSEQ_VALID_BATCH.search(text) is not None:
            return True  # an unfinished validation's running mean
        if b"Learning iteration " in text and (m := _RSL_HEAD.match(text)) is not None:
            self.close_rsl()
            self._rsl = (no, float(m.group(1)), [])
            return True
        if self._coqui is not None:
            if (row := _COQUI_ROW.match(text)) is not None:
                if (v := parse(row.group(2))) is not None:
                    self._coqui[3].append((row.group(1).decode("utf-8", "replace").strip(), v))
                return True
            self.close_coqui()
        if b"-->" in text and self._coqui_head(no, text):
            return True
        if self._finrl is not None:
            if (row := _FINRL_ROW.match(text)) is not None:
                if (v := parse(row.group(2))) is not None:
                    key = row.group(1).decode()
                    self._finrl[2].append((_FINRL_NAMES.get(key, key), v))
                return True
            self.close_finrl()
        if c == b"d" and (m := _FINRL_HEAD.match(text)) is not None:
            self._finrl = (no, float(m.group(2)), [("episode", float(m.group(2)))])
            return True
        if c in b"IWEF" and c and (m := _GLOG.match(text)):
            return self._dopamine(no, text[m.end() :]) or self._caffe(no, text[m.end() :])
        if c in b"AS" and c and text.startswith(_DOPAMINE_BARE):
            return self._dopamine(no, text)  # a paste with the absl prefixes cut off
        if c in b"IT" and c and text.startswith(_CAFFE_BARE):
            return self._caffe(no, text)  # a paste with the glog prefixes cut off
        self.close_outputs()  # a Caffe block of net outputs ends at a line of another kind
        if b"objective function for 'output' " in text and self._kaldi(no, text):
            return True
        if c == b"A" and text.startswith(b"At iteration ") and self._tesseract(no, text):
            return True
        if (b"]XNorm: " in text or b"]Accuracy" in text) and self._verification(no, text):
            return True
        if c in b"DTR" and c and self._ncrfpp(no, text):
            return True
        if c in b"TdE" and c and self._keras_rl(no, text):
            return True
        if b"pisode" in text and (m := _EPISODE_RETURN.search(text)) is not None:
            if (v := parse(m.group(4))) is None:
                return False
            ep = float(m.group(1) or m.group(2) or m.group(3))
            self.log.add_loose(no, [("reward", v)], ep, SRC_STEP, math.nan)
            return True
        if (b"training step(s)" in text or b"Score at iteration" in text) and (
            m := _SENTENCE_LOSS.search(text)
        ) is not None:
            if (v := parse(m.group(3))) is None:
                return False
            self.log.add_loose(
                no, [("loss", v)], float(m.group(1) or m.group(2)), SRC_STEP, math.nan
            )
            return True
        if c == b"E" and text.startswith(b"Epoch #") and self._tianshou(no, text):
            return True
        if c == b"e" and (m := _GDRL.match(text)) is not None:
            return self._gdrl(no, m)
        if c in b"[TV C*AP" and c and self._summary(no, text):
            return True
        if c == b"[" and self._gbdt(no, text):
            return True
        if b"%" in text and (m := _ERR_RATE.search(text)) is not None:
            v = parse(m.group(2))
            if v is not None:
                name = "eval_" + m.group(1).decode().lower()
                self.log.add_loose(no, [(name, v)], math.nan, SRC_NONE, math.nan, is_eval=True)
            return True
        if b"mAP(" in text and (m := _VOC_MAP.search(text)) is not None:
            v = parse(m.group(2))
            if v is not None:
                rec = [("eval_map50", v / 100)]
                self.log.add_loose(no, rec, math.nan, SRC_NONE, math.nan, is_eval=True)
            return True
        if c == b"-" and _DASHES.match(text):
            self._dash_at = no
            return False
        if c == b"|":
            m = _SB3_SECTION.match(text)
            if m is not None:
                self._table, self._flat = [(m.group(1).decode(), b"")], False
            elif (
                self._dash_at == no - 1
                and (f := _FLAT_ROW.match(text)) is not None
                and parse(f.group(2)) is not None
            ):
                self._table, self._flat = [(f.group(1).decode(), f.group(2))], True
            else:
                return False
            self._table_at = (no, self.log._seq, self.log._bar_pending)
            return True
        if c in (b" ", b"\t"):
            # AlexeyAB's darknet prints its iteration line indented: " 1: 720.4, ..."
            return self._open_padded(no, text) or self._darknet(no, text)
        if c.isdigit():
            return self._darknet(no, text) or self._catboost(no, text)
        heads = (c == b"[" and _BATCH_PREFIX.match(text)) or text[:5].lower() in _COMMA_HEADS
        if heads and self._commas(no, text):
            return True
        if c in b"Tt" and (m := _SERIES_HEAD.match(text)):
            self._block, self._block_at = [], (no, b"", float(m.group(1)))
            return True
        if c == b"V" and b"Obj(log[Pzx])" in text and self._eesen(no, text):
            return True
        return c in b"Rv" and bool(_DARKNET_REGION.match(text))

    def close(self) -> None:
        self.close_finrl()
        self.close_coco()
        self.close_val_block()
        self.close_table()
        self.spread_rounded()
        self.close_block()
        self.close_outputs()
        self.close_coqui()
        self.close_rsl()
        self.close_rllib()

    # -- Coqui TTS ----------------------------------------------------------------------------
    def _coqui_head(self, no: int, text: bytes) -> bool:
        if (m := _COQUI_TRAIN.search(text)) is not None:
            self._coqui_at = float(m.group(1))
            self._coqui = (no, self._coqui_at, "train", [])
        elif _COQUI_EVAL.match(text):
            self._coqui = (no, self._coqui_at, "eval", [])
        elif _COQUI_OTHER.match(text):
            self._coqui = (no, math.nan, "skip", [])
        else:
            return False
        return True

    def close_coqui(self) -> None:
        if self._coqui is None:
            return
        (no, step, what, rows), self._coqui = self._coqui, None
        src = SRC_STEP if step == step else SRC_NONE
        # `loss_{i}`, `grad_norm_{i}` and `current_lr_{i}` are the i-th optimizer's (a GAN:
        # 0 the generator, 1 the discriminator); with one optimizer's loss printed, its
        # total is the run's loss, its grad norm and LR the run's
        keys = {k.removeprefix("avg_") for k, _ in rows}
        if (
            "loss_0" in keys
            and "loss" not in keys
            and not any(k.startswith("loss_") and k != "loss_0" for k in keys)
        ):
            rows = [(_COQUI_OPT0.get(k.removeprefix("avg_"), k), v) for k, v in rows]
        if what == "train":
            vals = [(n, v) for k, v in rows if (n := metric_name(k, "", ""))]
            self.log.add_loose(no, vals, step, src, math.nan)
        elif what == "eval":
            vals = [(n, v) for k, v in rows if (n := _eval_name(k.removeprefix("avg_")))]
            self.log.add_loose(no, vals, step, src, math.nan, is_eval=True)

    # -- RLlib --------------------------------------------------------------------------------
    def _rllib_open(self, no: int, text: bytes) -> bool:
        """Open an RLlib result block on Tune's head or on a first key of its own."""
        self._rllib_no, self._rllib_top = no, ""
        if _RLLIB_HEAD.match(text) is not None:
            self._rllib = (no, 2, [], [])
            return True
        if _RLLIB_OPEN.match(text) is not None:
            self._rllib = (no, 0, [], [])
            return self._rllib_row(text)
        return False

    def _rllib_row(self, text: bytes) -> bool:
        """A YAML row of the open result block, its key path kept; a blank line or a line
        outside the block's indentation ends it (and is not taken)."""
        assert self._rllib is not None
        base, levels, rows = self._rllib[1], self._rllib[2], self._rllib[3]
        if self.log._bullet:
            return True  # an item of a list under the last key (hist_stats' returns)
        row = _RLLIB_ROW.match(text) if text.strip() else None
        if row is None or len(row.group(1)) < base:
            self.close_rllib()
            return False
        indent, key = len(row.group(1)), row.group(2).decode()
        if indent == base:
            # pretty_print sorts the keys: a top-level key that does not sort after the
            # last one begins the next result (the blank line between them is not seen)
            if key <= self._rllib_top and base == 0:
                self.close_rllib()
                return self._rllib_open(self._rllib_no, text)
            self._rllib_top = key
        while levels and levels[-1][0] >= indent:
            levels.pop()
        path = (*(k for _, k in levels), key)
        if row.group(3):
            rows.append((path, row.group(3)))
        else:
            levels.append((indent, key))
        return True

    def close_rllib(self) -> None:
        if self._rllib is None:
            return
        (no, _, _, rows), self._rllib = self._rllib, None
        train: dict[str, float] = {}
        evals: dict[str, float] = {}
        step = math.nan
        for path, raw in rows:
            if (v := parse(raw)) is None:
                continue
            key = path[-1]
            if path == ("training_iteration",):
                step = v
            elif key in _RLLIB_RETURNS:
                (evals if "evaluation" in path else train).setdefault(
                    "eval_reward" if "evaluation" in path else "reward", v
                )
            elif key == "episode_len_mean" and "evaluation" not in path:
                train.setdefault("episode_length", v)
            elif key in _RLLIB_LEARNER and "evaluation" not in path and len(path) > 1:
                train.setdefault(_RLLIB_LEARNER[key], v)
        if step != step:  # a paste cut before the block's last key: the next iteration
            step = self._rllib_at + 1
        self._rllib_at = step
        src = SRC_STEP if step == step else SRC_NONE
        self.log.add_loose(no, list(train.items()), step, src, math.nan)
        self.log.add_loose(no, list(evals.items()), step, src, math.nan, is_eval=True)

    # -- rsl_rl ------------------------------------------------------------------------------
    def _rsl_row(self, text: bytes) -> bool:
        """A line inside rsl_rl's iteration block: a row (kept when it is a learning
        signal, see `_RSL_NAMES`), a blank line or the line of dashes before its timings;
        any other line ends the block and is not taken."""
        assert self._rsl is not None
        if not text.strip() or _DASHES.match(text.strip()):
            return True
        if (row := _RSL_ROW.match(text)) is None:
            self.close_rsl()
            return False
        key = row.group(1).decode().strip().lower().removeprefix("mean ")
        name = _RSL_NAMES.get(key)
        if name is None and key.endswith(" loss") and "/" not in key:
            name = metric_name(key, "", "")  # another component: "Mean symmetry loss"
        if name is not None and (v := parse(row.group(2))) is not None:
            self._rsl[2].append((name, v))
        if key == "eta":
            self.close_rsl()  # the block's last row: what follows is another print
        return True

    def close_rsl(self) -> None:
        if self._rsl is None:
            return
        (no, it, rows), self._rsl = self._rsl, None
        self.log.add_loose(no, rows, it, SRC_STEP, math.nan)

    # -- COCOeval summary ---------------------------------------------------------------------
    def _coco_line(self, m: re.Match) -> bool:
        assert self._coco is not None
        kind, iou, area, raw = m.groups()
        key = _COCO_KEYS.get(iou)
        v = parse(raw)
        if self._coco_mmdet:
            return True
        if kind == b"AP" and area == b"all" and key and v is not None and v >= 0:
            name = _COCO_PREFIX[self._coco_type] + key
            if all(n != name for n, _ in self._coco):
                self._coco.append((name, v))
        return True

    def close_coco(self) -> None:
        if self._coco is None:
            return
        vals, self._coco = self._coco, None
        self.log.add_loose(self._coco_at, vals, math.nan, SRC_NONE, math.nan, is_eval=True)

    # -- FinRL --------------------------------------------------------------------------------
    def close_finrl(self) -> None:
        """One FinRL episode summary: its values at the summary's place in the log (the
        env's own episode count restarts with each env a script builds)."""
        if self._finrl is None:
            return
        (no, _, vals), self._finrl = self._finrl, None
        if len(vals) > 1:
            self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan)

    # -- tianshou -----------------------------------------------------------------------------
    def _tianshou(self, no: int, text: bytes) -> bool:
        bar = _TIANSHOU_BAR.search(text)
        test = _TIANSHOU_TEST.search(text)
        if bar is None and test is None:
            return False
        if bar is not None:
            step, ep = float(bar.group(2)), float(bar.group(1))
            vals = []
            pairs = {k.decode(): parse(raw) for k, raw in _TIANSHOU_PAIR.findall(bar.group(3))}
            for key, v in pairs.items():
                if key in _TIANSHOU_SKIP or v is None:
                    continue
                vals.append((_TIANSHOU_NAMES.get(key) or metric_name(key, "", "") or key, v))
            if (rew := self._tianshou_rew(pairs)) is not None:
                vals.append(("reward", rew))
            self._at = (step, ep)
            self.log.add_loose(no, vals, step, SRC_STEP, ep)
        if test is not None:
            got = [parse(g) for g in test.group(2, 3, 4, 5)]
            if all(v is not None for v in got):
                rew, std, _best, _ = got
                vals = [
                    ("eval_reward", rew),
                    ("eval_episode_reward_std", std),
                    ("eval_best_reward_epoch", float(test.group(6))),
                ]
                # at the last bar's step: in a glued paste that is the next epoch's first
                # bar, one env step on (numbering it back would read as a restart)
                ep, step = float(test.group(1)), self._at[0]
                src = SRC_STEP if step == step else SRC_EPOCH_ONLY
                self.log.add_loose(no, vals, step if step == step else ep, src, ep, is_eval=True)
        return True

    def _tianshou_rew(self, pairs: dict[str, float | None]) -> float | None:
        """The bar's rew when it is a new reading of the episodes' mean return (see
        `_TIANSHOU_NAMES`), else None."""
        rew, n_ep = pairs.get("rew"), pairs.get("n/ep")
        if rew is None or rew != rew:
            return None
        last, self._rew = self._rew, rew
        if n_ep is not None and n_ep > 0:
            return rew  # this collect finished episodes: their mean
        if last == last:
            return rew if rew != last else None  # episodes ended since the last bar
        return rew if rew != 0 else None  # 0.00 before any episode ended is no return

    # -- gdrl --------------------------------------------------------------------------------
    def _gdrl(self, no: int, m: re.Match[bytes]) -> bool:
        """One gdrl progress line (`_GDRL`): the 100-episode return and its spread, the
        evaluation score and its spread, at the line's env steps."""
        got = [parse(g) for g in m.group(1, 2, 5, 6, 7, 8)]
        if any(v is None for v in got):
            return False
        ep, ts, rew, std, ev, ev_std = (float(v) for v in got if v is not None)
        train = [("episode", ep), ("timesteps", ts), ("reward", rew), ("episode_reward_std", std)]
        self.log.add_loose(no, train, ts, SRC_STEP, math.nan)
        evals = [("eval_reward", ev), ("eval_episode_reward_std", ev_std)]
        self.log.add_loose(no, evals, ts, SRC_STEP, math.nan, is_eval=True)
        return True

    # -- keras-rl -----------------------------------------------------------------------------
    def _keras_rl(self, no: int, text: bytes) -> bool:
        """keras-rl's test phase: its opening line, then each test episode's return. The
        evaluation is their mean (as SB3's EvalCallback reports one), written again at each
        episode: the records share one step, and the last, the mean of all, is kept."""
        if text.startswith(b"Training for "):
            self._rl_test = None  # a new fit(): its lines are training again
            return False
        if _KERAS_RL_TEST.match(text) is not None:
            self._rl_test = []
            return True
        if self._rl_test is None or (m := _KERAS_RL_EPISODE.match(text)) is None:
            return False
        if (v := parse(m.group(2))) is None:
            return False
        self._rl_test.append(v)
        mean = sum(self._rl_test) / len(self._rl_test)
        self.log.add_loose(no, [("eval_reward", mean)], math.nan, SRC_NONE, math.nan, is_eval=True)
        return True

    # -- Dopamine -----------------------------------------------------------------------------
    def _dopamine(self, no: int, msg: bytes) -> bool:
        """One Dopamine runner message: the iteration it starts, or the mean return of
        its training (the reward) or evaluation episodes, at that iteration."""
        if (i := _DOPAMINE_ITER.match(msg)) is not None:
            self._iter = float(i.group(1))
            return True
        r = _DOPAMINE_RETURN.match(msg)
        if r is None or (v := parse(r.group(2))) is None:
            return False
        if self._iter != self._iter:
            return False  # no iteration seen: let the line be read as it comes
        test = r.group(1) == b"evaluation"
        name = "eval_reward" if test else "reward"
        self.log.add_loose(no, [(name, v)], self._iter, SRC_STEP, math.nan, is_eval=test)
        return True

    # -- Caffe --------------------------------------------------------------------------------
    def _caffe(self, no: int, msg: bytes) -> bool:
        """One Caffe solver message (its glog prefix, if any, removed)."""
        if (o := _CAFFE_SCORE.match(msg)) is not None:
            if self._outs is not None and not self._outs[1]:
                self.close_outputs()
            if self._outs is None:
                self._outs = (no, True, [])
            if (v := parse(o.group(2))) is not None:
                self._outs[2].append((f"eval_output_{int(o.group(1))}", v))
            return True
        if (o := _CAFFE_OUT.match(msg)) is not None:
            test = o.group(1) == b"Test"
            v = parse(o.group(3))
            key = o.group(2).decode("utf-8", "replace")
            name = _eval_name(key) if test else metric_name(key, "", "")
            if self._outs is not None and self._outs[1] != test:
                self.close_outputs()
            if self._outs is None:
                self._outs = (no, test, [])
            # a train output named `loss` is the objective itself: the block's weighted
            # terms give its value (close_outputs)
            if name and v is not None and (test or name != "loss"):
                self._outs[2].append((name, v))
            if not test and o.group(4) and (w := parse(o.group(4))) is not None:
                self._outs[2].append((_CAFFE_TERM, w))
            return True
        self.close_outputs()
        if (i := _CAFFE_ITER.match(msg)) is not None:
            step = float(i.group(1))
            if i.group(2):
                self._test_at = step
                return True
            self._iter = step
        return False

    def close_outputs(self) -> None:
        if self._outs is None:
            return
        (no, test, vals), self._outs = self._outs, None
        step = self._test_at if test else self._iter
        if terms := [v for n, v in vals if n == _CAFFE_TERM]:
            # the solver's `Iteration N, loss = X` is the mean over its last `average_loss`
            # iterations (1 by default); the net outputs under it are iteration N's own,
            # and the weighted ones, "(* 0.3 = 2.07 loss)", the terms of its loss: their
            # sum is the loss at N unsmoothed (a mean lags the curve, and hides a loss
            # pinned at one value). Printed after the solver's line, it stands for it, to
            # the 6 significant digits Caffe prints a loss with (87.3365 + 34.9346 is
            # 122.271, as the solver prints that total, not 122.27109999999999)
            total = float(f"{sum(terms):.6g}")
            vals = [(n, v) for n, v in vals if n != _CAFFE_TERM] + [("loss", total)]
        scores = [v for n, v in vals if n.startswith("eval_output_")]
        if len(scores) == len(vals) == 2 and 0 <= scores[0] <= 1:
            vals = [("eval_accuracy", scores[0]), ("eval_loss", scores[1])]
        if scores and not step >= self._iter:
            # an old Caffe tests right after the iteration it printed ("Iteration 78000,
            # loss = ..." then "Testing net" and its scores), with no "Testing net (#0)"
            # line of its own: the scores are that iteration's; before any iteration line
            # (a paste that starts with a test) they take the step of the line after
            step = self._iter
        if step == step:
            self.log.add_loose(no, vals, step, SRC_STEP, math.nan, is_eval=test)
        elif scores:
            self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan, is_eval=True)

    # -- validation summaries -----------------------------------------------------------------
    def _summary(self, no: int, text: bytes) -> bool:
        c = text[:1]
        if c == b"[" and b"INFO] " in text[:40] and (m := _ONMT_STEP.search(text, 0, 80)):
            self._iter = float(m.group(1))  # OpenNMT's train line: the shapes read it
            return False
        if b"Validation " in text and (m := _ONMT_VALID.search(text)) is not None:
            v = parse(m.group(2))
            if v is None:
                return False
            name = {b"perplexity": "eval_ppl", b"accuracy": "eval_accuracy"}.get(
                m.group(1), "eval_loss"
            )
            at = self._iter
            self.log.add_loose(
                no, [(name, v)], at, SRC_STEP if at == at else SRC_NONE, math.nan, is_eval=True
            )
            return True
        if b"Test:" in text and self._metric_logger(no, text):
            return True
        if no - self._mlog_at <= 3 and text.startswith(b"Averaged stats:"):
            return True  # DETR's evaluate(): the Test block's means once more, not a train record
        if b"@1 " in text and (m := _MLOG_ACC.search(text)) is not None:
            return self._metric_logger_acc(no, m)
        if c == b"T":
            return self._timm(no, text)
        if c in b" C":
            return self._yolo(no, text)
        return False

    def _timm(self, no: int, text: bytes) -> bool:
        if (m := _TIMM_TRAIN.match(text)) is not None:
            ep, i, last = (int(g) for g in m.group(1, 2, 3))
            step = float(ep * last + i)  # "[  i/N" counts batches 0..N-1 of N
            # from the "Loss:" key, however many spaces pad its value (timm right-aligns
            # it: "Loss:  6.732388 (6.8414)" in pytorch-image-models#814)
            vals = [
                (_TIMM_NAMES[k], v)
                for k, raw, _ in _TIMM_PAIR.findall(text, text.rfind(b"Loss:", 0, m.start(4)))
                if (v := parse(raw)) is not None
            ]
            self._at = (step, float(ep))
            self.log.add_loose(no, vals, step, SRC_STEP, float(ep))
            return True
        if (m := _TIMM_TEST.match(text)) is None:
            return False
        if m.group(1) == m.group(2):  # the last batch: its running means are the eval's
            vals = [
                ("eval_" + _TIMM_NAMES[k], v)
                for k, _, mean in _TIMM_PAIR.findall(text, m.end())
                if k != b"LR" and mean and (v := parse(mean)) is not None
            ]
            step, ep = self._at
            if step == step:
                self.log.add_loose(no, vals, step, SRC_STEP, ep, is_eval=True)
        return True

    def _metric_logger(self, no: int, text: bytes) -> bool:
        """torchvision's MetricLogger eval lines (see _MLOG_TEST): each batch's means as
        an eval record at the train line before the block, so the last batch's, written
        last, is the point kept (a paste of eval batches alone keeps their means in order)."""
        if (m := _MLOG_ACC.search(text)) is not None:
            return self._metric_logger_acc(no, m)
        if (m := _MLOG_TEST.search(text)) is None:
            return False
        vals = []
        for key, _, mean in _MLOG_PAIR.findall(text, m.end() - 5):
            name = metric_name(key.decode(), "", "eval")
            if name and kind(name) in METRIC_KINDS and (v := parse(mean)) is not None:
                vals.append((name if is_eval(name) else "eval_" + name, v))
        self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan, is_eval=True)
        self._mlog_at = no
        return True

    def _metric_logger_acc(self, no: int, m: re.Match) -> bool:
        if no - self._mlog_at <= 3:  # the means of the Test block just read, once more
            return True
        names = ("eval_acc1", "eval_acc5", "eval_loss")
        vals = [
            (name, v)
            for name, raw in zip(names, m.groups(), strict=True)
            if raw is not None and (v := parse(raw)) is not None
        ]
        self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan, is_eval=True)
        return True

    def _yolo(self, no: int, text: bytes) -> bool:
        log = self.log
        if b"Class" in text[:40] and (m := _YOLO_HEAD.match(text)) is not None:
            self._yolo_second = (m.group(1) or b"").decode().lower()
            return True
        header = log._header
        if header is None or "gpu_mem" not in {h.lower() for h in header}:
            return False
        if (m := _YOLO_ROW.match(text)) is not None:
            self._at = (float(m.group(1)), float(m.group(1)))
            return False  # the table's row: the reader's own
        if (m := _YOLO_ALL.match(text)) is None:
            return False
        got = [parse(g) for g in m.group(3).split()]
        names = list(_YOLO_EVAL)
        if len(got) == 8:  # the second group: the masks' (or keypoints') own P, R, mAPs
            if not self._yolo_second:
                return False  # eight values under no header that names them
            names += [f"eval_{self._yolo_second}_{n[5:]}" for n in _YOLO_EVAL]
        ep = self._at[1]
        if ep == ep and all(v is not None for v in got):
            vals = [(n, v) for n, v in zip(names, got, strict=True) if v is not None]
            log.add_loose(no, vals, ep, SRC_EPOCH_ONLY, ep, is_eval=True)
        return True

    # -- SB3 ---------------------------------------------------------------------------------
    def _table_row(self, text: bytes) -> bool:
        assert self._table is not None
        if self._flat:
            if (f := _FLAT_ROW.match(text)) is None or len(self._table) > _MAX_BLOCK:
                return False
            self._table.append((f.group(1).decode(), f.group(2)))
            return True
        if (m := _SB3_SECTION.match(text)) is not None:
            self._table.append((m.group(1).decode(), b""))
            return True
        if (m := _SB3_ROW.match(text)) is None or len(self._table) > _MAX_BLOCK:
            return False
        section = next((s for s, v in reversed(self._table) if not v), "")
        self._table.append((f"{section}/{m.group(1).decode()}", m.group(2)))
        return True

    def close_table(self) -> None:
        if self._table is None:
            return
        rows, self._table = self._table, None
        no, seq, waited = self._table_at
        got = {k: v for k, raw in rows if raw and (v := parse(raw)) is not None}
        vals = []
        rounded = False
        if self._flat:
            key = next((k for k in _FLAT_STEPS if k in got), None)
            step = got[key] if key is not None else math.nan
            rounded = key is not None and _ROUNDED.match(dict(rows)[key].strip()) is not None
            for key, v in got.items():
                counter = key.lower().rsplit("/", 1)[-1] in _FLAT_SKIP or key in _FLAT_STEPS
                if not counter and (name := metric_name(key, "", "")):
                    vals.append((name, v))
        else:
            step = got.get("time/total_timesteps", got.get("time/iterations", math.nan))
            for key, v in got.items():
                if key.startswith("time/") or key in _SB3_SKIP:
                    continue
                name = _SB3_NAMES.get(key) or metric_name(key.split("/", 1)[1], "", "")
                if name:
                    vals.append((name, v))
        if not vals and step != step:
            return
        log = self.log
        if waited and step == step:
            # a stepless record printed just before the table (a callback's "Reward: 0.7"
            # line) is of the same rollout: the table numbers it, as a bar numbers HF's dicts
            log.bar_seq.append(seq)
            log.bar_n.append(step)
            log.bar_total.append(TABLE_TOTAL)
        before = log.loose.n
        log.add_loose(no, vals, step, SRC_STEP if step == step else SRC_NONE, math.nan)
        if not rounded:
            self.spread_rounded()
        elif log.loose.n > before:
            self._rounded.append((before, step))

    def spread_rounded(self) -> None:
        """Number the dumps that printed a rounded step (see `_ROUNDED`). A printed value
        v covers the steps that round to it: from midway after the value before to
        midway before the next. Its dumps are spread evenly over that span; a value at
        an end of the stretch (or alone) is given the spacing of the spans inside it
        (one rounding unit over its dumps when there is none)."""
        pending, self._rounded = self._rounded, []
        stretch: list[tuple[float, list[int]]] = []  # (printed value, its records)
        for k, v in pending:
            if stretch and stretch[-1][0] == v:
                stretch[-1][1].append(k)
                continue
            if stretch and v < stretch[-1][0]:  # a new run printing lower steps
                self._spread(stretch)
                stretch = []
            stretch.append((v, [k]))
        self._spread(stretch)

    def _spread(self, stretch: list[tuple[float, list[int]]]) -> None:
        vals = [v for v, _ in stretch]
        mids = [(a + b) / 2 for a, b in itertools.pairwise(vals)]
        inner = [(mids[g] - mids[g - 1]) / len(stretch[g][1]) for g in range(1, len(mids))]
        steps = self.log.loose.step
        for g, (v, ks) in enumerate(stretch):
            unit = 10 ** (math.floor(math.log10(abs(v))) - 2) if v else 1.0
            gap = inner[len(inner) // 2] if inner else unit / len(ks)
            lo = mids[g - 1] if g else None
            hi = mids[g] if g < len(mids) else None
            if lo is not None and hi is not None:
                gap = (hi - lo) / len(ks)
            elif lo is None:
                lo = (hi if hi is not None else v + unit / 2) - gap * len(ks)
            for j, k in enumerate(ks):
                steps[k] = round(lo + (j + 0.5) * gap)

    # -- vertical blocks -----------------------------------------------------------------------
    def _open_padded(self, no: int, text: bytes) -> bool:
        m = _PADDED.match(text)
        if m is None or m.group(2).lower() != b"epoch":
            return False
        epoch = parse(m.group(3))
        if epoch is None or epoch != int(epoch):
            return False
        self._block, self._block_at = [], (no, m.group(1), epoch)
        return True

    def _block_row(self, text: bytes) -> bool:
        assert self._block is not None
        indent = self._block_at[1]
        if len(self._block) > _MAX_BLOCK:
            return False
        if indent:
            m = _PADDED.match(text)
            if m is None or m.group(1) != indent or m.group(2).lower() == b"epoch":
                return False  # (the next epoch's block starts)
            key, raw = m.group(2), m.group(3)
        else:
            if text.startswith(_SERIES_END):
                self.close_block()
                return True
            m = _SERIES_ROW.match(text)
            if m is None:
                return False
            key, raw = m.group(1), m.group(2)
        v = parse(raw)
        if v is not None:
            self._block.append((key.decode(), v))
        return True

    def close_block(self) -> None:
        if self._block is None:
            return
        pairs, self._block = self._block, None
        no, _, epoch = self._block_at
        train: list[tuple[str, float]] = []
        ev: list[tuple[str, float]] = []
        for key, v in pairs:
            low = key.lower()
            if low.startswith("val_"):
                name = metric_name(key, "", "eval")
                if name and not is_eval(name):
                    name = "eval_" + low[4:]
                if name:
                    ev.append((name, v))
            elif name := metric_name(key, "", ""):
                train.append((name, v))
        log = self.log
        log.add_loose(no, train, epoch, SRC_EPOCH_ONLY, epoch)
        log.add_loose(no, ev, epoch, SRC_EPOCH_ONLY, epoch, is_eval=True)

    def _ncrfpp(self, no: int, text: bytes) -> bool:
        """NCRF++'s dev and test lines (see _NCRF), at the train record before them; a
        negative precision or F is its mark for "undefined" (profiles.clean drops it)."""
        if text[:1] == b"R":
            return _NCRF_TOKENS.match(text) is not None
        m = _NCRF.match(text)
        if m is None:
            return False
        prefix = "eval_" if m.group(1) == b"Dev" else "test_"
        vals = [
            (prefix + name, v)
            for name, raw in zip(_NCRF_NAMES, m.groups()[1:], strict=True)
            if raw is not None and (v := parse(raw)) is not None
        ]
        self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan, is_eval=True)
        return True

    def _verification(self, no: int, text: bytes) -> bool:
        """insightface's verification lines (see _VERIFY)."""
        if _VERIFY_BEST.match(text):
            return True
        m = _VERIFY.search(text)
        if m is None or (m.group(2) in _VERIFY_NAMES and m.group(4) is None):
            return False  # insightface prints its accuracy with the folds' spread: "+-0.003"
        name = _VERIFY_NAMES.get(m.group(2))
        if name is not None and (v := parse(m.group(3))) is not None:
            # at the train line before it (its batch, counted as the train lines'
            # progress is, sits a log interval later): a step of its own would make
            # every train line's step the verification's
            vals = [(f"eval_{m.group(1).decode().lower()}_{name}", v)]
            self.log.add_loose(no, vals, math.nan, SRC_NONE, math.nan, is_eval=True)
        return True

    def close_val_block(self) -> None:
        """A GluonCV validation block: its metrics at the train record before it (the
        epoch's last), with the epoch its head names."""
        if self._val_block is None:
            return
        (no, epoch, rows), self._val_block = self._val_block, None
        vals = []
        for key, raw in rows:
            name = metric_name(key.decode("utf-8", "replace").strip(), "", "eval")
            if (
                name
                and is_eval(name)
                and kind(name) in METRIC_KINDS
                and (v := parse(raw)) is not None
            ):
                vals.append((name, v))
        self.log.add_loose(no, vals, math.nan, SRC_NONE, epoch, is_eval=True)

    # -- gradient boosting --------------------------------------------------------------------
    def _gbdt(self, no: int, text: bytes) -> bool:
        """One boosting round's evaluation line: every pair of it, nothing else on it.

        The training data's first objective metric is the loss and the first held-out
        set's the eval loss (what early stopping watches); other metrics keep their
        names, prefixed by their split (`eval_auc`) and by their set's name past the
        first held-out set (`eval_valid_2_l2`): read with its apostrophe as a word break,
        `training's binary_logloss` became `s_binary_logloss` and the round, in brackets,
        no step at all."""
        head = _GBDT_HEAD.match(text)
        if head is None:
            return False
        rest, at, pairs = text[head.end() :].rstrip(), 0, []
        while at < len(rest):
            m = _GBDT_PAIR.match(rest, at)
            if m is None or (v := parse(m.group(5))) is None:
                return False
            data, metric = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            split, _, bare = metric.rpartition(b" ")
            if split:  # lgb.cv's "cv_agg's train l2": the folds' training data
                data, metric = (b"train" if split == b"train" else data), bare
            pairs.append((data.decode(), metric.decode().lower(), v))
            at = m.end()
        train: list[tuple[str, float]] = []
        ev: list[tuple[str, float]] = []
        held: list[str] = []
        for data, metric, v in pairs:
            is_train = data.lower().startswith("train")
            if not is_train and data not in held:
                held.append(data)
            into = train if is_train else ev
            names = {n for n, _ in into}
            if metric in _GBDT_LOSSES and not is_train and data == held[0]:
                name = "eval_loss" if "eval_loss" not in names else "eval_" + metric
            elif metric in _GBDT_LOSSES and is_train:
                name = "loss" if "loss" not in names else "train_" + metric
            elif is_train:
                name = "train_" + metric
            else:
                name = "eval_" + (metric if data == held[0] else f"{data}_{metric}")
            if name not in names:
                into.append((name, v))
        step = float(head.group(1))
        self.log.add_loose(no, train, step, SRC_STEP, math.nan)
        self.log.add_loose(no, ev, step, SRC_STEP, math.nan, is_eval=True)
        return True

    def _catboost(self, no: int, text: bytes) -> bool:
        """CatBoost's per-iteration line: the learn value is the loss (the eval metric,
        by default the loss function), the first test set's the eval loss. Once a line's
        "best" sits above its test value the metric is a score (AUC, Accuracy): from then
        on its values are `train_score` / `eval_score`, never a loss."""
        m = _CATBOOST.match(text.rstrip())
        if m is None or (learn := parse(m.group(2))) is None:
            return False
        tests = [
            (t.group(1).decode(), parse(t.group(2))) for t in _CATBOOST_TEST.finditer(m.group(3))
        ]
        best = parse(m.group(4)) if m.group(4) else None
        if best is not None and tests and tests[0][1] is not None and best > tests[0][1]:
            self._cat_score = True
        score = self._cat_score
        step = float(m.group(1))
        self.log.add_loose(
            no, [("train_score" if score else "loss", learn)], step, SRC_STEP, math.nan
        )
        ev = [
            (("eval_score" if score else "eval_loss") + (f"_test{k}" if k else ""), v)
            for k, v in tests
            if v is not None
        ]
        self.log.add_loose(no, ev, step, SRC_STEP, math.nan, is_eval=True)
        return True

    # -- darknet ------------------------------------------------------------------------------
    def _darknet(self, no: int, text: bytes) -> bool:
        m = _DARKNET.match(text)
        if m is None:
            return False
        step, epoch, loss, avg, lr, secs = (parse(g) if g else None for g in m.groups())
        if step is None:
            return False
        names = ("loss", "avg_loss", "lr", "time_s")
        vals = [(n, v) for n, v in zip(names, (loss, avg, lr, secs), strict=True) if v is not None]
        self.log.add_loose(no, vals, step, SRC_STEP, math.nan if epoch is None else epoch)
        raw = m.group(5)
        if b"." in raw and b"e" not in raw.lower():  # "%f": 0.000000 in the burn-in
            self.log.lr_decimals[len(raw) - raw.index(b".") - 1] += 1
        return True

    # -- EESEN --------------------------------------------------------------------------------
    def _eesen(self, no: int, text: bytes) -> bool:
        m = _EESEN.search(text)
        if m is None:
            return False
        seqs, obj, acc = (parse(g) for g in m.groups())
        if seqs is None or obj is None:
            return False
        vals = [("loss", -obj)]
        if acc is not None:
            vals.append(("accuracy", acc / 100.0))
        self.log.add_loose(no, vals, seqs, SRC_STEP, math.nan)
        return True

    # -- Kaldi nnet3 --------------------------------------------------------------------------
    def _kaldi(self, no: int, text: bytes) -> bool:
        m = _KALDI.search(text)
        if m is None or (obj := parse(m.group(5) or m.group(4))) is None:
            return False
        overall = m.group(1).startswith(b"Overall")
        if (f := _KALDI_FILE.search(text, 0, m.start())) is not None:
            it = float(f.group(1))
            if overall and it not in self._kaldi_iters:
                self._kaldi_iters.add(it)
                self.log.add_loose(no, [("loss", -obj)], it, SRC_STEP, math.nan)
            return True
        if overall:
            if self._kaldi_last >= 0:  # the phases already read: this is their average
                self._kaldi_base += self._kaldi_last + 1
                self._kaldi_last = -1.0
            else:
                self.log.add_loose(no, [("loss", -obj)], math.nan, SRC_NONE, math.nan)
            return True
        first, last = float(m.group(2)), float(m.group(3))
        if first <= self._kaldi_last:  # the next iteration's minibatches count from 0 again
            self._kaldi_base += self._kaldi_last + 1
        self._kaldi_last = last
        step = self._kaldi_base + last + 1
        self.log.add_loose(no, [("loss", -obj)], step, SRC_STEP, math.nan)
        return True

    def _tesseract(self, no: int, text: bytes) -> bool:
        """lstmtraining's progress line and the eval glued to it (see _TESS_TRAIN)."""
        m = _TESS_TRAIN.match(text)
        e = _TESS_EVAL.search(text, m.end() if m else 0)
        if m is None and (e is None or e.start()):
            return False
        step = float(m.group(1)) if m is not None else math.nan
        if m is not None:
            vals = [
                ("loss", parse(m.group(2))),
                ("train_cer", parse(m.group(3))),
                ("train_wer", parse(m.group(4))),
            ]
            got = [(k, v) for k, v in vals if v is not None]
            self.log.add_loose(no, got, step, SRC_STEP, math.nan)
        if e is not None:
            vals = [("eval_cer", parse(e.group(2))), ("eval_wer", parse(e.group(3)))]
            got = [(k, v) for k, v in vals if v is not None]
            at = step if m is not None else float(e.group(1))
            self.log.add_loose(no, got, at, SRC_STEP, math.nan, is_eval=True)
        return True

    # -- comma pairs --------------------------------------------------------------------------
    def _commas(self, no: int, text: bytes) -> bool:
        prefix = _BATCH_PREFIX.match(text)
        body = text[prefix.end() :] if prefix else text
        if prefix is not None and (colon := _COLON_PAIRS.fullmatch(body)) is not None:
            # the PyTorch CIFAR-10 tutorial's "[1,  2000] loss: 2.303" (key: value pairs)
            body = b", ".join(k + b"," + v for k, v in _COLON_PAIR.findall(colon.group(0)))
        cells = [c.strip() for c in body.strip().rstrip(b",").split(b",")]
        if len(cells) < 2 or len(cells) % 2 or not all(_NAME.match(c) for c in cells[0::2]):
            return False
        nums = [parse(c) for c in cells[1::2]]
        if any(v is None for v in nums):
            return False
        pairs = [(k.decode(), v) for k, v in zip(cells[0::2], nums, strict=True) if v is not None]
        log = self.log
        if prefix is not None:
            ep, i = int(prefix.group(1)), int(prefix.group(2))
            step = self._batch_step(ep, i)
            vals = [(n, v) for k, v in pairs if (n := metric_name(k, "", ""))]
            log.add_loose(no, vals, step, SRC_STEP, float(ep))
            return True
        first = cells[0].lower()
        if all(k.lower().startswith("best_") for k, _ in pairs):
            for k, v in pairs:  # the run's closing summary: what it found best, not a record
                log.config.setdefault(k.lower(), (v, no))
            return True
        if first not in _EPOCH_KEYS:
            return False
        at = pairs[0][1]
        vals = [(n, v) for k, v in pairs[1:] if (n := _eval_name(k))]
        # beside batch lines, a line per epoch is the validation's
        held_out = bool(self._per_epoch)
        if not held_out:
            vals = [(n, v) for k, v in pairs[1:] if (n := metric_name(k, "", ""))]
        if first == b"epoch":
            log.add_loose(no, vals, at, SRC_EPOCH_ONLY, at, is_eval=held_out)
        else:
            log.add_loose(no, vals, at, SRC_STEP, math.nan, is_eval=held_out)
        return True

    def _batch_step(self, epoch: int, i: int) -> float:
        """(epoch, batch) as one step: the batches per epoch are those the first epoch
        logged (its steps are the batch numbers whatever that count is)."""
        seen = self._per_epoch
        seen[epoch] = max(seen.get(epoch, 0), i + 1)
        first = min(seen)
        per = seen[first]
        return float((epoch - first) * per + i)


def _eval_name(key: str) -> str | None:
    """The name of a value on a per-epoch line of a batch log: the validation's."""
    name = metric_name(key, "", "eval")
    if name is None or is_eval(name):
        return name
    return "eval_" + name
