# mariash — developer entry points.  Everything runs inside .venv.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv test lint demo bench docs clean

venv: $(STAMP)

# Reinstall only when pyproject.toml changes (or the venv is missing).
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install -e '.[dev,examples,ray,rllib,play]'
	$(VPY) -m mariash_env.compile  # search and engine kernels into numba's cache, two processes (#35)
	touch $(STAMP)

lint: venv
	$(VENV)/bin/ruff check .

# Two workers (a 2-core CI machine); each test module runs whole on one (tests/conftest.py).
TEST_WORKERS ?= 2
test: venv
	$(VENV)/bin/ruff check .
	$(VPY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=15

# Trains an agent from scratch for ~5 minutes, evaluates, exports and plays a deal.
demo: venv
	$(VPY) -m training.demo

bench: venv
	$(VPY) scripts/bench_env.py

# The documentation site into site/; --strict turns every warning (a broken link or anchor,
# a page missing from the nav, a stale reference) into a failure.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): pyproject.toml | $(STAMP)
	$(VPY) -m pip install -e '.[docs]'
	touch $(DOCS_STAMP)

docs: venv $(DOCS_STAMP)
	$(VPY) scripts/layout_tables.py --check
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean:
	rm -rf build dist site *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +
