"""HBase through its Thrift 1 gateway with happybase: the connection every HBase workload and lesson uses."""

from __future__ import annotations

from ..errors import NotAvailableError


GATEWAY_PROTOCOL = {"transport": "buffered", "protocol": "binary"}
"""What HBase's ThriftServer speaks by default, and so every happybase connection here."""


def _host_port(gateway: str) -> tuple[str, int]:
    host, _, port = gateway.rpartition(":")
    return host, int(port)


def pool(gateway: str, size: int, timeout_ms: int = 30_000):
    """A happybase pool of `size` connections to the gateway at "host:port": a connection is not thread-safe, so each
    worker of a client process borrows its own (`with pool.connection() as c`). Its connections close when the pool is
    collected (happybase's Connection closes itself in __del__)."""
    import happybase

    host, port = _host_port(gateway)
    return happybase.ConnectionPool(size, host=host, port=port, timeout=timeout_ms, **GATEWAY_PROTOCOL)


def connect(gateway: str, timeout_ms: int = 30_000):
    """A happybase connection to a Thrift gateway at "host:port" (binary protocol, buffered transport: what HBase's
    ThriftServer speaks by default), or a sentence that says where the gateway should be."""
    import happybase
    from thriftpy2.transport import TTransportException

    host, port = _host_port(gateway)
    try:
        return happybase.Connection(host, port, timeout=timeout_ms, autoconnect=True, **GATEWAY_PROTOCOL)
    except TTransportException as exc:
        raise NotAvailableError(f"no HBase Thrift gateway answers at {gateway} ({exc}): start one with `labkit up hbase`, "
                                "or check the address of your cluster's gateway") from exc


KEYS_ONLY = "FirstKeyOnlyFilter() AND KeyOnlyFilter()"
"""A scan filter that sends back each row's key alone: counting rows without their values."""


def row_count(table) -> int:
    """The rows of a happybase table, counted by a keys-only scan."""
    return sum(1 for _ in table.scan(filter=KEYS_ONLY, batch_size=5000))


def drop_tables(connection, *names: str) -> None:
    """Disable and delete each named table that exists (a run's tables are made afresh)."""
    present = set(connection.tables())
    for name in names:
        if name.encode() in present:
            connection.delete_table(name, disable=True)
