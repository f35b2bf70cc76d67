"""A message printed right after a tqdm bar's last refresh lands on the bar's line (the
bar ends without a newline). One that opens by quoting an identifier is a line of its
own, never more of the postfix: Lightning's "`Trainer.fit` stopped: `max_epochs=2`
reached." (verbatim from a Lightning VAE write-up in the code index). Other text stays
with the bar: diffusers' dreambooth LoRA "Model weights saved in ..." (verbatim from
tests/real/healthy_diffusers_flux_dreambooth_lora_prodigy_last4_steps_loss_0p29_0p58_error_after_training)
must not cost the bar its values."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

LIGHTNING = (
    "Epoch 1: 100%|██████████████████████████████████████| 10/10 [01:17<00:00,  7.72s/it,"
    " v_num=0, val_loss=1.150, loss=1.640, kl_loss=0.543]`Trainer.fit` stopped:"
    " `max_epochs=2` reached.\n"
)
DIFFUSERS = (
    "Steps: 100%|██████████| 400/400 [07:49<00:00,  1.18s/it, loss=0.288, lr=1]Model weights"
    " saved in /workspace/output_model/dd304483-afdc-4398-9c46-c660d0725e70-e1/"
    "pytorch_lora_weights.safetensors\n"
)
DDPM = (  # a postfix value that holds brackets: the first "]" is not the bar's end
    "100%|██████████| 625/625 [03:20<00:00,  3.12it/s, epoch=4, loss: =6.78, img shape:"
    " =torch.Size([80, 3, 32, 32]), LR=0.00012]  \n"
)


def test_a_setting_in_the_message_after_the_bar_is_no_metric(tmp_path: Path) -> None:
    run = one_log(tmp_path, LIGHTNING)
    assert run.get("max_epochs") is None
    assert values(run, "loss") == [1.64]
    assert values(run, "eval_loss") == [1.15]


def test_the_bar_before_a_saved_message_is_read_whole(tmp_path: Path) -> None:
    run = one_log(tmp_path, DIFFUSERS)
    assert values(run, "loss") == [0.288]
    assert values(run, "lr") == [1.0]


def test_a_bracket_inside_the_postfix_does_not_cut_it(tmp_path: Path) -> None:
    run = one_log(tmp_path, DDPM)
    assert values(run, "loss") == [6.78]
    assert values(run, "lr") == [0.00012]
