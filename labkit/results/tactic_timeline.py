"""The figure of one tactic applied under load: per-second throughput, latency from the scheduled start
and server CPU, with the span from the tactic's start to the server confirming it shaded. It draws from
plain tables (a TacticRun's `timeline_rows()` and `row()`), so committed results can be drawn again."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def setup_text(summary: dict[str, Any]) -> str:
    """engine, server version, provider, nodes before -> after, budget, threads: what every plot must say."""
    nodes = f"{summary.get('nodes_before')} node(s)"
    if summary.get("nodes_after") != summary.get("nodes_before"):
        nodes = f"{summary.get('nodes_before')} -> {summary.get('nodes_after')} nodes"
    cpu_b, cpu_a = summary.get("node_cpu_before"), summary.get("node_cpu_after")
    budget = "no CPU budget" if cpu_b in (None, "") or pd.isna(cpu_b) else f"{cpu_b:g} core/node"
    if cpu_a not in (None, "") and not pd.isna(cpu_a) and cpu_a != cpu_b:
        budget = f"{budget} -> {cpu_a:g}"
    return (f"{summary.get('engine')} {summary.get('server_version')} · provider {summary.get('provider')} · {nodes} · {budget} · "
            f"{summary.get('threads')} in flight, 1 client process")


def tactic_figure(timeline: pd.DataFrame | list[dict[str, Any]], summary: dict[str, Any], height: int = 720) -> go.Figure:
    """Three panels over the run's seconds: transactions/s (offered load dashed, failed ones as red bars),
    p95/p99 from the scheduled start (log scale) and the nodes' CPU; the tactic's span shaded (orange), and
    the settling seconds after it (pale)."""
    frame = pd.DataFrame(timeline)
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.07, row_heights=[0.35, 0.4, 0.25],
                        subplot_titles=("transactions / s", "latency from the scheduled start (ms, log)", "CPU (cores)"))
    fig.add_trace(go.Scatter(x=frame["second"], y=frame["throughput"], mode="lines+markers", name="completed / s"), row=1, col=1)
    fig.add_hline(y=summary["offered"], line_dash="dash", line_color="gray", annotation_text=f"offered {summary['offered']:g}/s",
                  annotation_position="bottom right", row=1, col=1)
    if frame["errors"].fillna(0).any():
        fig.add_trace(go.Bar(x=frame["second"], y=frame["errors"], name="failed / s", marker_color="firebrick", opacity=0.6), row=1, col=1)
    late = "intended_p95_ms" in frame and frame["intended_p95_ms"].notna().any()
    for field, dash, name in (("p95_ms", "dash", "p95"), ("p99_ms", "solid", "p99")):
        column = f"intended_{field}" if late else field
        fig.add_trace(go.Scatter(x=frame["second"], y=frame[column], mode="lines", name=name, line=dict(dash=dash)), row=2, col=1)
    fig.update_yaxes(type="log", row=2, col=1)
    fig.add_trace(go.Scatter(x=frame["second"], y=frame["server_cores"], mode="lines", name="all nodes"), row=3, col=1)
    cores = summary.get("machine_cores")
    if cores and "machine_busy" in frame:
        fig.add_trace(go.Scatter(x=frame["second"], y=frame["machine_busy"] * cores, mode="lines", name="whole machine",
                                 line=dict(dash="dot", color="gray")), row=3, col=1)
    start, effective = summary.get("started_s"), summary.get("effective_s")
    if start is not None and not pd.isna(start):
        end = effective if effective is not None and not pd.isna(effective) else frame["second"].max() + 1
        settle = summary.get("settle_s") or 0
        for row in (1, 2, 3):
            fig.add_vrect(x0=start, x1=end, fillcolor="orange", opacity=0.18, line_width=0, row=row, col=1)
            if settle and effective is not None and not pd.isna(effective):
                fig.add_vrect(x0=effective, x1=effective + settle, fillcolor="gold", opacity=0.12, line_width=0, row=row, col=1)
        took = "" if effective is None or pd.isna(effective) else f" -> effective at {effective:.1f} s ({effective - start:.1f} s)"
        if settle and took:
            took += f", then {settle:g} s settling"
        fig.add_annotation(x=start, y=1.0, yref="paper", xanchor="left", showarrow=False, text=f"started at {start:.1f} s{took}",
                           font=dict(size=11, color="darkorange"))
    fig.update_layout(
        title=f"{summary['tactic_title']} · {summary['workload_kind']} load, {summary['offered']:g}/s offered<br><sup>{setup_text(summary)}</sup>",
        xaxis3_title="seconds since the load's measured window opened", height=height, margin=dict(t=110),
    )
    return fig
