"""A student's prediction before a live run, judged against what the run measured, and kept.

Why: a demonstration teaches only when the student commits to an outcome first (Crouch, Fagen, Callan and
Mazur, Am. J. Phys. 72, 835, 2004). This module is the part without widgets: what a question is, how a
prediction is judged against a measurement (exactly for counted evidence such as nodes touched or rows read;
against the interval for a ratio; "too few repeats to judge" when the run cannot say), and where the
predictions go (JSON lines in the user's labkit home). `labkit.widgets.prediction` asks and shows.

A kernel cannot wait for a widget, so nothing here blocks: in a batch run (papermill, nbval, `make run`) a
prediction comes from the notebook's `predictions` parameter or is recorded as absent.
"""

from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from .errors import ConfigError
from .results.intervals import RatioInterval

KINDS = ("choice", "count", "ratio", "estimate")
"""choice: one of named options (an approach); count: a whole number judged exactly (nodes, rows, SSTables);
ratio: a factor judged against the run's 95% interval; estimate: a number with a unit (a latency) judged
against the run's band when it has one."""

RIGHT, WRONG, NOISE, TOO_FEW, ABSENT = "right", "wrong", "within noise", "too few repeats to judge", "no prediction"
TIE = "no difference this run can show"
"""The answer a "which serves more" question offers besides its approaches: right when the run's interval holds 1
(the run cannot tell them apart), wrong when it names a winner. Without it a student who expected a tie had no
answer, and a tie could only be called "within noise" whatever was predicted."""
NOT_MEASURED = "not measured"
"""The verdict where the run measured nothing to judge against (a trace that found no row, an approach not run):
no judgement, and never "wrong"."""
VERDICTS = (RIGHT, WRONG, NOISE, TOO_FEW, ABSENT, NOT_MEASURED)
"""Every verdict a result card may carry."""
JUDGED = (RIGHT, WRONG, NOISE)
"""The verdicts that claim a judgement of a prediction against a measurement: a card with one of them must
carry the prediction and the measured value (too few repeats and no prediction judge nothing)."""
UNMEASURED = ("not measured", "not compared", "not confirmed", "not run")
"""How a card says it has no measurement (the `measured` text starts so): no value to judge against."""
CARD_MIME = "application/vnd.labkit.prediction+json"
"""A result card's own output type: the saved notebook keeps it beside the text form, so a collected notebook
and the batch report carry the student's predictions (a kernel cannot write cell metadata)."""
JUDGED_ANSWER = "yes"
COULD_JUDGE = (JUDGED_ANSWER, TIE, TOO_FEW, NOT_MEASURED)
"""What a run could judge, whatever was predicted (a card's `could_judge`): an answer a prediction is right or wrong
against, a tie (no difference the run can show, itself an answer), too few repeats for an interval, or nothing
measured. A batch run predicts nothing, so this, not the verdict, says what its sizes can teach."""
BATCH_ENV = "LABKIT_BATCH"
"""Set (to anything but 0) by `labkit.batch` and the test harness: no one will answer, so never ask."""


