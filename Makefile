# labkit: two commands matter. `make run` executes the lab; `make test` runs what CI runs.
# Both create .venv when it is missing and reinstall only when pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# SIZE: smoke, quick (the default) or classroom; PROFILE is its older name and still works
SIZE ?= $(or $(PROFILE),quick)
# uv installs what pip would (the same versions here) in about 7 s instead of 38 s (warm caches). --system-certs: uv
# trusts the system's certificate store, as pip does; without it uv trusts only its own bundled roots, and behind a
# network that inspects TLS with its own certificate authority (a campus proxy; this project's build machines) it fails
# with "invalid peer certificate: UnknownIssuer" where pip succeeds (seen 2026-12-07: make test with the environment
# emptied of SSL_CERT_FILE, on a machine whose network adds its own authority to the system store)
UV_VERSION := 0.13.9

.PHONY: run test test-full unit lab venv provision system-deps browser-deps clean bench soak

$(STAMP): pyproject.toml | system-deps
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "labkit needs Python 3.11 or newer; set PYTHON=/path/to/python3.11"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(PY) -m uv pip install --quiet --system-certs --python $(PY) -e '.[lab,dev]'
	@touch $(STAMP)

venv: $(STAMP)

## provision: fetch what the embedded servers need (Cassandra's jars) into ~/.cache/labkit
provision: venv
	$(VENV)/bin/labkit provision

## run: the main job. Executes notebooks/ with papermill into build/ and writes build/index.html
run: provision system-deps
	$(PY) -m labkit.batch --size $(SIZE) --notebooks notebooks --out build

## system-deps: the system packages, one line each in labkit/system-deps.sh (its test, its Debian/Ubuntu
## package, what needs it): JDK 17, Maven, Go and python3.X-venv are required, iptables is optional;
## browser-deps: Chromium for the browser test. Run as root where apt-get is, both install what is missing;
## elsewhere they name it on one line and stop when a required one is missing. `labkit doctor` reads the same list.
SYSTEM_DEPS = PYTHON='$(PYTHON)' sh labkit/system-deps.sh

system-deps:
	@$(SYSTEM_DEPS) required optional

browser-deps:
	@$(SYSTEM_DEPS) browser

## test: what CI runs, at most 25 minutes: unit, integration on real servers, every lesson once at the smoke
## sizes, the exercises' checks, nbgrader and the browser once (docs/development.md). Then the table of its parts.
## The unit tests run first, on two workers (pytest-xdist: they start no server, and most of them wait on timers),
## while `labkit provision all` fetches and builds what the servers need at low priority (jars, stand-ins, toxiproxy:
## on a fresh machine a minute or more; nothing to do on a warm one; its log in build/provision.log); then the rest
## one test at a time (one cluster on the machine at a time). Either run failing fails make test.
PYTEST := $(PY) -m pytest -q -p no:cacheprovider --durations=25
test: venv system-deps browser-deps
	@mkdir -p build
	nice -n 19 $(VENV)/bin/labkit provision all > build/provision.log 2>&1 & fetch=$$!; \
	  $(PYTEST) -m "not full" -n 2 --junitxml=build/junit-unit.xml tests/unit; unit=$$?; \
	  wait $$fetch || { echo "labkit provision all did not finish (the tests that need it say why):"; cat build/provision.log; }; \
	  $(PYTEST) -m "not full" --junitxml=build/junit.xml --ignore=tests/unit tests; status=$$?; \
	  $(PY) benchmarks/test_suite_parts.py build/junit-unit.xml build/junit.xml; \
	  if [ $$unit -ne 0 ]; then exit $$unit; fi; exit $$status

## test-full: the rest, at most 75 minutes: the lessons at quick under nbval, soak, two Unix users, external
## providers, membership changes, HBase kill and reassignment, compose files, the slow unit tests. Run it before
## resolving an issue that touches clusters/, runner/, faults/, the notebooks' sizes or the hub files.
test-full: venv system-deps browser-deps
	@mkdir -p build
	$(PYTEST) -m full --junitxml=build/junit-full.xml tests --nbval-lax --nbval-cell-timeout=900 notebooks; status=$$?; \
	  $(PY) benchmarks/test_suite_parts.py build/junit-full.xml; exit $$status

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
