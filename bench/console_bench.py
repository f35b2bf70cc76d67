"""Console logs of real size: the text reader's throughput and peak memory.

1. A 1 GB mixed console log (80%: HF Trainer stdout with its tqdm bar redrawn
   every step and a dict every 10 steps; 20%: litgpt's line per micro-batch),
   read in one pass by traindoc's text reader: MB/s and peak RSS of that
   process, next to the size of the series it keeps.
2. Side by side on the format the reader of traindoc 0.1 could read (HF dicts
   with tqdm noise, 100 MB so that reader, which holds the whole file, fits):
   today's text reader vs bench/_console_v1 (the 0.1 reader), same file, each in
   its own process, best of two.
3. The physical reference: reading the file's bytes and nothing else.

Run with `make bench`; the logs are written once under .cache/bench/.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench._console_logs import hf_tqdm, litgpt, write  # noqa: E402

CACHE = ROOT / ".cache" / "bench"
GB = 10**9  # a decimal gigabyte


def _mixed(path: Path, size: int) -> Path:
    if path.exists() and path.stat().st_size >= size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:  # one run: the HF part, then a litgpt part (steps go on)
        done, last = write(
            f, int(size * 0.8), lambda n, start: hf_tqdm(n, total=10**9, start=start), 40_000
        )
        write(f, size - done, lambda n, start: litgpt(n, start=4 * last + start), 200_000)
    return path


def _hf(path: Path, size: int) -> Path:
    if path.exists() and path.stat().st_size >= size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write(f, size, lambda n, start: hf_tqdm(n, total=10**9, start=start), 40_000)
    return path


_CHILD = r"""
import resource, sys, time
sys.path[:0] = [{src!r}, {root!r}]
which, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if which == "bytes":
    with open(path, "rb") as f:
        while f.read(4 << 20):
            pass
    points = 0
elif which == "old":
    from bench._console_v1 import console
    run = console.read(path)
    points = sum(len(s) for s in run.series.values())
else:
    from traindoc.readers.logs import text
    runs = text.read(path)
    points = sum(len(s) for r in runs for s in r.series.values())
dt = time.perf_counter() - t
print(dt, points, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _run(which: str, path: Path) -> tuple[float, int, int]:
    code = _CHILD.format(src=str(ROOT / "src"), root=str(ROOT))
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    out = subprocess.run(
        [sys.executable, "-c", code, which, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def _best(which: str, path: Path, tries: int = 2) -> tuple[float, int, int]:
    runs = [_run(which, path) for _ in range(tries)]
    return min(runs, key=lambda r: r[0])


def main() -> int:
    size = int(float(os.environ.get("CONSOLE_BENCH_GB", "1")) * GB)
    big = _mixed(CACHE / "console-mixed.log", size)
    small = _hf(CACHE / "console-hf-100mb.log", 100 << 20)
    mb = big.stat().st_size / 1e6
    t_bytes, _, _ = _best("bytes", big)
    t_new, points, rss = _run("new", big)
    print(f"console log {mb:,.0f} MB (80% HF dicts + tqdm bars, 20% litgpt lines)")
    print(f"  read the bytes only        {mb / t_bytes:8.1f} MB/s")
    print(
        f"  traindoc text reader       {mb / t_new:8.1f} MB/s   {points:,} points   "
        f"peak RSS {rss / 1e6:,.0f} MB (target < 500 MB)"
    )
    print(
        f"  kept series: {points * 16 / 1e6:,.0f} MB at 16 bytes a point; "
        f"peak / kept = {rss / (points * 16):.1f}"
    )
    smb = small.stat().st_size / 1e6
    t_old, p_old, rss_old = _best("old", small)
    t_now, p_now, rss_now = _best("new", small)
    print(f"\nHF dicts + tqdm, {smb:,.0f} MB, side by side (best of 2)")
    print(
        f"  traindoc 0.1 console reader {smb / t_old:8.1f} MB/s   peak RSS {rss_old / 1e6:,.0f} MB"
    )
    print(
        f"  traindoc text reader        {smb / t_now:8.1f} MB/s   peak RSS {rss_now / 1e6:,.0f} MB"
    )
    print(f"  time ratio today / 0.1: {t_now / t_old:.2f}x (target <= 1.5x)")
    print(f"  points: {p_now:,} today, {p_old:,} in 0.1 (0.1 also kept 'epoch' as a series)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
