"""Canonical signal names and the spellings each log format uses for them.

Readers map whatever key a tool wrote onto these names, so rules only ever
see one vocabulary. Anything unknown is kept under its own (normalised) name
as an extra series rather than dropped.
"""

from __future__ import annotations

import re
from enum import Enum


class Signal(str, Enum):
    LOSS = "loss"
    EVAL_LOSS = "eval_loss"
    GRAD_NORM = "grad_norm"
    LR = "lr"
    EPOCH = "epoch"
    THROUGHPUT = "throughput"
    REWARD = "reward"
    REWARD_STD = "reward_std"
    # The spread of the returns of the episodes a mean return averages (ml-agents'
    # "Std of Reward", tianshou's "test_reward: X ± Y"): the noise of that mean, not
    # reward_std, the spread inside a GRPO prompt group whose 0 means no advantage.
    EPISODE_REWARD_STD = "episode_reward_std"

    def __str__(self) -> str:
        return self.value


# Key spellings seen in the wild (HF Trainer, Lightning, nanoGPT/llm.c, W&B-style slash
# names, the words console loggers print). Lookup is on the lower-cased key, with
# spaces and underscores treated alike (`Train Loss`, `train_loss`, `train loss`).
ALIASES: dict[str, Signal] = {
    **dict.fromkeys(
        [
            "loss",
            "train_loss",
            "train/loss",
            "training_loss",
            "train_loss_step",
            "lm_loss",
            "loss_step",
            "train/loss_step",
            "total_loss",
            # "sum loss" beside its terms (an FCOS script's "cls loss : x, reg loss : y,
            # ness loss : z, sum loss : w"): the total the script optimises, as total_loss is
            "sum_loss",
            "trl",  # llm.c / modded-nanogpt "s:120 trl:3.21"
            "loss/train",
            "train/total_loss",
            "train/lm_loss",
            "loss_train",
            "trn_loss",
            "tr_loss",  # HF Trainer's own name for it; deep_avsr's "Tr.Loss"
            "train/crossentropyloss",  # OLMo
            "train/ce_loss",
            "crossentropyloss",
            "loss/train/total",  # composer / llm-foundry
            "avr_loss",  # kohya sd-scripts' bar: the mean over the last epoch's steps
            # devsisters/DQN-tensorflow's summary line and its forks ("avg_r: 0.0000,
            # avg_l: 0.000135, avg_q: ..., avg_ep_r: ..."): the mean TD loss of the interval
            "avg_l",
            # IBM aihwkit's examples print the training loss each epoch as "Loss error:
            # 0.0121" (`print("Loss error: {:.16f}".format(loss))` after opt.step())
            "loss_error",
            # MATLAB trainNetwork's verbose table ("| Mini-batch | ... |" over "| Loss |"):
            # the training loss of the iteration's mini-batch
            "mini-batch_loss",
            "minibatch_loss",
        ],
        Signal.LOSS,
    ),
    **dict.fromkeys(
        [
            "eval_loss",
            "val_loss",
            "valid_loss",
            "validation_loss",
            "vali_loss",  # the Informer / Time-Series-Library family's "Vali Loss:"
            "eval/loss",
            "val/loss",
            "valid/loss",
            "validation/loss",
            "val_loss_epoch",
            "test_loss",
            "tel",  # llm.c "tel:3.30"
            "loss/val",
            "loss/valid",
            "loss/eval",
            "loss/test",
            "dev_loss",
            "eval_lm_loss",
            "val_lm_loss",
            "eval/crossentropyloss",
            "metrics/eval/languagecrossentropy",  # composer / llm-foundry
            # the eval's total beside its terms (as total_loss is the train loss): its
            # terms summed with it would count the loss twice
            "eval_total_loss",
            "val_total_loss",
            "valid_total_loss",
            "validation_total_loss",
            "val/total_loss",
            "eval/total_loss",
        ],
        Signal.EVAL_LOSS,
    ),
    **dict.fromkeys(
        [
            "grad_norm",
            "gradient_norm",
            "train/grad_norm",
            "grad_norm_step",
            "grad/norm",
            "gnorm",  # fairseq
            "|g|",
            "norm",  # llm.c "norm 1.23"
            "total_norm",
            "grad-norm",
            "gradnorm",
            "grad_norm/total",
            "actor/grad_norm",  # verl
        ],
        Signal.GRAD_NORM,
    ),
    **dict.fromkeys(
        [
            "lr",
            "learning_rate",
            "base_learning_rate",  # MATLAB trainNetwork's table: the schedule's LR
            "train/learning_rate",
            "lr_step",
            # Lightning's self.log("learning_rate", on_step=True) in the progress bar's
            # postfix ("learning_rate_step=0.0005, train_loss_step=nan.0", a replay
            # SASRec run's), as lr_step and train_loss_step are read
            "learning_rate_step",
            "train/lr",
            "lr-adamw",
            "lr-adam",
            "lr-sgd",
            "lr/pg0",  # ultralytics: the first param group
            "x/lr0",  # YOLOv5/v7 TensorBoard
            "lr-adamw/pg1",
            "optim/lr",
            "optimizer/lr",
            "_base/lr",  # Catalyst 19.x/20.x: "_base/lr=0.0010 | _base/momentum=0.9000 | ..."
            "base_lr",
            "lr-decoupledadamw/group0",  # composer / llm-foundry
            "lr-adamw/group0",
            "actor/lr",  # verl: the policy's LR (critic/lr is the value model's)
            # ESPnet2: optimizer 0, param group 0 (optim0_lr1 is group 1's, optim1_lr0 a
            # second optimizer's: a GAN's discriminator)
            "optim0_lr0",
            "lr_0",  # ESPnet2 before optim0_lr0: the first param group's LR
            "parameters/learning_rate",  # a torch SummaryWriter's "Parameters/Learning Rate"
            "train_learning_rate",  # the Flax examples' clu writer: "[1000] ..., train_learning_rate=0.97"
            # the LR in effect at this step: RLlib's learner stats ("cur_lr": 5e-05) and
            # MindYOLO's step line ("loss: 9.6070, ..., cur_lr: 0.0788")
            "cur_lr",
            # the same spelled out: Coqui TTS's console logger ("| > current_lr: 0.00010"),
            # and "current_learning_rate" of hand-written loops
            "current_lr",
            "current_learning_rate",
            # the train split's LR in a per-epoch record that names each value by its split:
            # the DETR / DeiT / MAE / DINO log.txt ({"train_lr": ..., "train_loss": ...,
            # "test_loss": ...}) and fairseq's JSON epoch summary ("train_lr": "0.0005")
            "train_lr",
        ],
        Signal.LR,
    ),
    **dict.fromkeys(["epoch", "train/epoch", "epochs", "ep"], Signal.EPOCH),
    **dict.fromkeys(
        [
            "throughput",
            "tokens_per_second",
            "train_tokens_per_second",
            "tokens_per_sec",
            "tok/s",
            "tokens/sec",
            "tokens/s",
            "tok/sec",
            "samples_per_second",
            "samples/sec",
            "samples/s",
            "it/s",
            "it/sec",
            "steps_per_second",
            "tps",
            "wps",  # fairseq words per second
            "tokens_per_second_per_gpu",
            "throughput/tokens_per_sec",
            "runningavgsamplespersec",  # DeepSpeed's timer line
            "throughput/device/tokens_per_second",  # OLMo
        ],
        Signal.THROUGHPUT,
    ),
    **dict.fromkeys(
        # not DPO's rewards/chosen: an implicit reward of a real logistic loss, whose
        # run is no RL run (its loss starts at ln 2 and can diverge)
        [
            "reward",
            "rewards/mean",
            "train/reward",
            "critic/score/mean",  # verl: the task score (critic/rewards adds the KL penalty)
            "env/reward_mean",  # TRL's PPOTrainer before 0.12
            "ppo/mean_scores",
            "objective/scores",  # TRL's PPO / RLOO from 0.12: the reward model's score
            "rollout/ep_rew_mean",  # Stable-Baselines3: the mean episode return
            "total_rewards_mean",  # mlx_lm GRPO: "Total rewards mean" (the batch mean)
            # OpenAI baselines' progress.csv: the mean return of the last 100 episodes
            # (DDPG's rollout/return_history; PPO2 / A2C / ACKTR's eprewmean)
            "rollout/return_history",
            "eprewmean",
            # ... and deepq's (its logger.record_tabular, also in forks of that logger,
            # e.g. GAIL_PPO's progress.csv): the mean return of the last 100 episodes
            "mean 100 episode reward",
            # DeepSpeed-Chat step 3: "average reward score: -7.80859375" under each step's
            # "epoch: 0|step: 3183|ppo_ep: 1|act_loss: ..." line (the reward model's mean)
            "average_reward_score",
            # CleanRL: the return of each finished episode ("global_step=8199,
            # episodic_return=-1052.5" printed, charts/episodic_return in TensorBoard)
            "episodic_return",
            "charts/episodic_return",
            # devsisters/DQN-tensorflow (and forks): the mean return of the interval's
            # episodes ("avg_ep_r: 0.0000, max_ep_r: 0.0911, min_ep_r: -0.0984")
            "avg_ep_r",
            # RLlib's result dict / progress.csv: the mean return of the iteration's
            # episodes (env_runners/ from Ray 2.10 on)
            "episode_reward_mean",
            "env_runners/episode_return_mean",
            # stable-baselines PPO2 (from PR #142) and curl / RAD's eval.log: the mean
            # return of the episodes since the last log
            "mean_episode_reward",
            # OpenAI Spinning Up's EpochLogger (progress.txt, tab-separated): the mean
            # return of the epoch's training episodes (AverageTestEpRet, the deterministic
            # test episodes of DDPG / TD3 / SAC, keeps its own name)
            "averageepret",
            # rllab / garage's AverageReturn of the iteration's sampled training paths,
            # Berkeley CS285's Train_AverageReturn (its Eval_ twin keeps its own name)
            "averagereturn",
            "train_averagereturn",
            # CS285's DQN / SAC loggers: the return of each finished training episode
            # (`Train_EpisodeReturn`: info["episode"]["r"], CleanRL's episodic_return)
            "train_episodereturn",
            # AWR's table log (rl_agent.py): the mean return of the iteration's training
            # paths (`Train_Return`; its `Test_Return`, the deterministic test paths,
            # keeps its own name as AverageTestEpRet does)
            "train_return",
            # MorvanZhou's RL tutorials (and the many loops copied from them): "Ep: 12 |
            # Ep_r: -1203 | ..." - the episode's (often smoothed) return
            "ep_r",
        ],
        Signal.REWARD,
    ),
    **dict.fromkeys(
        [
            "reward_std",
            "train/reward_std",
            "rewards/std",
            "env/reward_std",
            "ppo/std_scores",
            # mlx_lm GRPO: the std inside each prompt's group, what the advantages divide
            # by (its "Total rewards std" is across groups, like TRL's rewards/<fn>/std)
            "grouped_rewards_std",
        ],
        Signal.REWARD_STD,
    ),
    **dict.fromkeys(
        [
            "episode_reward_std",
            "std_of_reward",  # ml-agents: "Mean Reward: -0.020. Std of Reward: 0.140."
            "stdepret",  # Spinning Up: the spread of the epoch's episode returns
            "stdreturn",  # rllab / garage
            "train_stdreturn",  # CS285
        ],
        Signal.EPISODE_REWARD_STD,
    ),
}

