"""The prediction a student commits to before a live run, and the card that answers it after (ipywidgets).

Why widgets and not input(): a kernel cannot wait for a widget, and `input()` would hang Run All and every
batch run. So an experiment cell calls `box.require()` first: with no prediction it stops there with one
sentence (PredictFirst, shown without a traceback), and Run All stops with it instead of running the cells
after it on results that were never measured; the student answers (or presses skip) and runs the cell
again. In a batch run the prediction comes from the notebook's `predictions` parameter, or is recorded as
absent, and nothing waits.
"""

from __future__ import annotations

import html
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

import ipywidgets as w

from ..predictions import ABSENT, CARD_MIME, NOT_MEASURED, Question, could_judge, given, in_batch, judge, predictions_file, record, record_explanation, shown

ASK = "Predict first: answer the question above (or press skip), then run this cell again."


class PredictFirst(Exception):
    """Raised by an experiment cell whose prediction is not given yet. It stops Run All there (so the cells
    after it do not fail on results that were never measured) and shows as one sentence, not a traceback."""

    def __init__(self) -> None:
        super().__init__(ASK)

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        return [ASK]
MIME = CARD_MIME  # the card's own output type (labkit.predictions)


class PredictionBox:
    """One question, answered before its run: `ready()` says whether the run may start, `freeze()` locks the
    answer when it does (a re-run asks again; each frozen answer is kept in `frozen`)."""

    def __init__(self, question: Question, predictions: Any = None, notebook: str = ""):
        self.question, self.notebook = question, notebook
        self.batch = in_batch(predictions)
        self.answer: Any = given(question, predictions) if self.batch else None
        self.skipped = False
        self.frozen: list[Any] = []
        self.explained: list[Any] = []  # the explanation box under each of this question's cards (ExplainBox)
        self._listeners: list[Callable[[bool], None]] = []
        self.input = self._input_for(question)
        self.lock_button = w.Button(description="Lock in", button_style="primary", icon="lock",
                                    tooltip="Commit to this prediction; the run below then unlocks")
        self.skip_button = w.Button(description="skip", tooltip="Run without a prediction (it is recorded as none)")
        self.status = w.HTML()
        self.lock_button.on_click(lambda _b: self.lock())
        self.skip_button.on_click(lambda _b: self.skip())
        self.widget = w.VBox([w.HTML(f"<b>Predict:</b> {html.escape(question.text)}"),
                              w.HBox([self.input, self.lock_button, self.skip_button]), self.status])
        self._show()

    @staticmethod
    def _input_for(q: Question) -> w.Widget:
        if q.kind == "choice":
            return w.ToggleButtons(options=list(q.options), value=None)
        if q.kind == "count" and q.low is not None and q.high is not None:
            if q.high - q.low <= 20:  # a few whole numbers (nodes, SSTables): a slider
                return w.IntSlider(value=int(q.low), min=int(q.low), max=int(q.high))
            return w.BoundedIntText(value=int(q.low), min=int(q.low), max=int(q.high), layout=w.Layout(width="12em"))  # users, partitions: typed
        return w.FloatText(value=None, description=q.unit or "", layout=w.Layout(width="16em"))

    def on_change(self, callback: Callable[[bool], None]) -> None:
        """Call `callback(ready)` whenever the box becomes ready or asks again (a panel enables its Run button)."""
        self._listeners.append(callback)

    def lock(self, value: Any = None) -> Any:
        """Commit to `value` (the input's value when None); a ConfigError says what would do."""
        self.answer = self.question.checked(self.input.value if value is None else value)
        self.skipped = False
        self._show()
        return self.answer

    def skip(self) -> None:
        self.answer, self.skipped = None, True
        self._show()

    def ready(self) -> bool:
        """True when the run may start: answered, skipped, or a batch run (no one will answer)."""
        return self.batch or self.skipped or self.answer is not None

    def require(self) -> None:
        """The first line of an experiment cell: raises PredictFirst (one sentence) until ready()."""
        if not self.ready():
            raise PredictFirst()

    def freeze(self) -> Any:
        """The run starts: the answer is kept as it is now, and the next run asks again."""
        self.frozen.append(self.answer)
        answer = self.answer
        if not self.batch:
            self.answer, self.skipped = None, False
        self._show(frozen=answer)
        return answer

    @property
    def ran_with(self) -> Any:
        """The prediction the latest run was frozen with (the current answer before any run): what its card judges."""
        return self.frozen[-1] if self.frozen else self.answer

    def _show(self, frozen: Any = "unset") -> None:
        text = ("skipped" if self.skipped else f"locked: {self.answer}{' ' + self.question.unit if self.question.unit else ''}"
                if self.answer is not None else "not answered yet")
        if frozen != "unset":
            text = f"ran with: {ABSENT if frozen is None else frozen}; answer again before the next run"
        self.status.value = f"<i>{html.escape(text)}</i>"
        for listener in self._listeners:
            listener(self.ready())


