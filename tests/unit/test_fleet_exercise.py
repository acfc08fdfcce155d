"""Notebook 08's fleet exercise, what the file alone decides: the solution is a design of the application with
its answers, each listed query reads tables whose partitions stop growing, and the old solution's tables
(partitioned by the van or the zone alone) do not."""

from __future__ import annotations

import json
from pathlib import Path

from labkit.profiles import exercise as fleet

REPO = Path(__file__).resolve().parents[2]


def solution_design() -> str:
    """The design text the solution notebook's my_design() returns (its cell run as the kernel would)."""
    cells = json.loads((REPO / "solutions" / "08_your_design.ipynb").read_text())["cells"]
    source = next("".join(c["source"]) for c in cells if "def my_design" in "".join(c["source"]))
    scope: dict = {}
    exec(source, scope)
    return scope["my_design"]()


def test_the_solution_answers_the_applications_questions_from_bucketed_tables():
    profile = fleet.exercise_profile(solution_design())
    mine, naive = profile.designs[fleet.DESIGN], profile.designs["one_table"]
    for operation in fleet.QUERIES:  # the answer is the application's, copied when the design leaves it out
        assert mine.operations[operation].answer == naive.operations[operation].answer is not None
    assert fleet.tables_read(mine, "van_track") == ["positions_by_van_day"] and fleet.tables_read(naive, "vans_in_zone") == ["positions"]
    assert fleet.stops_growing((["van", "day"], ["at"]), mine)
    assert not fleet.stops_growing((["van"], ["at"]), mine)  # the old solution's positions_by_van
    assert fleet.stops_growing((["id"], []), naive)  # one report per partition: bounded, though its index is not
