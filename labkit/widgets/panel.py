"""The control panel every notebook shows: sliders in, a live figure out, a view over a sweep (labkit.sweeps).

The panel owns no measuring logic: Run turns the widgets' values into a SweepRequest and that into the one
way every sweep goes (labkit.sweeps: resolve's checks, the engine binding's hooks, the bench, the loop), runs it in a background thread (so Stop stays clickable) and draws each
row as it arrives. `run(wait=True)` does the same in the foreground, which is how papermill and nbval
execute notebooks.
"""

from __future__ import annotations

import html
import threading
import time
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

import ipywidgets as w
import pandas as pd
import plotly.colors
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..clusters.base import ClusterInfo, budget_text
from ..clusters.slot import ClusterSlot
from ..errors import ConfigError, LabkitError
from ..patterns.description import Setting, thread_range
from ..results import ResultsStore, figures
from ..sweeps import Bench, Sweep, SweepPlan, SweepRequest, SweepWatch, check_slot, measure, resolve
from ..results.figures import LIMIT_SYMBOLS, limit_kind
from .prediction import OutputCards, cards_into

CLIENT_BOUND_WARNING = (
    "⚠ The Python client was the bottleneck in {n} of {total} runs (marked ✕): those points measure the "
    "client, not the database. Use fewer threads, or more client processes."
)


# 0.0 stands for "no budget": a dropdown whose value is None shows no selection at all
NODE_CPU_CHOICES = [("none (shared cores)", 0.0), ("0.1 core", 0.1), ("0.15 core", 0.15), ("0.25 core", 0.25), ("0.5 core", 0.5), ("1 core", 1.0)]


def thread_counts(low: int, high: int, step: int, multiple: int = 1) -> list[int]:
    """Threads from the range slider: low, low+step, ... and always `high` itself, each rounded up to a
    multiple of `multiple` (a workload that splits threads between two regions needs even counts)."""
    if low < 1 or high < low or step < 1:
        raise ConfigError(f"thread range {low}..{high} step {step} is empty: threads start at 1 and step at least 1")
    counts = list(range(low, high + 1, step))
    if counts[-1] != high:
        counts.append(high)
    return rounded_up(counts, multiple)