EXPLAIN = "Why do you think it came out this way? (one or two sentences)"
"""The question under every card a student's run gets: the student's own account, kept beside the prediction."""


class _CellCard:
    """A card shown in the cell's own output, by display id, so the student's explanation can be added to it."""

    def __init__(self, bundle: dict[str, Any]):
        from IPython.display import display

        self.handle = display(bundle, raw=True, display_id=True)

    def update(self, bundle: dict[str, Any]) -> None:
        if self.handle is not None:
            self.handle.update(bundle, raw=True)

    @staticmethod
    def add(widget: w.Widget) -> None:
        from IPython.display import display

        display(widget)


class OutputCards:
    """Cards shown in an Output widget (a panel's card area): a run the student starts with the panel's button ends
    in a background thread, where a display would land in whichever cell ran last. One lock for the outputs: the
    sweep's thread appends a card while a Keep in the kernel's thread may rewrite an earlier one."""

    def __init__(self, output: w.Output):
        self.output = output
        self.lock = threading.Lock()

    def __call__(self, bundle: dict[str, Any]) -> "OutputCards._Shown":
        return OutputCards._Shown(self, self._append(bundle))

    def _append(self, data: dict[str, Any]) -> int:
        with self.lock:
            self.output.outputs = (*self.output.outputs, {"output_type": "display_data", "data": data, "metadata": {}})
            return len(self.output.outputs) - 1

    class _Shown:
        def __init__(self, cards: "OutputCards", index: int):
            self.cards, self.index = cards, index

        def update(self, bundle: dict[str, Any]) -> None:
            with self.cards.lock:
                outputs = list(self.cards.output.outputs)
                outputs[self.index] = {"output_type": "display_data", "data": bundle, "metadata": {}}
                self.cards.output.outputs = tuple(outputs)

        def add(self, widget: w.Widget) -> None:
            self.cards._append({"application/vnd.jupyter.widget-view+json": {"model_id": widget.model_id, "version_major": 2, "version_minor": 0},
                                "text/plain": EXPLAIN})


_card_place: ContextVar[OutputCards | None] = ContextVar("labkit_card_place", default=None)


@contextmanager
def cards_into(place: OutputCards) -> Iterator[None]:
    """Cards made inside this block (in this thread) go to `place` (a panel's card area) instead of the running cell's
    output."""
    token = _card_place.set(place)
    try:
        yield
    finally:
        _card_place.reset(token)


class ExplainBox:
    """The "why do you think it came out this way?" box under a card: Keep adds the student's sentences to the card
    (beside the run's evidence) and to the predictions file. A card in a cell's output is saved with the notebook, so
    `labkit predictions` and the class view collect the explanation with it; a card a panel shows for a run of its
    Run button lives in the panel's widget, so the predictions file is where that one is kept."""

    def __init__(self, line: dict[str, Any], redraw: Callable[[dict[str, Any]], None], keep: bool = True):
        self.line, self.redraw, self.keep = line, redraw, keep
        self.text = w.Textarea(placeholder=EXPLAIN, layout=w.Layout(width="40em", height="4em"))
        self.keep_button = w.Button(description="Keep", icon="check", tooltip="Keep this explanation with your prediction")
        self.status = w.HTML()
        self.keep_button.on_click(lambda _b: self.explain(self.text.value))
        self.widget = w.VBox([w.HTML(f"<b>{html.escape(EXPLAIN)}</b>"), w.HBox([self.text, self.keep_button]), self.status])

    def explain(self, text: str) -> dict[str, Any]:
        """Keep `text` as the student's explanation of this card's run (a later Keep replaces it on the card and adds a line)."""
        text = " ".join(str(text).split())
        if not text:
            self.status.value = "<i>write a sentence or two first</i>"
            return self.line
        self.line = {**self.line, "explanation": text}
        if self.keep:
            record_explanation(predictions_file(), self.line)
        self.redraw(self.line)
        self.status.value = "<i>kept with your prediction (a new Keep replaces it)</i>"
        return self.line


