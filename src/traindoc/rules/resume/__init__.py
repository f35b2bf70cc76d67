"""resume-family rules."""
