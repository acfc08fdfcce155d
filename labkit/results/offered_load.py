"""Offered-load sweeps: where a cluster stops keeping up (the knee), and the figure that shows it.

A paced run offers `target_rate` transactions/s; the cluster keeps up with it while it completes
(nearly) all of them on schedule. Past the knee, achieved throughput stops following the offered load
and latency measured from each transaction's intended start (queueing included) grows far beyond the
service time."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..errors import ConfigError
from .figures import LIMIT_SYMBOLS, _check, describe_budgets, describe_servers, limit_kinds
from .intervals import usable

KEPT_UP_SHARE = 0.95
"""A point keeps up when it achieved at least this share of its offered load ..."""
QUEUEING_FACTOR = 3.0
"""... and its p95 from the intended start is at most this many times its service-time p95."""


@dataclass(frozen=True)
class Knee:
    """The highest offered load the cluster kept up with before the first it did not."""

    target: float | None
    achieved: float | None
    first_overloaded: float | None
    why: str


def keeps_up(row: pd.Series | dict) -> bool:
    target, achieved = row["target_rate"], row["throughput"]
    intended, service = row.get("intended_p95_us"), row["p95_us"]
    if pd.isna(target) or target <= 0:
        raise ConfigError("keeps_up needs paced runs (a target_rate per row): run an offered-load sweep")
    queued = intended is not None and not pd.isna(intended) and service > 0 and intended > QUEUEING_FACTOR * service
    return achieved >= KEPT_UP_SHARE * target and not queued


def knee(points: pd.DataFrame) -> Knee:
    """The knee of one curve (one approach at one node count and thread count), by offered load."""
    data = points.sort_values("target_rate")
    last = None
    for _, row in data.iterrows():
        if keeps_up(row):
            last = row
            continue
        why = (f"at {row['target_rate']:,.0f}/s offered it achieved {row['throughput']:,.0f}/s"
               + (f" and p95 from the intended start was {row['intended_p95_us'] / 1000:,.0f} ms against {row['p95_us'] / 1000:,.0f} ms of service time"
                  if not pd.isna(row.get("intended_p95_us")) else ""))
        if last is None:
            return Knee(None, None, float(row["target_rate"]), "overloaded at the lowest offered load already: " + why)
        return Knee(float(last["target_rate"]), float(last["throughput"]), float(row["target_rate"]), why)
    top = data.iloc[-1]
    return Knee(None, None, None, f"kept up with every offered load up to {top['target_rate']:,.0f}/s: offer more to find the knee")


CURVE = ["approach", "nodes", "threads"]


def knees(df: pd.DataFrame) -> pd.DataFrame:
    """One row per curve: its knee, the first overloaded offered load and why. A repeated sweep (a `repeat`
    column with several blocks) gets a knee per block; the row gives their median (the lower middle one,
    so it is an offered load that ran), each block's knee in `knee_each` and how many blocks in `repeats`,
    because one block's knee can land a step off another's on a noisy machine."""
    _check(df, ("approach", "nodes", "threads", "target_rate", "throughput", "p95_us"))
    rows = []
    for key, points in usable(df).groupby(CURVE, sort=True):
        blocks = [part for _, part in points.groupby("repeat", sort=True)] if "repeat" in points else [points]
        found = [knee(block) for block in blocks]
        rows.append({**dict(zip(CURVE, key)), **_median_knee(found), "repeats": len(found),
                     "knee_each": " / ".join("none" if k.target is None else f"{k.target:,.0f}" for k in found)})
    return pd.DataFrame(rows)


def _median_knee(found: list[Knee]) -> dict:
    """The knee of the blocks' middle one by offered load (no knee inside the range counts as below every
    knee when overloaded at the lowest load, above every knee when it kept up throughout)."""
    def rank(k: Knee) -> float:
        if k.target is not None:
            return k.target
        return float("inf") if k.first_overloaded is None else float("-inf")

    middle = sorted(found, key=rank)[(len(found) - 1) // 2]
    return {"knee_offered": middle.target, "knee_achieved": middle.achieved, "first_overloaded": middle.first_overloaded, "why": middle.why}


def _blocks_note(df: pd.DataFrame) -> str:
    blocks = usable(df)["repeat"].nunique() if "repeat" in df else 1
    return f" (each point the median of {blocks} blocks, the knee the blocks' middle one)" if blocks > 1 else ""


def median_points(df: pd.DataFrame) -> pd.DataFrame:
    """One point per curve and offered load: the median of the repeated blocks' measurements (and the most
    common limit), so a repeated sweep draws one line per curve instead of a zigzag through its blocks."""
    data = usable(df)
    if "repeat" not in data or data["repeat"].nunique() < 2:
        return data
    by = [*CURVE, "target_rate"]
    numeric = [c for c in data.columns if c not in by and c != "repeat" and pd.api.types.is_numeric_dtype(data[c])]
    others = [c for c in data.columns if c not in by and c not in numeric and c != "repeat"]
    grouped = data.groupby(by, sort=True)
    medians = grouped[numeric].median()
    common = grouped[others].agg(lambda column: column.mode().iat[0] if not column.mode().empty else column.iat[0])
    return pd.concat([medians, common], axis=1).reset_index()


def offered_load_figure(df: pd.DataFrame) -> go.Figure:
    """Left: achieved vs offered throughput (the diagonal is keeping up). Right: p50/p95/p99 latency
    from the intended start against achieved throughput, log scale. The knee of each curve is starred;
    each marker's shape says what the run found at its limit (■: a node at 90% of its budget, on requests or on
    its idle workers' wake-ups)."""
    _check(df, ("pattern", "approach", "engine", "server_version", "provider", "nodes", "threads", "target_rate", "throughput", "p95_us"))
    data = median_points(df).sort_values([*CURVE, "target_rate"]).copy()
    data["limited by"] = limit_kinds(data)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("achieved vs offered load", "latency from the intended start: p50 dotted, p95 solid, p99 dashed"),
                        horizontal_spacing=0.1)
    top = float(data["target_rate"].max())
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", line=dict(color="lightgray", dash="dot"), name="kept up (achieved = offered)"), 1, 1)
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    found = knees(df)
    knee_notes: list[str] = []
    for i, (key, points) in enumerate(data.groupby(CURVE, sort=True)):
        colour = palette[i % len(palette)]
        label = f"{key[0]} · {key[1]} node(s) · {key[2]} threads"
        symbols = [LIMIT_SYMBOLS.get(k, "circle") for k in points["limited by"]]
        fig.add_trace(go.Scatter(x=points["target_rate"], y=points["throughput"], mode="lines+markers", name=label, legendgroup=label,
                                 marker=dict(symbol=symbols, size=8, color=colour), line=dict(color=colour)), 1, 1)
        for stat, dash in (("p50_us", "dot"), ("p95_us", "solid"), ("p99_us", "dash")):
            column = f"intended_{stat}" if f"intended_{stat}" in points else stat
            if column not in points:
                continue
            fig.add_trace(go.Scatter(x=points["throughput"], y=points[column] / 1000, mode="lines+markers", name=f"{label} · {stat[:-3]}",
                                     legendgroup=label, showlegend=False, marker=dict(symbol=symbols, size=6, color=colour),
                                     line=dict(color=colour, dash=dash), hovertemplate=f"{stat[:-3]} %{{y:,.1f}} ms at %{{x:,.0f}} tx/s"), 1, 2)
        k = found[(found.approach == key[0]) & (found.nodes == key[1]) & (found.threads == key[2])].iloc[0]
        if not pd.isna(k["knee_offered"]):
            at = points[points.target_rate == k["knee_offered"]].iloc[0]
            fig.add_trace(go.Scatter(x=[at["target_rate"]], y=[at["throughput"]], mode="markers", name=f"knee of {key[0]}",
                                     hovertext=[f"knee of {key[0]}: {at['throughput']:,.0f}/s achieved at {at['target_rate']:,.0f}/s offered"],
                                     marker=dict(symbol="star", size=16, color=colour, line=dict(color="black", width=1)),
                                     legendgroup=label, showlegend=False, hoverinfo="text"), 1, 1)
            knee_notes.append(f"{key[0]} {at['throughput']:,.0f}/s")
            p95 = at.get("intended_p95_us", at["p95_us"])
            fig.add_trace(go.Scatter(x=[at["throughput"]], y=[p95 / 1000], mode="markers", marker=dict(symbol="star", size=14, color=colour,
                                     line=dict(color="black", width=1)), legendgroup=label, showlegend=False, hoverinfo="skip"), 1, 2)
    fig.update_xaxes(title_text="offered load (transactions/s)", row=1, col=1)
    fig.update_yaxes(title_text="achieved (transactions/s)", row=1, col=1)
    fig.update_xaxes(title_text="achieved (transactions/s)", row=1, col=2)
    fig.update_yaxes(title_text="ms (log scale)", type="log", row=1, col=2)
    pattern = ", ".join(sorted(data["pattern"].astype(str).unique()))
    fig.update_layout(
        title=f"{pattern}: offered-load sweep, knee starred{_blocks_note(df)}<br><sup>{describe_servers(data)} · {describe_budgets(data)} · "
              f"nodes {', '.join(str(n) for n in sorted(data['nodes'].unique()))} · threads {', '.join(str(t) for t in sorted(data['threads'].unique()))}</sup>",
        height=600, margin=dict(t=100, b=190),
        legend=dict(orientation="h", y=-0.2, yanchor="top"),
    )
    fig.add_annotation(text=("★ knees (achieved): " + " · ".join(knee_notes) if knee_notes else "no knee inside the offered range") +
                            f"<br>knee = highest offered load still served: achieved ≥ {KEPT_UP_SHARE:.0%} of offered and p95 from the intended "
                            f"start ≤ {QUEUEING_FACTOR:g}x the service-time p95<br>marker: ● none seen ■ node at its CPU budget ◆ machine ✕ client",
                       xref="paper", yref="paper", x=0, xanchor="left", y=-0.42, yanchor="top", showarrow=False, align="left",
                       font=dict(size=11, color="dimgray"))
    return fig
