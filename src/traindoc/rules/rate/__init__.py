"""rate-family rules."""