def card_bundle(question: Question, line: dict[str, Any], evidence: str, earlier: str = "") -> dict[str, Any]:
    """The card as a display bundle: its own record (CARD_MIME, what the saved notebook keeps and the class view
    collects), HTML and text, with the student's explanation beside the evidence once there is one."""
    prediction, verdict = line["prediction"], line["verdict"]
    look = question.look.get(verdict, "")
    explanation = line.get("explanation") or ""
    text = (f"{question.text}\n  you predicted: {ABSENT if prediction is None else prediction}\n"
            + (f"  before that: {earlier}\n" if earlier else "") + f"  measured: {line['measured']}\n  verdict: {verdict}\n"
            + (f"  look at: {look}\n" if look else "") + f"  {evidence}"
            + (f"\n  your explanation: {explanation}" if explanation else ""))
    shown_rows = [("you predicted", ABSENT if prediction is None else prediction), *([("before that", earlier)] if earlier else []),
                  ("measured", line["measured"]), ("verdict", verdict), *([("look at", look)] if look else [])]
    rows = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in shown_rows)
    said = (f"<p style='margin:4px 0 0 0' class='labkit-explanation'><b>your explanation:</b> {html.escape(explanation)}</p>"
            if explanation else "")
    card = (f"<div style='border:1px solid #999;padding:6px 10px;max-width:46em' class='labkit-card'><b>{html.escape(question.text)}</b>"
            f"<table>{rows}</table><p style='margin:4px 0 0 0'>{html.escape(evidence)}</p>{said}</div>")
    return {MIME: line, "text/html": card, "text/plain": text}


def result_card(box: PredictionBox, measured: Any, evidence: str, *, user: str = "", namespace: str = "", keep: bool = True,
                verdict: str | None = None, judgeable: str | None = None) -> dict[str, Any]:
    """After the run: the frozen prediction beside what was measured, the verdict, and the sentences that
    explain it from the servers' evidence (`evidence`, written to hold either way the numbers land). Returns the
    record (kept in the predictions file unless `keep` is False) and displays the card, and under it (when a
    student is there to answer) the box that asks why it came out this way. `verdict` replaces the judged one
    where the run itself says what it could tell (too few repeats); no prediction stays "no prediction". The record's
    `could_judge` says what the run could judge whatever was predicted (`judgeable`, else predictions.could_judge)."""
    prediction = box.ran_with
    could = judgeable or could_judge(box.question, measured, verdict)
    verdict = ABSENT if prediction is None else verdict or judge(box.question, prediction, measured)
    line = {"notebook": box.notebook, "question": box.question.key, "prediction": prediction, "measured": shown(measured),
            "verdict": verdict, "could_judge": could}
    if keep:
        line = record(predictions_file(), notebook=box.notebook, question=box.question, prediction=prediction, measured=measured,
                      verdict=verdict, user=user, namespace=namespace, could_judge=could)
    earlier = ", ".join(ABSENT if e is None else str(e) for e in box.frozen[:-1])  # a re-run asked again: each prediction shows
    place, bundle = _card_place.get(), card_bundle(box.question, line, evidence, earlier)
    shown_card = place(bundle) if place is not None else _CellCard(bundle)
    if not box.batch and could != NOT_MEASURED:  # no one answers in a batch run; nothing measured, nothing to explain
        explain = ExplainBox(line, lambda new: shown_card.update(card_bundle(box.question, new, evidence, earlier)), keep=keep)
        box.explained.append(explain)
        shown_card.add(explain.widget)
    return line
