"""data-family rules: they read a dataset audit (run.data, a DataSummary), never the files."""