# Keys that carry the step counter in generic logs, in order of preference.
STEP_KEYS = (
    "step",
    "global_step",
    "iter",
    "iteration",
    "_step",
    "current_steps",
    "trainer/global_step",
    "global_step/max_steps",  # ms-swift v3: "1/438"
    # fairseq's `--log-format json` records: the optimizer updates so far, a string
    # ({"epoch": 1, "update": 0.05, "loss": "9.8", ..., "num_updates": "100"}); its
    # end-of-epoch train / valid records prefix the key with the subset
    "num_updates",
    "train_num_updates",
    "valid_num_updates",
    # An RL logger's environment steps so far: SB3's progress.csv, OpenAI baselines'
    # (ppo2 "misc/total_timesteps", trpo/ppo1 "TimestepsSoFar"), RLlib's result rows. Its
    # rows are one per rollout, so without it the step would be the row's number.
    "time/total_timesteps",
    "misc/total_timesteps",
    "total_timesteps",
    "timestepssofar",
    "timesteps_total",
    "totalenvinteracts",  # OpenAI Spinning Up's progress.txt (its Epoch is the row number)
)
# Keys that carry wall-clock time (seconds since the epoch, or relative seconds).
TIME_KEYS = ("time", "timestamp", "wall_time", "_timestamp", "walltime")

