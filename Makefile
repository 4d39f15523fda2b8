# The two README commands: `make demo` (the comparison on the embedded corpus, report in results/) and `make test`.
# Each creates .venv and installs the package with every extra on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench install clean

# The compiled core is rebuilt when a .pyx changes (the install is editable).
$(STAMP): pyproject.toml setup.py $(wildcard korean_bpe/*.pyx korean_bpe/*/*.pyx)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/korean-bpe compare -o results

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/bench_pretok.py
	$(PY) benchmarks/bench_train.py
	$(PY) benchmarks/bench_encode.py

clean:
	rm -rf $(VENV) build *.egg-info
	find korean_bpe \( -name '*.so' -o -name '*.cpp' \) -delete
