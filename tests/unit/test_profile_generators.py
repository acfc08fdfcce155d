"""A profile's column generators: replayable from the seed, per worker, with the distributions they name."""

from __future__ import annotations

import collections
import uuid

from pydantic import TypeAdapter

from labkit.profiles.format import Generator
from labkit.profiles.generators import ColumnValues

GEN = TypeAdapter(Generator)


def values(spec: dict, n: int, seed: int = 7, worker: int = 0, workers: int = 1) -> list:
    columns = ColumnValues({"c": GEN.validate_python(spec)}, seed, worker, workers)
    return [columns.draw("c") for _ in range(n)]


def test_the_same_seed_and_worker_replay_the_same_values_and_other_workers_differ():
    spec = {"kind": "zipfian", "n": 1000}
    assert values(spec, 200) == values(spec, 200)
    assert values(spec, 200) != values(spec, 200, worker=1) and values(spec, 200) != values(spec, 200, seed=8)
    assert values({"kind": "uuid"}, 5) == values({"kind": "uuid"}, 5) and all(u.version == 4 for u in values({"kind": "uuid"}, 5))


def test_zipfian_makes_a_few_values_hot_and_latest_the_newest():
    counts = collections.Counter(values({"kind": "zipfian", "n": 2000}, 20_000))
    assert counts.most_common(1)[0][0] == 0 and 0.08 < counts[0] / 20_000 < 0.16  # about 12% for YCSB's 0.99 over 2,000
    assert all(0 <= v < 2000 for v in counts)
    latest = collections.Counter(values({"kind": "latest", "n": 2000}, 20_000))
    assert latest.most_common(1)[0][0] == 1999


def test_uniform_text_and_time_values_have_their_shape():
    drawn = values({"kind": "uniform", "low": 3, "high": 5}, 300)
    assert set(drawn) == {3, 4, 5}
    assert all(len(t) == 40 for t in values({"kind": "text", "length": 40}, 10))
    assert all(isinstance(t, uuid.UUID) and t.version == 1 for t in values({"kind": "timeuuid"}, 3))
    assert all(isinstance(t, int) and t > 1_700_000_000_000 for t in values({"kind": "timestamp"}, 3))


def test_a_sequence_is_dealt_out_over_the_workers_each_number_once():
    dealt = [v for w in range(3) for v in values({"kind": "sequence", "start": 10}, 4, worker=w, workers=3)]
    assert sorted(dealt) == list(range(10, 22))


def test_a_repeated_sequence_gives_each_number_k_times_running_even_dealt_over_workers():
    assert values({"kind": "sequence", "repeat": 3}, 7) == [0, 0, 0, 1, 1, 1, 2]
    dealt = [v for w in range(2) for v in values({"kind": "sequence", "repeat": 3}, 6, worker=w, workers=2)]
    assert sorted(dealt) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_a_template_is_made_from_its_source_in_the_same_row_even_when_the_source_is_not_asked_for():
    columns = ColumnValues({"id": GEN.validate_python({"kind": "uniform", "high": 99}),
                            "email": GEN.validate_python({"kind": "template", "text": "user{}@lab.example", "source": "id"})}, seed=1)
    row = columns.row(["id", "email"])
    assert row["email"] == f"user{row['id']}@lab.example"
    alone = columns.row(["email"])
    assert list(alone) == ["email"] and alone["email"].startswith("user") and alone["email"].endswith("@lab.example")


def test_reals_booleans_dates_and_collections_replay_from_the_seed_within_their_bounds():
    import datetime

    reals = values({"kind": "real", "low": 1.5, "high": 2.5}, 500)
    assert all(1.5 <= v <= 2.5 for v in reals) and reals == values({"kind": "real", "low": 1.5, "high": 2.5}, 500)
    flags = values({"kind": "boolean", "share": 0.2}, 5000)
    assert 0.17 < sum(flags) / 5000 < 0.23
    days = values({"kind": "date", "days": 10}, 500)
    assert {d for d in days} <= {datetime.date(2026, 1, 1) - datetime.timedelta(days=k) for k in range(11)} and len(set(days)) == 11
    lists = values({"kind": "collection", "of": {"kind": "uniform", "low": 0, "high": 3}, "low": 1, "high": 4}, 300)
    assert all(1 <= len(v) <= 4 and set(v) <= {0, 1, 2, 3} for v in lists)
    maps = values({"kind": "map", "keys": {"kind": "text", "length": 4}, "values": {"kind": "boolean"}, "high": 2}, 100)
    assert all(len(m) <= 2 and all(len(k) == 4 and isinstance(b, bool) for k, b in m.items()) for m in maps)


def test_a_bucket_is_the_day_or_hour_of_the_same_rows_time():
    import datetime

    from labkit.profiles.generators import bucket_of

    columns = ColumnValues({"at": GEN.validate_python({"kind": "timestamp"}), "day": GEN.validate_python({"kind": "bucket", "source": "at"}),
                            "hour": GEN.validate_python({"kind": "bucket", "source": "at", "unit": "hour"})}, 7)
    row = columns.row(["at", "day", "hour"])
    assert row["day"] == datetime.datetime.fromtimestamp(row["at"] / 1000, datetime.timezone.utc).date()
    assert row["hour"] <= row["at"] < row["hour"] + 3_600_000 and row["hour"] % 3_600_000 == 0
    assert set(columns.row(["day"])) == {"day"}  # its source is drawn for it, not returned
    noon = datetime.datetime(2026, 3, 1, 12, 30, tzinfo=datetime.timezone.utc)
    ticks = int(noon.timestamp() * 10_000_000) + 0x01B21DD213814000
    made_at_noon = uuid.UUID(fields=(ticks & 0xFFFFFFFF, (ticks >> 32) & 0xFFFF, ((ticks >> 48) & 0x0FFF) | 0x1000, 0x80, 0, 1), version=1)
    assert bucket_of(made_at_noon, "day") == datetime.date(2026, 3, 1)
    assert bucket_of(made_at_noon, "hour") == int(datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.timezone.utc).timestamp() * 1000)
