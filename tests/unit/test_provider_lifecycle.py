"""Every provider's cluster shares one lifecycle (clusters.lifecycle.ProviderCluster: with-statement, the contract's
answers) and waits for readiness one way (Ready): no provider writes its own enter/exit or its own poll loop."""

from __future__ import annotations

import ast
import importlib
import time
from pathlib import Path

import pytest

from labkit.clusters import IMPLEMENTED
from labkit.clusters.lifecycle import NotReady, ProviderCluster, Ready
from labkit.errors import LabkitError

def test_every_provider_class_has_the_shared_lifecycle():
    for (engine, provider), target in IMPLEMENTED.items():
        module, _, name = target.partition(":")
        cls = getattr(importlib.import_module(module), name)
        assert issubclass(cls, ProviderCluster), f"{engine} with {provider}: {target}"
        assert "__enter__" not in vars(cls) and "__exit__" not in vars(cls), target


def hand_waits(source: str) -> list[int]:
    """Lines that poll by hand: a call of processes.wait_until, or a `while` loop reading time.monotonic()."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "wait_until":
            found.append(node.lineno)
        if isinstance(node, ast.While) and any(isinstance(n, ast.Attribute) and n.attr == "monotonic" for n in ast.walk(node)):
            found.append(node.lineno)
    return found


def test_no_provider_polls_by_hand():
    """The modules of the provider classes (a settle of the nodes' CPU or a free-port grace elsewhere is not a readiness wait)."""
    modules = {importlib.import_module(target.partition(":")[0]) for target in IMPLEMENTED.values()}
    found = {m.__name__: hand_waits(Path(m.__file__).read_text()) for m in modules}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_scan_finds_a_hand_written_wait():
    assert sorted(hand_waits("processes.wait_until(up, 10)\nwhile time.monotonic() < deadline:\n    pass\n")) == [1, 2]


def test_a_wait_says_what_did_not_come_and_why_and_is_a_timeout_to_code():
    calls = []
    Ready("two", lambda: calls.append(1) or len(calls) >= 2, timeout=5, interval=0.01).wait()
    assert len(calls) == 2
    started = time.monotonic()
    with pytest.raises(NotReady, match=r"waiting for the gateway; its log ends: boom") as caught:
        Ready("the gateway", lambda: False, timeout=0.05, interval=0.01, explain=lambda: "its log ends: boom").wait()
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, LabkitError) and time.monotonic() - started < 2
