# The two README commands: `make demo` (the comparison on the embedded corpus, report in results/) and `make test`
# (the whole suite; what .ci/run runs). Each creates .venv and installs the package with every extra on first use.
# `make test-fast` is the tier for someone editing the core (see FAST_TESTS below).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast bench install clean

# Python's bytecode caches (__pycache__/, ignored by git) stay on here even where the environment turns
# them off (PYTHONDONTWRITEBYTECODE=1, as some containers set): the suite starts some 400 Python
# processes (CLI runs, worker pools, notebook kernels), each of which would compile the package again,
# and each pytest worker would rewrite every test module's asserts again. Measured on 2 cores: the CLI
# and hardening tests 133-143 -> 107-109 CPU-s; collecting the suite 21 -> 13 CPU-s a worker.
unexport PYTHONDONTWRITEBYTECODE

# The compiled core is rebuilt when a .pyx changes (the install is editable).
# PyTorch (the downstream extra) comes first as the CPU build: the extra's plain "torch" would take
# PyPI's CUDA build, several GB. On a machine with a GPU: make install TORCH=torch
TORCH ?= torch==2.13.0+cpu

$(STAMP): pyproject.toml setup.py $(wildcard korean_bpe/*.pyx korean_bpe/*/*.pyx korean_bpe/*.hpp korean_bpe/*/*.hpp korean_bpe/*.pxd korean_bpe/*/*.pxd)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)" || $(PY) -m pip install --quiet "torch>=2.1"
	$(PY) -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/korean-bpe compare -o results

# In parallel (pytest-xdist, the dev extra): one worker per core; --dist loadscope keeps a test file
# (a class of transformers' suite) on one worker, so its module-scoped models and Okt's JVM start once;
# --no-loadscope-reorder keeps the order of tests/conftest.py, slowest files first (xdist's default
# sends the files with the most tests first, which left make demo's fresh run alone at the end).
PYTEST_PARALLEL ?= -n auto --dist loadscope --no-loadscope-reorder

test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_PARALLEL)

# The fast tier, for someone editing the core: the encode / decode / train / save-load paths in about
# 43-60 s wall on the 2 cores (1,106 tests at load average about 4, 2026-11-28; 1,109 quiet, 2026-11-30).
# These test files and the core modules' doctests, minus the tests marked
#   slow  (installing without a compiler),  nsmc  (needs the shared NSMC corpus),
#   jvm   (start Okt's JVM; tests/conftest.py marks them).
# Kiwi and MeCab (in-process analyzers) stay in. Left to `make test`: Okt, Kiwi and MeCab's own tests,
# the merge engine's low-level tests (test_engine.py; test_trainer.py checks the engines against the
# reference and HF), test_max_token_length.py, the CLI, compare/metrics/plots/report, HF and
# transformers, Dask, the notebooks and the docs' examples.
FAST_TESTS := $(addprefix tests/test_,$(addsuffix .py,tokenizer encoding encoding_options trainer trainer_golden \
	continued_training counting serialization files units jamo markers roundtrip_properties \
	progress offsets save_golden)) \
	korean_bpe/tokenizer.py korean_bpe/encoding korean_bpe/trainer korean_bpe/io korean_bpe/counting.py korean_bpe/_threads.py \
	korean_bpe/units.py korean_bpe/jamo.py korean_bpe/markers.py

test-fast: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not slow and not nsmc and not jvm" $(FAST_TESTS)

bench: $(STAMP)
	$(PY) benchmarks/bench_pretok.py
	$(PY) benchmarks/bench_train.py
	$(PY) benchmarks/bench_encode.py

clean:
	rm -rf $(VENV) build *.egg-info
	find korean_bpe \( -name '*.so' -o -name '*.cpp' \) -delete
	find korean_bpe tests benchmarks -name __pycache__ -prune -exec rm -rf {} +