@dataclass(frozen=True)
class Question:
    """What the student predicts before one live run: `key` names it in the notebook's `predictions`
    parameter and in the records; `giveaways` are the words that state its answer, which no text before the
    run may say; `expected` is the answer the committed classroom run measured, which the notebook's example
    of the `predictions` parameter must not be."""

    key: str
    text: str
    kind: str
    options: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    unit: str = ""
    tolerance: float = 0
    """A count's answer is right within this many of the measured value (999 for 1,000 rows read: the question
    says how near is near enough); 0: exactly."""
    look: Mapping[str, str] = field(default_factory=dict, compare=False)
    """verdict -> what the student should look at now in that run's evidence, one sentence written for this
    question that holds whichever way the numbers land (the card shows the one for its verdict)."""
    giveaways: tuple[str, ...] = field(default=(), compare=False)
    """Words that state the answer in substance, as the notebook words it after the run: the committed value in
    figures and in words, the winner's name and its synonyms, the direction (grows, stays, fails) and the mechanism
    that decides it (each node indexes only its own rows). None of them may appear, as whole words, in the text
    before the run, the question's own included. {name} stands for a fact of the run, as in the text."""
    expected: Any = field(default=None, compare=False)
    """The answer the committed classroom run measured (benchmarks/results/classroom_answers.csv, the closing
    section): an option for a choice, a number for a count, the (low, high) interval for a ratio or an estimate.
    None where the answer depends on the run's facts (the cluster's size) or no committed run gives one."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"question {self.key!r}: kind must be one of {', '.join(KINDS)} (got {self.kind!r})")
        if self.kind == "choice" and len(self.options) < 2:
            raise ConfigError(f"question {self.key!r}: a choice needs at least two options")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ConfigError(f"question {self.key!r}: low {self.low} is above high {self.high}")
        if self.expected is not None:
            if self.kind in ("ratio", "estimate"):
                if not (isinstance(self.expected, tuple) and len(self.expected) == 2 and self.expected[0] <= self.expected[1]):
                    raise ConfigError(f"question {self.key!r}: the expected answer of a {self.kind} is a (low, high) interval (got {self.expected!r})")
            else:
                self.checked(self.expected)

    def is_expected(self, answer: Any) -> bool:
        """Whether `answer` is the committed answer, judged as a card would judge it against that run: a choice
        equal to it, a count within the tolerance, a number inside the interval. A ConfigError when the answer is
        none this question takes; a ValueError when no committed answer is declared."""
        if self.expected is None:
            raise ValueError(f"question {self.key!r} declares no expected answer")
        value = self.checked(answer)
        if self.kind in ("ratio", "estimate"):
            low, high = self.expected
            return low <= value <= high
        return judge(self, value, self.expected) == RIGHT

    def checked(self, answer: Any) -> Any:
        """The answer in this question's terms, or a ConfigError that says what would do."""
        if self.kind == "choice":
            if answer not in self.options:
                raise ConfigError(f"{self.key}: answer one of {', '.join(map(repr, self.options))} (got {answer!r})")
            return answer
        try:
            value = int(answer) if self.kind == "count" and float(answer).is_integer() else float(answer)
        except (TypeError, ValueError):
            raise ConfigError(f"{self.key}: answer a number{' in ' + self.unit if self.unit else ''} (got {answer!r})") from None
        if self.kind == "count" and not isinstance(value, int):
            raise ConfigError(f"{self.key}: answer a whole number (got {answer!r})")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ConfigError(f"{self.key}: answer between {self.low:g} and {self.high:g} (got {answer!r})")
        if self.kind == "ratio" and value <= 0:
            raise ConfigError(f"{self.key}: a ratio is above 0 (got {answer!r})")
        return value


class Band(NamedTuple):
    """An estimate's measured value and the band a prediction is right in (`band()`: as wide as the question says)."""

    value: float
    low: float
    high: float
    unit: str = ""

    def text(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.value:.3g}{unit} (an estimate from {self.low:.3g} to {self.high:.3g}{unit} is right)"


def band(value: float, *, within: float, share: float = 0.0, unit: str = "", floor: float | None = 0.0) -> Band:
    """The band around a measured `value` that an estimate question names: `within` either way, or `share` of the value
    where that is wider ("within 3 s or a third, whichever is more"); never below `floor` (a time or a count is not
    negative; None: no floor)."""
    half = max(within, abs(value) * share)
    low = value - half if floor is None else max(floor, value - half)
    return Band(value, low, value + half, unit)


