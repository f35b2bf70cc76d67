"""fairseq-py's 2018 simple progress format prints a running line during validation,
`| epoch 005 | valid on 'valid' subset  1000 / 1311 loss=2.72`: the mean over the first
1000 of 1311 batches, an evaluation not yet finished. Its value is the summary line after
it (`| valid loss 3.13 | valid ppl 8.78`). Lines verbatim from facebookresearch/fairseq
issue #301 ("Train on gpu - about 1 day to 7 epochs")."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

LOG = """\
| epoch 004 | valid on 'valid' subset  1000 / 1311 loss=3.24
| epoch 004 | valid on 'valid' subset | valid loss 3.69 | valid ppl 12.94
| epoch 005  1000 / 8223 loss=2.17 (3.20), wps=959, wpb=897, bsz=32, lr=0.001, clip=100%, gnorm=2.7374
| epoch 005  2000 / 8223 loss=2.20 (3.14), wps=960, wpb=900, bsz=32, lr=0.001, clip=100%, gnorm=2.7204
| epoch 005  3000 / 8223 loss=3.52 (3.08), wps=960, wpb=899, bsz=32, lr=0.001, clip=100%, gnorm=2.6783
| epoch 005  4000 / 8223 loss=2.20 (3.06), wps=961, wpb=903, bsz=32, lr=0.001, clip=100%, gnorm=2.6938
| epoch 005  5000 / 8223 loss=3.03 (3.03), wps=960, wpb=901, bsz=32, lr=0.001, clip=100%, gnorm=2.6796
| epoch 005  6000 / 8223 loss=2.91 (2.99), wps=960, wpb=902, bsz=32, lr=0.001, clip=100%, gnorm=2.6866
| epoch 005  7000 / 8223 loss=3.03 (2.96), wps=960, wpb=902, bsz=32, lr=0.001, clip=100%, gnorm=2.6826
| epoch 005  8000 / 8223 loss=1.47 (2.93), wps=961, wpb=904, bsz=32, lr=0.001, clip=100%, gnorm=2.6741
| epoch 005 | train loss 2.92 | train ppl 7.59 | s/checkpoint    7748 | words/s    961 | words/batch    906 | bsz    32 | lr 0.001000 | clip 100% | gnorm 2.6727
| epoch 005 | valid on 'valid' subset  1000 / 1311 loss=2.72
| epoch 005 | valid on 'valid' subset | valid loss 3.13 | valid ppl 8.78
"""


def test_the_validation_is_its_summary_not_its_running_line(tmp_path: Path) -> None:
    run = one_log(tmp_path, LOG)
    assert values(run, "eval_loss") == [3.69, 3.13]
    assert run.get("valid_loss") is None  # not pushed aside by the running means
    assert run.get("subset") is None  # "subset  1000" is no metric
    assert values(run, "loss")[:2] == [2.17, 2.2]
    assert values(run, "grad_norm")[-1] == 2.6741
