"""YCSB core workload semantics: each mix's operation shares, the request distributions' hot keys, key
naming and the description's phases. The Cassandra binding's transactions run here against an in-memory
fake session (what it asks the database is checked on a real node in tests/integration/test_ycsb.py)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from labkit.errors import ConfigError
from labkit.runner import RunOptions, run
from labkit.workloads.ycsb import MIXES, WORKLOAD, KeyChooser, OperationChooser, Zipfian, key_name, mix
from labkit.workloads.ycsb.cassandra import YcsbCassandra
from labkit.workloads.ycsb.core import YcsbSettings, fnv64, insert_keynum

OPS = 20_000


@pytest.mark.parametrize("name", list(MIXES))
def test_each_mix_picks_its_operations_in_their_defined_shares(name):
    chooser = OperationChooser(MIXES[name])
    rng = random.Random(11)
    seen = Counter(chooser.next(rng) for _ in range(OPS))
    for op, share in MIXES[name].proportions().items():
        assert abs(seen[op] / OPS - share) <= 0.02, (op, seen[op] / OPS, share)
    assert set(seen) <= set(MIXES[name].proportions())


def test_mix_definitions_follow_ycsb():
    assert MIXES["a"].proportions() == {"read": 0.5, "update": 0.5}
    assert MIXES["b"].proportions() == {"read": 0.95, "update": 0.05}
    assert MIXES["c"].proportions() == {"read": 1.0}
    assert MIXES["d"].proportions() == {"read": 0.95, "insert": 0.05} and MIXES["d"].distribution == "latest"
    assert MIXES["e"].proportions() == {"scan": 0.95, "insert": 0.05}
    assert MIXES["f"].proportions() == {"read": 0.5, "read_modify_write": 0.5}
    assert MIXES["insert-mostly"].proportions() == {"insert": 0.9, "read": 0.1}
    for m in MIXES.values():
        assert sum(m.proportions().values()) == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="choose one of a, b, c, d, e, f, insert-mostly"):
        mix("g")


def test_zipfian_gives_the_hottest_ranks_their_exact_shares():
    z = Zipfian(1000)
    rng = random.Random(3)
    draws = Counter(z.next(rng) for _ in range(100_000))
    assert z.share(0) == pytest.approx(1 / sum(1 / i**0.99 for i in range(1, 1001)))
    assert abs(draws[0] / 100_000 - z.share(0)) < 0.005
    assert abs(draws[1] / 100_000 - z.share(1)) < 0.005
    assert all(0 <= r < 1000 for r in draws)


# A separate copy of YCSB 0.17's ScrambledZipfianGenerator (constants and arithmetic as in its source:
# ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN), then Utils.fnvhash64(rank) % records), vectorised with numpy,
# so the lab's chooser is compared with YCSB's, not with itself.
YCSB_ITEM_COUNT = 10_000_000_000
YCSB_ZETAN = 26.46902820178302


def ycsb_fnvhash64(values: np.ndarray) -> np.ndarray:
    """Java's long arithmetic: uint64 wraps like a long's two's complement; Math.abs of the signed result."""
    h = np.full(values.shape, 0xCBF29CE484222325, dtype=np.uint64)
    v = values.astype(np.uint64)
    for _ in range(8):
        h ^= v & np.uint64(0xFF)
        h *= np.uint64(1099511628211)
        v >>= np.uint64(8)
    return np.abs(h.view(np.int64))


def ycsb_scrambled_zipfian(records: int, draws: int, seed: int) -> np.ndarray:
    items, theta = YCSB_ITEM_COUNT + 1, 0.99  # min 0, max ITEM_COUNT inclusive
    alpha, zeta2 = 1 / (1 - theta), 1 + 0.5**theta
    eta = (1 - (2.0 / items) ** (1 - theta)) / (1 - zeta2 / YCSB_ZETAN)
    u = np.random.default_rng(seed).random(draws)
    uz = u * YCSB_ZETAN
    ranks = np.where(uz < 1.0, 0, np.where(uz < 1.0 + 0.5**theta, 1, (items * (eta * u - eta + 1) ** alpha).astype(np.int64)))
    return ycsb_fnvhash64(ranks) % records


