"""Measurements of a run that rules, preflight, live mode and report share: one way to each.

`stats` (robust statistics and `fmt`, the number format of titles and tables), `noise`
(the noise around a point, which spikes and rises are judged by),
`floor` (the uniform floors ln(V) and ln(C)), `losses` (which series are losses),
`schedule` (peak LR, warmup, planned length), `spikes` (the one loss-spike
detector), `grads` (grad-norm spikes and whether the loss followed them). Rules
read these instead of re-deriving them with thresholds of their own, so two rules
never disagree about the same run. Over model/ only: no reader, rule or renderer.
"""