def judge(question: Question, prediction: Any, measured: Any) -> str:
    """The verdict on one prediction. `measured`: for choice and count the exact value the run gave (None when
    a ratio decided nothing); for ratio a RatioInterval; for estimate a number or a (value, low, high) band."""
    if prediction is None:
        return ABSENT
    if measured is not None and _unmeasured(measured):  # "not measured (...)": nothing to judge against
        return NOT_MEASURED
    if question.kind in ("choice", "count"):
        if measured is None:
            return NOISE
        if question.kind == "count":
            return RIGHT if abs(prediction - measured) <= question.tolerance else WRONG
        return RIGHT if prediction == measured else WRONG
    if question.kind == "ratio":
        if not isinstance(measured, RatioInterval):
            raise TypeError("a ratio prediction is judged against a RatioInterval")
        if not measured.has_interval:
            return TOO_FEW
        return RIGHT if measured.low <= prediction <= measured.high else WRONG  # outside the interval is wrong, even when it holds 1
    if isinstance(measured, tuple):  # a Band, or (value, low, high)
        low, high = measured[1], measured[2]
        return RIGHT if low <= prediction <= high else WRONG
    return TOO_FEW  # one number without a band cannot say how near is right


def could_judge(question: Question, measured: Any, verdict: str | None = None) -> str:
    """What this run's measurement could judge (COULD_JUDGE), whatever was predicted: `verdict` is the one a card was
    told (too few repeats where the run itself knows it had too few)."""
    if verdict == TOO_FEW:
        return TOO_FEW
    if isinstance(measured, RatioInterval):
        return JUDGED_ANSWER if measured.has_interval else TOO_FEW
    if _unmeasured(measured):
        return NOT_MEASURED
    if question.kind == "estimate" and not isinstance(measured, tuple):
        return TOO_FEW  # one number without a band
    return JUDGED_ANSWER


def winner(interval: RatioInterval | None, first: str, second: str) -> str | None:
    """Which of two approaches a first/second ratio says won, or None when it cannot tell (within noise, too
    few repeats): the measured answer to a "which is faster" choice."""
    if interval is None or not interval.has_interval or interval.within_noise:
        return None
    return first if interval.estimate > 1 else second


def judge_choice(question: Question, prediction: Any, interval: RatioInterval | None, first: str, second: str) -> str:
    """The verdict on "which of two approaches wins", from their first/second ratio: the winner where the interval
    says so; TIE ("no difference this run can show") where it holds 1, so a tie is an answer that can be right and
    a winner named against a tie is wrong; too few repeats (no interval) judge nothing."""
    if prediction is None:
        return ABSENT
    if interval is None or not interval.has_interval:
        return TOO_FEW
    return RIGHT if prediction == (winner(interval, first, second) or TIE) else WRONG


def in_batch(predictions: Any = None) -> bool:
    """No one will answer: the notebook was given a `predictions` mapping (papermill, `labkit.batch`) or runs
    under LABKIT_BATCH (nbval, CI)."""
    return predictions is not None or os.environ.get(BATCH_ENV, "0") not in ("", "0")


def given(question: Question, predictions: Any) -> Any:
    """A batch run's prediction for `question` from the `predictions` parameter, checked; None when absent."""
    if not predictions or question.key not in predictions:
        return None
    return question.checked(predictions[question.key])


def _now(when: datetime.datetime | None = None) -> str:
    return (when or datetime.datetime.now(datetime.timezone.utc)).isoformat(timespec="seconds")


