"""How many replica requests, on how many nodes, one transaction caused: from the servers' own counters in a run's
row (`server_counter_replica_<kind>@<address>`, written by a binding's server_counters), so a throughput figure can
be set beside the work each transaction spread over the cluster, counted by the nodes and not inferred from one trace."""

from __future__ import annotations

import re
from typing import Any, Mapping

import pandas as pd

_COUNTER = re.compile(r"^server_counter_replica_(?P<kind>[a-z]+)@(?P<address>.+)$")


def transactions_counted(row: Mapping[str, Any]) -> int:
    """Every transaction the counters saw: the measured ones, the failed ones and the warm-up's (the counters are read
    before the warm-up and after the last transaction)."""
    return int(row.get("count", 0) or 0) + int(row.get("errors", 0) or 0) + int(row.get("warmup", 0) or 0)


def per_transaction(row: Mapping[str, Any]) -> dict[str, Any]:
    """`replica_<kind>_per_tx` for each kind counted, `replica_requests_per_tx` (all kinds), the least and most any one
    node served per transaction (`replica_requests_per_tx_node_min`/`_max`) and `nodes_serving` (nodes that served at
    least one of the run's requests, of `nodes_counted`); empty when the row has no such counters."""
    by_node: dict[str, dict[str, float]] = {}
    for key, value in row.items():
        found = _COUNTER.match(str(key))
        if found is None or value is None or (isinstance(value, float) and pd.isna(value)):
            continue
        by_node.setdefault(found["address"], {})[found["kind"]] = float(value)
    transactions = transactions_counted(row)
    if not by_node or transactions <= 0:
        return {}
    kinds = sorted({kind for counts in by_node.values() for kind in counts})
    out: dict[str, Any] = {f"replica_{kind}_per_tx": round(sum(c.get(kind, 0) for c in by_node.values()) / transactions, 3) for kind in kinds}
    out["replica_requests_per_tx"] = round(sum(sum(c.values()) for c in by_node.values()) / transactions, 3)
    per_node = [sum(c.values()) / transactions for c in by_node.values()]
    out["replica_requests_per_tx_node_min"] = round(min(per_node), 3)  # one node's share: is any node asked twice per transaction?
    out["replica_requests_per_tx_node_max"] = round(max(per_node), 3)
    out["nodes_serving"] = sum(1 for c in by_node.values() if sum(c.values()) > 0)
    out["nodes_counted"] = len(by_node)
    return out


def add_columns(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with per_transaction's columns added to every row that has the counters (the per-node ones left as they are)."""
    extra = pd.DataFrame([per_transaction(r) for r in df.to_dict("records")], index=df.index)
    return df.join(extra) if not extra.empty else df