def top_shares(counts: Counter, draws: int) -> tuple[float, float]:
    ranked = [n for _, n in counts.most_common(10)]
    return ranked[0] / draws, sum(ranked) / draws


@pytest.mark.parametrize("records", [1000, pytest.param(100_000, marks=pytest.mark.full)])  # full tier: the larger key space, a slow unit test (4.0 s)
def test_zipfian_keys_take_the_shares_ycsb_gives_them(records):
    draws = 1_000_000
    keys, rng = KeyChooser("zipfian", records), random.Random(records)
    ours = top_shares(Counter(keys.next(rng) for _ in range(draws)), draws)
    ycsb = top_shares(Counter(ycsb_scrambled_zipfian(records, draws, seed=7).tolist()), draws)
    assert abs(ours[0] - ycsb[0]) < 0.003 and abs(ours[1] - ycsb[1]) < 0.003, (ours, ycsb)
    assert 0.036 < ycsb[0] < 0.041  # the hottest record: about 1/ZETAN = 3.8%, not the 12% of a zipfian over the records


def test_zipfian_keys_are_scattered_and_the_hottest_is_ycsbs():
    keys = KeyChooser("zipfian", 1000)
    rng = random.Random(5)
    draws = Counter(keys.next(rng) for _ in range(100_000))
    hottest = draws.most_common(1)[0][0]
    assert hottest == int(ycsb_fnvhash64(np.array([0]))[0]) % 1000 != 0  # rank 0 lands where YCSB puts it, not on key 0
    assert fnv64(0) == int(ycsb_fnvhash64(np.array([0]))[0])
    big = np.array([3, 17, 255, 1 << 40, 9_999_999_999], dtype=np.int64)
    assert [fnv64(int(v)) for v in big] == ycsb_fnvhash64(big).tolist()


def test_latest_prefers_the_workers_newest_insert_and_only_asks_for_records_that_exist():
    keys = KeyChooser("latest", 500)
    inserted = [insert_keynum(500, 2, 4, i) for i in range(30)]
    for k in inserted:
        keys.note_insert(k)
    rng = random.Random(9)
    draws = Counter(keys.next(rng) for _ in range(50_000))
    hottest, count = draws.most_common(1)[0]
    assert hottest == inserted[-1]
    assert abs(count / 50_000 - Zipfian(530).share(0)) < 0.006
    assert set(draws) <= set(range(500)) | set(inserted)


def test_uniform_spreads_over_every_record():
    keys = KeyChooser("uniform", 50)
    rng = random.Random(1)
    draws = Counter(keys.next(rng) for _ in range(50_000))
    assert set(draws) == set(range(50)) and max(draws.values()) / min(draws.values()) < 1.3


def test_insert_keys_never_collide_across_workers_and_key_names_follow_the_order():
    made = {insert_keynum(100, w, 8, i) for w in range(8) for i in range(50)}
    assert len(made) == 400 and min(made) == 100
    assert key_name(5, "ordered") < key_name(40, "ordered") < key_name(300, "ordered")
    assert key_name(5) != key_name(6) and key_name(5).startswith("user")


# ---- the binding's transactions, against an in-memory table ------------------------------------------


class FakeResult:
    def __init__(self, rows):
        self.rows = rows

    def one(self):
        return self.rows[0] if self.rows else None

    def all(self):
        return self.rows


class FakePrepared:
    def __init__(self, text):
        self.text = text
        self.consistency_level = None


