"""Tactics on a local Cassandra cluster labkit started: each waits until the server says it is effective
and reads the evidence from the server itself (virtual tables, nodetool, schema tables, a query trace)."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

from ..clusters.local import budgets
from ..engines import cassandra as cql
from ..errors import ConfigError
from ..patterns.cassandra_workload import CassandraWorkload
from ..workloads.ycsb.cassandra import YcsbCassandra
from .base import Tactic, TacticError

if TYPE_CHECKING:
    from ..clusters.contract import Cluster, Membership, NodeAdmin, NodeBudgets

KEYSPACE = "ycsb"  # the tactics run the YCSB workloads (labkit.workloads.ycsb), which live here
_STATUS_LINE = re.compile(r"^([UD][NLJM])\s+(\S+)\s.*?\s(\d+(?:\.\d+)?)%")


def ring(cluster: Cluster, keyspace: str = KEYSPACE) -> dict[str, tuple[str, float]]:
    """address -> (state, effective ownership %) as `nodetool status keyspace` on the first live node says."""
    text = _admin(cluster, "reading the ring").nodetool(cluster.live_nodes()[0].name, "status", keyspace)
    out = {}
    for line in text.splitlines():
        m = _STATUS_LINE.match(line.strip())
        if m:
            out[m.group(2)] = (m.group(1), float(m.group(3)))
    return out


def _admin(cluster: Cluster, what: str) -> NodeAdmin:
    """The cluster's nodetool, or a clear refusal: the tactics' evidence is the servers' own."""
    admin = cluster.node_admin()
    if admin is None:
        raise ConfigError(f"{what} needs a cluster labkit started itself (provider local): it runs nodetool on the nodes")
    return admin


def _membership(cluster: Cluster, what: str) -> Membership:
    """The cluster's joining and leaving nodes, or a clear refusal."""
    membership = cluster.membership()
    if membership is None:
        raise ConfigError(f"{what} needs a cluster labkit can grow (provider local)")
    return membership


def _budgets(cluster: Cluster, what: str) -> NodeBudgets:
    """The cluster's node CPU budgets, or a clear refusal."""
    held = cluster.budgets()
    if held is None:
        raise ConfigError(f"{what} needs nodes labkit budgets itself (provider local)")
    return held


class CreateIndex(Tactic):
    """Create a secondary index on the queried column while queries by it run (they filter every record
    until the index is built; Cassandra uses an index for such a query as soon as one exists)."""

    name = "create-index"

    def __init__(self, kind: str = "sai", column: str = "tag", timeout_s: float = 300):
        if kind not in ("sai", "2i"):
            raise ConfigError(f"index kind must be 'sai' (storage-attached) or '2i' (legacy secondary index); got {kind!r}")
        self.kind, self.column, self.timeout_s = kind, column, timeout_s
        self.title = f"create a {'storage-attached' if kind == 'sai' else 'legacy secondary'} index on {column}"

    def _names(self, workload: Any) -> tuple[str, str]:
        return workload.table, f"{workload.table}_{self.column}_{self.kind}"

    def check(self, cluster: Cluster, workload: Any) -> None:
        if not (isinstance(workload, YcsbCassandra) and workload.indexed):
            raise ConfigError("create-index runs under the query-by-tag workload (YCSB phase index-query, approach baseline/no-index): "
                              "only its table has the tag column the index is made for")

    def prepare(self, cluster: Cluster, workload: Any) -> None:
        """The run starts with no index at all on the table (an earlier run's, of either kind, would answer the queries)."""
        session = workload.session
        rows = session.execute("SELECT index_name FROM system_schema.indexes WHERE keyspace_name = %s AND table_name = %s",
                               (workload.keyspace, workload.table))
        for r in rows:
            cql.execute_ddl(session, f"DROP INDEX IF EXISTS {workload.keyspace}.{r.index_name}")

    def apply(self, cluster: Cluster, workload: Any) -> None:
        table, index = self._names(workload)
        using = " USING 'sai'" if self.kind == "sai" else ""
        cql.execute_ddl(workload.session, f"CREATE INDEX IF NOT EXISTS {index} ON {workload.keyspace}.{table} ({self.column}){using}")
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                self.evidence(cluster, workload)
                return
            except TacticError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.25)

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """Every node reports the index built (SAI: queryable and not building; 2i: in its built-indexes table)."""
        _table, index = self._names(workload)
        if self.kind == "sai":
            rows = cql.per_node(workload.session, "SELECT is_queryable, is_building FROM system_views.sai_column_indexes "
                             "WHERE keyspace_name = %s AND index_name = %s", (workload.keyspace, index))
            built = {node: bool(r) and r[0].is_queryable and not r[0].is_building for node, r in rows.items()}
        else:
            rows = cql.per_node(workload.session, 'SELECT index_name FROM system."IndexInfo" WHERE table_name = %s', (workload.keyspace,))
            built = {node: any(r.index_name == index for r in r_) for node, r_ in rows.items()}
        missing = sorted(n for n, ok in built.items() if not ok)
        if missing or not built:
            raise TacticError(f"index {index} is not built yet on {', '.join(missing) or 'any node'}")
        return {"index": index, "kind": self.kind, "built_on": sorted(built)}


