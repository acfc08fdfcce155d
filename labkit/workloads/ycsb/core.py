"""YCSB's core workload, engine-neutral: the mixes A-F (plus insert-mostly), the request distributions
(uniform; zipfian as YCSB 0.17's scrambled zipfian: constant 0.99 over 10^10 items, hashed onto the
records; latest, per client worker), key naming (hashed or ordered) and the choice of each
transaction's operation. Engine bindings only say how to read, update, insert and scan a record.

Written from YCSB's documented semantics (its CoreWorkload properties, the Gray et al. zipfian generator
and the constants of its ScrambledZipfianGenerator), not from its code."""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass, fields as dataclass_fields
from typing import Any, Mapping

NAME = "ycsb"
OPERATIONS = ("read", "update", "insert", "scan", "read_modify_write")
DISTRIBUTIONS = ("zipfian", "uniform", "latest")
INSERT_ORDERS = ("hashed", "ordered")
ZIPFIAN_CONSTANT = 0.99
"""YCSB's default skew: item i (0-based rank) is drawn with weight 1/(i+1)^0.99."""
SCRAMBLED_ITEMS = 10_000_000_000
"""YCSB 0.17's ScrambledZipfianGenerator.ITEM_COUNT: the zipfian is drawn over 10^10 ranks, whatever the
record count, and each rank is hashed onto a record. (YCSB's later master raised it to 10^16 but kept the
zeta below, which belongs to 10^10.)"""
SCRAMBLED_ZETAN = 26.46902820178302
"""YCSB's precomputed zeta(10^10, 0.99): the hottest rank takes 1/26.47 = 3.78% of all draws."""


@dataclass(frozen=True)
class Mix:
    """One of YCSB's standard mixes: the share of each operation and which records requests pick."""

    name: str
    title: str
    models: str
    read: float = 0.0
    update: float = 0.0
    insert: float = 0.0
    scan: float = 0.0
    read_modify_write: float = 0.0
    distribution: str = "zipfian"

    def proportions(self) -> dict[str, float]:
        """Operation -> share of transactions (only the operations the mix uses)."""
        return {op: getattr(self, op) for op in OPERATIONS if getattr(self, op) > 0}


MIXES: dict[str, Mix] = {
    m.name: m
    for m in (
        Mix("a", "update heavy", "a session store recording what each user did recently", read=0.5, update=0.5),
        Mix("b", "read mostly", "photo tagging: tags are added now and then, photos are viewed all the time", read=0.95, update=0.05),
        Mix("c", "read only", "a cache of user profiles built elsewhere", read=1.0),
        Mix("d", "read latest", "status updates: people read the newest ones", read=0.95, insert=0.05, distribution="latest"),
        Mix("e", "short ranges", "threaded conversations: each scan reads the posts of one thread", scan=0.95, insert=0.05),
        Mix("f", "read-modify-write", "a user database where a record is read, changed and written back", read=0.5, read_modify_write=0.5),
        Mix("insert-mostly", "insert mostly", "logging or sensor ingest with an occasional look-up", insert=0.9, read=0.1),
    )
}
MIX_NAMES = tuple(MIXES)
LOAD_CONCURRENCY = 64
"""The load phase's requests in flight: every engine's loader sends one record per request (as YCSB's loader does), this
many at a time, so two engines' load times compare the same client work."""
LOAD_CHUNK = 5000
"""Records made at a time while loading (the values are drawn in key order from one seeded generator), on every engine."""
INSERT_ONLY = Mix("insert-only", "insert only", "the index experiment's write side: every transaction inserts one record", insert=1.0)

PHASES = ("mix", "offered-load", "cache", "index-query", "index-insert")
"""mix: closed loop over client threads; offered-load: paced at target rates; cache: the data flushed to
disk and read through each node's chunk cache, which it may or may not fit; index-query / index-insert:
the cost of a secondary index (what a query by a non-key column costs without one, what each insert
pays to keep one)."""
MIX_PHASES = ("mix", "offered-load", "cache")
INDEX_PHASES = ("index-query", "index-insert")
MIX_APPROACHES = tuple(f"baseline/{name}" for name in MIX_NAMES)
INDEX_APPROACHES = ("baseline/no-index", "baseline/2i", "baseline/sai")
"""no-index: a query by tag filters every record (ALLOW FILTERING); 2i: Cassandra's legacy secondary
index; sai: a storage-attached index."""
APPROACHES = MIX_APPROACHES + INDEX_APPROACHES


def mix_of(approach: str) -> str:
    """'baseline/e' -> 'e'."""
    return approach.split("/", 1)[1] if "/" in approach else approach


