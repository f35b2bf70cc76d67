"""A 2-rank gloo training loop for test_distributed.py (run under torchrun).

mode "hang": rank 1 stops calling into training after step 10 (seed A's silent
hang, on one rank); rank 0 blocks in the next collective. mode "nan": rank 1's
loss is NaN at step 5; both ranks must stop there. mode "straggler": rank 1's
forward (its data loading) takes 3x rank 0's, for 30 steps.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import torch
import torch.distributed as dist

import traindoc
from traindoc.integrations.torch import RankSync


def main(mode: str, out: str) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    m = traindoc.Monitor(output_dir=out, stall_factor=3.0, stall_floor_s=0.5)
    sync = RankSync(every=1)
    result = {"rank": rank, "stopped_at": None}
    for step in range(1, 200):
        if mode == "hang" and rank == 1 and step == 11:
            threading.Event().wait()  # hangs forever, no error
        loss = model(torch.randn(4, 8)).pow(2).mean()
        if mode == "straggler":
            time.sleep(0.15 if rank == 1 else 0.05)
            busy = time.monotonic()  # before the backward's all-reduce evens the ranks out
        loss.backward()
        opt.step()
        opt.zero_grad()
        value = float("nan") if mode == "nan" and rank == 1 and step == 5 else loss.item()
        if mode == "straggler":
            m.step(step, loss=value)
            sync.sync(m, step, value, busy_until=busy)
            if step == 30:
                break
            continue
        time.sleep(0.05)
        try:
            sync.step(m, step, loss=value)  # m.step + the cross-rank check
        except traindoc.TrainingStopped:
            result["stopped_at"] = step
            break
    with open(os.path.join(out, f"result-{rank}.json"), "w") as f:
        json.dump(result, f)
    m.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