class AddNode(Tactic):
    """Bootstrap one more node: it streams its share of the data from the others, then serves."""

    name = "add-node"
    title = "add a node (bootstrap and stream)"
    changes_nodes = 1
    added: str | None = None  # the joined node's address, once apply() has added it
    settle_s = 10.0  # measured here: a joined node's first seconds (cold JIT under its budget, the ring changing) queue requests

    def check(self, cluster: Cluster, workload: Any) -> None:
        _admin(cluster, self.name)
        _membership(cluster, self.name)

    def apply(self, cluster: Cluster, workload: Any) -> None:
        self.added = _membership(cluster, self.name).add_node().address  # returns once every node sees it Normal with its CQL port ready

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """The new node is Up/Normal and owns a share of the keyspace's ranges."""
        state = ring(cluster, workload.keyspace)
        added = self.added
        if added not in state or state[added][0] != "UN" or state[added][1] <= 0:
            raise TacticError(f"the added node {added} is not Up/Normal owning ranges: nodetool status says {state}")
        return {"node": added, "state": state[added][0], "owns_pct": state[added][1], "nodes": len(state)}


class Decommission(Tactic):
    """Retire a node: it streams its data to the others before it leaves the ring."""

    name = "decommission"
    title = "decommission a node (stream its data away)"
    changes_nodes = -1
    removed: str | None = None  # the retired node's address, once apply() has decommissioned it
    settle_s = 10.0  # the remaining nodes take over the leaving node's ranges and its clients' requests

    def __init__(self, which: int | str | None = None):
        self.which = which  # None: the newest node

    def check(self, cluster: Cluster, workload: Any) -> None:
        _admin(cluster, self.name)
        if len(cluster.live_nodes()) < 2:
            raise ConfigError("decommission needs at least 2 nodes: the last one has nowhere to stream its data")
        if isinstance(workload, CassandraWorkload) and len(cluster.live_nodes()) <= workload.replication:
            raise ConfigError(f"decommission would leave fewer nodes than the keyspace's replication factor ({workload.replication})")

    def apply(self, cluster: Cluster, workload: Any) -> None:
        membership = _membership(cluster, self.name)
        node = membership.node(self.which) if self.which is not None else cluster.nodes[-1]
        self.removed = node.address
        membership.decommission(node.name)

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """The node is gone from the ring and the others own all of the keyspace between them."""
        state = ring(cluster, workload.keyspace)
        if self.removed in state:
            raise TacticError(f"{self.removed} is still in the ring: {state}")
        owned = sum(pct for _s, pct in state.values())
        return {"node": self.removed, "nodes": len(state), "owned_pct_total": round(owned, 1)}


