"""One task metric printed by two layouts, one in percent: DeLFT's callback prints
"f1 (micro): 47.24" on the Keras bar's line, Keras "f1: 0.4724" after it. Where both
print a step the percent is 100x the fraction at every one, so the percent layout's
values are divided by 100: the last epoch, which only the callback printed (the excerpt
ends there), joins the fraction's scale instead of jumping 100-fold. Lines verbatim from
tests/real/healthy_delft_bert_date_keras_warmup_lr_printed_loss_2p06_to_0p18_5_epochs."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

_BAR = "8/8 [==============================] - "
_LOG = (
    "Epoch 1/60\n"
    f"{_BAR}ETA: 0s - loss: 2.0593\tf1 (micro): 47.24\n"
    f"{_BAR}69s 8s/step - loss: 2.0593 - f1: 0.4724 - learning_rate: 3.8095e-06\n"
    "Epoch 2/60\n"
    f"{_BAR}ETA: 0s - loss: 1.2964\tf1 (micro): 82.82\n"
    f"{_BAR}43s 4s/step - loss: 1.2964 - f1: 0.8282 - learning_rate: 7.6190e-06\n"
    "Epoch 3/60\n"
    f"{_BAR}ETA: 0s - loss: 0.1840\tf1 (micro): 94.89\n"
)


def test_the_percent_layout_joins_the_fraction_scale(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LOG)
    assert values(run, "f1") == [0.4724, 0.8282, 0.9489]


def test_a_metric_that_is_not_100x_keeps_its_values(tmp_path: Path) -> None:
    # near miss: the callback's number is no percent of Keras' (another F1): both kept
    body = _LOG.replace("47.24", "0.51").replace("82.82", "0.84").replace("94.89", "0.95")
    assert values(one_log(tmp_path, body), "f1") == [0.4724, 0.8282, 0.95]
