"""Checkpoint statistics: traindoc's streaming reader against safetensors' own loaders.

    .venv/bin/python bench/ckpt_bench.py [--gb 2.0] [--dtypes BF16,F32] [--keep DIR]

Generates a ~2 GB safetensors file per dtype (TinyLlama-1.1B layout: hidden
2048, GQA k/v 256, MLP 5632, vocab 32000; randn*0.02, norms 1+-0.01; NaN and
+-Inf injected) in a temporary directory, warms the page cache, then runs each
method in its own process (so peak RSS is per method) and prints GB/s, the
ratio to traindoc's single-process speed, and peak RSS. Every method computes
the same statistics per tensor (mean, std, RMS, min, max, NaN/Inf counts, zero
count); the library paths do it in float64 on the whole tensor, which also
makes them the reference: the bench fails if any value differs by more than
1e-5 relative (counts, min and max exactly).

Methods:
  ours-1        traindoc.ckpt, one process (mmap, chunked, centred moments)
  ours-all      traindoc.ckpt, one process per core
  st-numpy      safetensors.numpy.load_file + numpy float64 (BF16: unsupported)
  st-torch      safetensors.safe_open(framework="pt").get_tensor + torch float64,
                torch.set_num_threads(1) (run with a Python that has torch:
                this one, or --torch-python, default .venv-train/bin/python)

The files are deleted at the end unless --keep is given.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

HIDDEN, KV, MLP, VOCAB = 2048, 256, 5632, 32000


def layout(layers: int) -> list[tuple[str, tuple[int, ...]]]:
    out = [("model.embed_tokens.weight", (VOCAB, HIDDEN))]
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (HIDDEN,)),
            (p + "self_attn.q_proj.weight", (HIDDEN, HIDDEN)),
            (p + "self_attn.k_proj.weight", (KV, HIDDEN)),
            (p + "self_attn.v_proj.weight", (KV, HIDDEN)),
            (p + "self_attn.o_proj.weight", (HIDDEN, HIDDEN)),
            (p + "post_attention_layernorm.weight", (HIDDEN,)),
            (p + "mlp.gate_proj.weight", (MLP, HIDDEN)),
            (p + "mlp.up_proj.weight", (MLP, HIDDEN)),
            (p + "mlp.down_proj.weight", (HIDDEN, MLP)),
        ]
    return [*out, ("model.norm.weight", (HIDDEN,)), ("lm_head.weight", (VOCAB, HIDDEN))]


def generate(path: Path, dtype: str, gb: float) -> int:
    from tests.ckpt._write import header_bytes, to_raw

    item = 2 if dtype == "BF16" else 4
    per_layer = sum(math.prod(s) for _, s in layout(1)) - sum(math.prod(s) for _, s in layout(0))
    fixed = sum(math.prod(s) for _, s in layout(0))
    layers = max(1, round((gb * 1e9 / item - fixed) / per_layer))
    specs = [(n, dtype, s, math.prod(s) * item) for n, s in layout(layers)]
    rng = np.random.default_rng(0)
    with open(path, "wb") as fh:
        fh.write(header_bytes(specs))
        for name, _, shape, _ in specs:
            n = math.prod(shape)
            x = rng.standard_normal(n, dtype=np.float32)
            if "norm" in name:
                x = x * np.float32(0.01) + np.float32(1.0)
            else:
                x *= np.float32(0.02)
            if name == "model.layers.1.mlp.down_proj.weight":
                x[:1000:7] = np.nan
            if name == "model.layers.0.self_attn.q_proj.weight":
                x[3], x[4] = np.inf, -np.inf
            fh.write(to_raw(x, dtype).tobytes())
            del x
    return path.stat().st_size


# ---------------------------------------------------------------------------
# Methods (each runs in a child process: `--method NAME --file PATH`)


def m_ours(path: str, workers: int) -> dict:
    from traindoc.ckpt.api import summarize_checkpoint

    s = summarize_checkpoint(path, workers=workers)
    return {
        t.name: dict(
            mean=t.mean,
            std=t.std,
            rms=t.rms,
            min=t.min,
            max=t.max,
            nan=t.nan,
            inf=t.inf,
            zeros=t.zeros,
        )
        for t in s.tensors
    }


def _f64_stats(x: np.ndarray) -> dict:
    x = x.reshape(-1)
    ok = np.isfinite(x)
    fin = x[ok] if not ok.all() else x
    mean = float(fin.mean())
    return dict(
        mean=mean,
        std=float(fin.std()),
        rms=math.sqrt(float(np.dot(fin, fin)) / fin.size),
        min=float(fin.min()),
        max=float(fin.max()),
        nan=int(np.isnan(x).sum()),
        inf=int(np.isinf(x).sum()),
        zeros=int(fin.size - np.count_nonzero(fin)),
    )


def m_st_numpy(path: str) -> dict:
    from safetensors.numpy import load_file

    try:
        tensors = load_file(path)
    except TypeError as exc:  # BF16: "data type 'bfloat16' not understood"
        return {"unsupported": str(exc)}
    return {name: _f64_stats(arr.astype(np.float64)) for name, arr in tensors.items()}


def m_st_torch(path: str) -> dict:
    import torch
    from safetensors import safe_open

    torch.set_num_threads(1)
    out = {}
    with safe_open(path, framework="pt") as f:
        for name in f.keys():  # noqa: SIM118 (safe_open is not a dict)
            x = f.get_tensor(name).double().reshape(-1)
            ok = torch.isfinite(x)
            fin = x[ok]
            out[name] = dict(
                mean=float(fin.mean()),
                std=float(fin.std(correction=0)),
                rms=math.sqrt(float(torch.dot(fin, fin)) / fin.numel()),
                min=float(fin.min()),
                max=float(fin.max()),
                nan=int(torch.isnan(x).sum()),
                inf=int(torch.isinf(x).sum()),
                zeros=int(fin.numel() - torch.count_nonzero(fin)),
            )
            del x, fin, ok
    return out


def child(method: str, path: str) -> None:
    t0 = time.perf_counter()
    if method == "ours-1":
        stats = m_ours(path, 1)
    elif method == "ours-all":
        stats = m_ours(path, os.cpu_count() or 1)
    elif method == "st-numpy":
        stats = m_st_numpy(path)
    else:
        stats = m_st_torch(path)
    el = time.perf_counter() - t0
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child would
    # report the bench's own peak (the generator's arrays). Pool workers: RUSAGE_CHILDREN.
    rss = max(_hwm_kb(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(json.dumps({"seconds": el, "maxrss_kb": rss, "stats": stats}))


def _hwm_kb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ---------------------------------------------------------------------------


def run(method: str, path: Path, python: str) -> dict:
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [python, __file__, "--method", method, "--file", str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(ours: dict, ref: dict) -> list[str]:
    bad = []
    for name, r in ref.items():
        o = ours[name]
        for k in ("nan", "inf", "zeros", "min", "max"):
            if o[k] != r[k]:
                bad.append(f"{name}.{k}: {o[k]} != {r[k]}")
        for k in ("std", "rms"):
            if not math.isclose(o[k], r[k], rel_tol=1e-5):
                bad.append(f"{name}.{k}: {o[k]} vs {r[k]}")
        if abs(o["mean"] - r["mean"]) > 1e-5 * max(abs(r["mean"]), r["std"]):
            bad.append(f"{name}.mean: {o['mean']} vs {r['mean']}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--method")
    ap.add_argument("--file")
    ap.add_argument("--gb", type=float, default=2.0)
    ap.add_argument("--dtypes", default="BF16,F32")
    ap.add_argument("--methods", default="ours-1,ours-all,st-numpy,st-torch")
    ap.add_argument("--torch-python", default=None)
    ap.add_argument("--keep", default=None, help="keep the generated files in this directory")
    args = ap.parse_args()
    if args.method:
        child(args.method, args.file)
        return 0
    torch_py = args.torch_python or _torch_python()
    tmp = Path(args.keep or tempfile.mkdtemp(prefix="ckpt_bench_"))
    tmp.mkdir(parents=True, exist_ok=True)
    failed = False
    print(f"cores: {os.cpu_count()}  load: {os.getloadavg()[0]:.1f}  torch python: {torch_py}")
    try:
        for dtype in args.dtypes.split(","):
            path = tmp / f"bench-{dtype.lower()}.safetensors"
            if not path.exists():
                t = time.perf_counter()
                size = generate(path, dtype, args.gb)
                print(
                    f"\n{dtype}: generated {size / 1e9:.2f} GB in {time.perf_counter() - t:.0f} s"
                )
            size = path.stat().st_size
            with open(path, "rb") as fh:  # warm the page cache
                while fh.read(64 << 20):
                    pass
            res = {}
            for m in args.methods.split(","):
                py = torch_py if m == "st-torch" else sys.executable
                if py is None:
                    res[m] = {"error": "no Python with torch found"}
                    continue
                res[m] = run(m, path, py)
            base = res.get("ours-1", {}).get("seconds")
            print(
                f"{'method':10s} {'GB/s':>7s} {'x ours-1':>9s} {'peak RSS':>10s} {'% file':>7s}  values"
            )
            for m, r in res.items():
                if "error" in r or "unsupported" in r.get("stats", {}):
                    why = r.get("error") or r["stats"]["unsupported"]
                    print(f"{m:10s} {'-':>7s} {'-':>9s} {'-':>10s} {'-':>7s}  unsupported: {why}")
                    continue
                gbs = size / r["seconds"] / 1e9
                ratio = r["seconds"] / base if base else float("nan")
                rss = r["maxrss_kb"] * 1024
                check = ""
                if m.startswith("ours") and "st-torch" in res and "stats" in res["st-torch"]:
                    ref = res["st-torch"]["stats"]
                    check = "ok" if not (bad := compare(r["stats"], ref)) else f"DIFFER: {bad[:3]}"
                elif m.startswith("ours") and "stats" in res.get("st-numpy", {}):
                    ref = res["st-numpy"]["stats"]
                    if "unsupported" not in ref:
                        bad = compare(r["stats"], ref)
                        check = "ok" if not bad else f"DIFFER: {bad[:3]}"
                elif m.startswith("st"):
                    check = "reference (float64)"
                failed |= check.startswith("DIFFER")
                print(
                    f"{m:10s} {gbs:7.2f} {1 / ratio if m != 'ours-1' else 1.0:8.2f}x "
                    f"{rss / 1e6:8.0f}MB {100 * rss / size:6.1f}%  {check}"
                )
            print("(x ours-1: speed relative to traindoc in one process; >1 is faster)")
            if not args.keep:
                path.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


def _torch_python() -> str | None:
    try:
        import torch  # noqa: F401

        return sys.executable
    except ImportError:
        alt = ROOT / ".venv-train" / "bin" / "python"
        return str(alt) if alt.exists() else None


if __name__ == "__main__":
    sys.exit(main())