class RaiseReplication(Tactic):
    """Raise the keyspace's replication factor, then repair so the new replicas hold the existing data
    (until the repair is done, a read at ONE may ask a replica that does not have the record yet)."""

    name = "raise-replication"
    began = 0.0  # when apply() started the repair (time.time()); repairs that began before it are not this one's

    def __init__(self, to: int = 3):
        self.to = to
        self.title = f"raise the replication factor to {to} (and repair)"

    def check(self, cluster: Cluster, workload: Any) -> None:
        _admin(cluster, self.name)
        if len(cluster.live_nodes()) < self.to:
            raise ConfigError(f"replication factor {self.to} needs at least {self.to} nodes; this cluster has {len(cluster.live_nodes())}")
        if not isinstance(workload, CassandraWorkload) or workload.replication >= self.to:
            raise ConfigError(f"raise-replication starts from a keyspace with fewer replicas than {self.to}: run the workload with replication=1")

    def prepare(self, cluster: Cluster, workload: Any) -> None:
        workload.cleanup()  # the keyspace is made afresh at the workload's replication factor, so no old replica hides the repair

    def apply(self, cluster: Cluster, workload: Any) -> None:
        self.began = time.time()
        cql.execute_ddl(workload.session, f"ALTER KEYSPACE {workload.keyspace} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': {self.to}}}")
        admin = _admin(cluster, self.name)
        for node in cluster.live_nodes():  # each node repairs its primary ranges: together, every range once
            admin.nodetool(node.name, "repair", "-full", "-pr", workload.keyspace, timeout=900)

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """Every node's schema says the new factor, and the repair history has successful repairs of the
        table since the change began."""
        rows = cql.per_node(workload.session, "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = %s", (workload.keyspace,))
        factors = {node: (r[0].replication.get("replication_factor") if r else None) for node, r in rows.items()}
        wrong = {n: f for n, f in factors.items() if f != str(self.to)}
        if wrong:
            raise TacticError(f"replication factor is not {self.to} on every node: {wrong}")
        stmt = SimpleStatement("SELECT status, started_at FROM system_distributed.repair_history WHERE keyspace_name = %s AND columnfamily_name = %s",
                               consistency_level=ConsistencyLevel.ONE)
        began = self.began
        repairs = [r for r in workload.session.execute(stmt, (workload.keyspace, workload.table))
                   if r.started_at is not None and r.started_at.timestamp() >= began - 5]
        ok = [r for r in repairs if r.status == "SUCCESS"]
        if not ok or len(ok) < len(repairs):
            raise TacticError(f"the repair of {workload.keyspace}.{workload.table} did not succeed: {[r.status for r in repairs] or 'no repair recorded'}")
        return {"replication_factor": self.to, "nodes_agreeing": len(factors), "repair_sessions_ok": len(ok)}


class SetNodeCpu(Tactic):
    """Give every node a larger (or smaller) CPU budget: a bigger machine per node, in place."""

    name = "node-cpu"
    evidence_under_budgets = True  # its evidence is the budgets: read them before verify lifts them

    def __init__(self, cores: float):
        checked = budgets.checked(cores)
        if checked is None:
            raise ConfigError("node-cpu sets a budget: give each node's cores (e.g. 0.5), not None")
        self.cores: float = checked
        self.title = f"set each node's CPU budget to {self.cores:g} core(s)"

    def check(self, cluster: Cluster, workload: Any) -> None:
        if _budgets(cluster, self.name).node_cpu is None:
            raise ConfigError("node-cpu changes a budget: start the cluster with node_cpu=... (nodes without one already use every core)")

    def apply(self, cluster: Cluster, workload: Any) -> None:
        _budgets(cluster, self.name).set_node_cpu(self.cores)

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """Every live node's control group carries the new quota."""
        servers = cluster.local_servers()
        if servers is None:
            raise TacticError("the node budgets are read from the nodes' control groups: this cluster's servers are not processes here")
        seen = {}
        for node in cluster.live_nodes():
            group = budgets.group_of(servers.directory, node.name)
            budget = budgets.budget_of(group) if group is not None else None
            seen[node.name] = None if budget is None else round(budget[0], 3)
        wrong = {n: c for n, c in seen.items() if c is None or abs(c - self.cores) > 0.01}
        if wrong:
            raise TacticError(f"not every node has a {self.cores:g}-core budget: {wrong}")
        return {"node_cpu": self.cores, "nodes": len(seen)}


class ChangeConsistency(Tactic):
    """Read and write at another consistency level from now on (a client-side change: more replicas per
    request buys stronger guarantees with latency and server work)."""

    name = "consistency"
    client_side = True

    def __init__(self, level: str):
        if not hasattr(ConsistencyLevel, level):
            raise ConfigError(f"unknown consistency level {level!r}; use ONE, TWO, QUORUM or ALL")
        self.level = level
        self.title = f"switch the client to consistency {level}"

    def check(self, cluster: Cluster, workload: Any) -> None:
        if not isinstance(workload, CassandraWorkload):
            raise ConfigError("consistency needs a workload whose statements can change level (the Cassandra workloads)")

    def apply(self, cluster: Cluster, workload: Any) -> None:
        workload.set_consistency(self.level)

    def evidence(self, cluster: Cluster, workload: Any) -> dict[str, Any]:
        """The workload's statements are at the new level, and a traced read at it touches the nodes it should."""
        levels = {s.consistency_level for s in workload.prepared().values()}
        wanted = getattr(ConsistencyLevel, self.level)
        if levels != {wanted}:
            raise TacticError(f"the workload's statements are at {sorted(ConsistencyLevel.value_to_name[lv] for lv in levels)}, not {self.level}")
        key = workload.sample_key()
        report = cql.trace(workload.session, f"SELECT * FROM {workload.keyspace}.{workload.table} WHERE y_id = %s", (key,), wanted)
        return {"consistency": self.level, "traced_read_nodes": report.node_count, "traced_read_coordinator": report.coordinator}
