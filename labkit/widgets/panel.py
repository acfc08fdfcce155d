"""The control panel every notebook shows: sliders in, a live figure out, over `labkit.results.sweep`.

The panel owns no measuring logic: Run turns the widgets' values into a SweepPlan, runs the sweep in a
background thread (so Stop stays clickable) and draws each row as it arrives. `run(wait=True)` does
the same in the foreground, which is how papermill and nbval execute notebooks.
"""

from __future__ import annotations

import html
import threading
import time
import traceback
from typing import Any, Callable, Sequence

import ipywidgets as w
import pandas as pd
import plotly.colors
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..clusters.base import budget_text
from ..clusters.slot import ClusterSlot
from ..errors import ConfigError, LabkitError
from ..results import ResultsStore, SweepPlan, sweep
from ..results.figures import LIMIT_SYMBOLS, limit_kind

WorkloadFor = Callable[..., Any]  # (approach, cluster, operations, **choices) -> workload

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
    return sorted({-(-c // multiple) * multiple for c in counts})


class ControlPanel:
    """Threads, nodes, operations and approaches in; throughput and p95 latency out, point by point."""

    def __init__(
        self,
        *,
        title: str,
        pattern: str,
        approaches: Sequence[str],
        workload_for: WorkloadFor,
        slot: ClusterSlot,
        threads: tuple[int, int] = (1, 8),
        thread_step: int = 1,
        max_threads: int = 64,
        nodes: int = 1,
        max_nodes: int = 8,
        operations: int = 1000,
        max_operations: int = 200_000,
        choices: dict[str, Sequence[str]] | None = None,
        settings: dict[str, tuple[int, int, int, int]] | None = None,
        operations_for: Callable[[dict[str, Any]], int] | None = None,
        thread_multiple: int = 1,
        labels: dict[str, Any] | None = None,
        run_options: dict[str, Any] | None = None,
        store: ResultsStore | str | None = None,
    ):
        self.pattern = pattern
        self.workload_for = workload_for
        self.slot = slot
        self.run_options = dict(run_options or {})
        self.labels = dict(labels or {})  # fixed settings, e.g. {"phase": "login"}: passed to workload_for, a column of every row
        self.operations_for = operations_for  # operations derived from the settings (e.g. 2 x users per region)
        self.thread_multiple = thread_multiple
        self.store = store
        self.rows: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._traces: dict[tuple, tuple[int, int]] = {}
        self._sweeps = 0  # each press of Run draws its own lines, so a repeat does not zigzag over the last one
        self._last_tick = 0.0

        style = {"description_width": "110px"}
        layout = w.Layout(width="460px")
        self.threads = w.IntRangeSlider(value=threads, min=1, max=max_threads, description="client threads", style=style, layout=layout)
        self.thread_step = w.IntSlider(value=thread_step, min=1, max=max(1, max_threads // 2), description="thread step", style=style, layout=layout)
        self.nodes = w.IntSlider(value=nodes, min=1, max=max_nodes, description="cluster nodes", style=style, layout=layout)
        self.cpu_per_node = w.Dropdown(
            options=list(NODE_CPU_CHOICES), description="CPU per node", style=style,
            tooltip="Each node's CPU budget: a budgeted node is a small machine of its own, so more nodes add capacity",
        )
        self.node_cpu = slot.node_cpu
        self.operations = w.BoundedIntText(value=operations, min=1, max=max_operations, step=100, description="operations", style=style, layout=w.Layout(width="260px"))
        self.approaches = {a: w.Checkbox(value=True, description=a, indent=False, layout=w.Layout(width="150px")) for a in approaches}
        self.choices = {name: w.Dropdown(options=list(opts), value=opts[0], description=name, style=style) for name, opts in (choices or {}).items()}
        self.settings = {
            name: w.IntSlider(value=value, min=low, max=high, step=step, description=name.replace("_", " "), style=style, layout=layout)
            for name, (value, low, high, step) in (settings or {}).items()
        }
        if operations_for is not None:
            self.operations.disabled = True
            self.operations.description = "operations ="
            for slider in self.settings.values():
                slider.observe(lambda _change: self._show_operations(), names="value")
            self._show_operations()
        self.run_button = w.Button(description="Run", button_style="success", icon="play", tooltip="Run the sweep with these settings")
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop", disabled=True, tooltip="Stop after recording the run in progress as partial")
        self.progress = w.IntProgress(value=0, min=0, max=1, description="idle", style=style, layout=w.Layout(width="460px"))
        self.cluster_line = w.HTML(value="<b>cluster:</b> not started yet (Run starts it with the node count above)")
        self.status = w.HTML(value="")
        self.warning = w.HTML(value="")
        self.figure = self._empty_figure(title)
        self.run_button.on_click(lambda _b: self.run(wait=False))
        self.stop_button.on_click(lambda _b: self.stop())
        self.widget = w.VBox(
            [
                w.HTML(f"<h4 style='margin:4px 0'>{html.escape(title)}</h4>"),
                w.HBox([w.VBox([self.threads, self.thread_step, self.nodes, self.cpu_per_node]), w.VBox([*self.settings.values(), self.operations, *self.choices.values()])]),
                w.HBox([w.Label("approaches:"), *self.approaches.values()]),
                w.HBox([self.run_button, self.stop_button, self.progress]),
                self.cluster_line,
                self.status,
                self.warning,
                self.figure,
            ]
        )

    # ---- what a notebook calls -------------------------------------------------------------------

    @property
    def node_cpu(self) -> float | None:
        """Each node's CPU budget (cores; None = none) that the next Run applies: the "CPU per node" control."""
        return self.cpu_per_node.value or None

    @node_cpu.setter
    def node_cpu(self, cores: float | None) -> None:
        if cores is not None:
            from ..clusters.local.budgets import check_cores

            check_cores(cores)
        value = float(cores or 0.0)
        if value not in [v for _label, v in self.cpu_per_node.options]:
            self.cpu_per_node.options = [*self.cpu_per_node.options, (f"{value:g} core", value)]
        self.cpu_per_node.value = value

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def plan(self) -> SweepPlan:
        """The sweep the widgets currently describe."""
        chosen = [a for a, box in self.approaches.items() if box.value]
        if not chosen:
            raise ConfigError("tick at least one approach before Run")
        labels = {**self.labels, **self._chosen()}
        return SweepPlan(
            pattern=self.pattern,
            approaches=chosen,
            threads=thread_counts(*self.threads.value, self.thread_step.value, self.thread_multiple),
            nodes=[self.nodes.value],
            operations=self.operations_for(labels) if self.operations_for else self.operations.value,
            run_options=self.run_options,
            labels=labels,
        )

    def _chosen(self) -> dict[str, Any]:
        """The dropdowns' and sliders' current values, by name."""
        return {**{name: box.value for name, box in self.choices.items()}, **{name: s.value for name, s in self.settings.items()}}

    def _show_operations(self) -> None:
        self.operations.value = min(self.operations.max, max(self.operations.min, self.operations_for({**self.labels, **self._chosen()})))

    def run(self, wait: bool = True) -> "ControlPanel":
        """Run the sweep the widgets describe; in the background unless `wait` (papermill, nbval)."""
        if self.running:
            self._say("a sweep is already running: Stop it first", "firebrick")
            return self
        try:
            plan = self.plan()
            plan.check()
        except LabkitError as exc:
            self._say(str(exc), "firebrick")
            if wait:
                raise
            return self
        self._cancel.clear()
        self.error = None
        self._sweeps += 1
        self._set_running(True, plan)
        if wait:
            self._sweep(plan)
            if self.error is not None:
                raise self.error
        else:
            self._thread = threading.Thread(target=self._sweep, args=(plan,), name="labkit-panel-sweep", daemon=True)
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
        return self.run_button.disabled  # disabled exactly while a sweep runs, in either mode

    @property
    def results(self) -> pd.DataFrame:
        """Every row measured by this panel so far (partial runs have complete=False)."""
        return pd.DataFrame(self.rows)

    # ---- the sweep, and drawing what it yields ---------------------------------------------------

    def _sweep(self, plan: SweepPlan) -> None:
        ops_total = plan.runs * plan.operations
        finished = 0
        choice_kwargs = dict(plan.labels)

        def cluster_for(nodes: int):
            self.slot.on_change = self._say
            self.slot.node_cpu = self.node_cpu  # re-budgets a running cluster in place
            info = self.slot.info_for(nodes)
            self.cluster_line.value = f"<b>cluster:</b> {html.escape(info.display)}"
            self.figure.layout.title.text = f"{html.escape(self.pattern)} · {html.escape(info.display)}"
            return info

        def workload_for(approach: str, info):
            self._say(f"running {approach}…")
            return self.workload_for(approach, self.slot.cluster, plan.operations, **choice_kwargs)

        def progress(done: int, operations: int) -> None:
            now = time.monotonic()
            if now - self._last_tick >= 0.2 or done == operations:
                self._last_tick = now
                self.progress.value = min(ops_total, finished * plan.operations + done)

        def on_result(row: dict[str, Any], result) -> None:
            nonlocal finished
            finished += 1
            self.rows.append(row)
            self.progress.value = finished * plan.operations
            self._draw(row)
            verdict = "" if row.get("verify_ok") in (True, None) else " · VERIFY FAILED"
            self._say(
                f"{row['approach']} · {row['threads']} threads ({row['processes']} client process{'es' if row['processes'] != 1 else ''}): {row['throughput']:,.0f} tx/s, p95 {row['p95_us'] / 1000:.1f} ms{verdict}",
                "firebrick" if verdict else "black",
            )

        try:
            for _row in sweep(plan, cluster_for=cluster_for, workload_for=workload_for, store=self.store, cancel=self._cancel, on_result=on_result, progress=progress, server_meter_for=self.slot.cpu_meter, echo=lambda text: self._say(text, "darkorange")):
                pass
            if self._cancel.is_set():
                self._say("stopped: the last run is kept as partial (complete=False) and not drawn", "darkorange")
            else:
                self._say(f"done: {finished} runs")
        except BaseException as exc:  # shown in the panel; rows measured so far stay in self.rows
            self.error = exc
            detail = str(exc) if isinstance(exc, LabkitError) else "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self._say(f"the sweep stopped with an error after {finished} runs: {detail}", "firebrick")
        finally:
            self._set_running(False, plan)

    def _empty_figure(self, title: str) -> go.FigureWidget:
        fig = make_subplots(rows=1, cols=2, subplot_titles=("throughput (transactions/s)", "p95 latency (ms)"), horizontal_spacing=0.12)
        fig.update_xaxes(title_text="client threads")
        fig.update_layout(title=dict(text=html.escape(title)), height=380, margin=dict(t=70, b=40), legend=dict(orientation="h", y=-0.2))
        return go.FigureWidget(fig)

    def _draw(self, row: dict[str, Any]) -> None:
        """Add one finished run to its (approach, nodes) line in both panels; each marker says what limited it."""
        if not row.get("complete", True):
            return
        key = (str(row["approach"]), int(row["nodes"]), *(str(row.get(k)) for k in self.choices), *(f"{k.replace('_', ' ')} {row.get(k)}" for k in self.settings), budget_text(row["node_cpu"]) if row.get("node_cpu") is not None else "", self._sweeps)
        symbol = LIMIT_SYMBOLS[limit_kind(row.get("limit"), row.get("client_saturated"))]
        with self.figure.batch_update():
            if key not in self._traces:
                name = " · ".join([key[0], f"{key[1]} node{'s' if key[1] != 1 else ''}", *filter(None, key[2:-1])] + ([f"run {key[-1]}"] if key[-1] > 1 else []))
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
            for index, value in zip(self._traces[key], (row["throughput"], row["p95_us"] / 1000.0)):
                trace = self.figure.data[index]
                points = sorted(zip([*trace.x, row["threads"]], [*trace.y, value], [*trace.marker.symbol, symbol]))
                trace.x, trace.y, trace.marker.symbol = (list(p) for p in zip(*points))
        saturated = sum(limit_kind(r.get("limit"), r.get("client_saturated")) == "client" for r in self.rows)
        if saturated:
            self.warning.value = f"<span style='color:firebrick'>{html.escape(CLIENT_BOUND_WARNING.format(n=saturated, total=len(self.rows)))}</span>"

    def _set_running(self, running: bool, plan: SweepPlan) -> None:
        self.run_button.disabled = running
        self.stop_button.disabled = not running
        if running:
            self.progress.max = max(1, plan.runs * plan.operations)
            self.progress.value = 0
            self.progress.description = f"{plan.runs} runs"
        else:
            self.progress.description = "idle"

    def _say(self, text: str, colour: str = "black") -> None:
        self.status.value = f"<span style='color:{colour}'>{html.escape(text)}</span>"


def _colour(i: int) -> str:
    palette = plotly.colors.qualitative.Plotly
    return palette[i % len(palette)]

