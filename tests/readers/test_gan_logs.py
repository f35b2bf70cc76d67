"""GAN training logs, verbatim snippets: pytorch-CycleGAN-and-pix2pix's loss_log.txt
(bare player names G_GAN / D_real / D_A / cycle_A, an `iters` counter that starts over
every epoch, a resumed session appended under a new header) and StyleGAN2-ADA's
stats.jsonl ({num, mean, std} per stat). The players are opponents: no one loss is
derived from them and the run is judged inconclusive, with the reason said."""

from __future__ import annotations

from pathlib import Path

from traindoc.engine import diagnose
from traindoc.model.signals import kind
from traindoc.readers import load_runs

ASSETS = Path(__file__).parent / "assets" / "gan"


def test_pix2pix_loss_log_is_read_as_two_sessions_of_epoch_x_iters() -> None:
    # sources: luoyaxiong/pix2pix checkpoints/facades_pix2pix/loss_log.txt (lines 1-10,
    # 648-653), its iters count the epoch's images and start over at each epoch
    first, second = load_runs(ASSETS / "pix2pix_loss_log.txt")
    g = first.get("g_l1")
    assert g is not None and len(g) == 11
    # epoch 2 comes after the largest counter printed (447, epoch 138)
    assert list(g.steps[:6]) == [100, 200, 300, 400, 447 + 31, 447 + 131]
    assert len(second.get("g_l1")) == 3  # the resumed session, epoch 1 again
    for run in (first, second):
        assert run.fact("task") == "gan"
        assert run.get("loss") is None  # G_GAN + G_L1 + D_real + D_fake is no loss
        d = diagnose(run)
        assert not d.findings
        assert any("GAN" in s.reason for s in d.not_judged)


def test_cyclegan_player_names_are_losses_and_not_summed() -> None:
    # source: cahidenes/Cmpe49T-HW1 checkpoints/stain_cyclegan/loss_log.txt lines 6-20
    runs = load_runs(ASSETS / "cyclegan_loss_log.txt")
    run = runs[-1]
    for name in ("d_a", "g_a", "cycle_a", "idt_a", "d_b", "g_b", "cycle_b", "idt_b"):
        assert name in run.series
    assert run.fact("task") == "gan" and run.get("loss") is None


def test_player_names_near_misses() -> None:
    for name in ("G_GAN", "G_L1", "D_real", "D_fake", "D_A", "G_B", "cycle_A", "idt_B", "G_2_L1"):
        assert kind(name) == "component_loss", name
    # a transformer's sizes, a grad norm, a bare domain letter, and a bare G / D (a math
    # answer's "D: 4" in a GRPO completion is no discriminator): not a player's loss
    for name in ("d_model", "d_ff", "g_norm", "A", "cycle", "data", "D", "G", "d_1"):
        assert kind(name) != "component_loss", name


def test_stylegan2ada_stats_jsonl_reads_the_means_per_tick() -> None:
    # source: Hexanol777/RPG-SpriteGAN stats.jsonl, its first 3 lines
    (run,) = load_runs(ASSETS / "stylegan2ada_stats.jsonl")
    g, d = run.get("loss/g/loss"), run.get("loss/d/loss")
    assert g is not None and d is not None and len(g) == 3
    assert g.values[0] == 3.4799304008483887  # the tick's mean, not its num or std
    assert list(g.steps) == [0, 1, 2]  # Progress/tick
    assert run.fact("task") == "gan" and run.get("loss") is None
    assert any("GAN" in s.reason for s in diagnose(run).not_judged)


def test_players_glued_to_the_word_loss_are_not_summed() -> None:
    """taming-transformers' VQGAN logs train/aeloss and train/discloss (its autoencoder's
    and discriminator's totals), other GAN scripts lossD / lossG: two players, no sum."""
    from traindoc.readers.derived import adversarial

    assert adversarial(["train/aeloss", "train/discloss"])
    assert adversarial(["lossD", "lossG"]) and adversarial(["dloss", "gloss"])
    # near misses: an autoencoder alone, a VAE's terms, a loss and its eval twin
    assert not adversarial(["train/aeloss", "train/rec_loss"])
    assert not adversarial(["kl_loss", "rec_loss"]) and not adversarial(["loss", "val_loss"])
    assert not adversarial(["lossdelta", "loss_gap"])


def test_sessions_that_start_over_within_the_first_epoch_are_new_runs() -> None:
    # source: juliagong/sketch2face checkpoints/finetune_iterrefine_g/loss_log.txt lines
    # 16-37: a session stops in epoch 1 at iters 700 and the next starts at epoch 1 again
    runs = load_runs(ASSETS / "sketch2face_sessions_loss_log.txt")
    assert [len(r.get("g_l1")) for r in runs] == [5, 7, 4]
    first = runs[0].get("g_l1")
    # epoch 2 / 3 placed after the largest counter (700): 2 x 700 + 14 for "epoch 3, iters 14"
    assert first.steps[0] == 700 + 657 and first.steps[1] == 2 * 700 + 14
    assert all(r.fact("task") == "gan" and r.get("loss") is None for r in runs)


def test_a_counter_that_drops_inside_a_later_epoch_is_not_epoch_x_iters(tmp_path: Path) -> None:
    """Near miss: the counter falls back within epoch 2 (not a new epoch, not a restart
    at the first epoch), so nothing says it counts the epoch's samples."""
    lines = [
        "(epoch: 1, iters: 100, time: 0.3, data: 0.1) G_GAN: 2.0 G_L1: 20.0 D_real: 0.3 D_fake: 0.3",
        "(epoch: 1, iters: 200, time: 0.3, data: 0.1) G_GAN: 2.0 G_L1: 19.0 D_real: 0.3 D_fake: 0.3",
        "(epoch: 2, iters: 300, time: 0.3, data: 0.1) G_GAN: 2.0 G_L1: 18.0 D_real: 0.3 D_fake: 0.3",
        "(epoch: 2, iters: 100, time: 0.3, data: 0.1) G_GAN: 2.0 G_L1: 17.0 D_real: 0.3 D_fake: 0.3",
        "(epoch: 2, iters: 200, time: 0.3, data: 0.1) G_GAN: 2.0 G_L1: 16.0 D_real: 0.3 D_fake: 0.3",
    ]
    p = tmp_path / "loss_log.txt"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    steps = [int(s) for r in load_runs(p) for s in r.get("g_l1").steps]
    assert steps == [100, 200, 300, 100, 200]  # the printed counter, as before
