"""A log is written in time order. A record dated a day or more before the record above
it, where the step goes back too, is another run's log pasted after the first (a
notebook's own run, then an older run's last epochs), not a resume of the same run:
read as a resume, the second run's points were merged into the first's by step.
Paddle's and mmengine's loggers date their lines "[2022/04/04 17:51:12]" (slashes),
which is read as a date as ISO's dashes are. Lines verbatim from PaddleClas 2.3
(tests/real/healthy_paddleclas23_resnet50vd_flowers102_20ep_cosine_top1_0p59_to_0p92_
notebook_readme), epochs trimmed."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import read_log

_NEW = (
    "[2022/04/04 17:5{e}:12] root INFO: [Train][Epoch {e}/5][Iter: 0/8]lr: 0.00031, "
    "CELoss: 4.6408{e}, loss: 4.6408{e}, batch_cost: 3.14893s, reader_cost: 2.57331, "
    "ips: 40.64869 images/sec, eta: 0:08:23\n"
)
_OLD = (
    "[2021/10/31 01:5{e}:47] root INFO: [Train][Epoch {e}/5][Iter: 0/8]lr: 0.00285, "
    "top1: 0.93750, top5: 0.96484, CELoss: 0.3648{e}, loss: 0.3648{e}, batch_cost: 1.48066s, "
    "reader_cost: 0.68550, ips: 172.89543 images/sec, eta: 0:00:29\n"
)


def test_an_older_log_pasted_after_a_newer_one_is_a_second_run(tmp_path: Path) -> None:
    body = "".join(_NEW.format(e=e) for e in range(1, 6))
    body += "".join(_OLD.format(e=e) for e in range(3, 6))
    first, second = read_log(tmp_path, body)
    assert len(first.get("loss")) == 5 and len(second.get("loss")) == 3
    assert first.get("loss").values[-1] == 4.64085 and second.get("loss").values[0] == 0.36483


def test_a_resume_the_same_day_stays_one_run(tmp_path: Path) -> None:
    # near miss: the step goes back (a resume from epoch 3) but the clock goes on
    body = "".join(_NEW.format(e=e) for e in range(1, 6))
    body += "".join(_NEW.format(e=e).replace("[2022/04/04", "[2022/04/05") for e in range(3, 6))
    (run,) = read_log(tmp_path, body)
    assert len(run.get("loss")) == 5  # epochs 3-5 rewritten by the resume
