"""Makes assets/lightning_tiny: a real 2-epoch Lightning CSVLogger run. Run with .venv-train."""

import lightning as L
import torch
from lightning.pytorch.loggers import CSVLogger


class M(L.LightningModule):
    def __init__(self, lr=0.01, hidden=8, batch_size=16):
        super().__init__()
        self.save_hyperparameters()
        self.l = torch.nn.Linear(4, 3)

    def training_step(self, b, i):
        x, y = b
        loss = torch.nn.functional.cross_entropy(self.l(x), y)
        self.log("train_loss", loss, on_step=True, on_epoch=True)
        self.log("lr", self.optimizers().param_groups[0]["lr"], on_step=True, on_epoch=True)
        return loss

    def validation_step(self, b, i):
        x, y = b
        self.log("val_loss", torch.nn.functional.cross_entropy(self.l(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


ds = torch.utils.data.TensorDataset(torch.randn(128, 4), torch.randint(0, 3, (128,)))
dl = torch.utils.data.DataLoader(ds, batch_size=16)
t = L.Trainer(
    max_epochs=2,
    logger=CSVLogger("/tmp/ta/real/pl"),
    log_every_n_steps=2,
    enable_progress_bar=False,
    accelerator="cpu",
)
t.fit(M(), dl, dl)
