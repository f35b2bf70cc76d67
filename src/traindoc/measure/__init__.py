"""Measurements of a run that rules, preflight and live mode share: one way to each.

`floor` (the uniform floors ln(V) and ln(C)), `curve` (a curve's levels, trend and
noise, at any length from two points to millions), `jumps` (blow-ups and level jumps
that hold in a short paste). Rules read these instead of re-deriving them with
thresholds of their own, so two rules never disagree about the same run.
"""
