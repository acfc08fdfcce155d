"""UUID Key on Couchbase, the source's own setup: two clusters ("usa", "ireland") replicating the lab
bucket both ways with XDCR.

The workload is the Cassandra one's sibling (same regions, keys record and verify(), from
`core.TwoRegionRegistration`); only the key generator, the writes and the cut differ:
- naive: a counter document advanced with `binary().increment()`, which is atomic and returns the new
  value in one request. Availability test: one counter, in the USA cluster, for both regions. Partition
  test: each region increments its own cluster's copy.
- pattern: UUID document keys made by the application.
- the partition: every XDCR replication paused in both clusters (the clusters keep serving their own
  region); the heal resumes them and waits until both clusters hold the same documents.

Only where two Couchbase clusters with XDCR exist (the compose provider's `clusters=2` topology):
`find_regions()` says plainly why not, elsewhere.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError, LabkitError, NotAvailableError
from ...runner import Transaction
from .core import ONE_TRIP, REGIONS, TwoRegionRegistration

if TYPE_CHECKING:
    from ...clusters.compose.provider import ComposeCouchbaseCluster


@dataclass(frozen=True)
class CouchbaseRegions:
    """Where each region's cluster answers: SDK connection strings and management (REST) URLs."""

    connection_strings: dict[str, str]
    management_urls: dict[str, str]
    username: str
    password: str
    bucket: str
    server_version: str = "?"
    cluster: ComposeCouchbaseCluster | None = None  # the compose deployment labkit started for them, if it did

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()

    def rest(self, region: str, method: str, path: str, form: dict[str, str] | None = None) -> Any:
        """One call to a cluster's management API, authenticated; JSON back (or None)."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(self.management_urls[region] + path, data=data, method=method)
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                body = response.read()
        except OSError as exc:
            raise LabkitError(f"Couchbase management API of the {region} cluster ({self.management_urls[region]}{path}) failed: {exc}") from exc
        return json.loads(body) if body.strip() else None

    def replication_ids(self, region: str) -> list[str]:
        """The XDCR replications that leave this region's cluster (from its task list)."""
        return [t["id"] for t in self.rest(region, "GET", "/pools/default/tasks") if t.get("type") == "xdcr"]

    def pause_replication(self, paused: bool) -> None:
        """Pause (the partition) or resume (the heal) every XDCR replication in both directions."""
        for region in REGIONS:
            ids = self.replication_ids(region)
            if not ids:
                raise LabkitError(f"the {region} cluster has no XDCR replication to {'pause' if paused else 'resume'}: start the two-cluster topology (clusters=2)")
            for rid in ids:
                self.rest(region, "POST", "/settings/replications/" + urllib.parse.quote(rid, safe=""), {"pauseRequested": "true" if paused else "false"})


def find_regions(provider: str = "auto") -> CouchbaseRegions:
    """Two running Couchbase clusters with XDCR, from the compose provider; NotAvailableError says why not."""
    from ...clusters.compose.images import CREDENTIALS
    from ...clusters.compose.provider import ComposeCouchbaseCluster, compose_available

    if provider not in ("auto", "compose"):
        raise NotAvailableError(f"the Couchbase UUID Key tests need two clusters with XDCR, which only the compose provider starts (asked for {provider!r})")
    ok, detail = compose_available()
    if not ok:
        raise NotAvailableError(f"no Couchbase here: the two-cluster XDCR topology needs Docker ({detail})")
    cluster = ComposeCouchbaseCluster(nodes=1, clusters=2).start()
    return CouchbaseRegions(
        connection_strings=dict(zip(REGIONS, cluster.connection_strings())),
        management_urls=dict(zip(REGIONS, cluster.management_urls())),
        username=CREDENTIALS["LABKIT_COUCHBASE_USER"],
        password=CREDENTIALS["LABKIT_COUCHBASE_PASSWORD"],
        bucket=CREDENTIALS["LABKIT_COUCHBASE_BUCKET"],
        server_version=cluster.server_version,
        cluster=cluster,
    )


def availability(provider: str = "auto") -> tuple[CouchbaseRegions | None, str]:
    """(regions, sentence): the regions when two XDCR clusters run, else None and why not, in plain words."""
    if provider == "skip":
        return None, "Couchbase variant not run: skipped by the notebook's parameters (couchbase_provider = 'skip')."
    try:
        regions = find_regions(provider)
    except NotAvailableError as exc:
        return None, f"Couchbase variant not run: {exc}. The Cassandra results above stand on their own; see docs/deployment.md, 'Running on Docker'."
    except LabkitError as exc:
        return None, f"Couchbase variant not run: starting the two Couchbase clusters failed: {exc}"
    return regions, f"Couchbase {regions.server_version}: two clusters (usa, ireland) replicating both ways with XDCR"


