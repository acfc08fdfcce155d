"""A lesson notebook executed as make test executes it: at the `smoke` sizes, on real servers, with an answer
given to every question, then checked: a raised cell (a verification cell asserts what its runs verified) fails
the execution, and every result card must carry a verdict on the answer given. Shared by tests/lessons and the
nbgrader lesson flow (tests/notebooks), so each lesson executes once and is checked the same way."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import nbformat
import papermill as pm

import labkit.lessons
from labkit.predictions import KINDS, Question, card_problems, cards_in

REPO = Path(__file__).resolve().parents[1]
CELL_TIMEOUT = 900


def lessons() -> dict[str, Any]:
    """notebook name -> its LESSON (the questions it asks), from labkit.lessons' modules."""
    found = {}
    for info in pkgutil.iter_modules(labkit.lessons.__path__):
        lesson = getattr(importlib.import_module(f"labkit.lessons.{info.name}"), "LESSON", None)
        if lesson is not None:
            found[lesson.notebook] = lesson
    return found


def an_answer(question: Question) -> Any:
    """Some answer each question takes (the first option, the lowest count): what matters here is that the
    card judges it, not that it is right."""
    assert question.kind in KINDS
    if question.kind == "choice":
        return question.options[0]
    low = question.low if question.low is not None else 1
    return question.checked(max(low, 1) if question.kind != "ratio" else max(low, 1.0))


def execute_lesson(name: str, out: Path, source: Path | None = None, answers: dict[str, Any] | None = None,
                   **parameters: Any) -> nbformat.NotebookNode:
    """The lesson (`source`: a copy of it, e.g. one nbgrader released) at the smoke sizes with an answer to every
    question (`answers` replace some); a raised cell fails the test with its error."""
    answers = {**{q.key: an_answer(q) for q in lessons()[name].questions}, **(answers or {})}
    source = source or REPO / "notebooks" / f"{name}.ipynb"
    pm.execute_notebook(str(source), str(out), cwd=str(source.parent), progress_bar=False,
                        execution_timeout=CELL_TIMEOUT, parameters={"profile": "smoke", "predictions": answers, **parameters})
    return nbformat.read(out, as_version=4)


def check_lesson(nb: nbformat.NotebookNode) -> None:
    """The lesson showed result cards, and each carries a verdict it can stand behind (labkit.predictions.card_problems):
    every question was answered (the `predictions` papermill gave it), so a "no prediction" card is one that lost it."""
    cards = cards_in(nb)
    assert cards, "the lesson showed no result card"
    answered = nb.metadata.get("papermill", {}).get("parameters", {}).get("predictions") or {}
    problems = card_problems(nb, answered=answered)
    assert problems == [], "cards without a verdict they can stand behind:\n" + "\n".join(problems)