def mix(name: str) -> Mix:
    from ...errors import ConfigError

    if name not in MIXES:
        raise ConfigError(f"unknown YCSB workload {name!r}: choose one of {', '.join(MIX_NAMES)}")
    return MIXES[name]


# ---- keys ------------------------------------------------------------------------------------------

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 1099511628211


def fnv64(value: int) -> int:
    """FNV-1a over the 8 bytes of a 64-bit number, as YCSB's Utils.fnvhash64 hashes key numbers and zipfian
    ranks: the product wraps at 64 bits and the result is the absolute value of that signed number."""
    h = _FNV_OFFSET
    for _ in range(8):
        h ^= value & 0xFF
        h = (h * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
        value >>= 8
    return (1 << 64) - h if h >> 63 else h


def key_name(keynum: int, order: str = "hashed") -> str:
    """The record key of key number `keynum`: hashed keys scatter consecutive inserts over the key
    space (YCSB's default); ordered keys keep insertion order (zero-padded so text order is number order)."""
    return f"user{fnv64(keynum)}" if order == "hashed" else f"user{keynum:012d}"


# ---- distributions ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def zeta(n: int, theta: float = ZIPFIAN_CONSTANT) -> float:
    """Sum of 1/i^theta for i = 1..n (the zipfian's normaliser), once per process and size."""
    return float(sum(1.0 / i**theta for i in range(1, n + 1)))


class Zipfian:
    """Ranks 0..n-1, rank r with probability (1/(r+1)^theta) / zeta(n): Gray et al.'s constant-time
    method ("Quickly generating billion-record synthetic databases", 1994), which YCSB uses. `grow(n)`
    extends the item count one item at a time without recomputing the normaliser (the latest distribution
    grows with every insert)."""

    def __init__(self, n: int, theta: float = ZIPFIAN_CONSTANT, zetan: float | None = None):
        if n < 1:
            raise ValueError("a zipfian needs at least one item")
        self.theta = theta
        self.alpha = 1.0 / (1.0 - theta)
        self.zeta2 = zeta(2, theta)
        self.n = n
        self.zetan = zeta(n, theta) if zetan is None else zetan  # a precomputed zeta for item counts too large to sum
        self._refresh()

    def _refresh(self) -> None:
        self.eta = (1 - (2.0 / self.n) ** (1 - self.theta)) / (1 - self.zeta2 / self.zetan) if self.n > 1 else 0.0

    def grow(self, n: int) -> None:
        for i in range(self.n + 1, n + 1):
            self.zetan += 1.0 / i**self.theta
        if n > self.n:
            self.n = n
            self._refresh()

    def share(self, rank: int) -> float:
        """The exact probability of `rank` (what a test compares the draws with)."""
        return (1.0 / (rank + 1) ** self.theta) / self.zetan

    def next(self, rng: Any) -> int:
        u = rng.random()
        uz = u * self.zetan
        if uz < 1.0 or self.n == 1:
            return 0
        if uz < 1.0 + 0.5**self.theta:
            return 1
        return min(self.n - 1, int(self.n * (self.eta * u - self.eta + 1) ** self.alpha))


class ScrambledZipfian:
    """YCSB's default zipfian request distribution: a rank from a zipfian over 10^10 items, hashed (FNV-64)
    onto one of `records` key numbers. The hot ranks land anywhere in the key space; the hottest record gets
    about 1/zeta(10^10) = 3.8% of requests whatever the record count, less skewed than a zipfian over the
    records themselves (12% for the hottest of 2,000)."""

    def __init__(self, records: int):
        self.records = records
        self._ranks = Zipfian(SCRAMBLED_ITEMS + 1, zetan=SCRAMBLED_ZETAN)  # YCSB draws from 0..ITEM_COUNT inclusive

    def next(self, rng: Any) -> int:
        return fnv64(self._ranks.next(rng)) % self.records


class KeyChooser:
    """Which record a read, update, scan or read-modify-write asks for, per one worker.

    uniform: any loaded record alike. zipfian: YCSB's scrambled zipfian (`ScrambledZipfian`). latest: a
    zipfian over the records this worker knows of, the newest hottest (rank 0 = its own last insert),
    falling back to the loaded records in reverse load order. YCSB's latest ranks from the newest record any
    client's insert has acknowledged (one counter shared by its threads); here each worker counts only its
    own inserts, so a read never asks for a record whose insert has not finished, and with W workers the
    newest records are spread over W "hottest" ones."""

    def __init__(self, distribution: str, records: int):
        if distribution not in DISTRIBUTIONS:
            from ...errors import ConfigError

            raise ConfigError(f"request distribution must be one of {', '.join(DISTRIBUTIONS)}; got {distribution!r}")
        self.distribution = distribution
        self.records = records
        self.inserted: list[int] = []  # key numbers this worker inserted, oldest first
        self._zipf = Zipfian(records) if distribution == "latest" else None
        self._scrambled = ScrambledZipfian(records) if distribution == "zipfian" else None

    def note_insert(self, keynum: int) -> None:
        self.inserted.append(keynum)
        if self._zipf is not None:  # latest: the newest keys are the hot ones
            self._zipf.grow(self.records + len(self.inserted))

    def next(self, rng: Any) -> int:
        if self._scrambled is not None:  # zipfian
            return self._scrambled.next(rng)
        if self._zipf is None:  # uniform
            return rng.randrange(self.records)
        rank = self._zipf.next(rng)  # latest
        mine = len(self.inserted)
        return self.inserted[mine - 1 - rank] if rank < mine else self.records - 1 - (rank - mine)


class OperationChooser:
    """Picks each transaction's operation with the mix's proportions (one uniform draw per transaction)."""

    def __init__(self, chosen: Mix):
        self.table: list[tuple[float, str]] = []
        total = 0.0
        for op, share in chosen.proportions().items():
            total += share
            self.table.append((total, op))
        self.total = total

    def next(self, rng: Any) -> str:
        r = rng.random() * self.total
        for bound, op in self.table:
            if r < bound:
                return op
        return self.table[-1][1]


def insert_keynum(records: int, worker: int, workers: int, count: int) -> int:
    """Key number of a worker's `count`-th insert (0-based): workers interleave above the loaded records,
    so no two workers (in any client process) ever insert the same key."""
    return records + worker + workers * count


def field_values(rng: Any, fields: int, length: int) -> list[str]:
    """`fields` independent random printable values of `length` characters (YCSB's field contents): 6 random
    bits per character, so a table compresses about as little as YCSB's (to roughly 3/4), and its size on
    disk is what the record count says."""
    chars = -(-length * 3 // 4) * 4 // 3 + 4
    return [base64.b64encode(rng.randbytes(chars * 3 // 4)).decode()[:length] for _ in range(fields)]


def scan_length(rng: Any, most: int) -> int:
    """YCSB's default scan length: uniform from 1 to `most` records."""
    return rng.randint(1, most)


@dataclass(frozen=True)
class YcsbSettings:
    """One YCSB run's settings, named as the description's settings are (YCSB's recordcount, fieldcount,
    fieldlength, maxscanlength, requestdistribution and insertorder, plus the index experiment's tags, the
    cache phase's chunk cache and Cassandra's consistency level and replication factor). Why an object: every
    engine binding takes the same settings, and a sweep resolves them by name from the description."""

    records: int
    fields: int = 10
    field_length: int = 100
    insert_order: str = "hashed"
    max_scan: int = 100
    distribution: str = "default"
    tags: int = 100
    consistency: str = "ONE"
    replication: int = 1
    chunk_cache_mb: int | None = None
    flush: str = "no"

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> YcsbSettings:
        """From the phase's resolved settings, naming any that is not a YCSB setting."""
        from ...errors import ConfigError, refuse_unknown_names

        refuse_unknown_names(settings, (f.name for f in dataclass_fields(cls)), "YCSB setting")
        if "records" not in settings:
            raise ConfigError("a YCSB run needs records (how many records are loaded before it)")
        return cls(**dict(settings))


class YcsbRun:
    """What one YCSB run does on any engine: which mix or index experiment the approach names, each
    transaction's operation and record, and the exact check after inserts. An engine binding subclasses
    it (with its driver's workload base) and says how to read, update, insert, scan, query by tag, count
    and probe one record, each through `tx.call` so the runner times it."""

    _load_needed = True
    """Whether load() writes the table: setup() finds out (False: a table already loaded with the same records)."""

    def configure(self, approach: str, phase: str, settings: YcsbSettings) -> None:
        from ...errors import ConfigError

        self.approach, self.phase = approach, phase
        self.records, self.fields, self.field_length, self.max_scan = settings.records, settings.fields, settings.field_length, settings.max_scan
        self.insert_order, self.tags = settings.insert_order, settings.tags
        self.flushed = phase == "cache" or settings.flush == "yes"
        distribution = settings.distribution
        self.indexed = phase in INDEX_PHASES
        if self.indexed:
            if approach not in INDEX_APPROACHES:
                raise ConfigError(f"phase {phase} compares {', '.join(INDEX_APPROACHES)}; got {approach!r}")
            self.mix = INSERT_ONLY if phase == "index-insert" else MIXES["c"]  # index-query's transaction is its own
        else:
            self.mix = mix(mix_of(approach))
        self.distribution = self.mix.distribution if distribution == "default" else distribution
        self.name = f"ycsb/{mix_of(approach)}"
        self.inserts = self.mix.insert > 0
        self._workers = 1

    # ---- what an engine binding provides ----------------------------------------------------------

    def read(self, tx: Any, op: str, key: str) -> bool:
        """Read every field of one record; False when it is not there."""
        raise NotImplementedError

    def update(self, tx: Any, op: str, key: str, field: int, value: str) -> None:
        raise NotImplementedError

    def insert(self, tx: Any, keynum: int) -> None:
        raise NotImplementedError

    def scan(self, tx: Any, start: str, count: int) -> list:
        raise NotImplementedError

    def query_by_tag(self, tx: Any, tag: int) -> int:
        """How many records the query for one tag returned."""
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def exists(self, key: str) -> bool:
        raise NotImplementedError

    # ---- shared ------------------------------------------------------------------------------------

    def shape(self) -> str:
        """What a loaded table holds, stored with it so a later run with the same shape skips the load."""
        return (f"records={self.records} fields={self.fields} length={self.field_length} order={self.insert_order} tags={self.tags} keys=fnv64abs"
                + (" flushed" if self.flushed else ""))

    def sample_key(self) -> str:
        """A key every loaded table holds (the first record's)."""
        return key_name(0, self.insert_order)

    def record_fields(self, keynum: int, rng: Any) -> tuple[str, int, list[str]]:
        """(key, tag, field values) of one record."""
        return key_name(keynum, self.insert_order), keynum % self.tags, field_values(rng, self.fields, self.field_length)

    def _state(self, tx: Any) -> dict[str, Any]:
        state = tx.worker_state
        if "keys" not in state:
            state["keys"] = KeyChooser(self.distribution, self.records)
            state["ops"] = OperationChooser(self.mix)
        return state

    def transaction(self, tx: Any) -> None:
        state = self._state(tx)
        keys: KeyChooser = state["keys"]
        if self.phase == "index-query":
            tag = tx.rng.randrange(self.tags)
            found, expected = self.query_by_tag(tx, tag), len(range(tag, self.records, self.tags))
            if found < expected:
                raise LookupError(f"query by tag {tag} returned {found} records of the {expected} loaded with it")
            return
        op = state["ops"].next(tx.rng)
        if op == "insert":
            keynum = insert_keynum(self.records, tx.worker, tx.workers, len(keys.inserted))
            self.insert(tx, keynum)
            keys.note_insert(keynum)
            return
        key = key_name(keys.next(tx.rng), self.insert_order)
        if op == "scan":
            self.scan(tx, key, scan_length(tx.rng, self.max_scan))
        elif op == "read":
            if not self.read(tx, "read", key):
                raise LookupError(f"record {key} is missing")
        else:
            field, value = tx.rng.randrange(self.fields), field_values(tx.rng, 1, self.field_length)[0]
            if op == "read_modify_write":
                if not self.read(tx, "rmw_read", key):
                    raise LookupError(f"record {key} is missing")
                self.update(tx, "rmw_update", key, field, value)
            else:
                self.update(tx, "update", key, field, value)

    def check_run(self, threads: int, processes: int, operations: int) -> None:
        self._workers = threads  # every worker's insert keys, for verify

    def exists_many(self, keys: list[str]) -> list[bool]:
        """Which of `keys` the store holds (a binding may ask for many at once)."""
        return [self.exists(key) for key in keys]

    PROBE_BATCH = 256
    FIRST_PROBE_BATCH = 8
    timeouts_retried = 0
    """Requests of the last count() that timed out and were sent again (a binding that retries sets it)."""

    def inserted_keys(self) -> int:
        """Records the run inserted: each worker's insert keys, probed in order (a batch at a time) until
        the first absent one."""
        found = 0
        for worker in range(self._workers):
            count, size = 0, self.FIRST_PROBE_BATCH  # most workers insert a handful: small batches first, doubling
            while True:
                batch = [key_name(insert_keynum(self.records, worker, self._workers, count + i), self.insert_order) for i in range(size)]
                present = self.exists_many(batch)
                held = present.index(False) if False in present else len(present)
                count += held
                if held < len(present):
                    break
                size = min(2 * size, self.PROBE_BATCH)
            found += count
        return found

    def verify(self) -> Any:
        """Every loaded record is still there and the store holds exactly loaded + inserted records."""
        from ...runner import Verification

        total = self.count()
        inserted = self.inserted_keys() if self.inserts else 0
        expected = self.records + inserted
        problems = [] if total == expected else [f"the store holds {total} records, expected {self.records} loaded + {inserted} inserted"]
        checks = {"records": total, "loaded": self.records, "inserted": inserted}
        if self.timeouts_retried:
            checks["timeouts_retried"] = self.timeouts_retried  # a binding's count read again after a timeout
        return Verification(not problems, checks, problems)
