# Every target creates the venv and installs what it needs: a fresh clone only
# needs `make demo` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.core
STAMP := $(VENV)/.dev
export OMP_WAIT_POLICY := PASSIVE

.PHONY: demo test fuzz eval eval-fresh probe lint bench fixtures docs clean

# The core (what `make demo` needs) is light; tests add the optional extras.
$(CORE): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $(CORE)

# torch first and pinned: pip takes the CPU build that lies on this machine's disk.
$(STAMP): $(CORE)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,torch,lightning,data,distributed]' torch==2.13.0
	touch $(STAMP)

demo: $(CORE)
	$(BIN)/traindoc diagnose examples/seed-a; test $$? -le 1
	$(BIN)/traindoc diagnose examples/healthy

test: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/python -m pytest

# >= 100,000 mutated inputs through every command (tests/fuzz, scripts/fuzz.py); the
# last line is the summary. `make test` runs a deterministic slice (tests/fuzz/test_slice.py).
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py -n 100000 --jobs 2

eval: $(STAMP)
	$(BIN)/python scripts/eval_corpus.py

# BASE=<commit>: the real cases added since BASE, scored by BASE's code and by today's
eval-fresh: $(STAMP)
	$(BIN)/python scripts/eval_fresh.py $(BASE)

# the dev corpus read at a sparser logging interval (1 point in 2, then in 3), then cut to
# issue-sized excerpts (12 loss points: around the finding, the head, the tail, thinned)
probe: $(STAMP)
	$(BIN)/python scripts/probe_thinned.py 2
	$(BIN)/python scripts/probe_thinned.py 3
	$(BIN)/python scripts/excerpt_robustness.py --points 12

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts

docs: $(STAMP)
	$(BIN)/python scripts/gen_rule_docs.py

bench: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]' torch==2.13.0
	$(BIN)/python bench/diagnose_bench.py
	$(BIN)/python bench/console_bench.py
	$(BIN)/python bench/tb_bench.py
	$(BIN)/python bench/jsonl_bench.py
	$(BIN)/python bench/trainer_state_bench.py
	$(BIN)/python bench/wandb_bench.py
	$(BIN)/python bench/ckpt_bench.py
	$(BIN)/python bench/data_bench.py
	$(BIN)/python bench/live_overhead.py

# Regenerates examples/ and tests/corpus/ from real tiny trainings (needs torch).
fixtures:
	$(PY) -m venv .venv-train
	.venv-train/bin/pip install -q torch==2.13.0
	.venv-train/bin/pip install -q -e '.[train]' torch==2.13.0
	for s in tb console tool wandb mlflow ckpt rl; do \
		OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_$${s}_fixtures.py || exit 1; \
	done
	# last: it also writes tests/corpus/README.md, the index of every case
	.venv-train/bin/python scripts/make_fixtures.py --jobs 2

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
