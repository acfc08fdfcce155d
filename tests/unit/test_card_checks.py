"""Cards without a verdict fail (#67 item 2): labkit.predictions.cards_in finds every result card a notebook's
outputs hold, and card_problems names each one that judged nothing it can stand behind. Every check is shown to
pass on a good card and to fail once on a bad one, on hand-made notebook nodes."""

from __future__ import annotations

import json

import nbformat
import pytest

from labkit.predictions import ABSENT, CARD_MIME, JUDGED, NOISE, RIGHT, TOO_FEW, VERDICTS, WRONG, card_problems, cards_in, collected


def card(question="q", prediction=3, measured=3, verdict=RIGHT, **more):
    return {"notebook": "02_index_table", "question": question, "prediction": prediction, "measured": measured, "verdict": verdict, **more}


def notebook(*cards, cell_id="c1"):
    """One code cell showing each card as the result card does (its own MIME type beside text), plus a markdown
    cell and a plain output, which hold no card."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("asked.card(...)")
    cell["id"] = cell_id
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="not a card\n")]
    cell.outputs += [nbformat.v4.new_output("display_data", data={CARD_MIME: c, "text/plain": "the card"}) for c in cards]
    nb.cells = [nbformat.v4.new_markdown_cell("# a lesson"), cell]
    return nb


def test_cards_in_finds_every_card_with_the_cell_that_showed_it():
    nb = notebook(card("a"), card("b", verdict=WRONG, prediction=2))
    found = cards_in(nb)
    assert [(c["question"], c["verdict"], c["cell"]) for c in found] == [("a", RIGHT, "c1"), ("b", WRONG, "c1")]
    assert cards_in(json.loads(nbformat.writes(nb))) == found  # the notebook's JSON as a dict reads the same
    assert cards_in(notebook()) == []


def test_a_sound_card_of_every_verdict_has_no_problem():
    nb = notebook(card("right"), card("wrong", prediction=2, verdict=WRONG), card("noise", measured="1.1x (0.9-1.3, within noise)", verdict=NOISE),
                  card("too few", measured="not measured (no run of both)", verdict=TOO_FEW), card("absent", prediction=None, verdict=ABSENT),
                  card("zero", prediction=0, measured=0))
    assert card_problems(nb) == []
    assert set(JUDGED) < set(VERDICTS)


@pytest.mark.parametrize("bad, problem", [
    (card(verdict=None), "card q in cell c1: no verdict"),
    ({k: v for k, v in card().items() if k != "verdict"}, "card q in cell c1: no verdict"),
    (card(verdict="correct"), "card q in cell c1: verdict 'correct' is none of"),
    (card(verdict=ABSENT), "card q in cell c1: verdict 'no prediction' though the card holds the prediction 3"),
    (card(prediction=None, verdict=WRONG), "card q in cell c1: verdict 'wrong' without a prediction"),
    (card(measured=None), "card q in cell c1: verdict 'right' without a measured value (measured: None)"),
    (card(measured=""), "card q in cell c1: verdict 'right' without a measured value"),
    (card(measured="not measured", verdict=WRONG), "card q in cell c1: verdict 'wrong' without a measured value (measured: 'not measured')"),
    (card(measured="not confirmed", verdict=NOISE), "card q in cell c1: verdict 'within noise' without a measured value"),
    ("right", "card (no question) in cell c1: no verdict"),
], ids=["none", "missing", "unknown", "absent-with-prediction", "judged-without-prediction", "measured-none", "measured-empty",
        "not-measured-text", "noise-not-confirmed", "not-a-mapping"])
def test_each_bad_card_is_named_once(bad, problem):
    problems = card_problems(notebook(card("good"), bad))
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_an_empty_card_is_a_problem_but_no_collected_row(tmp_path):
    nb = notebook({}, card("good"))
    assert card_problems(nb) == ["card (no question) in cell c1: no verdict"]
    path = tmp_path / "submitted" / "ada" / "02_index_table.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    assert [(r["student"], r["question"], r["verdict"]) for r in collected([tmp_path])] == [("ada", "good", RIGHT)]


def test_a_result_card_as_the_widget_shows_it_has_no_problem(monkeypatch, tmp_path):
    """The card the lessons display (labkit.widgets.prediction.result_card) passes, judged or not predicted."""
    from IPython.display import display  # noqa: F401 (result_card displays through it)

    from labkit.predictions import Question
    from labkit.widgets import prediction as widget

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False, **_kw: shown.append(obj))
    question = Question("nodes", "How many nodes?", "count", low=1, high=8)
    for answer in (3, None):
        box = widget.PredictionBox(question, {"nodes": answer} if answer is not None else {}, notebook="02_index_table")
        widget.result_card(box, 3, "the trace", keep=False)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("asked.card(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data=obj) for obj in shown]
    nb.cells = [cell]
    assert [c["verdict"] for c in cards_in(nb)] == [RIGHT, ABSENT]
    assert card_problems(nb) == []


def test_a_card_that_lost_the_answer_a_batch_run_gave_is_named():
    nb = notebook(card("given", prediction=None, verdict=ABSENT), card("not given", prediction=None, verdict=ABSENT))
    assert card_problems(nb) == []
    assert card_problems(nb, answered={"given": 3}) == ["card given in cell c1: verdict 'no prediction' though the run answered it"]
