"""numerics-family rules."""
