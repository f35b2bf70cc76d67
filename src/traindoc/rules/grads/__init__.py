"""grads-family rules."""
