"""Every pytest run in this repository is a batch run, nbval's notebook kernels included (they inherit the
environment): no one is there to answer a prediction, so the notebooks record it as absent and run on
(labkit.predictions). Here, not in tests/conftest.py, so that `pytest --nbval-lax notebooks` alone is one too;
and again before each test, so that a test which took it away (and forgot to give it back) cannot turn the
notebooks after it into ones that wait for an answer. A test that needs it unset deletes it itself."""

import os

import pytest

os.environ.setdefault("LABKIT_BATCH", "1")


def pytest_collection_modifyitems(items):
    """The lessons under nbval (at the quick sizes) belong to the full tier: make test executes each lesson once at
    the smoke sizes instead (tests/lessons)."""
    for item in items:
        if str(item.fspath).endswith(".ipynb"):
            item.add_marker(pytest.mark.full)


def pytest_runtest_setup(item):
    os.environ.setdefault("LABKIT_BATCH", "1")