REGIMES = ("pretraining", "full-finetune", "lora")
# How a title names a regime: words for the reader, not the option's value.
REGIME_WORDS = {"pretraining": "pretraining", "full-finetune": "a full fine-tune", "lora": "LoRA"}
_SIGNAL_NAMES = frozenset(s.value for s in Signal)


def canonical(key: str) -> str:
    """The canonical name for a logged key; unknown keys keep their own name.

    Spaces, underscores and a trailing qualifier in brackets do not matter:
    `Train Loss`, `trainloss` and `test loss (avg on test)` are found too.
    """
    low = key.strip().lower()
    sig = ALIASES.get(low) or ALIASES.get(low.replace(" ", "_"))
    if sig is None and low.endswith(")") and "(" in low and low.index("(") > 0:
        sig = ALIASES.get(low[: low.index("(")].strip().replace(" ", "_"))
    if sig is None and "." in low:
        # a dot between the split and the name ("train.loss", "Val.Loss", "eval.wer"):
        # the separator an underscore or a slash would be
        sig = ALIASES.get(low.replace(".", "_")) or ALIASES.get(low.replace(".", "/"))
    if sig is None and "-" in low:
        # a hyphen between the split and the name ("val-loss", "Train-Loss"): an underscore
        sig = ALIASES.get(low.replace("-", "_").replace(" ", "_"))
    if sig is None:
        sig = _SQUASHED.get(low.replace(" ", "").replace("_", ""))
    if sig is None and _RETURN.match(re.sub(r"[\s_/.\-]", "", low)):
        sig = Signal.REWARD
    return sig.value if sig else low


