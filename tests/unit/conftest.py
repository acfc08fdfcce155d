"""Unit tests claim loopback ranges in a registry of their own: many of them give the lab a home under tmp_path, and a
claim in the host's registry (/tmp/labkit-loopback) would outlive the test, listed by every later `labkit status`."""

from __future__ import annotations

import pytest

from labkit.host import loopback


@pytest.fixture(autouse=True)
def own_loopback_claims(tmp_path_factory, monkeypatch):
    claims = tmp_path_factory.mktemp("loopback-claims")
    monkeypatch.setattr(loopback, "CLAIMS", claims)
    monkeypatch.setenv("LABKIT_LOOPBACK_CLAIMS", str(claims))  # and the `labkit` processes a test starts
