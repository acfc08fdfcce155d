# labkit: two commands matter. `make run` executes the lab; `make test` runs what CI runs.
# Both create .venv when it is missing and reinstall only when pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROFILE ?= quick
# uv installs what pip would (the same versions here) in about 7 s instead of 38 s (warm caches)
UV_VERSION := 0.13.9

.PHONY: run test unit lab venv provision system-deps browser-deps clean bench soak

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "labkit needs Python 3.11 or newer; set PYTHON=/path/to/python3.11"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(PY) -m uv pip install --quiet --python $(PY) -e '.[lab,dev]'
	@touch $(STAMP)

venv: $(STAMP)

## provision: fetch what the embedded servers need (Cassandra's jars) into ~/.cache/labkit
provision: venv
	$(VENV)/bin/labkit provision

## run: the main job. Executes notebooks/ with papermill into build/ and writes build/index.html
run: provision system-deps
	$(PY) -m labkit.batch --profile $(PROFILE) --notebooks notebooks --out build

## system-deps: iptables for the partition lessons; browser-deps: Chromium for the browser test.
## Both come from apt-get when running as root; elsewhere the lessons and the test say what is missing.
APT_INSTALL = if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; \
	else echo "note: $(1) is missing and cannot be installed here ($(2) will say so)"; fi

system-deps:
	@command -v iptables >/dev/null 2>&1 || { echo "installing iptables (network partitions between local datacenters)"; \
	  $(call APT_INSTALL,iptables,the partition lessons); }

browser-deps:
	@command -v chromium >/dev/null 2>&1 || { echo "installing chromium (the JupyterLab browser test)"; \
	  $(call APT_INSTALL,chromium,the browser test); }

## test: everything CI runs (unit, integration on real servers, notebooks under nbval)
test: venv system-deps browser-deps
	$(PY) -m pytest -q -p no:cacheprovider --durations=25 --junitxml=build/junit.xml tests --nbval-lax --nbval-cell-timeout=900 notebooks

unit: venv
	$(PY) -m pytest -q tests/unit

## soak: the up/run/down soak with 20 cycles instead of make test's 10 (about 8 minutes)
soak: venv system-deps
	LABKIT_SOAK_CYCLES=20 $(PY) -m pytest -q -p no:cacheprovider tests/soak

## lab: JupyterLab on the notebooks
lab: venv
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

bench: venv
	$(PY) benchmarks/runner_overhead.py

clean:
	rm -rf build
