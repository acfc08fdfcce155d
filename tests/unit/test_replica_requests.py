"""Replica requests per transaction come from the nodes' counters in a run's row, counting the warm-up's and the failed
transactions too, since the counters are read before the warm-up (labkit.results.replica_requests)."""

import pandas as pd

from labkit.results.replica_requests import add_columns, per_transaction


def scatter_row(nodes: int, logins: int, warmup: int, scans_per_node_per_login: int = 1) -> dict:
    row = {"count": logins, "errors": 0, "warmup": warmup}
    for n in range(nodes):
        row[f"server_counter_replica_scans@127.0.0.{n + 1}"] = (logins + warmup) * scans_per_node_per_login
        row[f"server_counter_replica_reads@127.0.0.{n + 1}"] = 0
    return row


def test_an_indexed_login_that_asks_every_node_counts_every_node_once_per_login():
    got = per_transaction(scatter_row(8, logins=2000, warmup=2000))
    assert got["replica_scans_per_tx"] == 8
    assert got["replica_reads_per_tx"] == 0
    assert (got["nodes_serving"], got["nodes_counted"]) == (8, 8)
    assert (got["replica_requests_per_tx_node_min"], got["replica_requests_per_tx_node_max"]) == (1, 1)


def test_two_key_reads_per_login_on_a_few_nodes_say_two_requests_and_which_nodes_served():
    row = {"count": 90, "errors": 10, "warmup": 100,
           "server_counter_replica_reads@127.0.0.1": 250, "server_counter_replica_reads@127.0.0.2": 150,
           "server_counter_replica_reads@127.0.0.3": 0, "server_counter_replica_scans@127.0.0.1": 0}
    got = per_transaction(row)
    assert got["replica_reads_per_tx"] == 2.0  # 400 reads over 90 + 10 failed + 100 warm-up logins
    assert got["replica_requests_per_tx"] == 2.0
    assert (got["nodes_serving"], got["nodes_counted"]) == (2, 3)
    assert (got["replica_requests_per_tx_node_min"], got["replica_requests_per_tx_node_max"]) == (0, 1.25)


def test_leaving_out_the_warm_up_would_double_the_figure():
    without_warmup = dict(scatter_row(4, logins=1000, warmup=1000), warmup=0)
    assert per_transaction(without_warmup)["replica_scans_per_tx"] == 8  # the check above would catch a helper that did this


def test_rows_without_the_counters_get_no_columns_and_a_frame_keeps_its_rows():
    assert per_transaction({"count": 10, "errors": 0, "warmup": 0, "server_counter_requests_own": 5}) == {}
    df = pd.DataFrame([scatter_row(2, 100, 0), {"count": 5, "errors": 0, "warmup": 0}])
    out = add_columns(df)
    assert list(out["replica_scans_per_tx"].fillna(-1)) == [2.0, -1]
    assert len(out) == 2


def test_the_nodes_counts_are_summed_per_kind_for_the_approach_tables_only(monkeypatch):
    """labkit.engines.cassandra.local_requests keeps this keyspace's named tables and adds reads and range reads apart;
    a server without the virtual tables gives no count rather than failing the run."""
    from types import SimpleNamespace as Row

    from cassandra import InvalidRequest

    from labkit.engines import cassandra as cql

    answers = {
        "local_read_latency": {"127.0.0.1": [Row(keyspace_name="index_table", table_name="users_pattern", count=5),
                                             Row(keyspace_name="index_table", table_name="users_by_email", count=7),
                                             Row(keyspace_name="index_table", table_name="users_legacy", count=100),
                                             Row(keyspace_name="other", table_name="users_pattern", count=1000)],
                               "127.0.0.2": []},
        "local_scan_latency": {"127.0.0.1": [Row(keyspace_name="index_table", table_name="users_pattern", count=3)],
                               "127.0.0.2": [Row(keyspace_name="index_table", table_name="users_by_email", count=2)]},
    }
    monkeypatch.setattr(cql, "per_node", lambda _session, statement: answers[statement.rsplit(".", 1)[1]])
    got = cql.local_requests(None, "index_table", ["users_pattern", "users_by_email"])
    assert got == {"127.0.0.1": {"reads": 12, "scans": 3}, "127.0.0.2": {"reads": 0, "scans": 2}}

    def refuses(_session, _statement):
        raise InvalidRequest("unconfigured table local_read_latency")

    monkeypatch.setattr(cql, "per_node", refuses)
    assert cql.local_requests(None, "index_table", ["users_pattern"]) == {}
