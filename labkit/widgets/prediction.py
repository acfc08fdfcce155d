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
from typing import Any, Callable

import ipywidgets as w

from ..predictions import ABSENT, CARD_MIME, Question, given, in_batch, judge, predictions_file, record

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


def result_card(box: PredictionBox, measured: Any, evidence: str, *, user: str = "", namespace: str = "", keep: bool = True,
                verdict: str | None = None) -> dict[str, Any]:
    """After the run: the frozen prediction beside what was measured, the verdict, and the sentences that
    explain it from the servers' evidence (`evidence`, written to hold either way the numbers land). Returns the
    record (kept in the predictions file unless `keep` is False) and displays the card. `verdict` replaces the
    judged one where the run itself says what it could tell (too few repeats); no prediction stays "no prediction"."""
    from IPython.display import display

    prediction = box.ran_with
    verdict = ABSENT if prediction is None else verdict or judge(box.question, prediction, measured)
    shown = measured.text() if hasattr(measured, "text") else measured
    line = {"notebook": box.notebook, "question": box.question.key, "prediction": prediction, "measured": shown, "verdict": verdict}
    if keep:
        line = record(predictions_file(), notebook=box.notebook, question=box.question, prediction=prediction, measured=measured,
                      verdict=verdict, user=user, namespace=namespace)
    earlier = ", ".join(ABSENT if e is None else str(e) for e in box.frozen[:-1])  # a re-run asked again: each prediction shows
    look = box.question.look.get(verdict, "")
    text = (f"{box.question.text}\n  you predicted: {ABSENT if prediction is None else prediction}\n"
            + (f"  before that: {earlier}\n" if earlier else "") + f"  measured: {shown}\n  verdict: {verdict}\n"
            + (f"  look at: {look}\n" if look else "") + f"  {evidence}")
    shown_rows = [("you predicted", ABSENT if prediction is None else prediction), *([("before that", earlier)] if earlier else []),
                  ("measured", shown), ("verdict", verdict), *([("look at", look)] if look else [])]
    rows = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td>{html.escape(str(v))}</td></tr>" for k, v in shown_rows)
    card = (f"<div style='border:1px solid #999;padding:6px 10px;max-width:46em'><b>{html.escape(box.question.text)}</b>"
            f"<table>{rows}</table><p style='margin:4px 0 0 0'>{html.escape(evidence)}</p></div>")
    display({MIME: line, "text/html": card, "text/plain": text}, raw=True)
    return line
