"""What the UUID Key exercise hands a student: two datacenters, the counter's statements and the check, with
the two key generators left to write (the library's UuidKey is the solution, so the base is a stub)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...runner import Transaction
from .cassandra import UuidKey as _Binding
from ...engines import cassandra as cql
from ...namespace import in_namespace
from .cassandra import COUNTER, WAN_PROXY_PORT, UuidKey, converge
from .core import REGIONS

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster
    from ..exercise import CheckReport

__all__ = ["UuidKeyExercise", "check_exercise"]


class UuidKeyExercise(_Binding):
    """Sessions per region, the counter table (`self.counter_keyspace` + ".key_counter"), `self.prepare_counter(region,
    cql)` for statements of your own on the session that reaches a region's counter, registration and verify():
    next_key() and new_key(), and the counter's statements, are yours to write in a subclass."""

    def next_key(self, tx: Transaction, region: str) -> int:
        raise NotImplementedError("next_key() is not written yet")

    def new_key(self, tx: Transaction, region: str) -> Any:
        raise NotImplementedError("new_key() is not written yet")

    # ---- what the exercise gives -----------------------------------------------------------------

    @property
    def counter_keyspace(self) -> str:
        """Where the counter table is: replicated in dc1 only for the availability test (Ireland reaches it over the WAN)."""
        return self.home_keyspace if self.test == "availability" else self.keyspace

    def prepare_counter(self, region: str, text: str) -> Any:
        """A statement of yours, prepared once per text on the session that reaches `region`'s counter; run it with
        `self.counter_session(region).execute(statement, values)`."""
        which = self.counter_link(region)
        key = (which, f"yours: {text}")
        if key not in self._prepared:
            self._prepared[key] = self.session(which).prepare(text)
        return self._prepared[key]

    def counter_statements(self, region: str):
        raise NotImplementedError("the counter's statements are yours to write: prepare them with self.prepare_counter(region, cql)")

    def open_process(self) -> None:
        """Connect every session before the run is timed (your statements are prepared by your code)."""
        for region in REGIONS:
            self.statement(region, "insert")
            self.counter_session(region)


def check_exercise(workload_class: type[UuidKey], cluster: CassandraCluster, users: int = 30, threads: int = 4) -> "CheckReport":
    """The exercise's check: the student's own next_key() and new_key() (not the library's). The counter must
    hand out every key exactly once across both regions, and from the database: the server's counter must
    have moved by exactly the keys handed out, and each key costs a counter read and a compare-and-set (a
    counter in one process repeats another process's numbers). UUID keys are made without asking the
    database and keep every record through a partition."""
    import uuid

    from cassandra import ConsistencyLevel
    from cassandra.query import SimpleStatement

    from ...faults import Toxiproxy
    from ..exercise import CheckReport, Graded, a_transaction, check_all, run_step
    from ..exercise_paths import RecordingSession, listing, own_methods

    def own(report: CheckReport) -> bool:
        return own_methods(report, workload_class, ("next_key", "new_key"))

    def counter(report: CheckReport) -> bool:
        with Toxiproxy() as toxiproxy:
            wan = (toxiproxy.host, WAN_PROXY_PORT)
            workload = in_namespace(workload_class(cluster.datacenters(), "naive", "availability", users, wan_proxy=wan), cluster)
            toxiproxy.proxy("wan-dc1", listen=f"{wan[0]}:{wan[1]}", upstream=f"{cluster.datacenters()['dc1'][0]}:9042")
            toxiproxy.set_link_latency("wan-dc1", 5)
            if not run_step(report, f"{2 * users} counter keys from {threads} threads in two regions", workload, 2 * users, threads):
                return False
            keys = sorted(k for region in REGIONS for k in workload.registered.keys[region])
            if keys != list(range(1, 2 * users + 1)):
                missing = sorted(set(range(1, 2 * users + 1)) - set(keys))
                return report.add("every counter value used once, none skipped", False, f"keys {keys[:5]}..., missing {missing[:5]}")
            report.add("every counter value used once, none skipped", True, f"keys 1..{2 * users}")
            session = cql.connect(cluster.datacenters()["dc1"], dc="dc1")
            try:
                row = session.execute(SimpleStatement(f"SELECT value FROM {workload.home_keyspace}.key_counter WHERE name = '{COUNTER}'",
                                                      consistency_level=ConsistencyLevel.SERIAL)).one()
            finally:
                session.cluster.shutdown()
            held = row.value if row is not None else None
            if held != 2 * users:
                return report.add("the keys came from the database's counter", False,
                                  f"the counter row in {workload.home_keyspace}.key_counter says {held} after {2 * users} keys: your keys came from somewhere else. "
                                  "A counter kept in one process hands out the numbers another process (or region) hands out too; "
                                  "read the database's counter and compare-and-set it")
            report.add("the keys came from the database's counter", True, f"it moved by {held}")
            return counter_path(report, workload)  # while Ireland's link to the counter is still there

    def counter_path(report: CheckReport, workload: UuidKey) -> bool:
        step = "each key is a counter read and a compare-and-set"
        try:
            recorders = {}
            for region in REGIONS:
                which = workload.counter_link(region)
                workload.session(which)  # connect on the real session
                recorders[region] = workload._sessions[which] = RecordingSession(workload._sessions[which])
            for region in REGIONS:
                workload.next_key(a_transaction(), region)
                done = recorders[region].take()
                reads = [s for s in done if s.verb == "SELECT" and s.table == "key_counter"]
                sets = [s for s in done if s.verb == "UPDATE" and s.table == "key_counter" and " IF " in f" {s.text.upper()} "]
                if not reads or not sets:
                    return report.add(step, False, f"next_key({region!r}) ran {listing(done)}; it must read the counter row and "
                                                   "set it only if it still holds the value read (a compare-and-set), in the database")
        finally:
            workload.disconnect()
        return report.add(step, True, "both regions")

    def uuid_path(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.datacenters(), "pattern", "partition", users), cluster)
        step = "a UUID key is made without asking the database"
        try:
            recorders = {region: RecordingSession(workload.session(region)) for region in REGIONS}
            workload._sessions.update(recorders)
            made = [workload.new_key(a_transaction(), region) for region in REGIONS for _ in range(5)]
            asked = [s for r in recorders.values() for s in r.take()]
            if asked:
                return report.add(step, False, f"new_key() ran {listing(asked)}: the key must be made in the application, no request")
            if not all(isinstance(k, uuid.UUID) for k in made) or len(set(made)) != len(made):
                return report.add(step, False, f"new_key() returned {made[:3]}...: ten distinct uuid.UUID values expected")
        finally:
            workload.disconnect()
        return report.add(step, True, "10 distinct UUIDs, no request")

    def uuids(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.datacenters(), "pattern", "partition", users,
                                               repair=lambda: converge(cluster, workload.keyspace)), cluster)  # the namespaced keyspace
        links = cluster.internode_links()  # iptables, or the cluster's toxiproxy links (no root)
        if links is not None:
            workload.links = links
        return run_step(report, f"{users} UUID registrations per region during a partition, then heal and repair", workload, 2 * users, threads)

    return check_all(f"UUID Key exercise ({workload_class.__name__})", [Graded(own, 0), Graded(counter, 3, [own]), Graded(uuid_path, 1, [own]), Graded(uuids, 2, [own])])
