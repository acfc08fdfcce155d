"""HBase through its Thrift 1 gateway with happybase: the connection every HBase workload and lesson uses."""

from __future__ import annotations

from ..errors import NotAvailableError


def connect(gateway: str, timeout_ms: int = 30_000):
    """A happybase connection to a Thrift gateway at "host:port" (binary protocol, buffered transport: what HBase's
    ThriftServer speaks by default), or a sentence that says where the gateway should be."""
    import happybase
    from thriftpy2.transport import TTransportException

    host, _, port = gateway.rpartition(":")
    try:
        return happybase.Connection(host, int(port), timeout=timeout_ms, transport="buffered", protocol="binary", autoconnect=True)
    except TTransportException as exc:
        raise NotAvailableError(f"no HBase Thrift gateway answers at {gateway} ({exc}): start one with `labkit up hbase`, "
                                "or check the address of your cluster's gateway") from exc