class FakeSession:
    """Keeps one table of records in memory; understands exactly the statements the binding prepares."""

    def __init__(self):
        self.rows: dict[str, tuple] = {}
        self.asked = Counter()

    def prepare(self, text):
        return FakePrepared(text)

    def execute(self, statement, params=None, timeout=None):
        text = statement.text if isinstance(statement, FakePrepared) else str(statement)
        verb = text.split()[0]
        self.asked[verb] += 1
        if verb == "INSERT":
            self.rows[params[0]] = tuple(params)
            return FakeResult([])
        if verb == "UPDATE":
            assert params[1] in self.rows, "an update of a record that was never loaded"
            return FakeResult([])
        if "token(y_id) >=" in text:
            ordered = sorted(self.rows)
            start = [k for k in ordered if k >= params[0]]
            return FakeResult(start[: params[1]])
        return FakeResult([self.rows[params[0]]] if params[0] in self.rows else [])


class InMemoryYcsb(YcsbCassandra):
    """The Cassandra binding with its session replaced (no schema statements, no server)."""

    def __init__(self, approach, records=300):
        super().__init__(["127.0.0.1"], approach, "mix", YcsbSettings(records=records, fields=3, field_length=8, max_scan=10, insert_order="hashed",
                                                                      distribution="default", consistency="ONE", replication=1))
        self._session = FakeSession()

    def setup(self):
        self._load_needed = True

    def load(self):
        rng = random.Random(7)
        for k in range(self.records):
            self._session.execute(self.statements["insert"], self.record(k, rng))

    def verify(self):
        return None


@pytest.mark.parametrize("name", list(MIXES))
def test_the_bindings_transactions_carry_out_each_mix_in_its_shares(name):
    workload = InMemoryYcsb(f"baseline/{name}")
    result = run(workload, threads=4, operations=OPS, options=RunOptions(seed=2))
    counts = {op: s.count for op, s in result.ops.items()}
    assert result.stats.errors == 0 and result.stats.count == OPS
    observed = {
        "read": counts.get("read", 0), "update": counts.get("update", 0), "insert": counts.get("insert", 0), "scan": counts.get("scan", 0),
        "read_modify_write": counts.get("rmw_read", 0),
    }
    assert counts.get("rmw_read", 0) == counts.get("rmw_update", 0)
    for op, share in MIXES[name].proportions().items():
        assert abs(observed[op] / OPS - share) <= 0.02, (op, observed[op] / OPS, share)
    inserted = observed["insert"]
    assert len(workload._session.rows) == workload.records + inserted  # every insert a new key, none lost or overwritten


def test_the_description_compares_mixes_in_the_mix_phases_and_index_kinds_in_the_index_phases():
    assert WORKLOAD.approaches_for("offered-load")[0] == "baseline/a"
    assert WORKLOAD.approaches_for("index-query") == ("baseline/no-index", "baseline/2i", "baseline/sai")
    with pytest.raises(ConfigError, match="in phase index-query"):
        WORKLOAD.check_approaches(["baseline/a"], "index-query")
    plan = WORKLOAD.sweep_plan("quick", "offered-load")
    assert plan.targets == tuple(WORKLOAD.named_sweep("quick", "offered-load").targets) and plan.operations_at(400) == 800
    assert plan.runs == len(plan.approaches) * len(plan.targets)
    with pytest.raises(ConfigError, match="max_scan"):
        WORKLOAD.resolve("index-insert", {"max_scan": 10})


def test_the_cache_phase_starts_its_cluster_with_the_chunk_cache_it_reads_through():
    import json

    from labkit.clusters.compose.topology import topology
    from labkit.clusters.local.cassandra_config import NodeSpec, cassandra_yaml
    from labkit.workloads.ycsb.cassandra import cluster_options, hit_ratios

    values = WORKLOAD.resolve("cache", {"chunk_cache_mb": 8})
    assert cluster_options("cache", values) == {"chunk_cache_mb": 8} and cluster_options("mix", WORKLOAD.resolve("mix")) == {}
    node = NodeSpec(1, "127.0.0.1", "dc1", "rack1", 0, 7199, "/tmp/n1")
    with_cache = json.loads(cassandra_yaml(node, ["127.0.0.1"], "labkit", chunk_cache_mb=8))
    assert with_cache["file_cache_enabled"] is True and with_cache["file_cache_size"] == "40MiB"  # 32 MiB of it is the buffer pool's
    assert "file_cache_enabled" not in json.loads(cassandra_yaml(node, ["127.0.0.1"], "labkit"))  # Cassandra's default otherwise
    with pytest.raises(ConfigError, match="provider='local'"):
        topology("cassandra", 1, chunk_cache_mb=8)
    rows = hit_ratios([{"server_counter_chunk_cache_hits": 30, "server_counter_chunk_cache_requests": 40,
                        "server_counter_key_cache_hits": 0, "server_counter_key_cache_requests": 0}])
    assert rows.chunk_cache_hit_ratio[0] == 0.75 and rows.key_cache_hit_ratio.isna()[0]