# Aliases without separators ("trnloss", "valloss"): a second index, built once.
_SQUASHED = {k.replace(" ", "").replace("_", ""): v for k, v in ALIASES.items()}

# An RL run's return under the names hand-written loops give it (separators dropped):
# a reward or return, averaged or summed over an episode or a window of them, of the
# training episodes - "Avg. reward", "running reward", "mean_reward", "episode_return",
# "ep_rew", "Total Reward", "reward_mean", "Return", a trailing plural. Not an eval /
# test return (its own curve), nor a best / max / min / std of the returns. The mean
# may follow it in French ("Reward moyen", a course notebook's printout). A trailing
# window size of two digits or more is the number of episodes averaged ("Avg_Reward_100",
# "mean_return_10"); a single digit is not ("reward_2", a second column of the same name).
_RETURN = re.compile(
    r"^(?:train|training|rollout|charts)?"
    r"(?:avg|average|mean|running|total|smoothed|sum)?"
    r"(?:(?:episode|episodic|ep|epi)(?:reward|return|rew|ret)|reward|return)s?"
    r"(?:mean|avg|average|moyen|moyenne)?(?:[1-9]\d+)?$"
)

# An episode's return by its name: "episode_reward", "ep_rew_mean", "avg_ep_r",
# "episodic_return" (separators dropped). It is the RL curve wherever a bare "reward"
# is printed beside it: keras-rl's step progress bar ("10000/10000 [===] - reward:
# -7.3978", the mean reward per environment step), FinRL's SB3 train/reward (the last
# step's), a loop's "reward=0.74 in step #8732" - one step's reward, not a return.
_EPISODE_RETURN = re.compile(r"(?:episode|episodic|ep|epi)(?:reward|return|rew|ret|r)(?:mean)?s?$")


def is_episode_return(key: str) -> bool:
    """The key names an episode's return (see _EPISODE_RETURN), a reward signal."""
    low = key.strip().lower()
    return canonical(low) == Signal.REWARD.value and bool(
        _EPISODE_RETURN.search(re.sub(r"[\s_/.\-]", "", low))
    )


