# Every target creates the venv and installs what it needs: a fresh clone only
# needs `make demo` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export OMP_WAIT_POLICY := PASSIVE

.PHONY: demo test eval lint bench fixtures docs clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/traindoc diagnose examples/seed-a; test $$? -le 1
	$(BIN)/traindoc diagnose examples/healthy

test: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/python -m pytest

eval: $(STAMP)
	$(BIN)/python scripts/eval_corpus.py tests/corpus

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts

docs: $(STAMP)
	$(BIN)/python scripts/gen_rule_docs.py

bench: $(STAMP)
	$(BIN)/python bench/diagnose_bench.py

# Regenerates examples/ and tests/corpus/ from real tiny trainings (needs torch).
fixtures:
	$(PY) -m venv .venv-train
	.venv-train/bin/pip install -q torch==2.13.0
	.venv-train/bin/pip install -q torch==2.13.0 'transformers>=5,<6' accelerate peft safetensors lightning
	.venv-train/bin/python scripts/make_fixtures.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
