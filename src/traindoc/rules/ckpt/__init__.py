"""Checkpoint rules: read `Run.checkpoints` (CheckpointSummary), never the files."""
