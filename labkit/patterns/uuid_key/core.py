"""What UUID Key is on every engine: two regions registering users, the keys each region was handed,
the partition's cut and heal around a run, and verify(). An engine's module (`cassandra`, `couchbase`)
supplies the key counter, the writes and the cut."""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from ...errors import ConfigError
from ...runner import BaseWorkload, Transaction, Verification
from .. import check_choice

NAME = "uuid-key"
APPROACHES = ("naive", "pattern", "pattern/timeuuid")
"""What the lesson compares in both tests: the counter claimed by a read and a compare-and-set, and the two UUIDs."""
ONE_TRIP = "naive/one-trip"
"""The counter claimed by a compare-and-set from the value this region's application last saw, without a read:
one request per attempt, as Couchbase's increment is one request per key (the source's counter)."""
EVERY_APPROACH = APPROACHES + (ONE_TRIP,)
TESTS = ("availability", "partition")
PHASES = TESTS  # `labkit run uuid-key --phase partition`; the notebook's rows call it phase too
REGIONS = ("usa", "ireland")


@dataclass
class Registered:
    """What the clients of each region registered, as they saw it (key -> name), for the collision count."""

    keys: dict[str, dict[Any, str]] = field(default_factory=lambda: {r: {} for r in REGIONS})
    handed_out: dict[str, int] = field(default_factory=lambda: {r: 0 for r in REGIONS})
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, region: str, key: Any, name: str) -> None:
        with self.lock:
            self.keys[region][key] = name
            self.handed_out[region] += 1

    def repeats(self) -> dict[str, int]:
        """Keys one region was handed more than once (a key generator without compare-and-set)."""
        return {r: self.handed_out[r] - len(self.keys[r]) for r in REGIONS}

    def collisions(self) -> list[Any]:
        return sorted(set(self.keys["usa"]) & set(self.keys["ireland"]))


