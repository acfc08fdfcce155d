"""The tactics notebook's panel: pick a tactic run, move the offered load, the requests in flight and the
cluster's starting size, press Run, and the run's timeline appears below the earlier ones (every run is
kept in `runs`; an error is shown in the panel and loses none of them)."""

from __future__ import annotations

import traceback
from typing import Any, Callable

import ipywidgets as w

from ..errors import LabkitError
from ..results.tactic_timeline import tactic_figure
from ..tactics.scenarios import ScenarioRunner, TacticScenario


class TacticPanel:
    def __init__(self, runner: ScenarioRunner, scenarios: list[TacticScenario], title: str = "Tactics under load"):
        self.runner = runner
        self.plans = {p.key: p for p in scenarios}
        self.runs: list[Any] = []
        self._prediction: Any = None  # a PredictionBox asked before each run (ask_first)
        self._answer: Callable[[Any], None] | None = None
        first = scenarios[0]
        self.choice = w.Dropdown(options=list(self.plans), value=first.key, description="tactic run")
        self.rate = w.IntSlider(value=int(first.rate), min=10, max=3000, step=10, description="offered /s")
        self.threads = w.IntSlider(value=first.threads, min=1, max=128, description="in flight")
        self.nodes = w.IntSlider(value=first.nodes, min=1, max=6, description="nodes at start")
        self.button = w.Button(description="Run", button_style="primary")
        self.status = w.HTML()
        self.out = w.Output()
        self.choice.observe(lambda _change: self._load_plan(), names="value")
        self.button.on_click(lambda _b: self.run())
        self.widget = w.VBox([w.HTML(f"<b>{title}</b>"), w.HBox([self.choice, self.button]), w.HBox([self.rate, self.threads, self.nodes]),
                              self.status, self.out])

    def ask_first(self, box: Any, answer: Callable[[Any], None] | None = None) -> "TacticPanel":
        """Run stays disabled until the student has predicted in `box` (or skipped); each run freezes the
        prediction, and `answer(run)` then shows its result card under the run's timeline."""
        self._prediction, self._answer = box, answer
        box.on_change(lambda ready: setattr(self.button, "disabled", not ready))
        self.button.disabled = not box.ready()
        return self

    def _load_plan(self) -> None:
        p = self.plans[self.choice.value]
        self.rate.value, self.threads.value, self.nodes.value = int(p.rate), p.threads, p.nodes

    def _say(self, text: str, color: str = "black") -> None:
        self.status.value = f"<span style='color:{color}'>{text}</span>"

    def run(self) -> Any:
        """Run the chosen plan with the sliders' values (it takes as long as the plan's windows and the tactic)."""
        plan = self.plans[self.choice.value]
        if self._prediction is not None:
            self._prediction.require()  # PredictFirst: one sentence
            self._prediction.freeze()
        self.button.disabled = True
        self._say(f"running {plan.key} at {self.rate.value}/s on {self.nodes.value} node(s) ...")
        try:
            run = self.runner.run(plan, rate=float(self.rate.value), threads=self.threads.value, nodes=self.nodes.value)
        except BaseException as exc:  # shown here; earlier runs stay in self.runs
            detail = str(exc) if isinstance(exc, LabkitError) else "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self._say(f"{plan.key} did not run: {detail}", "firebrick")
            return None
        finally:
            self.button.disabled = self._prediction is not None and not self._prediction.ready()
        self.runs.append(run)
        took = "not confirmed" if run.took_s is None else f"effective after {run.took_s:.1f} s"
        self._say(f"{plan.key}: {took}" + (f"; tactic error: {run.error}" if run.error else ""), "firebrick" if run.error else "green")
        with self.out:
            tactic_figure(run.timeline_rows(), run.row()).show()
            if self._answer is not None:
                self._answer(run)
        return run

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
