"""fairseq's end-of-epoch records prefix every key with the subset ({"epoch": 4,
"valid_loss": ..., "valid_num_updates": "367"}): that counter is the step of the line, as
num_updates is on a train_inner line; read otherwise, the valid lines would take the step
of the line before and an epoch whose train_inner step is lower looks like a new run."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_runs

LOG = """\
[2020-12-19 17:41:22,153][valid][INFO] - {"epoch": 1, "valid_loss": "729.494", "valid_wer": "100.393", "valid_num_updates": "85"}
[2020-12-19 17:41:25,566][train][INFO] - {"epoch": 1, "train_loss": "887.379", "train_num_updates": "85", "train_lr": "6.15563e-07"}
[2020-12-19 17:50:12,777][valid][INFO] - {"epoch": 2, "valid_loss": "647.256", "valid_wer": "100.578", "valid_num_updates": "179"}
[2020-12-19 17:50:22,028][train][INFO] - {"epoch": 2, "train_loss": "822.103", "train_num_updates": "179", "train_lr": "9.64538e-07"}
[2020-12-19 17:52:20,233][train_inner][INFO] - {"epoch": 3, "update": 2.223, "loss": "844.186", "num_updates": "200", "lr": "1.0425e-06"}
[2020-12-19 17:59:09,448][valid][INFO] - {"epoch": 3, "valid_loss": "477.959", "valid_wer": "99.954", "valid_num_updates": "273"}
[2020-12-19 17:59:27,628][train][INFO] - {"epoch": 3, "train_loss": "679.775", "train_num_updates": "273", "train_lr": "1.31351e-06"}
[2020-12-19 18:08:14,955][valid][INFO] - {"epoch": 4, "valid_loss": "321.244", "valid_wer": "100", "valid_num_updates": "367"}
"""


def test_subset_prefixed_update_counters_are_the_steps(tmp_path: Path) -> None:
    p = tmp_path / "hydra_train.log"
    p.write_text(LOG, encoding="utf-8")
    (run,) = load_runs(p)
    assert list(run.get("eval_loss").steps) == [85, 179, 273, 367]
