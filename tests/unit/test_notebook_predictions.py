"""Predict, run, explain (#48): in a converted lesson notebook every live experiment is preceded by the
student's prediction, no text before a run states its outcome, and the prose stays short.

A live experiment is a code cell tagged `experiment`, or one that starts or runs against a cluster (a
panel, a sweep, a trace, a fault), tagged or not. It asks first: `asked.require("key")` or `ControlPanel(...).ask_first(asked["key"])`, and the
question's box (`asked.show("key")`) comes earlier. A cell tagged `evidence` reads the servers' account of
the experiment just before it (a second trace of the same run) and asks nothing new; one tagged `setup`
starts the cluster the lesson runs on, which has no outcome to predict. A question's
give-aways (labkit.lessons.<notebook>: the words that state its answer in substance) must not appear in any
markdown cell before the experiment that answers it, nor in the text of a question shown before it, and the
parameters cell's example of `predictions` must not be the committed answer (Question.expected). Words are
counted in markdown outside fenced code blocks (SQL, diagrams, commands are not prose): the first screen (title to the first code cell) at most 200, the body up to the closing section
("## What the classroom runs measured", where the committed figures go) at most 1,400.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import importlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from labkit.errors import ConfigError

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
ASKS = re.compile(r"""asked\.require\(((?:["']\w+["'](?:,\s*)?)+)\)|ask_first\(asked\[["'](\w+)["']\]""")
KEY = re.compile(r"""["'](\w+)["']""")


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
    return experiments_in(cells(name))


def experiments_in(the_cells: list[dict]) -> list[tuple[int, set[str]]]:
    found = []
    for i, cell in enumerate(the_cells):
        if cell["cell_type"] != "code" or {"evidence", "parameters", "setup"} & set(cell["metadata"].get("tags", [])):
            continue
        text = source(cell)
        tagged = "experiment" in cell["metadata"].get("tags", [])
        if tagged or (EXPERIMENT.search(text) and "LESSON.ask(" not in text):  # the setup cell makes the boxes (and may start the cluster)
            found.append((i, {key for required, panel in ASKS.findall(text) for key in (KEY.findall(required) if required else [panel])}))
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


def said(text: str) -> str:
    """Text as the checks read it: lower case, without markdown's emphasis and code marks or a diagram's line
    breaks (`**every** key` says "every key"), whitespace made single spaces."""
    text = re.sub(r"<br\s*/?>", " ", text)
    return re.sub(r"\s+", " ", re.sub(r"[*`]", "", text)).strip().lower()


def says(text: str, phrase: str) -> bool:
    """`text` says `phrase`, as whole words ("fails" is not found in "failsafe"), both read by `said`."""
    return re.search(r"(?<!\w)" + re.escape(said(phrase)) + r"(?!\w)", said(text)) is not None


def answers_said_first(the_cells: list[dict], questions) -> list[str]:
    """One line per give-away found before the run that answers its question: in the markdown of every cell
    before the experiment, or in the text of any question whose box is shown before it (its own included).
    `questions` is the lesson's questions by key (their text with the run's facts left as {name})."""
    found = []
    for i, keys in experiments_in(the_cells):
        shown = {key for c in the_cells[:i] if c["cell_type"] == "code" for key in SHOW.findall(source(c))}
        before = [source(c) for c in the_cells[:i] if c["cell_type"] == "markdown"] + [questions[k].text for k in sorted(shown) if k in questions]
        text = " ".join(before)
        for key in sorted(keys):
            found += [f"cell {i} answers {key!r}, and the text before it says {phrase!r}" for phrase in questions[key].giveaways if says(text, phrase)]
    return found


def by_key(name: str) -> dict:
    the_lesson = lesson(name)
    return {q.key: the_lesson.question(q.key) for q in the_lesson.questions}


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_no_text_before_a_run_gives_its_outcome_away(name):
    questions = by_key(name)
    assert all(q.giveaways for q in questions.values()), f"{name}: questions without give-aways: {[k for k, q in questions.items() if not q.giveaways]}"
    said_first = answers_said_first(cells(name), questions)
    assert not said_first, f"{name}: the answers are in the text before their runs (move the mechanism after the run):\n" + "\n".join(said_first)


EXAMPLE = re.compile(r"^predictions\s*=[^\n]*?e\.g\.\s*(\{[^\n]*?\})", re.M)
"""The parameters cell's example of the `predictions` parameter: `predictions = None  # ... e.g. {"key": value}; ...`."""


def example_problems(the_cells: list[dict], questions) -> list[str]:
    """What is wrong with the parameters cell's example of `predictions`: none given, a question the lesson does
    not ask or one without a committed answer to judge it by (Question.expected), a value the question does not
    take, or the committed answer itself (a student reads the parameters before the first run)."""
    parameters = [source(c) for c in the_cells if c["cell_type"] == "code" and "parameters" in c["metadata"].get("tags", [])]
    found = EXAMPLE.search(parameters[0]) if parameters else None
    if found is None:
        return ["the parameters cell gives no example of `predictions` (`# ... e.g. {\"key\": value}`)"]
    example = ast.literal_eval(found.group(1))
    if not isinstance(example, dict) or not example:
        return [f"the example {found.group(1)} names no question"]
    problems = []
    for key, value in example.items():
        question = questions.get(key)
        if question is None or question.expected is None:
            problems.append(f"{key}: {'no such question' if question is None else 'no committed answer declared (expected)'}, so the "
                            "example cannot be shown not to be the answer; give the example for a question with one")
            continue
        try:
            right = question.is_expected(value)
        except ConfigError as error:  # the value is none the question takes
            problems.append(f"{key}: the example {value!r} is no answer to it ({error})")
            continue
        if right:
            problems.append(f"{key}: the example {value!r} is the committed answer ({question.expected!r}); give a wrong one")
    return problems


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_the_parameters_example_is_not_an_answer(name):
    problems = example_problems(cells(name), by_key(name))
    assert not problems, f"{name}: the `predictions` example in the parameters cell:\n" + "\n".join(problems)


ANSWERED_BY_THE_CARD_ONLY = {
    ("01_uuid_key.ipynb", "couchbase_lost"): "the notebook's text states no Couchbase result; the run's card alone answers",
}
"""Questions whose answer no text of the notebook states: their give-aways are phrasings the text must never use before
the run, not phrases it says after it."""


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_every_question_has_a_giveaway_its_notebook_says(name):
    """The give-away check above guards a question only while one of its phrases is words the notebook really uses
    for the answer (after the run): a question whose every phrase the notebook no longer says is guarded by stale
    words only (as 02's register question was by "0.58x" and "two fifths" once the ratio was given per thread count),
    and the text that now answers it goes unguarded. Older phrasings stay as guards; at least one must be said in
    the markdown after the question's run."""
    the_cells = cells(name)
    run_at = {}
    for i, keys in experiments(name):
        run_at.update({key: i for key in keys if key not in run_at})
    unguarded = []
    for q in by_key(name).values():
        after = " ".join(source(c) for c in the_cells[run_at.get(q.key, 0) + 1:] if c["cell_type"] == "markdown")
        if (name, q.key) not in ANSWERED_BY_THE_CARD_ONLY and q.giveaways and not any(says(after, phrase) for phrase in q.giveaways):
            unguarded.append(f"{q.key}: {', '.join(map(repr, q.giveaways))}")
    assert not unguarded, (f"{name}: questions none of whose give-aways the notebook says (add the words that now answer "
                           "each):\n" + "\n".join(unguarded))


def disagreements(questions: dict, rows: list[dict]) -> list[str]:
    """One line per question (notebook -> key -> Question) whose declared `expected` is not what a classroom row
    (notebook, question, measured, measured_answer) measured; rows that name no answer (withdrawn, too few repeats,
    within noise) and questions that declare none are passed over."""
    found = []
    for row in rows:
        question = questions.get(row["notebook"], {}).get(row["question"])
        if question is None or question.expected is None:
            continue
        try:
            agrees = question.is_expected(float(row["measured_answer"]) if question.kind != "choice" else row["measured_answer"])
        except (ConfigError, ValueError):
            continue
        if not agrees:
            found.append(f"{row['notebook']} {row['question']}: expected {question.expected!r}, the classroom run measured {row['measured']!r}")
    return found


def test_each_committed_answer_is_the_classroom_runs():
    """A declared `expected` is what the committed classroom run measured, where that run's row names an answer
    (benchmarks/results/classroom_answers.csv); the others come from the closing sections' committed rows."""
    rows = list(csv.DictReader((ROOT / "benchmarks" / "results" / "classroom_answers.csv").open()))
    assert not disagreements({name.removesuffix(".ipynb"): by_key(name) for name in CONVERTED}, rows)
    from labkit.predictions import Question

    three = {"05": {"merged": Question("merged", "How many?", "count", low=0, high=10, expected=2)}}
    assert disagreements(three, [{"notebook": "05", "question": "merged", "measured": "3", "measured_answer": "3"}])  # this test's own guard


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
    old = subprocess.run(["git", "show", f"f1783dc:notebooks/{name}"], cwd=ROOT, capture_output=True, text=True)
    if old.returncode != 0:
        pytest.skip("not a git checkout with the old notebooks")
    text = " ".join(source(c) for c in json.loads(old.stdout)["cells"] if c["cell_type"] == "markdown")
    said_there = [p for q in lesson(name).questions for p in q.giveaways if says(text, p)]
    assert said_there, f"the old {name} stated its outcomes before the runs"


BEFORE_70 = "588a170"
"""The notebooks and questions as they stood when #70 item 3 was filed: the answers in substance above the questions."""
SAID_FIRST_BEFORE_70 = {
    "00_getting_started.ipynb": {"faster_level", "quorum_replicas", "kill_reads"},
    "01_uuid_key.ipynb": {"claim_dc", "ireland_slower", "partition_lost", "uuid_lost"},
    "02_index_table.ipynb": {"index_nodes", "mongo_shards"},
    "03_enumerable_keys.ipynb": {"write_winner", "volume_slowdown", "page_winner"},
    "04_fan_out_on_write.ipynb": {"page_nodes", "post_winner"},
    "05_ycsb_workloads.ipynb": {"sstables_merged", "index_saving"},
    "06_tactics.ipynb": {"index_fails", "cpu_limit"},
    "07_distorted_replicas.ipynb": {"three_group_requests"},
    "08_your_design.ipynb": {"index_page_partitions", "mix_winner", "room_days"},
    "09_hbase_regions.ipynb": {"sequential_regions"},
}
"""The questions whose answer the text before their run said then, each found by today's give-aways (#70's examples
among them: 02's local indexes, 01's counter "which lives in dc1 only", 05's "every on-disk SSTable", 06's planner
"before it has been built", 03's list that "reads back whole for a page")."""


def old_questions(name: str) -> dict | None:
    """The lesson's questions with their text as of BEFORE_70 (read from that commit's module, not imported), and
    today's give-aways and expected answers; None where git cannot show it."""
    module = CONVERTED[name].replace(".", "/") + ".py"
    old = subprocess.run(["git", "show", f"{BEFORE_70}:{module}"], cwd=ROOT, capture_output=True, text=True)
    if old.returncode != 0:
        return None
    texts = {}
    for node in ast.walk(ast.parse(old.stdout)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Question":
            texts[ast.literal_eval(node.args[0])] = ast.literal_eval(node.args[1])
    return {key: dataclasses.replace(q, text=texts.get(key, q.text)) for key, q in by_key(name).items()}


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_the_checks_fail_on_the_notebooks_as_they_stood_when_70_was_filed(name):
    """Neither check is vacuous: on each notebook and question text of BEFORE_70, the give-aways find the answers
    said above the questions listed in SAID_FIRST_BEFORE_70 (and no others), and the example check refuses the
    parameters cells whose example was the answer (all but 09's, whose {"sequential_regions": 16} is wrong)."""
    old = subprocess.run(["git", "show", f"{BEFORE_70}:notebooks/{name}"], cwd=ROOT, capture_output=True, text=True)
    questions = old_questions(name)
    if old.returncode != 0 or questions is None:
        pytest.skip("not a git checkout with the old notebooks")
    old_cells = json.loads(old.stdout)["cells"]
    said_first = answers_said_first(old_cells, questions)
    assert {re.search(r"answers '(\w+)'", line).group(1) for line in said_first} == SAID_FIRST_BEFORE_70[name], "\n".join(said_first)
    assert bool(example_problems(old_cells, questions)) == (name != "09_hbase_regions.ipynb"), example_problems(old_cells, questions)


def tiny_notebook(*cells_: tuple[str, str], parameters: str = "predictions = None  # e.g. {\"nodes\": 1}") -> list[dict]:
    """Cells for the checks: a parameters cell, then (kind, source) pairs; kind "run" is an experiment cell."""
    made = [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": parameters}]
    for kind, text in cells_:
        made.append({"cell_type": "markdown" if kind == "md" else "code",
                     "metadata": {"tags": ["experiment"]} if kind == "run" else {}, "source": text})
    return made


def test_the_checks_find_an_answer_said_first_in_a_small_notebook():
    from labkit.predictions import Question

    nodes = Question("nodes", "How many nodes will one login touch?", "count", low=1, high=8, expected=3, giveaways=("every node", "fails"))
    questions = {"nodes": nodes}
    run = [("code", 'asked.show("nodes")'), ("run", 'asked.require("nodes")')]
    assert answers_said_first(tiny_notebook(("md", "A login reads one table."), *run, ("md", "It asked **every**\nnode.")), questions) == []
    assert answers_said_first(tiny_notebook(("md", "It asks **every**\nnode."), *run), questions) == ["cell 3 answers 'nodes', and the text before it says 'every node'"]
    assert answers_said_first(tiny_notebook(("md", "A failsafe login."), *run), questions) == []  # whole words only
    stated = {"nodes": Question("nodes", "Every node holds an index. How many?", "count", low=1, high=8, giveaways=("every node",))}
    assert answers_said_first(tiny_notebook(*run), stated) == ["cell 2 answers 'nodes', and the text before it says 'every node'"]  # the question's own text
    assert example_problems(tiny_notebook(parameters='predictions = None  # e.g. {"nodes": 5}'), questions) == []
    assert example_problems(tiny_notebook(parameters='predictions = None  # e.g. {"nodes": 3}'), questions) == [
        "nodes: the example 3 is the committed answer (3); give a wrong one"]
    assert example_problems(tiny_notebook(parameters='predictions = None  # e.g. {"nodes": 9}'), questions)[0].startswith("nodes: the example 9 is no answer")
    assert example_problems(tiny_notebook(parameters="predictions = None"), questions)[0].startswith("the parameters cell gives no example")
    unknown = {"nodes": Question("nodes", "How many?", "count", low=1, high=8)}
    assert "no committed answer declared" in example_problems(tiny_notebook(parameters='predictions = None  # e.g. {"nodes": 5}'), unknown)[0]


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
