"""Predict, run, explain (#48): in a converted lesson notebook every live experiment is preceded by the
student's prediction, no text before a run states its outcome, and the prose stays short.

A live experiment is a code cell tagged `experiment`, or one that starts or runs against a cluster (a
panel, a sweep, a trace, a fault), tagged or not. It asks first: `asked.require("key")` or `ControlPanel(...).ask_first(asked["key"])`, and the
question's box (`asked.show("key")`) comes earlier. A cell tagged `evidence` reads the servers' account of
the experiment just before it (a second trace of the same run) and asks nothing new; one tagged `setup`
starts the cluster the lesson runs on, which has no outcome to predict. A question's
give-aways (labkit.lessons.<notebook>) must not appear in any markdown cell before the experiment that
answers it. Words are counted in markdown outside fenced code blocks (SQL, diagrams, commands are not prose):
the first screen (title to the first code cell) at most 200, the body up to the closing section
("## What the classroom runs measured", where the committed figures go) at most 1,400.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONVERTED = {
    "00_getting_started.ipynb": "labkit.lessons.getting_started",
    "01_uuid_key.ipynb": "labkit.lessons.uuid_key",
    "02_index_table.ipynb": "labkit.lessons.index_table",
    "03_enumerable_keys.ipynb": "labkit.lessons.enumerable_keys",
    "04_fan_out_on_write.ipynb": "labkit.lessons.fan_out",
    "05_ycsb_workloads.ipynb": "labkit.lessons.ycsb",
    "06_tactics.ipynb": "labkit.lessons.tactics",
    "07_distorted_replicas.ipynb": "labkit.lessons.distorted_replicas",
    "08_your_design.ipynb": "labkit.lessons.your_design",
    "09_hbase_regions.ipynb": "labkit.lessons.hbase_regions",
}
"""The notebooks already in predict-run-explain form, and the module holding each one's questions."""
CLOSING = "## What the classroom runs measured"
EXPERIMENT = re.compile(r"ControlPanel\(|run_pattern_sweep\(|\.ensure\(|\btrace\w*\(|\.trace\(|partition\(|partition_test\(|both_tests\(|kill_node|\.cut\(")
SHOW = re.compile(r"""asked\.show\(["'](\w+)["']\)""")
ASKS = re.compile(r"""asked\.require\(["'](\w+)["']\)|ask_first\(asked\[["'](\w+)["']\]""")