class TwoRegionRegistration(BaseWorkload):
    """What every engine's UUID Key workload shares: which region registers which user, the keys each
    region was handed, the partition's cut and heal around the run, and verify(). An engine supplies
    next_key (its counter), insert, stored, cut_link, heal_link and disconnect."""

    max_processes = 1  # what each region registered is kept in this process's memory for verify()

    def __init__(self, approach: str, test: str, users: int, converge: Callable[[], None] | None = None):
        check_choice(NAME, "approach", approach, EVERY_APPROACH)
        check_choice(NAME, "test", test, TESTS)
        if users < 1:
            raise ConfigError(f"users must be at least 1; got {users}")
        self.name = f"{NAME}/{test}/{approach}"
        self.approach = approach
        self.test = test
        self.users = users
        self.converge = converge  # before verify (after the heal): until both regions hold the same data
        self.partitioned = False
        self.registered = Registered()

    @property
    def naive(self) -> bool:
        """A counter hands out the keys (either way of claiming one)."""
        return self.approach in ("naive", ONE_TRIP)

    # ---- what an engine supplies -----------------------------------------------------------------

    def next_key(self, tx: Transaction, region: str) -> Any:
        raise NotImplementedError

    def insert(self, tx: Transaction, region: str, key: Any, name: str) -> None:
        raise NotImplementedError

    def stored(self) -> dict[Any, tuple[str, str]]:
        """Every user record after convergence: key -> (name, region)."""
        raise NotImplementedError

    def cut_link(self) -> None:
        raise NotImplementedError

    def heal_link(self) -> None:
        raise NotImplementedError

    def disconnect(self) -> None:
        pass

    # ---- the run ---------------------------------------------------------------------------------

    def check_run(self, *, threads: int, processes: int, operations: int) -> None:
        """Refuse runs that could not split evenly into the two regions, before touching the cluster."""
        if threads % 2:
            raise ConfigError(f"the UUID Key tests split client threads between the USA and Ireland: use an even thread count (got {threads})")
        if operations != 2 * self.users:
            raise ConfigError(f"this workload registers {self.users} users per region: run it with operations={2 * self.users} (got {operations})")
        if self.test == "partition" and self.converge is None:
            raise ConfigError("the partition test needs converge=...: how the regions catch up after the heal (see the Cassandra binding's workload())")

    def __getstate__(self) -> dict[str, Any]:
        raise ConfigError("the UUID Key workload keeps what each region registered in memory: run it with processes=1")

    def begin_test(self) -> None:
        """The end of every setup: a fresh record of keys; for the partition test, the cut (healed by verify or close_process)."""
        self.registered = Registered()
        if self.test == "partition":
            self.cut_link()
            self.partitioned = True

    def heal(self) -> None:
        self.heal_link()
        self.partitioned = False

    def close_process(self) -> None:
        if self.partitioned:  # a run stopped or failed mid-partition: never leave the regions cut
            self.heal()
        self.disconnect()

    def transaction(self, tx: Transaction) -> None:
        if tx.seq < 0:
            return  # no warm-up: it would register users verify() does not expect
        g = tx.seq * tx.workers + tx.worker  # 0 .. 2K-1, each once; with an even thread count g % 2 == worker % 2
        region, n = REGIONS[g % 2], g // 2
        series = tx.measurements.op(f"register_{region}")
        start = time.perf_counter_ns()
        self.register(tx, region, n)
        series.record((time.perf_counter_ns() - start) // 1000)

    def register(self, tx: Transaction, region: str, n: int) -> None:
        name = f"{region}-{n:06d}"
        key = self.next_key(tx, region) if self.naive else self.new_key(tx, region)
        self.insert(tx, region, key, name)
        self.registered.add(region, key, name)

    def new_key(self, tx: Transaction, region: str) -> uuid.UUID:
        """UUID Key: the application makes the key, no database round trip (v1 time-based, v4 random)."""
        return uuid.uuid1() if self.approach == "pattern/timeuuid" else uuid.uuid4()

    # ---- what survived ---------------------------------------------------------------------------

    def collision_table(self) -> list[dict[str, Any]]:
        """For each key both regions handed out: who registered it in each region and whose record survived."""
        stored = self.stored()
        rows = []
        for key in self.registered.collisions():
            survivor = stored.get(key, (None, None))
            rows.append({"key": key, "usa registered": self.registered.keys["usa"][key], "ireland registered": self.registered.keys["ireland"][key],
                         "survivor": survivor[0], "survivor region": survivor[1]})
        return rows

    def verify(self) -> Verification:
        """Exactly the records the regions registered, minus one per key both regions handed out.
        After a partition run, heals the cut and lets the regions converge first."""
        if self.partitioned:
            self.heal()
        if self.converge is not None:
            self.converge()
        stored = self.stored()
        registered = {r: len(k) for r, k in self.registered.keys.items()}
        collisions = self.registered.collisions()
        expected = registered["usa"] + registered["ireland"] - len(collisions)
        problems = []
        repeats = self.registered.repeats()
        if any(repeats.values()):
            problems.append(f"keys handed out twice within one region (usa {repeats['usa']}, ireland {repeats['ireland']}): the key generator is not atomic")
        if collisions and self.test == "availability":
            problems.append(f"{len(collisions)} keys were handed out to both regions without a partition: one counter must never repeat a key")
        if len(stored) != expected:
            problems.append(f"{len(stored)} users stored, {expected} expected ({sum(registered.values())} registered, {len(collisions)} keys handed out twice)")
        lost = [k for region in REGIONS for k, name in self.registered.keys[region].items() if k not in stored]
        if lost:
            problems.append(f"{len(lost)} registered keys have no record at all (first: {lost[:3]})")
        for key in collisions:
            if stored.get(key, (None,))[0] not in (self.registered.keys["usa"][key], self.registered.keys["ireland"][key]):
                problems.append(f"key {key} holds neither region's record")
                break
        checks = {"stored": len(stored), "registered_usa": registered["usa"], "registered_ireland": registered["ireland"], "collisions": len(collisions)}
        return Verification(not problems, checks, problems)


def by_region(results: Any) -> Any:
    """One row per (run, region) from sweep rows: the region's registration latency as measured, and its
    throughput as (threads per region) / (mean latency): each region's threads work in a closed loop."""
    import pandas as pd

    rows = []
    keep = [c for c in ("engine", "server_version", "provider", "nodes", "approach", "phase", "one_way_ms", "threads", "repeat", "control_copy", "complete")
            if c in results.columns]  # repeat and control_copy: the region rows of a repeated sweep still pair by block
    for _, r in results.iterrows():
        for region in REGIONS:
            mean = r.get(f"register_{region}_mean_us")
            if mean is None or pd.isna(mean) or not mean:
                continue
            rows.append({**{c: r[c] for c in keep}, "region": region, "registrations": r[f"register_{region}_count"],
                         "throughput": round((r["threads"] / 2) / (mean / 1e6), 1), "mean_ms": round(mean / 1000, 2),
                         "p95_ms": round(r[f"register_{region}_p95_us"] / 1000, 2)})
    return pd.DataFrame(rows)


def check_plan(plan: Any) -> None:
    """A sweep's plan must split evenly between the regions: even thread counts, even operations."""
    odd = [t for t in plan.threads if t % 2]
    if odd:
        raise ConfigError(f"the UUID Key tests split client threads between the USA and Ireland: use even thread counts (got {odd})")
    if plan.operations % 2:
        raise ConfigError(f"the UUID Key tests register the same number of users in each region: operations must be even (got {plan.operations})")
