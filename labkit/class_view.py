"""The class's predictions, question by question, for the instructor's screen.

Why: peer instruction asks the room, lets every student commit to an answer, then reveals the run and
discusses it; the reveal works when the room sees how it split. The students' result cards (their saved
notebooks' own outputs, gathered by nbgrader or copied into a folder) carry each prediction beside what that
student's run measured, so the class view needs no live keyspace and never reads one student's namespace
from another's.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections import Counter
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .predictions import ABSENT, NOISE, NOT_MEASURED, RIGHT, TIE, TOO_FEW, WRONG, collected

VERDICTS = (RIGHT, WRONG, NOISE, TOO_FEW, ABSENT, NOT_MEASURED)
CLASSROOM_ANSWERS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "classroom_answers.csv"
"""What the committed classroom-profile run of every notebook measured, per question (benchmarks/classroom_profile.py):
the reference the class's answers are shown beside, next to their own runs. A row whose answer is WITHDRAWN names no
answer: its card's interval pooled several conditions (#68) and the run's rows were not kept to read it per condition."""
WITHDRAWN = "withdrawn (#68)"
"""The reference answer of a withdrawn row: said in the summary and the chart's title, never drawn as an answer."""


def lessons() -> dict[str, Any]:
    """Every lesson notebook's questions (labkit.lessons.<module>.LESSON), by notebook name."""
    from . import lessons as package

    found = {}
    for module in pkgutil.iter_modules(package.__path__):
        lesson = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "LESSON", None)
        if lesson is not None:
            found[lesson.notebook] = lesson
    return found


def class_rows(paths: list[Path]) -> Any:
    """One row per result card under `paths` (an nbgrader course's submitted/ or autograded/ folder, or any
    folder of notebooks): student, notebook, question, its text and kind, prediction, measured, verdict.
    A student who ran a lesson twice has a card per run; the class view keeps each student's last."""
    import pandas as pd

    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise ConfigError(f"no such file or folder: {', '.join(missing)}")
    rows = pd.DataFrame(collected([Path(p) for p in paths]))
    if rows.empty:
        return pd.DataFrame(columns=["student", "file", "notebook", "question", "text", "kind", "prediction", "measured", "verdict", "explanation", "predicted_answer", "measured_answer"])
    known = lessons()
    questions = [question_of(known, n, k) for n, k in zip(rows.notebook, rows.question)]
    rows["text"] = [q.text if q else k for q, k in zip(questions, rows.question)]
    rows["kind"] = [q.kind if q else "" for q in questions]
    rows["predicted_answer"] = [predicted_answer(k, p) for k, p in zip(rows.kind, rows.prediction)]
    rows["measured_answer"] = [measured_answer(q, p, m, v) for q, p, m, v in zip(questions, rows.prediction, rows.measured, rows.verdict)]
    rows["student"] = [s or Path(f).parent.name for s, f in zip(rows.student, rows.file)]  # a plain folder: one student per subfolder
    return rows.drop_duplicates(["student", "notebook", "question"], keep="last").reset_index(drop=True)


def question_of(known: dict[str, Any], notebook: str, key: str) -> Any:
    """The lesson's Question `key` of `notebook`, or None for a card of a lesson or question this lab does not know."""
    lesson = known.get(notebook)
    try:
        return lesson.question(key) if lesson is not None else None
    except ConfigError:
        return None


def measured_answer(q: Any, prediction: Any, measured: Any, verdict: str) -> str:
    """What one student's run answered, in the question's own terms (an option, a count, a factor), so the
    class's predictions and the runs' answers share one axis. A "which is faster" card measures a ratio: its
    answer is the option its interval picked (the card's verdict says which when it judged a prediction, since
    the printed bounds are rounded), or "within noise" / "too few repeats to judge" where the run could not pick
    (other choice cards: the option they name, else the one their verdict implies)."""
    text = _said(measured)
    if q is not None and q.kind == "choice":
        which = re.match(r"(?P<first>.+?) / (?P<second>.+?), [^:]*: [0-9.]+x \((?P<low>[0-9.]+)-(?P<high>[0-9.]+)", text)
        if which and {which["first"], which["second"]} <= set(q.options):  # a card_which ratio: the interval picks
            if "too few repeats" in text:
                return TOO_FEW
            if "within noise" in text:  # the run could not tell them apart: the tie, where the question offers it
                return TIE if TIE in q.options else NOISE
            compared, said = (which["first"], which["second"]), _said(prediction)
            if verdict in (RIGHT, WRONG) and said in compared:  # judged from the interval's own numbers: its verdict says who won
                return said if verdict == RIGHT else next(o for o in compared if o != said)
            # not judged (no prediction): an interval the card does not call within noise excludes 1, and its printed
            # bounds are rounded (a low bound of 1.003 prints "1.00"), so the side of 1 is the bound that is not 1.00
            return which["first"] if float(which["high"]) > 1 else which["second"] if float(which["low"]) < 1 else NOISE
        if "too few repeats" in text:
            return TOO_FEW
        if "within noise" in text:
            return NOISE
        for option in sorted(q.options, key=len, reverse=True):
            if text == option or text.startswith(option + ":"):
                return option
        if verdict in (NOISE, TOO_FEW):
            return verdict
        if verdict == RIGHT:
            return _said(prediction)
        if verdict == WRONG and len(q.options) == 2 and _said(prediction) in q.options:
            return next(o for o in q.options if o != _said(prediction))
        return text
    number = re.match(r"\s*(-?[0-9]+(?:\.[0-9]+)?)", text)
    return f"{float(number.group(1)):.2g}" if number and q is not None and q.kind in ("ratio", "estimate") else text