# Counters that number the steps of a text log, most trusted first: an optimizer
# step beats a micro-batch iteration (litgpt prints both: `iter 1200 step 150`).
TEXT_STEP_KEYS = (
    "global_step",
    "step",
    "num_updates",  # fairseq
    # fairseq's end-of-epoch train / valid records prefix every key with the subset
    # ({"epoch": 4, "valid_loss": ..., "valid_num_updates": "367"}): the same counter
    "train_num_updates",
    "valid_num_updates",
    "updates",
    "nupdates",  # flashlight / wav2letter: "epoch: 3 | nupdates: 12000 | lr: ..."
    "update",  # Nematus: "Epoch: 3 Update: 12000 Loss/word: 2.31 Words/sec: ..."
    "iteration",
    # CPM-2's finetune lines ("epoch   4/ 10 | global iteration     1410/    3402 | ..."):
    # the run's iteration, climbing across epochs
    "global iteration",
    "global_iteration",
    "iter",
    "iters",
    "itr",  # mks0601's trainers (Hand4Whole, I2L-MeshNet, Pose2Mesh): "Epoch 0/7 itr 52/3489:"
    "it",
    "s",  # llm.c "s:120"
    "global_step/max_steps",  # ms-swift v3
    "train/global_step",
    "trainer/global_step",
    "current_steps",  # LLaMA-Factory
    "_step",
    # OpenPCDet's "Acc_iter 150" (its accumulated_iter): the run's iteration, never an accuracy
    "acc_iter",
    "accumulated_iter",
    # An RL run's environment steps so far, last: SB3's EvalCallback "Eval num_timesteps=
    # 10000, episode_reward=-200.00 +/- 0.00", CleanRL-style "global_step=" comes first
    "num_timesteps",
    "total_timesteps",
)
# Words after a number that make it a step ("250 iterations -- validation loss 2.11").
STEP_UNITS = ("iterations", "iteration", "iters", "steps", "updates")

# What a name measures, for the names that are not canonical signals.
_TASK = re.compile(
    r"(?:^|[/_\-@ :])(?:acc|accuracy|wer|cer|bleu|rouge\w*|f1|fscore|fb1|fmeasure|map\w*|"
    r"precision|recall|auc|"
    r"exact_match|em|hellaswag|mmlu|arc\w*|piqa|ppl|perplexity|top-?[15]|rec@\d|error|err|iou|hmean|"
    r"miou|dice|psnr|ssim|score|token_acc|sacrebleu|chrf|meteor|bertscore|pass@\d+|"
    # segmentation's pixel accuracy: GluonCV / PyTorch-Encoding's pixAcc, mmseg's aAcc
    # (all pixels) and mAcc (the mean of the per-class accuracies)
    r"pix_?acc|aacc|macc|"
    # a top-k accuracy: timm / DeiT's acc1 / acc5, Swin's Acc@1 / Acc@5, and the older
    # PyTorch ImageNet example's (and its many forks') Prec@1 / Prec@5
    r"acc\d{1,2}|acc@\d+|prec@\d+|"
    # keypoint / landmark / optical-flow quality: the share of keypoints within a
    # threshold (PCK, MPII's PCKh), the normalised mean landmark error (NME), the
    # end-point error of a flow field (EPE): what mmpose and RAFT-style trainers
    # evaluate, each a score of the model on held-out data
    r"pckh?|nme|epe)"
    r"(?:$|[/_\-@ (:])",
    re.IGNORECASE,
)
# A split's "perf", its performance (CNN_sentence's "train perf: 62.92 %, val perf:
# 62.24 %", 1 minus the error rate): a score of that split, never a setting.
_SPLIT_PERF = re.compile(r"^(?:train|training|val|valid|validation|test|dev)[_ ]perf$")
# PaddlePaddle's trainers (PaddleSeg, PaddleDetection, PaddleOCR, PaddleClas) time each
# batch as its "cost": "batch_cost: 0.41, reader_cost: 0.00017", and their eval bar prints
# "- batch_cost: 0.0290 - reader cost: 8.5e-05". Seconds, never a loss (a bare "cost" is).
_TIME = re.compile(
    r"(?:^|_| )(?:time|dt|eta|elapsed|timer|wall|runtime|duration|step_avg|train_time"
    r"|(?:batch|reader)[_ ]cost)"
    r"(?:$|_| )",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"mem|memory|vram", re.IGNORECASE)
