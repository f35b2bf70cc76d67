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


# Keras' CSVLogger(append=True): a second fit() appends its rows under the first's, the
# epoch from 0 again (BrandtKaufmann/CatClassifier@bd9e521 training.log, first 6 lines,
# verbatim); saved as a .csv it is read by the CSV reader, not the text reader
_KERAS_APPENDED = (
    "epoch,F1_score,accuracy,loss,val_F1_score,val_accuracy,val_loss\n"
    "0,1.0924272537231445,0.8897637724876404,7.258389949798584,0.9892987608909607,"
    "0.7736842036247253,8.014145851135254\n"
    "1,1.0480284690856934,0.9514435529708862,6.612099647521973,1.036130428314209,"
    "0.7894737124443054,7.102413654327393\n"
    "0,0.9826052784919739,0.9763779640197754,5.92240047454834,0.9668579697608948,"
    "0.8157894611358643,6.336355209350586\n"
    "1,0.9772098064422607,0.9724409580230713,5.499467372894287,1.0059605836868286,"
    "0.800000011920929,5.874579906463623\n"
    "2,0.9515735507011414,0.9803149700164795,5.07206916809082,0.9692767262458801,"
    "0.8105263113975525,5.468587398529053\n"
)


def test_keras_csvlogger_appended_fits_are_two_runs(tmp_path: Path) -> None:
    # before: one run of 5 epochs whose epoch counter went 0, 1, 0, 1, 2
    from traindoc.readers import load_runs

    p = tmp_path / "training_log.csv"
    p.write_text(_KERAS_APPENDED)
    runs = load_runs(p)
    assert [len(r.get("loss")) for r in runs] == [2, 3]
    assert _vals(runs[1], "loss")[0] == 5.922400


def test_a_csv_with_a_step_column_stays_one_run(tmp_path: Path) -> None:
    # near miss: Lightning's metrics.csv numbers its rows by step; its epoch column going
    # back is a resume inside one run, not a second fit()
    from traindoc.readers import load_runs

    body = "epoch,step,train_loss\n0,10,2.0\n1,20,1.8\n0,30,1.7\n1,40,1.6\n"
    p = tmp_path / "metrics.csv"
    p.write_text(body)
    (run,) = load_runs(p)
    assert len(run.get("loss")) == 4


# Coqui TTS's trainer: a head line per record, then one "| > name: value  (average)" row
# per value (https://github.com/coqui-ai/TTS/issues/972, verbatim; the numbered
# "3. Evaluation:" line is the reporter's)
_COQUI = (
    " > TRAINING (2021-11-29 10:06:07) \n"
    "\n"
    "   --> STEP: 24/352 -- GLOBAL_STEP: 244300\n"
    "     | > G_l1_spec_loss: 0.36788  (0.35471)\n"
    "     | > G_gen_loss: 16.55468  (15.96176)\n"
    "     | > G_adv_loss: 0.00000  (0.00000)\n"
    "     | > loss_0: 16.55468  (15.96176)\n"
    "     | > grad_norm_0: 22.85464  (28.87626)\n"
    "     | > current_lr_0: 7.0524350586068e-111 \n"
    "     | > current_lr_1: 0.00010 \n"
    "     | > step_time: 0.29070  (0.29190)\n"
    "     | > loader_time: 0.00150  (0.00135)\n"
    "3. Evaluation:\n"
    " --> EVAL PERFORMANCE\n"
    "     | > avg_loader_time: 0.00034 (-0.00003)\n"
    "     | > avg_G_l1_spec_loss: 0.35621 (+0.00000)\n"
    "     | > avg_G_gen_loss: 16.02957 (+0.00000)\n"
    "     | > avg_G_adv_loss: 0.00000 (+0.00000)\n"
    "     | > avg_loss_0: 16.02957 (+0.00000)\n"
)


