"""The parts of a prescription that depend on what the run already does.

Telling a cosine run to "switch to cosine", or an fp32 run to "prefer bf16 to
fp16", spends the reader's trust in everything else the report says. Each helper
reads the run's facts (and its logged LR, for the warmup) and returns the change
to make, from what to what, or None when the run already does it. Where a fact is
unknown the clause stays conditional ("if it trains in fp16, ...").
"""

from __future__ import annotations

from traindoc.measure import schedule as sch
from traindoc.measure.schedule import effective_batch
from traindoc.measure.stats import fmt
from traindoc.model import Run

WARMUP_LOW, WARMUP_HIGH = 0.02, 0.05  # the usual warmup share of the planned steps


def warmup_share(run: Run) -> float | None:
    """Warmup as a share of the planned steps (logged LR first, else the config)."""
    w, total = sch.warmup(run), sch.total_steps(run)
    if w is None or not total:
        return None
    return w.steps / total


def schedule(run: Run) -> str | None:
    """Cosine decay with a 2-5% warmup, less what the run has already."""
    sched = str(run.fact("lr_scheduler") or "").lower()
    share = warmup_share(run)
    total = sch.total_steps(run)
    steps = f" (~{max(10, round(0.03 * total))} steps)" if total else ""
    warm_ok = share is not None and share >= WARMUP_LOW
    now = f", now {100 * share:.1f}%" if share is not None else ""
    if "cosine" in sched:
        return None if warm_ok else f"give the cosine schedule a 2-5% warmup{steps}{now}"
    to = f"switch the LR schedule from {sched} to cosine decay" if sched else "use cosine decay"
    return to if warm_ok else f"{to} with a 2-5% warmup{steps}{now}"


def warmup(run: Run, longer: str = "lengthen warmup") -> str | None:
    """A (longer) warmup, unless the run's is already at the top of the usual range."""
    share = warmup_share(run)
    if share is None:
        return longer
    if share == 0:
        total = sch.total_steps(run)
        return "add a warmup" + (f" of ~{max(10, round(0.03 * total))} steps" if total else "")
    if share >= WARMUP_HIGH:
        return None
    return f"{longer} (now {100 * share:.1f}% of the steps)"


def precision(run: Run) -> str | None:
    """bf16 instead of fp16: only for a run in fp16 (conditional when unknown)."""
    p = str(run.fact("precision") or "").lower()
    if p == "fp16":
        return "switch fp16 to bf16 (fp32 on GPUs without bf16)"
    if p in ("bf16", "fp32", "tf32", "fp64"):
        return None
    return "if it trains in fp16, switch to bf16"


def clipping(run: Run) -> str | None:
    """Gradient clipping at ~1.0: turned on when off; nothing to say when on."""
    mg = run.fact("max_grad_norm")
    if mg is None:
        return "clip gradients (max_grad_norm ~1.0) if you do not"
    if float(mg) <= 0:
        return "turn gradient clipping on (max_grad_norm 1.0, now off)"
    return None


def steadier(run: Run, lower: str) -> tuple[str | None, ...]:
    """The changes that make overshooting steps rarer, less those the run has made:
    a lower peak LR (or a longer warmup), clipping, bf16 instead of fp16."""
    warm = warmup(run)
    return (lower + (f" or {warm}" if warm else ""), clipping(run), precision(run))


def lower_lr(run: Run, low: float, high: float) -> str:
    """'lower the peak LR 3-5x (from 2e-4 to 4e-5-7e-5)', with this run's peak."""
    pk = sch.peak_lr(run)
    base = f"lower the peak LR {low:g}-{high:g}x"
    if pk is None or pk.value <= 0:
        return base
    return f"{base} (from {fmt(pk.value)} to {fmt(pk.value / high)}-{fmt(pk.value / low)})"


def batch(run: Run, low: int = 16, high: int = 64) -> str | None:
    """A larger effective batch, unless the run's is already in the usual range."""
    eb = effective_batch(run)
    if eb is not None and eb >= low:
        return None
    now = f", now {eb}" if eb is not None else ""
    return f"raise the effective batch to {low}-{high} (per-device x devices x accumulation{now})"


def sentence(*parts: str | None) -> str:
    """`join`, starting with a capital letter."""
    text = join(*parts)
    return text[:1].upper() + text[1:]


def join(*parts: str | None) -> str:
    """Clauses joined into one sentence part: 'a, b and c' (None and empty dropped)."""
    got = [p for p in parts if p]
    if len(got) <= 1:
        return "".join(got)
    return ", ".join(got[:-1]) + " and " + got[-1]