# the split then a separator; a hyphen too: flashlight's "dev-clean-loss", "dev-other-WER"
# (the eval set's name after the split), tensorpack's "val-error-top1"
_EVAL = re.compile(r"^(?:eval|val|vali|valid|validation|test|dev)(?:[_/ -]|$)", re.IGNORECASE)
_TEST_SPLIT = re.compile(r"^test(?:[_/ ]|$)", re.IGNORECASE)
LOSS_SCALE = "loss_scale"
# Per-rank step times, seconds between syncs: one series per rank, "rank_step_time_s/3",
# as the live distributed adapter (integrations.torch.RankSync) gathers them.
RANK_STEP_TIME = "rank_step_time_s/"


_PPL = re.compile(r"(?:^|_)(?:ppl|perplexity)$")
# An entropy term named as a loss (verl's actor/entropy_loss, SB3's entropy_loss, SAC's
# ent_coef_loss, OpenAI baselines TRPO's run-together `entloss` = -entcoeff x entropy,
# 0 at its default entcoeff 0): a regulariser the optimiser subtracts or a temperature's
# own loss, never the model's loss nor a part that sums to it. A cross-entropy
# (cross_entropy_loss, crossentropyloss, xent) is the loss, and is not one.
ENTROPY = "entropy"
_ENTROPY = re.compile(r"(?<![a-z])(?<!cross_)(?<!cross-)(?:entropy|ent(?:(?![a-z])|(?=loss)))")
# A loss under an older name: PaddlePaddle's `avg_cost` / `Cost`, MXNet's `CrossEntropy=`
# (with both an average and a split word, in either order: lstm_ctc_ocr's `avg_train_cost`),
# metric. Read as a part, so derived.py makes it the loss only where no `loss` is logged
# (a `cost` next to a `loss` stays an extra); a `Time cost` is a time (matched first).
# GluonCV's SSD scripts print their box-regression term as an mx.metric.Loss named after
# its loss function (`CrossEntropy=12.25, SmoothL1=nan`): the objective they back-propagate
# is the sum of the two (SSDMultiBoxLoss: cls + box), so SmoothL1 is a part of the loss
# as CrossEntropy is, and a NaN there is a NaN loss. A bare `L1` stays a metric (an L1
# distance is also an evaluation score). MXNet's Module.fit names the epoch's metric with a
# hyphen: `Epoch[7] Train-cross-entropy=1.577511` (its `Validation-` twin stays unread).
# RETURNN names each output layer's cost after a colon (`cost:ctc 1.44`,
# `cost:output/output_prob 0.76`): the layer's loss, summed into the one it optimises.
# `ce` is the cross-entropy under its usual abbreviation (CNTK's `ce = 2.30`), also with
# a one-letter stream tag (a lip-reading trainer's `CE V=6.21`, the video stream's).
# A regulariser's cost keeps its name: neuraltalk prints "loss cost = 37.4, reg cost =
# 0.000001" (the data term and the L2 term it adds to it), and a bare "cost" for the
# second would read the weights' L2 term as the loss (a term the batch cannot move).
_COST = re.compile(
    r"^(?:(?:avg|mean)_)?(?:train[_-]|training[_-])?(?:(?:avg|mean)_)?"
    r"(?:(?:reg|l2|kl|wd|weight_decay|decay|regulari[sz]ation)[_ ])?"
    r"(?:cost(?::[\w./-]+)?|cross_?entropy|cross-entropy|smooth_?l1|ce(?:_[a-z])?"
    # a negative log-likelihood (NLL) or a trainer's "objective" under its bare name: the
    # loss where no `loss` is logged, a term of it where one is (as a cost is)
    r"|nll|objective)$",
    re.IGNORECASE,
)