class CouchbaseUuidKey(TwoRegionRegistration):
    """Couchbase: one test of one approach on two XDCR-linked clusters; `users` registrations per region."""

    def __init__(self, regions: CouchbaseRegions, approach: str, test: str, users: int, settle_timeout: float = 300):
        if approach == ONE_TRIP:
            raise ConfigError(f"{ONE_TRIP} is Cassandra's counter without its read; Couchbase's increment is already one request per key: use 'naive'")
        super().__init__(approach, test, users, converge=self.settle)  # XDCR is asynchronous in both tests
        self.regions = regions
        self.settle_timeout = settle_timeout
        self.prefix = f"uuid-key:{uuid.uuid4().hex[:8]}"  # every run writes its own documents: no flush needed
        self._clusters: dict[str, Any] = {}
        self._collections: dict[str, Any] = {}

    def collection(self, region: str) -> Any:
        if region not in self._collections:
            from ...engines import couchbase

            cluster = couchbase.connect(self.regions.connection_strings[region], self.regions.username, self.regions.password)
            self._clusters[region] = cluster
            self._collections[region] = couchbase.collection(cluster, self.regions.bucket)
        return self._collections[region]

    def document_key(self, key: Any) -> str:
        return f"{self.prefix}:user:{key}"

    @property
    def counter_key(self) -> str:
        return f"{self.prefix}:counter"

    def open_process(self) -> None:
        for region in REGIONS:
            self.collection(region)

    def disconnect(self) -> None:
        for cluster in self._clusters.values():
            cluster.close()
        self._clusters.clear()
        self._collections.clear()

    def setup(self) -> None:
        self.begin_test()

    def cut_link(self) -> None:
        self.regions.pause_replication(True)

    def heal_link(self) -> None:
        self.regions.pause_replication(False)

    def next_key(self, tx: Transaction, region: str) -> int:
        """The counter's next value: one atomic increment in the counter's home cluster."""
        from couchbase.options import DeltaValue, IncrementOptions, SignedInt64

        home = "usa" if self.test == "availability" else region
        counter = self.collection(home).binary()
        result = tx.call(f"increment_counter_{region}", counter.increment, self.counter_key, IncrementOptions(initial=SignedInt64(1), delta=DeltaValue(1)))
        return result.content

    def insert(self, tx: Transaction, region: str, key: Any, name: str) -> None:
        tx.call(f"insert_{region}", self.collection(region).upsert, self.document_key(key), {"name": name, "region": region})

    def read_all(self, region: str) -> dict[Any, tuple[str, str]]:
        """Every registered key's document as this region's cluster holds it now."""
        from couchbase.exceptions import DocumentNotFoundException

        found = {}
        collection = self.collection(region)
        for key in {k for r in REGIONS for k in self.registered.keys[r]}:
            try:
                doc = collection.get(self.document_key(key)).content_as[dict]
            except DocumentNotFoundException:
                continue
            found[key] = (doc["name"], doc["region"])
        return found

    def settle(self) -> None:
        """Wait until both clusters hold the same registered documents (XDCR is asynchronous)."""
        deadline = time.monotonic() + self.settle_timeout
        while self.read_all("usa") != self.read_all("ireland"):
            if time.monotonic() > deadline:
                raise LabkitError(f"the two Couchbase clusters still disagree {self.settle_timeout:.0f} s after the heal: is XDCR running?")
            time.sleep(1)

    def stored(self) -> dict[Any, tuple[str, str]]:
        return self.read_all("usa")  # verify() settled the clusters first


def workload(approach: str, phase: str, regions: CouchbaseRegions, operations: int, **_settings: Any) -> CouchbaseUuidKey:
    """The Couchbase run: `operations` registrations, half per region (as the Cassandra binding's). Its
    "cluster" is the two regions' clusters, which the notebook finds itself (`find_regions`): no sweep
    starts them, so the description does not list couchbase among the engines `labkit run` can sweep."""
    return CouchbaseUuidKey(regions, approach, phase, operations // 2)


def both_tests(regions: CouchbaseRegions, users: int, threads: int, provider: str = "compose") -> list[dict[str, Any]]:
    """Availability and partition test, counter vs UUID, one run each: labelled rows with each region's
    mean latency and the totals after the regions converged."""
    from ...runner import run

    rows = []
    for phase in ("availability", "partition"):
        for approach in ("naive", "pattern"):
            registration = workload(approach, phase, regions, 2 * users)
            try:
                result = run(registration, threads=threads, operations=2 * users)
            finally:
                registration.close_process()
            checks = result.verification.checks if result.verification else {}
            rows.append({
                "engine": "couchbase", "server_version": regions.server_version, "provider": provider, "nodes": "1 per cluster, 2 clusters (XDCR)",
                "phase": phase, "approach": approach, "threads": threads,
                **{f"{region} mean (ms)": round(mean / 1000, 2) for region in REGIONS
                   if f"register_{region}" in result.ops and (mean := result.ops[f"register_{region}"].mean_us) is not None},
                "registered": checks.get("registered_usa", 0) + checks.get("registered_ireland", 0), "keys handed out twice": checks.get("collisions"),
                "stored after convergence": checks.get("stored"), "verify_ok": None if result.verification is None else result.verification.ok,
                "verify_problems": "" if result.verification is None else "; ".join(result.verification.problems),
            })
    return rows