def rounded_up(counts: Any, multiple: int) -> list[int]:
    """Each count rounded up to a multiple of `multiple`, once each, in order."""
    return sorted({-(-c // multiple) * multiple for c in counts})


@dataclass(frozen=True)
class PanelLimits:
    """How far the sliders reach (a value given beyond them widens them)."""

    max_threads: int = 128
    max_nodes: int = 8
    max_operations: int = 200_000


class ControlPanel:
    """Threads, nodes, operations, approaches and the pattern's settings in; throughput and p95 latency
    out, point by point. Everything pattern-specific comes from its description: the approaches'
    tick boxes, one control per setting of the phase (a slider, or a drop-down for named choices), the
    thread multiple, and the workloads themselves. The `request` (a SweepRequest; `labkit.sweeps.request_for`
    makes one from a description's named sweep) is where the controls start and what each Run passes on
    besides them (run options, clients); `resources` reach every workload (e.g. {"toxiproxy": toxiproxy};
    None: the engine binding's own per Run), `store` keeps the rows, `limits` (PanelLimits) say how far the
    sliders reach."""

    def __init__(
        self,
        request: SweepRequest,
        *,
        slot: ClusterSlot,
        title: str | None = None,
        resources: Mapping[str, Any] | None = None,
        store: ResultsStore | str | None = None,
        limits: PanelLimits = PanelLimits(),
    ):
        pattern, plan = request.pattern, request.plan
        self.pattern = pattern
        self.phase = pattern.check_phase(request.phase or plan.labels.get("phase") or pattern.default_phase)
        if request.engine is not None and slot.engine is not None and request.engine != slot.engine:
            raise ConfigError(f"the request runs {request.engine} and the slot starts {slot.engine} clusters: give a {request.engine} slot")
        self.slot = slot
        self.resources = None if resources is None else dict(resources)
        """Passed to every workload, e.g. {"toxiproxy": toxiproxy}; None: the engine binding's own per Run."""
        self.request = request
        """Where the controls started: each Run's request is this one with the controls' values."""
        self.store = store
        self.rows: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._traces: dict[tuple, tuple[int, int]] = {}
        self._points: dict[tuple, list[dict[str, Any]]] = {}  # a line's rows: its repeats are drawn as one point with their spread
        self._sweeps = 0  # each press of Run draws its own lines, so a repeat does not zigzag over the last one
        self._running = False
        self._prediction: Any = None  # a labkit.widgets.prediction.PredictionBox asked before each run (ask_first)
        self._predicted = ""  # "question: answer" the current sweep ran with, for its rows
        self._card_maker: Callable[[pd.DataFrame], Any] | None = None  # card_each_run
        self.cards = w.Output()
        """The cards of the runs started with the Run button (card_each_run), each with its explanation box."""
        self._card_area = OutputCards(self.cards)
        self._last_tick = 0.0

        self._listed_threads = tuple(plan.threads)
        """The request's own thread counts, which Run measures while the slider and step stand where they started
        (see thread_plan)."""
        low, high, step = thread_range(plan.threads)
        self._listed_at = (low, high, step)
        nodes = max(plan.nodes)
        given = {s.name: plan.labels[s.name] for s in pattern.settings_for(self.phase) if s.name in plan.labels}
        initial = pattern.resolve(self.phase, {**given, **dict(request.settings)})
        self._initial_settings = dict(initial)
        max_threads, max_nodes, max_operations = limits.max_threads, limits.max_nodes, limits.max_operations

        style = {"description_width": "110px"}
        layout = w.Layout(width="460px")
        self.threads = w.IntRangeSlider(value=(low, high), min=1, max=max(max_threads, high), description="client threads", style=style, layout=layout)
        self.thread_step = w.IntSlider(value=step, min=1, max=max(1, max_threads // 2, step), description="thread step", style=style, layout=layout)
        self.thread_points = w.HTML(layout=layout)
        for control in (self.threads, self.thread_step):
            control.observe(lambda _change: self._show_thread_points(), names="value")
        self.nodes = w.IntSlider(value=nodes, min=1, max=max(max_nodes, nodes), description="cluster nodes", style=style, layout=layout)
        self.cpu_per_node = w.Dropdown(
            options=list(NODE_CPU_CHOICES), description="CPU per node", style=style,
            tooltip="Each node's CPU budget: a budgeted node is a small machine of its own, so more nodes add capacity",
        )
        fixed = slot.fixed_nodes
        if fixed:  # a cluster labkit did not start: its size is its own, and budgets are not the lab's to set
            self.nodes.value, self.nodes.max = fixed, max(self.nodes.max, fixed)
            self.nodes.disabled = True
            self.nodes.tooltip = f"external cluster: {fixed} nodes; labkit does not resize a cluster it did not start"
            self.cpu_per_node.disabled = True
        self.node_cpu = None if fixed else (request.node_cpu or slot.node_cpu)
        multiple, operations = pattern.operations_multiple, plan.operations
        self.operations = w.BoundedIntText(value=operations, min=multiple, max=max(max_operations, operations), step=100 if multiple == 1 else 2 * multiple,
                                           description="operations", style=style, layout=w.Layout(width="260px"))
        self.repeats = w.BoundedIntText(value=plan.repeats, min=1, max=20, description="repeats", style=style,
                                        layout=w.Layout(width="260px"),
                                        tooltip="Runs of each point, the approaches alternating; from 3 the ratio gets a 95% interval")
        self.approaches = {a: w.Checkbox(value=a in plan.approaches, description=a, indent=False, layout=w.Layout(width="150px"))
                           for a in pattern.approaches_for(self.phase, slot.engine)}
        self.settings = {setting.name: _setting_widget(setting, initial[setting.name], style, layout) for setting in pattern.settings_for(self.phase)}
        self.run_button = w.Button(description="Run", button_style="success", icon="play", tooltip="Run the sweep with these settings")
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop", disabled=True, tooltip="Stop after recording the run in progress as partial")
        self.progress = w.IntProgress(value=0, min=0, max=1, description="idle", style=style, layout=w.Layout(width="460px"))
        self.cluster_line = w.HTML(value="<b>cluster:</b> not started yet (Run starts it with the node count above)")
        self.status = w.HTML(value="")
        self.warning = w.HTML(value="")
        if fixed:
            self.status.value = (f"<i>external cluster ({fixed} nodes): the node slider and CPU budgets are off, because labkit does not resize "
                                 "or budget a cluster it did not start</i>")
        title = title or f"{pattern.title} · phase {self.phase}"
        self.figure = self._empty_figure(title)
        self.run_button.on_click(lambda _b: self.run(wait=False))
        self.stop_button.on_click(lambda _b: self.stop())
        self.widget = w.VBox(
            [
                w.HTML(f"<h4 style='margin:4px 0'>{html.escape(title)}</h4>"),
                w.HBox([w.VBox([self.threads, self.thread_step, self.thread_points, self.nodes, self.cpu_per_node]), w.VBox([*self.settings.values(), self.operations, self.repeats])]),
                w.HBox([w.Label("approaches:"), *self.approaches.values()]),
                *([w.HTML(f"<i>{html.escape(note)}</i>")] if (note := pattern.phase_note(self.phase)) else []),
                w.HBox([self.run_button, self.stop_button, self.progress]),
                self.cluster_line,
                self.status,
                self.warning,
                self.figure,
                self.cards,
            ]
        )
        self._show_thread_points()

    # ---- what a notebook calls -------------------------------------------------------------------

    @property
    def node_cpu(self) -> float | None:
        """Each node's CPU budget (cores; None = none) that the next Run applies: the "CPU per node" control."""
        return self.cpu_per_node.value or None

    @node_cpu.setter
    def node_cpu(self, cores: float | None) -> None:
        if cores is not None:
            from ..clusters.contract import check_cores

            check_cores(cores)
        value = float(cores or 0.0)
        if value not in [v for _label, v in self.cpu_per_node.options]:
            self.cpu_per_node.options = [*self.cpu_per_node.options, (f"{value:g} core", value)]
        self.cpu_per_node.value = value

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def plan(self) -> SweepPlan:
        """The sweep the widgets currently describe: the request's plan with the controls' values."""
        chosen = [a for a, box in self.approaches.items() if box.value]
        if not chosen:
            raise ConfigError("tick at least one approach before Run")
        return replace(self.request.plan, approaches=chosen, threads=self.thread_plan(), nodes=[self.nodes.value], operations=self.operations.value,
                       repeats=self.repeats.value, labels={**self.request.plan.labels, **self.pattern.labels(self.phase, self.chosen())})  # checked when made

    def thread_plan(self) -> list[int]:
        """The client thread counts Run measures. A range slider cannot show a size's 8, 16, 32, 64: its smallest gap
        (8) is the starting step, and every step of the range would run 8 points instead of the size's 4. So while
        the slider and the step stand where the size put them, Run measures the size's own list (as a notebook's sweeps
        without a panel and the benchmarks do); once the student moves either, every step of the chosen range."""
        multiple = self.pattern.thread_multiple
        if (*self.threads.value, self.thread_step.value) == self._listed_at:
            return rounded_up(self._listed_threads, multiple)
        low, high = self.threads.value
        return thread_counts(low, high, self.thread_step.value, multiple)

    def _show_thread_points(self) -> None:
        try:
            points = ", ".join(str(c) for c in self.thread_plan())
        except ConfigError as err:
            points = html.escape(str(err))
        self.thread_points.value = f"<small>Run measures at client threads: {points}</small>"

    def sweep(self, plan: SweepPlan | None = None) -> Sweep:
        """The sweep Run measures: the panel's request with `plan` (default: what the widgets describe) on the slot's
        engine, resolved and checked (labkit.sweeps.resolve). The slot keeps the node budget (the "CPU per node"
        control sets it), so the request carries none."""
        chosen = resolve(replace(self.request, plan=plan or self.plan(), phase=self.phase, settings={}, engine=self.slot.engine, node_cpu=None))
        check_slot(chosen, self.slot)  # before Run freezes the prediction or draws anything
        return chosen

    def chosen(self) -> dict[str, Any]:
        """The settings' controls' current values, by name."""
        return {name: control.value for name, control in self.settings.items()}

    def ask_first(self, box: Any) -> "ControlPanel":
        """Run stays disabled until the student has predicted in `box` (or skipped); each run freezes the
        prediction and the next run asks again. In a batch run the box is always ready, so nothing waits."""
        self._prediction = box
        box.on_change(lambda _ready: self._enable_run())
        self._enable_run()
        return self

    def card_each_run(self, make_card: Callable[[pd.DataFrame], Any]) -> "ControlPanel":
        """After each run the student starts with the Run button, `make_card(rows of that run)` shows its card (the
        notebook's own card function: `asked.card_which(...)` on those rows) in the panel, under the figure, with its
        own explanation box: a re-run asked again, so it gets its own verdict. The notebook's run (`run()` in the cell)
        gets its card in the cell after it, as before."""
        if self._prediction is None:
            raise ConfigError("card_each_run judges each run's prediction: ask for it first with ask_first(asked[key])")
        self._card_maker = make_card
        return self

    def run(self, wait: bool = True) -> "ControlPanel":
        """Run the sweep the widgets describe; in the background unless `wait` (papermill, nbval). With a
        prediction asked first (`ask_first`) and none given, it raises PredictFirst (one sentence) and runs nothing."""
        if self.running:
            self._say("a sweep is already running: Stop it first", "firebrick")
            return self
        if self._prediction is not None:
            self._prediction.require()  # PredictFirst: one sentence, and Run All stops here
        try:
            chosen = self.sweep()
        except LabkitError as exc:
            self._say(str(exc), "firebrick")
            if wait:
                raise
            return self
        if self._prediction is not None:
            answer = self._prediction.freeze()
            self._predicted = f"{self._prediction.question.key}: {'none' if answer is None else answer}"
        self._cancel.clear()
        self.error = None
        self._sweeps += 1
        self._set_running(True, chosen.plan)
        if wait:
            self._sweep(chosen)
            if self.error is not None:
                raise self.error
        else:
            self._thread = threading.Thread(target=self._sweep, args=(chosen, True), name="labkit-panel-sweep", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the sweep to stop: the run in progress is recorded as partial, nothing measured is lost."""
        self._cancel.set()
        self._say("stopping after the current run…", "darkorange")

    def wait(self, timeout: float | None = None) -> "ControlPanel":
        if self._thread is not None:
            self._thread.join(timeout)
        return self

    @property
    def running(self) -> bool:
        return self._running

    @property
    def results(self) -> pd.DataFrame:
        """Every row measured by this panel so far (partial runs have complete=False)."""
        return pd.DataFrame(self.rows)

    # ---- the sweep, and drawing what it yields ---------------------------------------------------

    def _sweep(self, chosen: Sweep, card: bool = False) -> None:
        """One sweep; `card`: a run from the Run button, whose card (card_each_run) the panel shows itself."""
        plan = chosen.plan
        ops_total = plan.runs * plan.operations
        finished = 0

        def on_cluster(info: ClusterInfo) -> None:
            self.cluster_line.value = f"<b>cluster:</b> {html.escape(info.display)}"
            self.figure.layout.title.text = f"{html.escape(self.pattern.title)} · {html.escape(self.phase)} · {html.escape(info.display)}"

        def progress(done: int, operations: int) -> None:
            now = time.monotonic()
            if now - self._last_tick >= 0.2 or done == operations:
                self._last_tick = now
                self.progress.value = min(ops_total, finished * plan.operations + done)

        def on_result(row: dict[str, Any]) -> None:
            nonlocal finished
            finished += 1
            if self._prediction is not None:
                row["prediction"] = self._predicted  # which runs a student predicted (the report and the rows say)
            self.rows.append(row)
            self.progress.value = finished * plan.operations
            self._draw(row)
            verdict = {"failed": " · VERIFY FAILED", "unfinished": " · VERIFY NOT DONE"}.get(str(row.get("verify_state")), "")
            self._say(
                f"{row['approach']} · {row['threads']} threads ({row['processes']} client process{'es' if row['processes'] != 1 else ''}): {row['throughput']:,.0f} tx/s, "
                + (f"p95 {row['p95_us'] / 1000:.1f} ms" if row.get("p95_us") is not None else f"no transaction succeeded ({row.get('errors')} errors)") + verdict,
                "firebrick" if verdict else "black",
            )

        try:
            self.slot.on_change = self._say
            self.slot.node_cpu = self.node_cpu  # re-budgets a running cluster in place
            watch = SweepWatch(progress=progress, cancel=self._cancel, echo=lambda text: self._say(text, "darkorange"), on_cluster=on_cluster,
                               on_workload=lambda approach: self._say(f"running {approach}…"))
            with Bench(chosen, slot=self.slot, resources=self.resources, echo=lambda text: self._say(text, "darkorange")) as bench:
                for row in measure(bench, store=self.store, watch=watch):
                    on_result(row)
            if self._cancel.is_set():
                self._say("stopped: the last run is kept as partial (complete=False) and not drawn", "darkorange")
            else:
                self._say(f"done: {finished} runs" + ratio_summary(self.rows[len(self.rows) - finished:]))
            if card and self._card_maker is not None and finished and not self._cancel.is_set():  # a stopped run judges nothing
                self._card(self.rows[len(self.rows) - finished:])
        except BaseException as exc:  # shown in the panel; rows measured so far stay in self.rows
            self.error = exc
            detail = str(exc) if isinstance(exc, LabkitError) else "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self._say(f"the sweep stopped with an error after {finished} runs: {detail}", "firebrick")
        finally:
            self._set_running(False, plan)

    def _card(self, rows: list[dict[str, Any]]) -> None:
        """This run's card in the panel's card area; a card that cannot be made says why there and loses no rows."""
        assert self._card_maker is not None
        try:
            with cards_into(self._card_area):
                self._card_maker(pd.DataFrame(rows))
        except Exception as exc:  # the rows stay measured; the card's failure is said, not raised into a thread
            self._say(f"this run's card could not be made: {''.join(traceback.format_exception_only(type(exc), exc)).strip()}", "firebrick")

    def _empty_figure(self, title: str) -> go.FigureWidget:
        fig = make_subplots(rows=1, cols=2, subplot_titles=("throughput (transactions/s)", "p95 latency (ms)"), horizontal_spacing=0.12)
        fig.update_xaxes(title_text="client threads")
        fig.update_layout(title=dict(text=html.escape(title)), height=380, margin=dict(t=70, b=40), legend=dict(orientation="h", y=-0.2))
        return go.FigureWidget(fig)

    def _draw(self, row: dict[str, Any]) -> None:
        """Add one finished run to its (approach, nodes) line in both panels: each point is the median of its
        repeats with their spread (min-max) as error bars, and its marker says what limited it."""
        if not row.get("complete", True) or row.get("p95_us") is None or row.get("control_copy"):  # nothing to draw, or the A/A copy
            return
        changed = [k for k in self.settings if row.get(k) != self._initial_settings[k]]  # settings left as they started need no word in the legend
        approach, nodes, sweep_number = str(row["approach"]), int(row["nodes"]), self._sweeps
        words = [*(f"{k.replace('_', ' ')} {row.get(k)}" for k in changed), budget_text(row["node_cpu"]) if row.get("node_cpu") is not None else ""]
        key = (approach, nodes, *words, sweep_number)
        with self.figure.batch_update():
            if key not in self._traces:
                name = " · ".join([approach, f"{nodes} node{'s' if nodes != 1 else ''}", *filter(None, words)] + ([f"run {sweep_number}"] if sweep_number > 1 else []))
                group = "/".join(map(str, key))
                for col in (1, 2):
                    self.figure.add_trace(
                        go.Scatter(x=[], y=[], mode="lines+markers", name=name, legendgroup=group, showlegend=col == 1, marker=dict(symbol=[], size=9)),
                        row=1,
                        col=col,
                    )
                n = len(self.figure.data)
                self._traces[key] = (n - 2, n - 1)
                # same colour for the approach in both panels
                self.figure.data[n - 1].line.color = self.figure.data[n - 1].marker.color = _colour(len(self._traces) - 1)
                self.figure.data[n - 2].line.color = self.figure.data[n - 2].marker.color = _colour(len(self._traces) - 1)
            self._points.setdefault(key, []).append(row)
            points = point_spread(self._points[key])
            for index, column in zip(self._traces[key], ("throughput", "p95_ms")):
                trace = self.figure.data[index]
                trace.x, trace.y = list(points["threads"]), list(points[column])
                trace.error_y = dict(type="data", symmetric=False, array=list(points[column + "_max"] - points[column]),
                                     arrayminus=list(points[column] - points[column + "_min"]), visible=bool((points["runs"] > 1).any()))
                trace.marker.symbol = [LIMIT_SYMBOLS[k] for k in points["limited"]]
        saturated = sum(limit_kind(r.get("limit"), r.get("client_saturated")) == "client" for r in self.rows)
        if saturated:
            self.warning.value = f"<span style='color:firebrick'>{html.escape(CLIENT_BOUND_WARNING.format(n=saturated, total=len(self.rows)))}</span>"

    def _enable_run(self) -> None:
        """Run is pressable when no sweep runs and no prediction is awaited."""
        self.run_button.disabled = self._running or (self._prediction is not None and not self._prediction.ready())

    def _set_running(self, running: bool, plan: SweepPlan) -> None:
        self._running = running
        self._enable_run()
        self.stop_button.disabled = not running
        if running:
            self.progress.max = max(1, plan.runs * plan.operations)
            self.progress.value = 0
            self.progress.description = f"{plan.runs} runs"
        else:
            self.progress.description = "idle"

    def _say(self, text: str, colour: str = "black") -> None:
        self.status.value = f"<span style='color:{colour}'>{html.escape(text)}</span>"


def point_spread(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Per thread count: the median throughput and p95 (ms) of its runs, their min and max, how many runs, and
    what limited most of them (results.figures.point_spread, which the saved figures draw too)."""
    df = pd.DataFrame(rows)
    df["p95_ms"] = df["p95_us"] / 1000.0
    return figures.point_spread(df, ("throughput", "p95_ms"), "approach").rename(columns={"limited by": "limited"}).sort_values("threads")


def ratio_summary(rows: list[dict[str, Any]]) -> str:
    """'; pattern / naive at 32 threads, 3 nodes: 2.6x (2.3-3.1)' for the highest thread count of each node count
    (a profile's designs: each over the first design)."""
    from ..results.intervals import comparisons

    table = comparisons(rows) if rows else pd.DataFrame()
    if table.empty:
        return ""
    top = table[table["threads"] == table.groupby("nodes")["threads"].transform("max")]
    return "".join(f"; {r['numerator']} / {r['denominator']} at {r['threads']} threads, {r['nodes']} node(s): {r['text']}"
                   for _i, r in top.iterrows())


def _setting_widget(setting: Setting, value: Any, style: dict[str, str], layout: w.Layout) -> w.Widget:
    """A drop-down for named choices, a slider for a range a slider can show, else a bounded number box."""
    label = setting.name.replace("_", " ")
    if setting.choices:
        return w.Dropdown(options=list(setting.choices), value=value, description=label, style=style, tooltip=setting.help)
    if (setting.high - setting.low) // setting.step <= 1000:
        return w.IntSlider(value=value, min=setting.low, max=setting.high, step=setting.step, description=label, style=style, layout=layout,
                           tooltip=setting.help)
    return w.BoundedIntText(value=value, min=setting.low, max=setting.high, step=setting.step, description=label, style=style,
                            layout=w.Layout(width="260px"), tooltip=setting.help)


def _colour(i: int) -> str:
    palette = plotly.colors.qualitative.Plotly
    return palette[i % len(palette)]