# A loss under a name cut to three letters: tensorflow/nmt-derived trainers (Alibaba's QE
# Brain expert model) print their training loss as `exp-los 34.49` in the fixed-width
# status line next to `gN` and `BLEU`. A last word `los` is "loss" shortened, never a
# metric; read as a part, as `cost` is (the loss where no `loss` is logged).
_SHORT_LOSS = re.compile(r"(?:^|[-_ ])los$", re.IGNORECASE)


# A GAN player's loss under the bare name GAN code prints it by: the generator's (G) and
# discriminator's (D) terms of pytorch-CycleGAN-and-pix2pix's loss_log.txt ("D_A: 0.25
# G_A: 0.31 cycle_A: 1.9 idt_A: 0.8", "G_GAN: 2.1 G_L1: 30.2 D_real: 0.4 D_fake: 0.3"),
# a second generator's "G_2_L1", CycleGAN's cycle-consistency and identity terms per
# domain. Losses, never "other" (a line of only these is a metric record); derived.py
# keeps the two players apart (no sum of them is one loss).
_PLAYER_LOSS = re.compile(
    r"^(?:(?:g|d)(?:_\d)?_(?:[ab]|gan|l1|l2|real|fake|adv|feat|gan_feat|vgg|gp|r1|reg)"
    r"|(?:cycle|idt)_[ab]"
    # the players' costs under their own names: improved_wgan_training's tflib.plot
    # prints "iter 99\tdisc cost\t-0.81" (the critic's) and "gen cost" (the generator's)
    r"|(?:g|d|gen|disc|dis|generator|discriminator)[_ ]cost)$",
    re.IGNORECASE,
)


# BasicSR's loss terms (and those of the restoration repos built on it: Real-ESRGAN, GFPGAN,
# NAFNet, Restormer, HAT, ...), logged as `l_<term>`: "l_pix: 1.2e-02 l_percep: 3.1
# l_g_gan: 0.05 l_d_real: 0.6 l_d_fake: 0.7" (the generator's g_ / the discriminator's d_
# terms). Losses under a short name, never metrics (its discriminator outputs are
# out_d_real / out_d_fake, not losses).
_BASICSR_LOSS = re.compile(
    r"^l_(?:[gd]_)?(?:pix|percep|style|gan|total|real|fake|fft|freq|ssim|edge|char|"
    r"l1|l2|mse|adv|ctc|kl|tv|cx|lpips|contrastive?)(?:_\w+)?$",
    re.IGNORECASE,
)


# GluonCV's detection scripts print each term of the loss they back-propagate as an
# mx.metric.Loss named after the head and its loss function: Faster / Mask R-CNN's
# "RPN_Conf=0.35, RPN_SmoothL1=0.08, RCNN_CrossEntropy=0.61, RCNN_SmoothL1=0.29,
# RCNN_Mask=0.41", CenterNet's "WHL1=4.125, CenterRegL1=0.486, HeatmapFocal=278.131" (the
# box-size and centre-offset L1 terms and the heatmap's focal loss). Terms that sum to
# the objective, never metrics (a bare `L1` stays one: an L1 distance is also a score).
# ... and its RPNL1Loss / RCNNL1Loss, metrics (RPNL1LossMetric, RCNNL1LossMetric in its
# train_faster_rcnn.py) that track the box terms' L1 beside them: scores, not terms.
_GLUON_L1_METRIC = re.compile(r"^(?:rpn|rcnn)_?l1_?loss$", re.IGNORECASE)
_GLUON_LOSS = re.compile(
    r"^(?:(?:rpn|rcnn)_(?:conf|smooth_?l1|cross_?entropy|mask)|(?:wh|center_?reg)_?l1"
    r"|heatmap_?focal)$",
    re.IGNORECASE,
)


# A regression run's error under its usual abbreviation: mean squared / absolute error and
# its root (Keras' "mse: 0.41 - val_mae: 0.52", a scikit-style "train_rmse 1.33"), with a
# split before it. A distance the run drives down, lower better: read as a part of the
# loss, so derived.py makes it the loss (val_ / test_: the eval loss) only where no loss
# is printed; beside a printed loss it stays an extra.
REGRESSION_ERROR = re.compile(
    r"^(?:(?:train|training|val|valid|validation|eval|test|dev)[_ ])?(?:mse|mae|rmse)$",
    re.IGNORECASE,
)


