"""Reader gaps (readers24): cross-validation lines of the boosters (xgb.cv's `mean+std`,
lgb.cv's `cv_agg's valid auc: m + s`, xgb.cv's DataFrame print) and Kaldi's `%WER` line.

Each fix is built on lines as the framework prints them (sources quoted), with a near miss
it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _vals(run, name: str) -> list[float]:
    return [round(float(v), 6) for v in run.get(name).values]


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# https://github.com/dmlc/xgboost/issues/807 (R xgb.cv, print.every.n = 5; verbatim)
_XGB_CV = (
    "[2135]\ttrain-logloss:0.528952+0.000417\ttest-logloss:0.529975+0.002922\n"
    "[2140]\ttrain-logloss:0.528952+0.000417\ttest-logloss:0.529976+0.002922\n"
    "[2145]\ttrain-logloss:0.528952+0.000417\ttest-logloss:0.529977+0.002923\n"
    "[2150]\ttrain-logloss:0.528952+0.000417\ttest-logloss:0.529977+0.002925\n"
)


def test_xgb_cv_mean_is_the_value_and_the_round_the_step(tmp_path: Path) -> None:
    # before: rounds 1-4, `test-logloss` no eval, and loss = train + test summed (1.06)
    run = one_log(tmp_path, _XGB_CV)
    assert _steps(run, "loss") == [2135.0, 2140.0, 2145.0, 2150.0]
    assert _vals(run, "loss") == [0.528952] * 4
    assert _vals(run, "eval_loss") == [0.529975, 0.529976, 0.529977, 0.529977]


def test_xgb_train_line_without_std_still_reads(tmp_path: Path) -> None:
    # near miss: xgb.train's own line (no fold deviation)
    body = _XGB_CV.replace("+0.000417", "").replace("+0.00292", "")
    run = one_log(tmp_path, body)
    assert _vals(run, "loss") == [0.528952] * 4
    assert len(run.get("eval_loss")) == 4


# lgb.cv, show_stdv: "[%d]\t%s's %s: %g + %g" with the aggregate "cv_agg" and the split
# before the metric (a Kaggle notebook's output; verbatim)
_LGB_CV = (
    "Training until validation scores don't improve for 50 rounds\n"
    "[50]\tcv_agg's valid auc: 0.778018 + 0.00319843\n"
    "[100]\tcv_agg's valid auc: 0.783267 + 0.00307558\n"
    "[150]\tcv_agg's valid auc: 0.783211 + 0.00299384\n"
)


def test_lgb_cv_valid_auc_is_a_held_out_score(tmp_path: Path) -> None:
    # before: no line understood
    run = one_log(tmp_path, _LGB_CV)
    assert _steps(run, "eval_auc") == [50.0, 100.0, 150.0]
    assert _vals(run, "eval_auc") == [0.778018, 0.783267, 0.783211]


def test_lgb_cv_train_split_is_the_training_data(tmp_path: Path) -> None:
    # near miss: eval_train_metric=True adds "cv_agg's train auc": a train metric, not eval
    body = _LGB_CV.replace("valid auc: 0.778018", "train auc: 0.8\tcv_agg's valid auc: 0.778018")
    run = one_log(tmp_path, body)
    assert _vals(run, "train_auc") == [0.8]
    assert len(run.get("eval_auc")) == 3


# xgb.cv(..., as_pandas=True) then print(cv_results): a DataFrame, its index the round
# (a DataCamp exercise's output as committed in a notes repository; verbatim)
_XGB_DF = (
    "   train-rmse-mean  train-rmse-std  test-rmse-mean  test-rmse-std\n"
    "0       141767.533         429.451      142980.435       1193.795\n"
    "1       102832.548         322.472      104891.395       1223.157\n"
    "2        75872.617         266.474       79478.939       1601.345\n"
    "3        57245.652         273.624       62411.921       2220.150\n"
    "4        44401.299         316.424       51348.280       2963.378\n"
)


def test_xgb_cv_dataframe_means_by_round(tmp_path: Path) -> None:
    # before: no line understood (the header named no metric it knew; the index column)
    run = one_log(tmp_path, _XGB_DF)
    assert _steps(run, "loss") == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert _vals(run, "loss")[-1] == 44401.299
    assert _vals(run, "eval_loss") == [142980.435, 104891.395, 79478.939, 62411.921, 51348.28]
    assert not any("std" in n for n in run.series)


def test_a_series_printed_after_the_frame_is_no_row(tmp_path: Path) -> None:
    # near miss: the same notebook then prints cv_results["test-rmse-mean"].tail(1)
    body = _XGB_DF + "4    51348.28\nName: test-rmse-mean, dtype: float64\n"
    run = one_log(tmp_path, body)
    assert _vals(run, "loss")[-1] == 44401.299
    assert len(run.get("eval_loss")) == 5


# Kaldi compute-wer, as pasted in kaldi-asr/kaldi#1660 (verbatim, indent kept)
_KALDI = (
    "    %WER 20.47 [ 11780 / 57534, 1055 ins, 2275 del, 8450 sub ] "
    "exp/chain/model/gr_tdnn_blstm_9_a/decode200/wer_8_0.0\n"
)


def test_kaldi_wer_is_an_eval_rate_and_its_bracket_no_step(tmp_path: Path) -> None:
    # before: no line understood (a "11780 / 57534" would read as a step of a bar)
    run = one_log(tmp_path, "epoch 1 loss 2.5\n" + _KALDI)
    assert _vals(run, "eval_wer") == [20.47]
    assert _steps(run, "eval_wer")[0] < 11780


def test_icefall_wer_with_percent_sign(tmp_path: Path) -> None:
    # icefall's write_error_stats: "%WER {rate:.2f}% [{errs} / {ref}, ... sub ]"
    run = one_log(
        tmp_path, "epoch 1 loss 2.5\n%WER 4.50% [2367 / 52576, 308 ins, 157 del, 1902 sub ]\n"
    )
    assert _vals(run, "eval_wer") == [4.5]


# STgram-MFN's logger (https://github.com/liuyoude/STgram-MFN/issues/19, verbatim lines, four
# machine types' rows and epochs 2-150 left out): the epoch glued to its name by a hyphen,
# then the AUC of each machine type and their average
_STGRAM = (
    "INFO:utils:Epoch-0\tloss:24.03866\n"
    "INFO:utils:ToyCar\t\tAUC: 54.175\tpAUC: 50.496\n"
    "INFO:utils:valve\t\tAUC: 50.217\tpAUC: 49.479\n"
    "INFO:utils:Total average:\t\tAUC: 50.496\tpAUC: 50.616\n"
    "INFO:utils:Best epoch now is:    0\n"
    "INFO:utils:Epoch-1\tloss:22.95186\n"
    "INFO:utils:ToyCar\t\tAUC: 50.276\tpAUC: 50.182\n"
    "INFO:utils:valve\t\tAUC: 50.433\tpAUC: 50.314\n"
    "INFO:utils:Total average:\t\tAUC: 48.717\tpAUC: 50.714\n"
    "INFO:utils:Epoch-151\tloss:11.51105\n"
)


def test_a_counter_glued_by_a_hyphen_is_the_epoch(tmp_path: Path) -> None:
    # before: "Epoch-0" one name (like top-1), the loss lines no records: no loss at all
    run = one_log(tmp_path, _STGRAM)
    assert _steps(run, "loss") == [0.0, 1.0, 151.0]
    assert _vals(run, "loss")[:2] == [24.03866, 22.95186]
    # the AUC rows of an epoch sit at its step: the last printed, the average, is kept
    assert _vals(run, "auc") == [50.496, 48.717]


def test_a_hyphenated_name_or_file_is_no_counter(tmp_path: Path) -> None:
    # near miss: `top-1` is a metric's name, `model_epoch-3.pth` a file's
    body = (
        "epoch 1 top-1 0.52 loss 2.1\n"
        "saved model_epoch-3.pth\n"
        "epoch 2 top-1 0.61 loss 1.9\n"
        "epoch 3 top-1 0.66 loss 1.7\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0]
    assert _vals(run, "top-1") == [0.52, 0.61, 0.66]
