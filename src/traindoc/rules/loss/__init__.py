"""loss-family rules."""