# A mel-spectrogram's reconstruction error: HiFi-GAN's "Mel-Spec. Error" (the L1 distance
# between the real and the generated audio's mel spectrograms), "mel_error", "mel_l1". A
# vocoder's reconstruction loss, the curve its users watch, never a task's error rate.
MEL_ERROR = re.compile(
    r"^(?:(?:train|training|val|valid|validation|eval|test|dev)[_ /])?"
    r"mel(?:[-_ .]?spec(?:trogram)?)?\.?[-_ ]?(?:error|err|l1|dist|distance)$",
    re.IGNORECASE,
)


def kind(name: str) -> str:
    """What a series measures: a canonical signal's name, or task | component_loss |
    eval_component_loss | entropy | loss_scale | time | memory | other.

    Task metrics (accuracy, WER, BLEU, mAP, ...) are kept apart from losses so a
    rule never reads a rising accuracy as a rising loss.
    """
    c = canonical(name)
    if c in _SIGNAL_NAMES:
        return c
    low = c.replace(" ", "_")
    if low in ("loss_scale", "scale_loss", "loss scale") or low.endswith("loss_scale"):
        return LOSS_SCALE
    if _TIME.search(low):
        return "time"
    if _MEMORY.search(low):
        return "memory"
    if "loss" in low and _PPL.search(low):
        return "task"  # Megatron's "lm loss PPL": exp(loss), a perplexity, not a loss
    if "/" in low and "loss" not in (last := low.rsplit("/", 1)[1]) and _TASK.fullmatch("/" + last):
        # a measure under a loss layer's namespace (GoogLeNet's Caffe heads print
        # "loss1/top-1 = 0.88", "loss3/top-5 = 1"): the last part says what it is
        return "task"
    if "loss" in low and _ENTROPY.search(low):
        return ENTROPY
    if low.startswith("delta") and "loss" in low:
        # OpenAI Spinning Up's DeltaLossPi / DeltaLossV: how much one update moved the
        # loss (loss after - loss before), a change of it and no term of it
        return "other"
    if _GLUON_L1_METRIC.match(low):
        return "other"
    if "loss" in low:
        return "eval_component_loss" if _EVAL.search(low) else "component_loss"
    if REGRESSION_ERROR.match(low) or MEL_ERROR.match(low):
        return "eval_component_loss" if _EVAL.search(low) else "component_loss"
    if _EVAL.search(low) and _COST.match(_EVAL.sub("", low)):
        # the same cost on held-out data: PaddlePaddle's "Test with Pass 0, Cost 0.27" (v2
        # and fluid book examples) prints the test set's loss as its Cost
        return "eval_component_loss"
    if (
        _COST.match(low)
        or _PLAYER_LOSS.match(low)
        or _SHORT_LOSS.search(low)
        or _BASICSR_LOSS.match(low)
        or _GLUON_LOSS.match(low)
    ):
        return "component_loss"
    if _TASK.search(low) or _TASK.search(c) or _SPLIT_PERF.match(low):
        return "task"
    return "other"


def is_test_split(name: str) -> bool:
    """A name measured on the test split. Beside a validation loss, the validation one is
    the run's eval loss: it is what early stopping and checkpoint selection read (the
    time-series libraries print "Vali Loss: X Test Loss: Y" on every epoch line)."""
    return bool(_TEST_SPLIT.search(name.strip()))


def is_eval(name: str) -> bool:
    """A name measured on held-out data (eval_*, val/*, test_*, ...)."""
    return bool(_EVAL.search(name.strip())) or canonical(name) == Signal.EVAL_LOSS.value


# Kinds that make a log line a metric record (not a config or info line).
METRIC_KINDS = frozenset(
    {
        "loss",
        "eval_loss",
        "grad_norm",
        "lr",
        "throughput",
        "reward",
        "reward_std",
        "task",
        "component_loss",
        "eval_component_loss",
        ENTROPY,
        LOSS_SCALE,
    }
)


# Run facts (the single values next to these series) are declared in model/facts.py.
