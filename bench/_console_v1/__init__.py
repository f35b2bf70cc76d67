"""The console reader of traindoc 0.1 (commit b9ac7b5), kept as the benchmark's reference.

bench/console_bench.py measures today's text reader against it, side by side, on
the formats it read (HF printed dicts with tqdm noise). Not imported by traindoc.
"""
