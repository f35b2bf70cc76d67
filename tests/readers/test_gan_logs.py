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


def _lines(tmp_path: Path, lines: list[str], name: str = "train.log") -> list:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_runs(p)


def test_keras_gan_bracketed_players_are_read_under_their_names(tmp_path: Path) -> None:
    # Keras-GAN's print: "%d [D loss: %f, acc.: %.2f%%] [G loss: %f]" once per step
    lines = [
        f"{i} [D loss: {0.69 - 0.02 * i:f}, acc.: {50 + i:.2f}%] [G loss: {0.69 + 0.05 * i:f}]"
        for i in range(6)
    ]
    (run,) = _lines(tmp_path, lines)
    assert run.get("d_loss") is not None and run.get("g_loss") is not None
    assert len(run.get("g_loss")) == 6
    assert run.fact("task") == "gan" and run.get("loss") is None


def test_step_equals_players_are_read(tmp_path: Path) -> None:
    # "Step=N D_loss=x, G_loss=y, ..." key=value records
    lines = [
        f"Step={i * 100} D_loss={1.38 - 0.01 * i:.4f}, G_loss={0.69 + 0.1 * i:.4f}, time=0.1"
        for i in range(5)
    ]
    (run,) = _lines(tmp_path, lines)
    assert list(run.get("g_loss").steps) == [0, 100, 200, 300, 400]
    assert run.fact("task") == "gan" and run.get("loss") is None


def test_a_player_letter_opens_its_key_not_a_unit(tmp_path: Path) -> None:
    # golbin's TensorFlow-Tutorials GAN: "Epoch: 0560 D loss: -0.3683 G loss: -2.914" -
    # the G names the generator, no gigabyte unit of the D loss before it
    lines = [f"Epoch: {e:04d} D loss: -0.{3600 + e} G loss: -2.{900 + e}" for e in range(1, 5)]
    (run,) = _lines(tmp_path, lines)
    assert set(run.series) >= {"d_loss", "g_loss"} and run.get("loss") is None
    # near miss: a memory figure with its unit before another key keeps the unit
    (run,) = _lines(
        tmp_path, [f"step {i} mem: 12 G lr: 0.001 loss: {2 - 0.1 * i}" for i in range(4)]
    )
    assert run.get("loss") is not None


def test_a_wgan_critic_cost_alone_is_no_learning_curve(tmp_path: Path) -> None:
    # improved_wgan_training's tflib.plot: "iter N<TAB>disc cost<TAB>value", the critic's
    # cost negative by design and rising toward 0 as the generator closes the gap
    values = [-0.81, -0.38, -0.79, -1.34, -1.39, -1.26, -1.06, -0.87, -0.69, -0.57, -0.45]
    lines = [f"iter {100 * i + 99}\tdisc cost\t{v}" for i, v in enumerate(values)]
    (run,) = _lines(tmp_path, lines)
    assert "disc_cost" in run.series and run.get("loss") is None
    assert run.fact("task") == "gan"
    d = diagnose(run)
    assert not d.findings
    assert any("GAN" in s.reason for s in d.not_judged if s.rule == "divergence")


def test_a_nan_player_cost_is_still_a_nan_loss(tmp_path: Path) -> None:
    values = ["-0.81", "-0.92", "-1.10", "nan", "nan"]
    lines = [f"iter {100 * i + 99}\tdisc cost\t{v}" for i, v in enumerate(values)]
    (run,) = _lines(tmp_path, lines)
    assert [f.rule for f in diagnose(run).findings] == ["nonfinite-loss"]


def test_a_generator_reconstruction_term_alone_stays_the_loss(tmp_path: Path) -> None:
    # near miss: an L1 term the generator minimises is a distance, no player's objective
    lines = [f"step {i * 10} G_L1: {30 - i:.1f}" for i in range(6)]
    (run,) = _lines(tmp_path, lines)
    assert run.get("loss") is not None and run.fact("task") != "gan"


def test_player_names_against_other_losses() -> None:
    from traindoc.readers.derived import player

    for name in ("d_loss", "g_loss", "disc_cost", "errD", "lossG", "loss/d/loss", "generator_loss"):
        assert player(name), name
    # a generator's reconstruction / perceptual / cycle terms, and no player at all
    for name in ("G_L1", "g_l1_spec_loss", "cycle_A", "loss", "cost", "d_model", "val_loss"):
        assert not player(name), name


def test_ml_agents_mean_reward_lines_are_the_reward(tmp_path: Path) -> None:
    # ML-Agents' summaries: a bare "Mean Reward: x" (its early PPO notebook) and
    # stats.py's "Step: N. Time Elapsed: T s. Mean Reward: X. Std of Reward: Y. Training."
    (run,) = _lines(tmp_path, [f"Mean Reward: {-80 + 5 * i}.{i}1" for i in range(5)])
    assert run.fact("task") == "rl" and len(run.get("reward")) == 5
    lines = [
        f"3DBall. Step: {50000 * i}. Time Elapsed: {227.8 * i:.3f} s. Mean Reward: {1.3 * i:.3f}. "
        f"Std of Reward: 0.829. Training."
        for i in range(1, 4)
    ]
    (run,) = _lines(tmp_path, lines)
    assert list(run.get("reward").steps) == [50000, 100000, 150000]


def test_an_rl_critic_loss_is_no_player() -> None:
    from traindoc.readers.derived import player

    # DQN's / actor-critic's critic loss is a value regression the learner minimises
    assert not player("Critic_Loss") and not player("critic/vf_loss")