def _append(path: Path, line: dict[str, Any]) -> dict[str, Any]:
    """Append one JSON line to the predictions file and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, default=str) + "\n")
    return line


def shown(measured: Any) -> Any:
    """A measurement as a card and the predictions file say it: an interval's or a band's text, else the value."""
    return measured.text() if isinstance(measured, (RatioInterval, Band)) else measured


def record(path: Path, *, notebook: str, question: Question, prediction: Any, measured: Any, verdict: str,
           user: str, namespace: str, when: datetime.datetime | None = None, could_judge: str | None = None) -> dict[str, Any]:
    """Append one line to the predictions file (JSON lines) and return it."""
    return _append(path, {"notebook": notebook, "question": question.key, "text": question.text, "prediction": prediction,
                          "measured": shown(measured), "verdict": verdict, "could_judge": could_judge,
                          "user": user, "namespace": namespace, "time": _now(when)})


def record_explanation(path: Path, card: Mapping[str, Any], when: datetime.datetime | None = None) -> dict[str, Any]:
    """Append the student's explanation of one card's run (`card`: the card's record, with "explanation") as its own
    line: the card's fields, so it stands beside the prediction it explains, and the time it was given."""
    return _append(path, {**card, "kind": "explanation", "explained": card.get("time"), "time": _now(when)})


def predictions_file() -> Path:
    """Where this user's predictions are kept: beside the lab's caches (LABKIT_HOME)."""
    from .home import labkit_home

    return labkit_home() / "predictions.jsonl"


def cards_in(nb: Any) -> list[dict[str, Any]]:
    """Every result card a notebook's outputs hold (a nbformat notebook, or its JSON as a dict), in order: the
    card's own fields (notebook, question, prediction, measured, verdict) and `cell`, the id of the cell that
    showed it (its index where the notebook has no cell ids)."""
    cards = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            card = (output.get("data") or {}).get(CARD_MIME)
            if card is not None:  # a payload that is no mapping is a card with nothing in it
                cards.append({**(card if isinstance(card, dict) else {}), "cell": cell.get("id", index)})
    return cards


def _unmeasured(measured: Any) -> bool:
    if measured is None or measured == "" or (isinstance(measured, float) and measured != measured):
        return True
    return isinstance(measured, str) and measured.strip().lower().startswith(UNMEASURED)


def card_problems(nb: Any, answered: Any = ()) -> list[str]:
    """One sentence per result card that does not carry a verdict it can stand behind: no verdict, one that is
    not among VERDICTS, "no prediction" on a card that holds one (or whose question is in `answered`: the keys a
    batch run's `predictions` parameter answered), a judgement (JUDGED) without a prediction, and a judgement
    without the measured value (missing, or a text saying it was not measured). Empty when every card is sound
    (also when the notebook shows none: a test that expects cards says so itself)."""
    answered = set(answered)
    problems = []
    for card in cards_in(nb):
        where = f"card {card.get('question') or '(no question)'} in cell {card['cell']}"
        verdict, prediction = card.get("verdict"), card.get("prediction")
        if verdict in (None, ""):
            problems.append(f"{where}: no verdict")
        elif verdict not in VERDICTS:
            problems.append(f"{where}: verdict {verdict!r} is none of {', '.join(map(repr, VERDICTS))}")
        elif verdict == ABSENT and prediction is not None:
            problems.append(f"{where}: verdict {ABSENT!r} though the card holds the prediction {prediction!r}")
        elif verdict == ABSENT and card.get("question") in answered:
            problems.append(f"{where}: verdict {ABSENT!r} though the run answered it")
        elif verdict in JUDGED and prediction is None:
            problems.append(f"{where}: verdict {verdict!r} without a prediction")
        elif verdict in JUDGED and _unmeasured(card.get("measured")):
            problems.append(f"{where}: verdict {verdict!r} without a measured value (measured: {card.get('measured')!r})")
    return problems


def collected(paths: list[Path]) -> list[dict[str, Any]]:
    """Every result card in the notebooks under `paths` (files or directories, searched for *.ipynb), one
    row each: student (the folder after `submitted/` or `autograded/` in nbgrader's course layout, else empty), notebook,
    question, prediction (None: none given), measured, verdict, explanation (the student's "why", None: none kept). How an instructor gathers a class's
    predictions from the notebooks nbgrader collected: the cards are the notebooks' own outputs."""
    import nbformat

    files = sorted({f for p in paths for f in ([p] if p.is_file() else p.rglob("*.ipynb")) if ".ipynb_checkpoints" not in f.parts})
    rows = []
    for path in files:
        parts = path.resolve().parts
        course = next((parts.index(folder) for folder in ("submitted", "autograded") if folder in parts[:-1]), None)
        student = parts[course + 1] if course is not None else ""
        for card in cards_in(nbformat.read(path, as_version=4)):
            if card.keys() - {"cell"}:  # an empty card is no row
                rows.append({"student": student, "file": str(path),
                             **{k: card.get(k) for k in ("notebook", "question", "prediction", "measured", "verdict", "explanation")}})
    return rows