def predicted_answer(kind: str, prediction: Any) -> str:
    """A prediction on the same axis as `measured_answer` (factors and estimates to two significant digits)."""
    if kind in ("ratio", "estimate") and isinstance(prediction, (int, float)) and not isinstance(prediction, bool):
        return f"{float(prediction):.2g}"
    return _said(prediction)


def _said(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ABSENT
    return f"{value:g}" if isinstance(value, float) else str(value)


def classroom_reference(path: Path = CLASSROOM_ANSWERS) -> dict[tuple[str, str], dict[str, str]]:
    """(notebook, question) -> what the committed classroom run measured: `answer` (on the class view's axis),
    `measured` (the card's own words) and `source` (profile, machine, date); empty when the file is missing."""
    import pandas as pd

    if not Path(path).exists():
        return {}
    table = pd.read_csv(path, dtype=str).fillna("")
    return {(r["notebook"], r["question"]): {"answer": r["measured_answer"], "measured": r["measured"],
                                              "source": f"classroom profile, {r['machine']}, {r['date']}"} for r in table.to_dict("records")}


def summary(rows: Any, reference: dict[tuple[str, str], dict[str, str]] | None = None) -> Any:
    """Per question: how the class's predictions split, what the runs measured, the verdicts' counts, and what the
    committed classroom run measured (`reference`: classroom_reference() by default)."""
    import pandas as pd

    reference = classroom_reference() if reference is None else reference
    out = []
    for (notebook, key), group in rows.groupby(["notebook", "question"], sort=False):
        predicted = Counter(group.predicted_answer)
        measured = Counter(group.measured_answer)
        verdicts = Counter(group.verdict)
        committed = reference.get((notebook, key), {})
        out.append({"notebook": notebook, "question": key, "text": group.text.iloc[0], "students": len(group),
                    "predicted": ", ".join(f"{v} ×{n}" for v, n in predicted.most_common()),
                    "measured": ", ".join(f"{v} ×{n}" for v, n in measured.most_common()),
                    **{verdict: verdicts.get(verdict, 0) for verdict in VERDICTS},
                    "classroom_run": committed.get("answer", NOT_IN_REFERENCE), "classroom_run_measured": committed.get("measured", "")})
    return pd.DataFrame(out)


NOT_IN_REFERENCE = "not in the committed classroom run"


def figure(rows: Any, notebook: str, question: str, reference: dict[tuple[str, str], dict[str, str]] | None = None) -> Any:
    """The class's predictions for one question as bars (one per answer given), beside the answers the
    students' own runs measured (a second bar group), so the room sees how it split and where the runs landed;
    the committed classroom run's answer is marked on the same axis."""
    import plotly.graph_objects as go

    group = rows[(rows.notebook == notebook) & (rows.question == question)]
    if group.empty:
        raise ConfigError(f"no card of {notebook} · {question} in these notebooks")
    predicted = Counter(group.predicted_answer)
    measured = Counter(group.measured_answer)
    asked = question_of(lessons(), notebook, question)
    order = list(asked.options) if asked is not None and asked.kind == "choice" else []
    committed = (classroom_reference() if reference is None else reference).get((notebook, question))
    extra = {committed["answer"]} if committed and committed["answer"] and committed["answer"] != WITHDRAWN else set()
    answers = order + sorted((set(predicted) | set(measured) | extra) - set(order), key=_numeric_first)
    fig = go.Figure([
        go.Bar(name="predicted", x=answers, y=[predicted.get(a, 0) for a in answers]),
        go.Bar(name="the students' runs measured", x=answers, y=[measured.get(a, 0) for a in answers]),
    ])
    if extra and committed:
        fig.add_trace(go.Scatter(name=f"the committed classroom run ({committed['source']})", x=[committed["answer"]], y=[0], mode="markers",
                                 marker=dict(symbol="star", size=18, color="black"), hovertext=[committed["measured"]]))
    verdicts = Counter(group.verdict)
    fig.update_layout(barmode="group", title=f"{group.text.iloc[0]}<br><sup>{notebook} · {len(group)} students · "
                                             + " · ".join(f"{v} {verdicts[v]}" for v in VERDICTS if verdicts.get(v))
                                             + (f" · classroom run: {committed['answer']}" if committed and committed["answer"] else "") + "</sup>",
                      xaxis_title="answer", yaxis_title="students", xaxis_type="category", margin=dict(t=110))
    return fig


def _numeric_first(answer: str) -> tuple:
    try:
        return (0, float(answer), "")
    except ValueError:
        return (1, 0.0, answer)
