"""`make fuzz`: run >= 100,000 mutated inputs through every command, in-process.

Two worker processes (the machine's cores) each run cases from tests/fuzz, most
below the CLI (at the reader or the Python API: see harness.LEVELS), laid out on
/dev/shm where there is one; the parent hands out case numbers, kills and
restarts a worker that overruns the limit (a hang in C, where the in-worker alarm
cannot reach), and prints one summary line. Failures are listed by class (exception and innermost frame) and
written to .cache/fuzz/failures.jsonl with their case numbers:
`python scripts/fuzz.py --replay N` reruns one and shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

KILL_AFTER_S = 15.0  # the alarm fires at 10 s; past this the worker is stuck in C
# Cases are laid out in memory where there is a tmpfs: on disk, creating and removing
# each case's directories cost more than reading most of them.
_SHM = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def _worker(conn, base: int) -> None:
    from tests.fuzz import harness

    scratch = Path(tempfile.mkdtemp(prefix="traindoc-fuzz-", dir=_SHM))
    os.chdir(scratch)  # a stray relative write lands here, not in the repo
    marker = scratch / "MARKER"
    harness.warm()
    conn.send(("ready", None))
    while True:
        n = conn.recv()
        if n is None:
            os.chdir("/")
            shutil.rmtree(scratch, ignore_errors=True)
            return
        t = time.monotonic()
        try:
            case = harness.make_case(n, base, str(marker))
        except Exception as exc:  # the harness's own bug: reported, never a silent skip
            conn.send(("done", (n, "?", "harness", repr(exc)[:200], 0.0)))
            continue
        out = harness.run_case(case, scratch, marker)
        conn.send(("done", (n, case.seed, out.kind, out.detail, time.monotonic() - t)))


class Pool:
    def __init__(self, jobs: int, base: int) -> None:
        self.ctx = mp.get_context("fork")
        self.base = base
        self.workers = [self._start() for _ in range(jobs)]

    def _start(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=_worker, args=(child, self.base), daemon=True)
        p.start()
        child.close()  # so that a dead worker reads as EOF here
        parent.recv()  # ready
        return {"proc": p, "conn": parent, "n": None, "since": 0.0}

    def run(self, cases, on_result) -> None:
        todo = iter(cases)
        busy = 0
        for w in self.workers:
            busy += self._give(w, todo)
        while busy:
            ready = wait([w["conn"] for w in self.workers if w["n"] is not None], timeout=1.0)
            now = time.monotonic()
            for w in self.workers:
                if w["n"] is None:
                    continue
                if w["conn"] in ready:
                    try:
                        _, result = w["conn"].recv()
                    except EOFError:  # the worker died (memory, a C crash)
                        result = (w["n"], "?", "traceback", "worker died", now - w["since"])
                        self._restart(w)
                    on_result(*result)
                elif now - w["since"] > KILL_AFTER_S:
                    on_result(w["n"], "?", "hang", "killed: stuck past the alarm", now - w["since"])
                    self._restart(w)
                else:
                    continue
                w["n"] = None
                busy -= 1
                busy += self._give(w, todo)

    def _restart(self, w) -> None:
        w["proc"].kill()
        w["proc"].join()
        w.update(self._start(), n=w["n"])

    def _give(self, w, todo) -> int:
        n = next(todo, None)
        if n is None:
            return 0
        w["n"], w["since"] = n, time.monotonic()
        w["conn"].send(n)
        return 1

    def close(self) -> None:
        for w in self.workers:
            w["conn"].send(None)
            w["proc"].join(timeout=5)


def replay(n: int, base: int) -> None:
    import traceback

    from typer.testing import CliRunner

    from tests.fuzz import harness
    from traindoc.cli import app

    scratch = Path(tempfile.mkdtemp(prefix="traindoc-fuzz-"))
    case = harness.make_case(n, base, str(scratch / "MARKER"))
    print(
        f"case {n}: seed {case.seed}, level {case.level}, mutated {case.mutated}, "
        f"fs {case.fs!r}, argv {case.argv}"
    )
    keep = scratch / "case"
    harness._layout(case, keep)
    print(f"input kept in {keep}")
    t = time.monotonic()
    print(harness.run_case(case, scratch, scratch / "MARKER"), f"({time.monotonic() - t:.2f} s)")
    root = scratch / "in"
    harness._layout(case, root)
    argv = [a.replace("{in}", str(root)).replace("{out}", str(scratch)) for a in case.argv]
    if case.level != "cli":
        try:
            harness.call(case.level, argv)
        except harness.allowed() as exc:
            print("allowed error:", exc)
        except Exception:
            traceback.print_exc()
        return
    res = CliRunner().invoke(app, argv)
    print("exit", res.exit_code, "stderr:", res.stderr[-2000:])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        traceback.print_exception(*res.exc_info)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100_000, help="number of inputs")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--base", type=int, default=0, help="changes every case")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--replay", type=int, default=None)
    args = ap.parse_args()
    if args.replay is not None:
        replay(args.replay, args.base)
        return 0
    t0 = time.monotonic()
    counts: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    first: dict[str, int] = {}
    slow = 0
    out = ROOT / ".cache" / "fuzz"
    out.mkdir(parents=True, exist_ok=True)
    log = (out / "failures.jsonl").open("w")

    def on_result(n, seed, kind, detail, secs):
        nonlocal slow
        counts[kind] += 1
        slow += secs > 5
        if kind != "ok":
            key = f"{kind}: {seed}: {detail}"
            classes[key] += 1
            first.setdefault(key, n)
            log.write(json.dumps({"n": n, "seed": seed, "kind": kind, "detail": detail}) + "\n")
        done = sum(counts.values())
        if done % 5000 == 0:
            print(
                f"  {done} inputs, {done - counts['ok']} failing ({time.monotonic() - t0:.0f} s)",
                file=sys.stderr,
                flush=True,
            )

    pool = Pool(args.jobs, args.base)
    pool.run(range(args.start, args.start + args.n), on_result)
    pool.close()
    log.close()
    for key, c in classes.most_common(60):
        print(f"{c:6d}  (e.g. case {first[key]})  {key}", file=sys.stderr)
    total = sum(counts.values())
    tracebacks = counts["traceback"] + counts["stderr"]
    print(
        f"fuzz: {total} inputs, {tracebacks} tracebacks, {counts['hang']} hangs, "
        f"{counts['write']} writes, {counts['code']} code execution ({time.monotonic() - t0:.0f} s)"
    )
    return 1 if total != counts["ok"] else 0


if __name__ == "__main__":
    sys.exit(main())
