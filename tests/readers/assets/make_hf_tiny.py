"""Makes assets/hf_tiny: a real 20-step HF Trainer run (tiny GPT-2, CPU). Run with .venv-train."""

import shutil

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
cfg = GPT2Config(vocab_size=50257, n_embd=32, n_layer=2, n_head=2, n_positions=64)
model = GPT2LMHeadModel(cfg)


class DS(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        x = torch.randint(0, 256, (32,))
        return {"input_ids": x, "labels": x}


out = "/tmp/ta/real/hf_out"
shutil.rmtree(out, ignore_errors=True)
args = TrainingArguments(
    output_dir=out,
    max_steps=20,
    logging_steps=2,
    eval_steps=2,
    eval_strategy="steps",
    save_steps=10,
    per_device_train_batch_size=4,
    gradient_accumulation_steps=2,
    report_to=[],
    use_cpu=True,
    learning_rate=1e-3,
    save_total_limit=2,
)
t = Trainer(model=model, args=args, train_dataset=DS(), eval_dataset=DS())
t.train()
t.save_model()
t.save_state()
m = t.evaluate()
t.save_metrics("eval", m)