def test_a_sweep_names_the_approaches_it_compares_by_default():
    assert WORKLOAD.sweep_plan("quick", "cache").approaches == ("baseline/c",)
    assert WORKLOAD.sweep_plan("classroom", "offered-load").approaches == ("baseline/a", "baseline/b", "baseline/c", "baseline/e")
    assert WORKLOAD.sweep_plan("quick", "mix").approaches == tuple(WORKLOAD.approaches_for("mix"))
    assert WORKLOAD.named_sweep("quick", "cache", {"cache": {"approaches": ["baseline/b"]}}).approaches == ("baseline/b",)


def test_verify_counts_each_workers_inserts_up_to_its_first_absent_key_with_few_probes():
    from labkit.workloads.ycsb.core import YcsbRun, YcsbSettings

    class Probed(YcsbRun):
        def __init__(self, held_per_worker):
            self.configure("baseline/d", "mix", YcsbSettings(records=100, fields=1, field_length=4, max_scan=10, insert_order="hashed",
                                                             distribution="default", tags=10))
            self._workers = len(held_per_worker)
            self.held = {key_name(insert_keynum(100, w, self._workers, i), "hashed") for w, n in enumerate(held_per_worker) for i in range(n)}
            self.probes = 0

        def exists(self, key):
            self.probes += 1
            return key in self.held

    held = [0, 1, 7, 8, 9, 40, 300, 0]
    probed = Probed(held)
    assert probed.inserted_keys() == sum(held)
    # one probe per worker beyond its inserts, in batches of 8, 16, 32...: not 256 for each worker that inserted little
    assert probed.probes < sum(held) + 8 * len(held) + 256, probed.probes


def test_the_sstables_a_traced_read_consulted_are_counted_from_the_servers_events():
    from labkit.workloads.ycsb.cassandra import sstables_read

    cassandra5 = [("n1", "Executing single-partition query on r"), ("n1", "Partition index found for sstable 2, size = 0"),
                  ("n1", "Partition index found for sstable 1, size = 0"), ("n1", "Read 1 live rows and 0 tombstone cells")]
    assert sstables_read(cassandra5) == 2
    assert sstables_read([("n1", "Merged data from memtables and 3 sstables")]) == 3
    cached = [("n1", "Key cache hit for sstable 1, size = 0"), ("n1", "Partition index found for sstable 2, size = 0"),
              ("n1", "Bloom filter allows skipping sstable 3")]  # the second read of a row: one SSTable's position cached
    assert sstables_read(cached) == 2
    assert sstables_read([("n1", "Read 1 live rows and 0 tombstone cells")]) is None


def test_trace_events_of_one_kind_read_alike_without_ballots_addresses_and_sizes():
    from labkit.engines.cassandra import event_kind

    assert event_kind("Promising ballot 4b5ab6f2-e9fd-11f1-b6a7-7ddc3aa") == "Promising ballot"
    assert event_kind("Sending BATCH_STORE_REQ message to /127.239.251.1:7000 message size 1310 bytes") == "Sending BATCH_STORE_REQ message"
    assert event_kind("BATCH_STORE_REQ message received from /127.239.251.2:7000") == "BATCH_STORE_REQ message received"
    assert event_kind("Adding to batches memtable") == "Adding to batches memtable"
