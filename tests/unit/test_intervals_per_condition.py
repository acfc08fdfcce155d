"""An interval comes from the repeats of one condition, never from pairs at different thread or node counts
(#68 item 2): `ratio_at_point` picks one condition and says which, gives the other conditions only as a
range, and says "too few repeats" where that condition ran once; `ratio_text` keeps two decimals near 1; no
notebook, lesson module, exercise, solution or benchmark calls the old pooled ratio; the result cards name the
condition."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from labkit.predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from labkit.results.intervals import RatioInterval, condition_keys, ratio_at_point, ratio_interval, ratio_text

ROOT = Path(__file__).resolve().parents[2]
WRITE_RATIOS = {10: 1.67, 40: 3.40, 70: 5.73, 100: 7.26}
"""Enumerable Keys' committed write ratios per writer count (benchmarks/results/enumerable_keys_ratios.md), once
quoted pooled as one "95% interval", 3.92 (2.76-5.38)."""


def rows(ratios_by_point: dict, repeats: int = 1, **extra) -> pd.DataFrame:
    """One block per repeat at each point: naive 1,000/s, the pattern `ratio` times that (each repeat a little off,
    so that three repeats have a spread). A point is a thread count, or a (threads, nodes) pair."""
    out = []
    for point, ratio in ratios_by_point.items():
        threads, nodes = point if isinstance(point, tuple) else (point, 1)
        for repeat in range(repeats):
            wobble = (1.0, 0.95, 1.05, 0.98, 1.02)[repeat % 5]
            for approach, value in (("naive", 1000.0), ("pattern", 1000.0 * ratio * wobble)):
                out.append({"engine": "cassandra", "provider": "local", "pattern": "enumerable-keys", "phase": "write", "nodes": nodes,
                            "node_cpu": None, "threads": threads, "approach": approach, "repeat": repeat, "throughput": value,
                            "complete": True, "control_copy": False, **extra})
    return pd.DataFrame(out)


# ---- ratio_text ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [(0.43, "0.43"), (0.87, "0.87"), (0.9, "0.90"), (0.97, "0.97"), (1.0, "1.00"), (1.05, "1.05"),
                                         (1.0999, "1.1"), (1.1, "1.1"), (1.24, "1.2"), (2.6, "2.6"), (9.96, "10"), (14.2, "14")])
def test_a_ratio_near_one_keeps_two_decimals(value, text):
    assert ratio_text(value) == text


def test_an_interval_that_holds_one_and_one_that_does_not_read_apart():
    """Before, both printed a bound of "1.0": '0.87x (0.73-1.0, within noise)' beside '1.2x (1.0-1.4)'."""
    noise, effect = RatioInterval(0.87, 0.73, 1.05, 12, "bootstrap"), RatioInterval(1.2, 1.04, 1.4, 12, "bootstrap")
    assert noise.text() == "0.87x (0.73-1.05, within noise)"
    assert effect.text() == "1.2x (1.04-1.4)"


# ---- ratio_at_point --------------------------------------------------------------------------------------

def test_one_pair_at_each_of_four_thread_counts_is_too_few_repeats_not_an_interval():
    found = ratio_at_point(rows(WRITE_RATIOS), "pattern", "naive")
    assert not found.has_interval and found.verdict == "too few repeats for an interval"
    assert found.interval.pairs == 1 and "one pair, too few repeats for an interval" in found.interval.text()
    assert found.where() == "at 100 threads, 1 node"  # a tie of one pair each: the most threads
    assert found.points == 4 and (found.lowest, found.highest) == pytest.approx((1.67, 7.26))
    assert found.range_text() == "4 points, 1.7x-7.3x over 10-100 threads (a range: no interval across conditions)"


def test_the_interval_is_that_of_the_condition_with_the_most_repeats_alone():
    df = pd.concat([rows({10: 1.67, 70: 5.73, 100: 7.26}), rows({40: 3.40}, repeats=3)], ignore_index=True)
    found = ratio_at_point(df, "pattern", "naive")
    assert found.where() == "at 40 threads, 1 node" and found.interval.pairs == 3
    assert found.interval == ratio_interval([3.40, 3.40 * 0.95, 3.40 * 1.05])  # the other points' pairs are not in it
    assert found.text().startswith(found.interval.text() + " at 40 threads, 1 node; 4 points, 1.7x-7.3x over 10-100 threads")


def test_a_tie_in_repeats_goes_to_the_most_threads_then_the_most_nodes():
    assert ratio_at_point(rows({10: 2.0, 100: 3.0}, repeats=3), "pattern", "naive").where() == "at 100 threads, 1 node"
    found = ratio_at_point(rows({(40, 1): 2.0, (40, 4): 3.0, (10, 8): 4.0}, repeats=3), "pattern", "naive")
    assert found.where() == "at 40 threads, 4 nodes" and found.interval.estimate == pytest.approx(3.0, rel=0.02)
    assert "over 1-8 nodes, 10-40 threads" in found.range_text()


def test_a_pattern_setting_is_part_of_the_condition():
    """Distorted Replicas' `groups` is one of its read phase's settings: runs at 1 and at 3 groups are two
    conditions, even at one thread count."""
    df = pd.concat([rows({8: 0.9}, groups=g).assign(pattern="distorted-replicas", phase="read", throughput=lambda d, g=g: d.throughput * (1 + (g > 1) * (d.approach == "pattern")))
                    for g in (1, 3)], ignore_index=True)
    from labkit.lessons import pattern_settings, ratio_at_point as lesson_ratio

    assert "groups" in pattern_settings(df) and "groups" in condition_keys(df, "pattern", "naive", pattern_settings(df))
    found = lesson_ratio(df, "pattern", "naive")
    assert not found.has_interval and found.points == 2 and found.where() == "at 8 threads, 1 node, groups 3"


def test_rows_pooling_two_group_counts_are_reported_mixed():
    """`mixed_conditions` (what the claims test and benchmarks/remeasured.py refuse an interval on) takes the pattern's
    settings from its caller: rows at 1 and at 3 Distorted Replicas groups, one thread and node count, are two
    conditions once `groups` is among them, and one group count alone is one."""
    from labkit.lessons import pattern_settings
    from labkit.results.intervals import mixed_conditions

    df = pd.concat([rows({8: 0.9}, repeats=3, groups=g).assign(pattern="distorted-replicas", phase="read") for g in (1, 3)], ignore_index=True)
    settings = pattern_settings(df)
    assert "groups" in settings
    assert mixed_conditions(df) == {}  # CONDITION_KEYS alone do not see the groups
    assert mixed_conditions(df, settings=settings) == {"groups": [1, 3]}
    assert mixed_conditions(df[df.groups == 3], settings=settings) == {}
    assert mixed_conditions(df.astype(str).to_dict("records"), settings=settings) == {"groups": ["1", "3"]}  # rows as a CSV gives them


def test_a_column_that_only_tells_the_two_sides_apart_is_the_comparison_not_a_condition():
    """Notebook 00 compares consistency levels as two approaches: `consistency` is a setting of the ycsb pattern,
    but each side has one value of it, so the runs still pair per thread count."""
    df = rows({4: 1.3, 8: 1.4}, repeats=3).assign(pattern="ycsb", phase="mix")
    df["consistency"] = df["approach"].map({"pattern": "ONE", "naive": "QUORUM"})
    df["approach"] = df["consistency"]
    from labkit.lessons import pattern_settings, ratio_at_point as lesson_ratio

    assert "consistency" in pattern_settings(df) and "consistency" not in condition_keys(df, "ONE", "QUORUM", pattern_settings(df))
    found = lesson_ratio(df, "ONE", "QUORUM")
    assert found.where() == "at 8 threads, 1 node" and found.interval.pairs == 3


def test_rows_that_name_no_condition_still_give_one_intervals_text():
    bare = [{"approach": a, "repeat": r, "throughput": v} for r in range(3) for a, v in (("naive", 100), ("pattern", 200 + r))]
    found = ratio_at_point(bare, "pattern", "naive")
    assert found.where() == "" and found.text() == found.interval.text() and found.interval.pairs == 3


def test_no_run_of_both_is_none():
    assert ratio_at_point(rows({10: 2.0}).query("approach == 'naive'"), "pattern", "naive") is None
    assert ratio_at_point(pd.DataFrame(), "pattern", "naive") is None


# ---- the card ------------------------------------------------------------------------------------------

@pytest.fixture
def asked(monkeypatch, tmp_path):
    from labkit.lessons import Lesson

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: None)
    lesson = Lesson("03_enumerable_keys", (Question("winner", "Which adds more comments per second?", "choice", options=("rows", "list", TIE)),))

    def ask(prediction):
        boxes = lesson.ask({} if prediction is None else {"winner": prediction})  # none: a batch run that skips it
        boxes.require("winner")
        return boxes
    return ask


def test_the_card_names_the_condition_and_says_too_few_repeats_for_one_run_per_point(asked):
    card = asked("rows").card_which("winner", ratio_at_point(rows(WRITE_RATIOS), "pattern", "naive"), "rows", "list", "CPU.", what="comments per second")
    assert card["verdict"] == TOO_FEW
    assert card["measured"].startswith("rows / list, comments per second at 100 threads, 1 node: 7.3x (one pair, too few repeats for an interval)")
    assert "4 points, 1.7x-7.3x over 10-100 threads (a range: no interval across conditions)" in card["measured"]
    assert "; 3 or more repeats at one point give an interval (the panel's repeats);" in card["measured"]


def test_a_condition_is_said_in_plain_words():
    """Whole floats (a column pandas read as floats) as whole numbers, and cores in the plural above one."""
    from labkit.results.intervals import _plain, _span, _unit

    assert _plain(40.0) == 40 and isinstance(_plain(40.0), int) and _plain(0.15) == 0.15 and _plain(float("nan")) is None
    assert [_unit("node_cpu", v) for v in (0.15, 1, 1.0, 1.5, 2)] == [
        "0.15 core per node", "1 core per node", "1 core per node", "1.5 cores per node", "2 cores per node"]
    assert _span("node_cpu", [0.15, 0.5]) == "0.15-0.5 core per node" and _span("node_cpu", [0.5, 2]) == "0.5-2 cores per node"
    assert _span("node_cpu", [None, 0.15, 0.25]) == "unbudgeted and 0.15, 0.25 core per node"
    df = rows({40: 2.0}, repeats=3).astype({"threads": float, "nodes": float})
    assert ratio_at_point(df, "pattern", "naive").where() == "at 40 threads, 1 node"  # not "40.0 threads, 1.0 nodes"
    budgeted = rows({40: 2.0}, repeats=3, node_cpu=2.0)
    assert ratio_at_point(budgeted, "pattern", "naive").where() == "at 40 threads, 1 node, 2 cores per node"


def test_the_card_judges_from_the_one_conditions_interval(asked):
    df = pd.concat([rows({10: 0.9, 40: 1.1}), rows({100: 3.0}, repeats=3)], ignore_index=True)
    card = asked("rows").card_which("winner", ratio_at_point(df, "pattern", "naive"), "rows", "list", "CPU.")
    assert card["verdict"] == RIGHT and ", per second at 100 threads, 1 node: 3.0x (" in card["measured"]
    level = rows({100: 1.0}, repeats=3)  # the interval holds 1: naming a winner is wrong, the tie is right
    assert asked("rows").card_which("winner", ratio_at_point(level, "pattern", "naive"), "rows", "list", "CPU.")["verdict"] == WRONG
    assert asked(TIE).card_which("winner", ratio_at_point(level, "pattern", "naive"), "rows", "list", "CPU.")["verdict"] == RIGHT


def test_the_class_view_reads_the_winner_from_a_card_that_names_its_condition(asked):
    from labkit.class_view import measured_answer

    df = pd.concat([rows({10: 0.9, 40: 1.1}), rows({100: 3.0}, repeats=3)], ignore_index=True)
    boxes = asked("rows")
    card = boxes.card_which("winner", ratio_at_point(df, "pattern", "naive"), "rows", "list", "CPU.")
    assert measured_answer(boxes["winner"].question, "rows", card["measured"], card["verdict"]) == "rows"
    few = asked("rows").card_which("winner", ratio_at_point(rows(WRITE_RATIOS), "pattern", "naive"), "rows", "list", "CPU.")
    assert measured_answer(boxes["winner"].question, "rows", few["measured"], few["verdict"]) == TOO_FEW


def test_the_class_view_takes_the_winner_from_the_cards_verdict_not_its_rounded_bounds(asked):
    """An interval of 1.0014-1.28 excludes 1 but prints "(1.00-1.3)": read back from the printed bounds, the low one is
    not above 1 and the card looked like noise. A judged card's verdict says who won; an unjudged one (no prediction)
    is read from the bound that is not 1.00."""
    from labkit.class_view import measured_answer
    from labkit.predictions import ABSENT, WRONG

    df = pd.DataFrame([{"approach": a, "repeat": r, "threads": 8, "nodes": 1, "throughput": v}
                       for r, ratio in enumerate((1.102, 1.1, 1.2)) for a, v in (("naive", 1000.0), ("pattern", 1000.0 * ratio))])
    compared = ratio_at_point(df, "pattern", "naive")
    assert 1.0 < compared.interval.low < 1.005 and compared.interval.text() == "1.1x (1.00-1.3)"
    for prediction, verdict in (("rows", RIGHT), ("list", WRONG), (None, ABSENT)):
        boxes = asked(prediction)
        card = boxes.card_which("winner", compared, "rows", "list", "CPU.")
        assert card["verdict"] == verdict
        assert measured_answer(boxes["winner"].question, prediction, card["measured"], card["verdict"]) == "rows", prediction


def test_the_card_refuses_an_interval_that_names_no_condition(asked):
    with pytest.raises(TypeError, match="ratio_at_point"):
        asked("rows").card_which("winner", ratio_interval([2.0, 2.1, 2.2]), "rows", "list", "CPU.")


# ---- nothing pools conditions any more --------------------------------------------------------------------

def sources() -> dict[str, str]:
    """Every notebook's, exercise's and solution's code cells, and every Python file of labkit and benchmarks."""
    found = {}
    for folder in ("notebooks", "exercises", "solutions"):
        for path in sorted((ROOT / folder).rglob("*.ipynb")):
            cells = json.loads(path.read_text())["cells"]
            found[str(path.relative_to(ROOT))] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for folder in ("labkit", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            found[str(path.relative_to(ROOT))] = path.read_text()
    return found


def test_nothing_calls_the_pooled_ratio_any_more():
    """`pooled_ratio` paired the runs of every thread and node count into one "95% interval"."""
    import labkit.lessons

    assert not hasattr(labkit.lessons, "pooled_ratio")
    users = [name for name, text in sources().items() if "pooled_ratio" in text]
    assert not users, f"still calling pooled_ratio: {users}"


def test_every_which_card_in_the_notebooks_is_given_one_conditions_ratio():
    calls = {name: re.findall(r"card_which\(\s*\"[^\"]+\",\s*([a-z_]+)\(", text) for name, text in sources().items() if "card_which(" in text}
    calls = {name: found for name, found in calls.items() if name.startswith("notebooks/")}
    assert calls, "no notebook shows a which-is-faster card"
    assert all(found and set(found) == {"ratio_at_point"} for found in calls.values()), calls
    texts = sources()
    lesson_import = re.compile(r"from labkit\.lessons import [^\n]*\bratio_at_point\b")  # the one that knows the pattern's settings
    assert all(lesson_import.search(texts[name]) for name in calls), [name for name in calls if not lesson_import.search(texts[name])]


def test_growth_with_the_nodes_compares_runs_of_one_thread_count():
    """The budgeted growth card compares node counts; a sweep of two thread counts is compared at its most threads,
    not pooled (at 16 threads nothing grew here, at 96 the throughput tripled)."""
    from labkit.lessons import growth_with_nodes

    runs = [{"approach": "pattern", "nodes": n, "threads": t, "repeat": r, "throughput": (300.0 if (n, t) == (3, 96) else 100.0) * (1 + r / 50)}
            for n in (1, 3) for t in (16, 96) for r in range(3)]
    grew = growth_with_nodes(runs, {"the pattern": "pattern"}, 1, 3)["the pattern"]
    assert grew.estimate == pytest.approx(3.0) and grew.pairs == 3


def test_a_range_whose_ends_print_alike_says_so_once():
    from labkit.results.intervals import PointRatio, RatioInterval

    alike = PointRatio(RatioInterval(4.1, 4.1, 4.1, 1, "spread"), (("threads", 8),), 2, 4.08, 4.12, (("threads", (2, 8)),))
    assert alike.range_text() == "2 points, 4.1x at each over 2-8 threads (a range: no interval across conditions)"
    apart = PointRatio(RatioInterval(4.1, 4.1, 4.1, 1, "spread"), (("threads", 8),), 2, 1.7, 7.3, (("threads", (2, 8)),))
    assert apart.range_text().startswith("2 points, 1.7x-7.3x over 2-8 threads")
