"""memory-family rules: what a setup needs against what the device has."""
