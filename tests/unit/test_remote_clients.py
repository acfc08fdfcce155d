"""--clients parsing and the refusals that need no Dask cluster (WIP, issue 34)."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.runner.remote import check_reachable, parse_clients, version_mismatches


def test_local_and_dask_forms_parse():
    assert parse_clients("local:2").local_workers == 2
    assert parse_clients("dask://10.0.0.5:8786").address == "tcp://10.0.0.5:8786"


@pytest.mark.parametrize("text", ["local:0", "local:x", "dask://nohost", "dask://:8786", "tcp://h:1", ""])
def test_bad_forms_say_what_is_expected(text):
    with pytest.raises(ConfigError, match="local:|dask://"):
        parse_clients(text)


def test_version_mismatches_list_both_sides():
    lines = version_mismatches({"labkit": "0.1.0", "python": "3.11.7"}, {"tcp://h2:1": {"labkit": "0.0.9", "python": "3.11.7"},
                                                                         "tcp://h3:1": {"labkit": "0.1.0", "python": "3.11.7"}})
    assert lines == ["tcp://h2:1: labkit 0.1.0 here, 0.0.9 there"]


def test_a_loopback_cluster_is_refused_with_workers_elsewhere(monkeypatch):
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "laptop")
    with pytest.raises(ConfigError, match="cannot reach"):
        check_reachable(["127.0.0.1"], {"tcp://10.0.0.7:4032": "host2"})
    check_reachable(["127.0.0.1"], {"tcp://127.0.0.1:4032": "laptop"})
    check_reachable(["10.0.0.9"], {"tcp://10.0.0.7:4032": "host2"})