def test_coqui_block_is_one_record_at_its_global_step(tmp_path: Path) -> None:
    # before: each row its own record, numbered by line order; `(0.35471)` a second series
    run = one_log(tmp_path, _COQUI)
    assert _steps(run, "loss") == [244300.0]
    assert _vals(run, "loss") == [16.55468]  # loss_0, the one optimizer's total
    assert _vals(run, "eval_loss") == [16.02957]
    assert _steps(run, "eval_loss") == [244300.0]
    assert float(run.get("lr").values[0]) == 7.0524350586068e-111
    assert not any(n.endswith("_avg") for n in run.series)


# https://github.com/coqui-ai/TTS/issues/976 (verbatim): a GAN step, both optimizers' totals
_COQUI_GAN = (
    " --> STEP: 225/699 -- GLOBAL_STEP: 225\n"
    "     | > G_gen_loss: 23.34689  (37.82264)\n"
    "     | > G_adv_loss: 2.07442  (2.20507)\n"
    "     | > loss_0: 25.42131  (40.02770)\n"
    "     | > grad_norm_0: 0.00000  (0.00000)\n"
    "     | > D_mse_gan_loss: 0.45587  (0.55319)\n"
    "     | > loss_1: 0.45587  (0.55319)\n"
    "     | > grad_norm_1: 0.00000  (0.00000)\n"
    "     | > current_lr_0: 0.00080 \n"
    "     | > current_lr_1: 0.00080 \n"
)


def test_coqui_gan_keeps_each_optimizers_total(tmp_path: Path) -> None:
    # near miss: loss_0 (generator) and loss_1 (discriminator) are opponents, no one loss
    run = one_log(tmp_path, _COQUI_GAN)
    assert _vals(run, "loss_0") == [25.42131]
    assert _vals(run, "loss_1") == [0.45587]
    assert _steps(run, "loss_0") == [225.0]
    assert "lr" not in run.series


# Hand4Whole's logger (https://github.com/mks0601/Hand4Whole_RELEASE/issues/31, two lines
# verbatim): "Epoch e/E itr k/N", k counting the epoch's N batches
_HAND4WHOLE = (
    "09-24 22:53:02 Epoch 0/7 itr 52/3489: lr: 0.0001 speed: 3.52(0.65s r2.79)s/itr "
    "3.41h/epoch loss_smpl_pose: 0.2893 loss_smpl_shape: 0.1395 loss_joint_proj: 0.3026 "
    "loss_joint_cam: 0.0414 loss_smpl_joint_cam: 0.2372\n"
    "09-24 22:53:03 Epoch 0/7 itr 53/3489: lr: 0.0001 speed: 3.45(0.65s r2.73)s/itr "
    "3.34h/epoch loss_smpl_pose: 0.2910 loss_smpl_shape: 0.1313 loss_joint_proj: 0.3319 "
    "loss_joint_cam: 0.0395 loss_smpl_joint_cam: 0.2341\n"
)


def test_an_iteration_counter_beside_the_epoch_counts_its_batches(tmp_path: Path) -> None:
    # before: itr read as the run's step and its 3489 as max_steps (one epoch's batches)
    run = one_log(tmp_path, _HAND4WHOLE)
    assert _steps(run, "loss_smpl_pose") == [52.0, 53.0]
    assert run.fact("max_steps") == 7 * 3489


def test_the_next_epochs_batches_follow_the_printed_total(tmp_path: Path) -> None:
    # epoch 1's itr 52 is batch 3489 + 52 (was: the observed span of epoch 0's counters)
    body = _HAND4WHOLE + _HAND4WHOLE.replace("Epoch 0/7", "Epoch 1/7")
    run = one_log(tmp_path, body)
    assert _steps(run, "loss_smpl_pose") == [52.0, 53.0, 3541.0, 3542.0]


def test_a_run_counter_beside_the_epoch_stays_the_step(tmp_path: Path) -> None:
    # near miss: a counter that climbs on across epochs counts the run: its total is the run's
    body = "".join(
        f"Epoch {e}/3 iter {i}/9000 loss: {2.5 - i / 10000:.3f}\n"
        for e, i in ((1, 1000), (1, 2000), (2, 4000), (2, 5000), (3, 7000), (3, 8000))
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1000.0, 2000.0, 4000.0, 5000.0, 7000.0, 8000.0]
    assert run.fact("max_steps") == 9000