def cells(name: str) -> list[dict]:
    return json.loads((ROOT / "notebooks" / name).read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def prose_words(text: str) -> int:
    return len(re.findall(r"\S+", re.sub(r"```.*?```", "", text, flags=re.S)))


def lesson(name: str):
    return importlib.import_module(CONVERTED[name]).LESSON


def experiments(name: str) -> list[tuple[int, set[str]]]:
    """(cell index, keys it asks) of each live experiment; an `evidence` cell is not one."""
    found = []
    for i, cell in enumerate(cells(name)):
        if cell["cell_type"] != "code" or {"evidence", "parameters", "setup"} & set(cell["metadata"].get("tags", [])):
            continue
        text = source(cell)
        tagged = "experiment" in cell["metadata"].get("tags", [])
        if tagged or (EXPERIMENT.search(text) and "LESSON.ask(" not in text):  # the setup cell makes the boxes (and may start the cluster)
            found.append((i, {a or b for a, b in ASKS.findall(text)}))
    return found


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_every_live_experiment_asks_for_a_prediction_shown_before_it(name):
    shown_at = {key: i for i, cell in enumerate(cells(name)) if cell["cell_type"] == "code" for key in SHOW.findall(source(cell))}
    runs = experiments(name)
    assert runs, f"{name}: no live experiment found"
    for i, keys in runs:
        assert keys, f"{name} cell {i} runs against a cluster without asking for a prediction first: {source(cells(name)[i])[:120]!r}"
        for key in keys:
            assert key in shown_at and shown_at[key] < i, f"{name} cell {i} asks {key!r}, whose box is not shown before it"
    asked = {key for _i, keys in runs for key in keys}
    questions = [q.key for q in lesson(name).questions]
    assert set(questions) == asked == set(shown_at), f"{name}: questions {questions}, asked {sorted(asked)}, shown {sorted(shown_at)}"
    assert 3 <= len(questions) <= 6


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_no_text_before_a_run_gives_its_outcome_away(name):
    the_cells = cells(name)
    for i, keys in experiments(name):
        before = " ".join(re.sub(r"\s+", " ", source(c)) for c in the_cells[:i] if c["cell_type"] == "markdown").lower()
        for key in keys:
            question = lesson(name).question(key)
            assert question.giveaways, f"{name}: question {key!r} lists no give-aways"
            for phrase in question.giveaways:
                assert phrase.lower() not in before, f"{name}: the text before cell {i} says {phrase!r}, the answer to {key!r}"


ANSWERED_BY_THE_CARD_ONLY = {
    ("01_uuid_key.ipynb", "couchbase_lost"): "the notebook's text states no Couchbase result; the run's card alone answers",
    ("02_index_table.ipynb", "mongo_shards"): "the notebook's text states no MongoDB result; section 5's explain output alone answers",
}
"""Questions whose answer no text of the notebook states: their give-aways are phrasings the text must never use before
the run, not phrases it says after it."""


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_every_question_has_a_giveaway_its_notebook_says(name):
    """The give-away check above guards a question only while one of its phrases is words the notebook really uses
    for the answer (after the run): a question whose every phrase the notebook no longer says is guarded by stale
    words only (as 02's register question was by "0.58x" and "two fifths" once the ratio was given per thread count),
    and the text that now answers it goes unguarded. Older phrasings stay as guards; at least one must be said."""
    text = " ".join(re.sub(r"\s+", " ", source(c)) for c in cells(name) if c["cell_type"] == "markdown").lower()
    unguarded = [f"{q.key}: {', '.join(map(repr, q.giveaways))}" for q in lesson(name).questions
                 if (name, q.key) not in ANSWERED_BY_THE_CARD_ONLY and q.giveaways
                 and not any(phrase.lower() in text for phrase in q.giveaways)]
    assert not unguarded, (f"{name}: questions none of whose give-aways the notebook says (add the words that now answer "
                           "each):\n" + "\n".join(unguarded))


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_the_first_screen_and_the_body_stay_short(name):
    the_cells = cells(name)
    first_code = next(i for i, c in enumerate(the_cells) if c["cell_type"] == "code")
    first = sum(prose_words(source(c)) for c in the_cells[:first_code])
    closing = [i for i, c in enumerate(the_cells) if c["cell_type"] == "markdown" and source(c).startswith(CLOSING)]
    assert closing, f"{name}: no closing section {CLOSING!r} for the classroom figures"
    body = sum(prose_words(source(c)) for c in the_cells[:closing[0]] if c["cell_type"] == "markdown")
    assert first <= 200, f"{name}: the first screen holds {first} words (at most 200)"
    assert body <= 1400, f"{name}: the body holds {body} words of prose (at most 1,400)"
    last_run = max(i for i, _keys in experiments(name))
    assert closing[0] > last_run, f"{name}: the classroom figures come after the student's own runs"


@pytest.mark.parametrize("name", ["02_index_table.ipynb", "04_fan_out_on_write.ipynb", "08_your_design.ipynb"])
def test_the_check_fails_on_the_notebooks_that_stated_their_outcomes_first(name):
    """The give-away check is not vacuous: these notebooks, as they stood before #48, said the answers before
    their runs ("What to expect", the Forces), and their questions' give-aways find those sentences."""
    import subprocess

    old = subprocess.run(["git", "show", f"f1783dc:notebooks/{name}"], cwd=ROOT, capture_output=True, text=True)
    if old.returncode != 0:
        pytest.skip("not a git checkout with the old notebooks")
    before = re.sub(r"\s+", " ", " ".join(source(c) for c in json.loads(old.stdout)["cells"] if c["cell_type"] == "markdown").lower())
    said = [p for q in lesson(name).questions for p in q.giveaways if p.lower() in before]
    assert said, f"the old {name} stated its outcomes before the runs"


INTERVAL_CARDS = re.compile(r"""card_(?:which|growth)\(["'](\w+)["']""")


def looks_needed(name: str) -> dict[str, set[str]]:
    """question key -> the verdicts its card can give: right and wrong for every question; "too few repeats" too for a
    ratio and for a card judged from intervals (card_which, card_growth)."""
    from labkit.predictions import RIGHT, TOO_FEW, WRONG

    interval_judged = {m for c in cells(name) if c["cell_type"] == "code" for m in INTERVAL_CARDS.findall(source(c))}
    return {q.key: {RIGHT, WRONG} | ({TOO_FEW} if q.kind == "ratio" or q.key in interval_judged else set()) for q in lesson(name).questions}


def missing_looks(questions, needed: dict[str, set[str]]) -> dict[str, list[str]]:
    """question key -> the verdicts it can give that have no sentence (an empty one counts as none)."""
    by_key = {q.key: q for q in questions}
    missing = {key: sorted(want - {v for v, said in by_key[key].look.items() if said.strip()}) for key, want in needed.items()}
    return {k: v for k, v in missing.items() if v}


@pytest.mark.parametrize("name", CONVERTED)
def test_every_card_says_what_to_look_at_for_each_verdict_it_can_give(name):
    assert missing_looks(lesson(name).questions, looks_needed(name)) == {}


def test_the_look_check_sees_a_missing_and_an_empty_sentence():
    from labkit.predictions import RIGHT, TOO_FEW, WRONG, Question

    asked = Question("x", "Which?", "choice", options=("a", "b"), look={RIGHT: "the requests per login", WRONG: " "})
    assert missing_looks([asked], {"x": {RIGHT, WRONG, TOO_FEW}}) == {"x": [TOO_FEW, WRONG]}
