"""Reader coverage: metric-like names a dev text log prints that traindoc does not read.

For each DEV real case (split == "dev", filtered from meta.json before any log is
opened) whose listed files are text, find the metric-like key/value pairs in the text
(`name: 1.2`, `name=1.2`, `name 1.2` in a table row, `"name": 1.2` in JSON, the header
of a CSV-like block over numeric rows), and compare them with the series traindoc
reads for that case (pipeline.load_all). A name counts as read when its canonical
name, or its name with separators dropped, matches a read series' (or the end of one:
"acc" is read as "train/acc"). A name must be printed with a number on at least
--min-lines lines (default 3: a curve, not a config dump's setting). Prints the
metric-like names (loss / accuracy / reward / lr / grad-norm-like, normalised) most
often present but unread, with the number of cases and one example case each.

Usage: PYTHONPATH=src python scripts/reader_coverage.py [--top N] [--examples NAME]
Holdout cases are never opened.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from traindoc.corpus import target
from traindoc.model.signals import canonical
from traindoc.pipeline import load_all
from traindoc.readers import ReadError

ROOT = Path(__file__).resolve().parents[1] / "tests" / "real"
TEXT_SUFFIXES = {".txt", ".log", ".out", ".md", ".csv", ".tsv", ".jsonl", ".json", ""}

_NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?%?"
_NAME = r"[A-Za-z][\w./@\-]*(?: [A-Za-z][\w./@\-]*){0,2}"
# name: value / name = value / name=value
KV = re.compile(rf"(?<![\w./@\-])({_NAME})\s*[:=]\s*\(?({_NUM})(?![\w.])")
# "name": value (JSON, numbers may be quoted as fairseq does)
JSON_KV = re.compile(rf'"([^"\n]{{1,60}})"\s*:\s*"?({_NUM})"?')
# name 1.234 (a table / fixed-width row: needs a fraction so that "epoch 3" stays out)
SPACED = re.compile(r"(?<![\w./@\-])([A-Za-z][\w./@\-]*)\s+([-+]?\d*\.\d+(?:[eE][-+]?\d+)?%?)\b")
# What a metric is called: a loss, accuracy, LR, grad norm, reward, eval score.
METRIC = re.compile(
    r"loss|acc|(?:^|[^a-z])lr(?:$|[^a-z])|learning.?rate|norm|reward|return|ppl|perplex|bleu|"
    r"(?:^|[^a-z])(?:wer|cer|f1|map|auc|mse|mae|rmse|nll|kl|iou|miou|psnr|ssim|score|error|err)"
    r"(?:$|[^a-z])|cost|entropy|prec|recall",
    re.IGNORECASE,
)


def dev_text_cases(root: Path) -> list[tuple[Path, dict]]:
    out = []
    for meta_path in sorted(root.glob("*/meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("split") != "dev":
            continue
        files = meta.get("files", [])
        if not files or any(
            Path(f).suffix.lower() not in TEXT_SUFFIXES or "tfevents" in f for f in files
        ):
            continue
        out.append((meta_path.parent, meta))
    return out


def norm(name: str) -> str:
    """A name as compared: lower case, runs of separators as one underscore."""
    return re.sub(r"[\s_\-]+", "_", name.strip().lower()).strip("_")


def squash(name: str) -> str:
    return re.sub(r"[\s_\-./]+", "", name.lower())


def printed_names(text: str, min_lines: int = 3) -> set[str]:
    """The metric-like names the text prints with a number on at least min_lines lines
    (a curve, not a setting printed once in a config dump)."""
    seen: Counter[str] = Counter()
    lines = text.splitlines()
    for line in lines:
        on_line = {m.group(1) for rx in (KV, JSON_KV, SPACED) for m in rx.finditer(line)}
        seen.update(on_line)
    names = {n for n, k in seen.items() if k >= min_lines}
    for i, line in enumerate(lines[:-1]):
        sep = "," if line.count(",") >= 2 else ("\t" if line.count("\t") >= 2 else None)
        if sep is None:
            continue
        head = [c.strip().strip('"') for c in line.split(sep)]
        row = [c.strip() for c in lines[i + 1].split(sep)]
        if len(row) == len(head) and sum(bool(re.fullmatch(_NUM, c)) for c in row) >= 2:
            names.update(h for h in head if h and not re.fullmatch(_NUM, h))
    out = set()
    for n in names:
        # "epoch 3 train loss" style prefixes: keep the last one to three words
        words = n.split()
        cand = " ".join(words[-2:]) if len(words) > 1 else n
        if METRIC.search(cand) and len(cand) <= 40:
            out.add(cand)
    return out


def is_read(name: str, read: set[str]) -> bool:
    c = canonical(name)
    cands = {norm(c), norm(name), squash(c), squash(name)}
    last = name.split()[-1]
    cands |= {norm(canonical(last)), squash(canonical(last))} if " " in name else set()
    for r in read:
        if norm(r) in cands or squash(r) in cands:
            return True
        if any(squash(r).endswith(x) and len(x) >= 3 for x in (squash(c), squash(name))):
            return True
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument("--min-lines", type=int, default=3)
    ap.add_argument("--examples", help="list the cases that print this normalised name unread")
    args = ap.parse_args()
    cases = dev_text_cases(ROOT)
    unread: Counter[str] = Counter()
    example: dict[str, list[str]] = defaultdict(list)
    n_cases = n_any = 0
    for case, meta in cases:
        text = ""
        for f in meta["files"]:
            try:
                text += (case / f).read_text(encoding="utf-8", errors="replace") + "\n"
            except OSError:
                continue
        try:
            runs = load_all(target(case, meta["files"]), checkpoints=False)
        except ReadError:
            runs = []
        except Exception as exc:  # a reader crash is a gap too: count it, keep going
            print(f"# {case.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            runs = []
        n_cases += 1
        read = {k for r in runs for k in r.series}
        missing = {
            norm(canonical(n)) for n in printed_names(text, args.min_lines) if not is_read(n, read)
        }
        n_any += bool(missing)
        for n in missing:
            unread[n] += 1
            example[n].append(case.name)
    if args.examples:
        for name in example.get(norm(args.examples), []):
            print(name)
        return 0
    print(f"{n_cases} dev text cases, {n_any} print a metric-like name that is not read")
    print(f"{'cases':>5}  name  (first example)")
    for name, k in unread.most_common(args.top):
        print(f"{k:5d}  {name}  ({example[name][0][:90]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
