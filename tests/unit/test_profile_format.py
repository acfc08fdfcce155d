"""Profile files (labkit.profiles.format): the example loads, and each kind of mistake the file alone shows is
reported with its path in the file and what is expected, before any cluster starts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from labkit.errors import ConfigError
from labkit.profiles import load_profile, parse_profile

CHAT = Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml"


def chat() -> dict:
    return copy.deepcopy(yaml.safe_load(CHAT.read_text()))


def test_the_chat_example_loads_with_its_designs_and_mix():
    profile = load_profile(CHAT)
    assert profile.name == "chat" and set(profile.designs) == {"by_index", "by_query"}
    assert {d: set(design.operations) for d, design in profile.designs.items()} == {
        "by_index": {"post_message", "read_room", "rooms_of_user"}, "by_query": {"post_message", "read_room", "rooms_of_user"}}
    assert profile.designs["by_query"].operations["read_room"].weight == 7


def edit(path: str, value, *, delete: bool = False) -> dict:
    """The chat profile with one field changed (or removed), named by its path with dots."""
    data = chat()
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if delete:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


BAD = [  # (what is wrong, the profile, the path and words the message must hold)
    ("a weight of 0", edit("designs.by_query.operations.read_room.weight", 0),
     ["designs.by_query.operations.read_room.weight", "greater than 0"]),
    ("an operation one design lacks", edit("designs.by_index.operations.rooms_of_user", None, delete=True),
     ["designs.by_index.operations", "'rooms_of_user'", "by_query has"]),
    ("a generator on a column no table has", edit("designs.by_query.columns.colour", {"kind": "uniform", "high": 3}),
     ["designs.by_query.columns.colour", "no table of this design has a column 'colour'"]),
    ("a generator that does not fit its column's type", edit("designs.by_query.columns.body", {"kind": "zipfian", "n": 10}),
     ["designs.by_query.columns.body", "zipfian generator cannot fill a text column"]),
    ("a reference to a result no earlier step returns", edit("designs.by_query.operations.rooms_of_user.steps.0.bind", ["lookup.author"]),
     ["designs.by_query.operations.rooms_of_user.steps[0].bind[0]", "not an earlier step"]),
    ("a reference to a column the earlier step does not select", _two_steps := None, []),  # filled below
    ("a bind value with no generator", edit("designs.by_index.operations.read_room.steps.0.bind", ["rooom"]),
     ["designs.by_index.operations.read_room.steps[0].bind[0]", "'rooom' is neither a column with a generator"]),
    ("markers and bind values that do not match", edit("designs.by_index.operations.read_room.steps.0.bind", ["room", "author"]),
     ["designs.by_index.operations.read_room.steps[0].bind", "2 value(s) for 1 '?' marker(s)"]),
    ("an unknown generator kind", edit("designs.by_index.columns.room", {"kind": "gaussian", "n": 5}),
     ["designs.by_index.columns.room", "gaussian"]),
    ("an unknown field (a typo)", edit("designs.by_index.operations.read_room.wieght", 3),
     ["designs.by_index.operations.read_room.wieght", "extra inputs are not permitted"]),
    ("a single design", edit("designs.by_query", None, delete=True),
     ["designs", "at least 2"]),
    ("an engine the format does not run yet", edit("engine", "mongodb"),
     ["engine", "'cassandra'"]),
    ("a for_each of a step that comes later", edit("designs.by_query.operations.rooms_of_user.steps.0.for_each", "later"),
     ["designs.by_query.operations.rooms_of_user.steps[0].for_each", "no earlier step named 'later'"]),
    ("an operation without steps", edit("designs.by_query.operations.read_room.steps", []),
     ["designs.by_query.operations.read_room.steps", "at least 1"]),
    ("a name CQL would need quoted", edit("designs.by_query.operations.Read-Room", {"weight": 1, "steps": [{"name": "x", "cql": "SELECT 1"}]}),
     ["designs.by_query.operations.Read-Room", "pattern"]),
    ("a load step that reads an earlier result", edit("designs.by_query.load.steps.1.bind", ["post.author", "room"]),
     ["designs.by_query.load.steps[1]", "generator values only"]),
    ("a text generator without a length", edit("designs.by_query.columns.body", {"kind": "text"}),
     ["designs.by_query.columns.body.length", "required"]),
]


def _with_a_bad_reference() -> dict:
    data = chat()
    data["designs"]["by_query"]["operations"]["rooms_of_user"]["steps"].append(
        {"name": "latest", "cql": "SELECT body FROM messages_by_room WHERE room = ? LIMIT 1", "bind": ["written.author"], "for_each": "written"})
    return data


BAD[5] = ("a reference to a column the earlier step does not select", _with_a_bad_reference(),
          ["designs.by_query.operations.rooms_of_user.steps[1].bind[0]", "step 'written' does not return 'author' (it selects room)"])


@pytest.mark.parametrize("what, data, expected", BAD, ids=[b[0] for b in BAD])
def test_a_bad_profile_is_refused_with_the_path_of_its_mistake(what, data, expected):
    with pytest.raises(ConfigError) as caught:
        parse_profile(data, source="chat.yaml")
    message = str(caught.value)
    assert message.startswith("chat.yaml has ")
    for words in expected:
        assert words in message, f"{what}: {words!r} not in:\n{message}"


def test_every_mistake_is_reported_at_once():
    data = edit("designs.by_query.operations.read_room.weight", 0)
    data["designs"]["by_index"]["operations"]["read_room"]["weight"] = -1
    message = str(pytest.raises(ConfigError, parse_profile, data).value)
    assert "has 2 mistake(s)" in message and "by_query.operations.read_room.weight" in message and "by_index.operations.read_room.weight" in message


def test_a_missing_file_and_broken_yaml_say_what_to_do(tmp_path):
    with pytest.raises(ConfigError, match="no profile file at"):
        load_profile(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: chat\ndesigns: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_profile(broken)


def test_a_profile_file_is_described_like_a_pattern_and_labels_its_rows(tmp_path):
    from labkit.catalogue import describe
    from labkit.sweeps import SweepPlan, SweepRequest, resolve

    described = describe(str(CHAT))
    assert described.approaches == ("design/by_index", "design/by_query") and described.phases == ("mix",)
    plan = SweepPlan(pattern=described.name, approaches=list(described.approaches), threads=[4], operations=100)
    chosen = resolve(SweepRequest(described, plan))
    assert chosen.plan.labels["profile"] == "chat" and len(chosen.plan.labels["profile_hash"]) == 12
    changed = tmp_path / "chat.yaml"
    changed.write_text(CHAT.read_text().replace("weight: 7", "weight: 6"))
    assert describe(str(changed)).labels("mix")["profile_hash"] != chosen.plan.labels["profile_hash"]


def test_a_bad_profile_is_refused_by_the_cli_before_any_cluster_starts(tmp_path):
    from typer.testing import CliRunner

    from labkit.cli import app

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(edit("designs.by_query.operations.read_room.weight", 0)))
    result = CliRunner().invoke(app, ["run", str(bad), "--threads", "4", "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "designs.by_query.operations.read_room.weight" in result.output


def test_the_index_table_example_loads_and_its_lookup_reads_what_the_first_step_returns():
    profile = load_profile(CHAT.with_name("index_table.yaml"))
    login = profile.designs["lookup_table"].operations["login"]
    assert [s.name for s in login.steps] == ["lookup", "user"] and login.steps[1].bind == ["lookup.user_id"]
    assert profile.designs["by_index"].load.columns["id"].kind == "sequence"


def test_a_template_must_come_from_a_plain_column():
    data = chat()
    data["designs"]["by_query"]["columns"]["body"] = {"kind": "template", "text": "hello {}", "source": "nobody"}
    with pytest.raises(ConfigError, match=r"designs\.by_query\.columns\.body\.source: 'nobody' must be another column"):
        parse_profile(data)


def test_the_panel_offers_a_profiles_designs_as_its_approaches():
    from labkit.clusters.slot import ClusterSlot
    from labkit.catalogue import describe
    from labkit.sweeps import request_for
    from labkit.widgets import ControlPanel

    panel = ControlPanel(request_for(describe(str(CHAT)), describe(str(CHAT)).named_sweep("quick", "mix")), slot=ClusterSlot.for_engine("cassandra", "local"))
    assert set(panel.approaches) == {"design/by_index", "design/by_query"}
    assert "mix (one operation per transaction, by weight): post_message 2, read_room 7, rooms_of_user 1" in str(panel.widget.children[3].value)
    chosen = panel.sweep()
    assert chosen.plan.labels["profile"] == "chat" and chosen.phase == "mix"


def test_a_step_with_allow_filtering_is_said_not_refused():
    from labkit.profiles.format import filtering_notes

    data = chat()
    data["designs"]["by_query"]["operations"]["rooms_of_user"]["steps"][0]["cql"] = "SELECT room FROM messages_by_room WHERE author = ? ALLOW FILTERING"
    notes = filtering_notes(parse_profile(data))
    assert len(notes) == 1 and notes[0].startswith("designs.by_query.operations.rooms_of_user.steps[0] (written) uses ALLOW FILTERING")
    assert filtering_notes(parse_profile(chat())) == []


def test_columns_of_a_real_application_have_generators():
    """double, boolean, date, list, set, frozen and map columns each take a generator of their own; a list whose
    elements the generator cannot fill is refused with the type."""
    data = chat()
    design = data["designs"]["by_query"]
    design["schema"] = design["schema"].replace("body text,", "body text, score double, pinned boolean, day date, tags list<text>, "
                                                "seen frozen<set<int>>, votes map<text, int>,")
    design["columns"].update({"score": {"kind": "real", "low": 0, "high": 5}, "pinned": {"kind": "boolean", "share": 0.1},
                              "day": {"kind": "date", "days": 30}, "tags": {"kind": "collection", "of": {"kind": "text", "length": 5}, "high": 3},
                              "seen": {"kind": "collection", "of": {"kind": "uniform", "high": 9}, "high": 4},
                              "votes": {"kind": "map", "keys": {"kind": "text", "length": 3}, "values": {"kind": "uniform", "high": 5}, "high": 2}})
    parse_profile(data)
    design["columns"]["tags"] = {"kind": "collection", "of": {"kind": "uniform", "high": 9}, "high": 3}
    with pytest.raises(ConfigError, match=r"designs\.by_query\.columns\.tags: a collection generator cannot fill a list<text> column"):
        parse_profile(data)



@pytest.mark.parametrize("column_type, generator, takes", [
    ("double", {"kind": "uniform", "high": 9}, "(it fits bigint, int, smallint, varint; a double column takes a real generator)"),
    ("int", {"kind": "text", "length": 4}, "an int column takes a latest, sequence, uniform or zipfian generator"),
    ("date", {"kind": "timestamp"}, "a date column takes a bucket (unit day) or date generator"),
    ("list<text>", {"kind": "real", "high": 1}, "a list<text> column takes a collection generator whose `of` is a text generator"),
    ("map<text, int>", {"kind": "uniform", "high": 9},
     "a map<text,int> column takes a map generator whose `keys` are a text generator and `values` a latest, sequence, uniform or zipfian generator"),
    ("blob", {"kind": "text", "length": 4}, "no generator fills a blob column"),
])
def test_a_generator_refused_for_its_column_names_the_kind_that_fits(column_type, generator, takes):
    """A refusal says what the generator fits and which generator the column takes (a double column: real), not
    only what does not fit."""
    data = chat()
    design = data["designs"]["by_query"]
    design["schema"] = design["schema"].replace("body text,", f"body text, extra {column_type},")
    design["columns"]["extra"] = generator
    with pytest.raises(ConfigError) as caught:
        parse_profile(data)
    assert f"designs.by_query.columns.extra: a {generator['kind']} generator cannot fill a {column_type.replace(' ', '')} column" in str(caught.value)
    assert takes in str(caught.value)

def test_the_chat_designs_declare_one_answer_and_the_index_design_keeps_the_newest():
    profile = load_profile(CHAT)
    read = {d: design.operations["read_room"] for d, design in profile.designs.items()}
    assert read["by_index"].answer == read["by_query"].answer and read["by_query"].answer.newest_first
    latest = read["by_index"].steps[0]
    assert latest.newest.by == "sent" and latest.newest.keep == 20 and "LIMIT" not in latest.cql
    assert profile.designs["by_index"].operations["rooms_of_user"].steps[0].distinct


@pytest.mark.parametrize("change, words", [
    (lambda d: d["designs"]["by_index"]["operations"]["read_room"]["steps"][0].__setitem__("newest", {"by": "room", "keep": 20}),
     "designs.by_index.operations.read_room.steps[0].newest.by: the step does not return 'room'"),
    (lambda d: d["designs"]["by_query"]["operations"]["read_room"].__setitem__("answer", {"columns": ["sent", "room"], "newest_first": True}),
     "designs.by_query.operations.read_room.answer.columns: the last step does not return room"),
    (lambda d: d["designs"]["by_query"]["operations"]["read_room"].__setitem__("answer", {"columns": ["sent", "author", "body"]}),
     "operations.read_room.answer: the designs declare different answers"),
])
def test_an_answer_or_newest_that_does_not_fit_the_query_is_refused(change, words):
    data = chat()
    change(data)
    with pytest.raises(ConfigError) as caught:
        parse_profile(data)
    assert words in str(caught.value)


def test_newest_keeps_the_latest_by_a_timeuuids_time_and_distinct_the_first_of_each():
    """A timeuuid's own order is not its time (the time's low bits come first): newest must read the time."""
    import collections
    import uuid

    from labkit.profiles.cassandra import kept_rows
    from labkit.profiles.format import Step

    Row = collections.namedtuple("Row", "sent body")
    times = [uuid.UUID(fields=(low, mid, 0x1000 | 1, 0x80, 0, 7)) for low, mid in ((0xFFFFFFFF, 1), (0, 2), (5, 3), (0, 1))]
    rows = [Row(t, i) for i, t in enumerate(times)]
    kept = kept_rows(Step(name="s", cql="SELECT sent, body FROM t", newest={"by": "sent", "keep": 2}), rows)
    assert [r.body for r in kept] == [2, 1]  # mid 3, then mid 2: the newest two, newest first
    assert sorted(times)[-1] != times[2]  # byte order would have picked another
    twice = [Row(1, "a"), Row(2, "b"), Row(1, "a")]
    assert kept_rows(Step(name="s", cql="SELECT sent, body FROM t", distinct=True), twice) == twice[:2]


def test_a_time_bucket_comes_from_a_rows_time_and_fits_its_unit():
    """A bucket is made from a timestamp or timeuuid column of the same row: a day fills a date column, an hour
    a timestamp column; a bucket of a number is refused with the path."""
    data = chat()
    design = data["designs"]["by_query"]
    design["schema"] = design["schema"].replace("body text,", "body text, day date, hour timestamp,")
    design["columns"].update({"day": {"kind": "bucket", "source": "sent"}, "hour": {"kind": "bucket", "source": "sent", "unit": "hour"}})
    parse_profile(data)
    design["columns"]["day"] = {"kind": "bucket", "source": "room"}
    with pytest.raises(ConfigError, match=r"designs\.by_query\.columns\.day\.source: 'room' must be a column of this design with a timestamp or timeuuid"):
        parse_profile(data)
    design["columns"]["day"] = {"kind": "bucket", "source": "sent", "unit": "hour"}
    with pytest.raises(ConfigError, match=r"designs\.by_query\.columns\.day: a bucket generator cannot fill a date column"):
        parse_profile(data)
