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


@pytest.mark.timeout(120)
def test_two_dask_workers_run_the_exact_operations_and_merge_exactly():
    """A LocalCluster of 2 worker processes, each one client process of the run (a fake workload: the runner only)."""
    from fakes import CountingWorkload

    from labkit.runner import run
    from labkit.runner.remote import check_workers, connected

    with connected(parse_clients("local:2")) as client:
        assert len(check_workers(client)) == 2
        r = run(CountingWorkload(sleep_s=0.001), threads=8, operations=2000, processes=2, clients=client, verify=False)
    assert r.complete and r.stats.count == 2000 and r.stats.errors == 0
    assert r.processes == 2 and sum(part.transactions.histogram.get_total_count() for part in r.parts) == r.measurements.transactions.histogram.get_total_count() == 2000
