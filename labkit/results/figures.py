"""Plotly figures of sweep results: throughput and latency vs client threads, naive vs pattern."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from ..errors import ConfigError

CLIENT_BOUND_NOTE = "✕ = client-bound run: the Python client, not the database, was the limit"
LATENCY_STATS = {"mean_us": "mean", "p95_us": "p95", "p99_us": "p99"}


def describe_servers(df: pd.DataFrame) -> str:
    """'cassandra 5.0.9 · provider local' for the title; stand-ins are named as what they are."""
    servers = df.reindex(columns=["engine", "server_version", "provider", "server_label"]).fillna("").astype(str)
    parts = []
    for engine, version, provider, label in servers.drop_duplicates().itertuples(index=False):
        if provider == "standin":
            parts.append(f"STAND-IN {label or '?'} (not {engine}): mechanics only, performance not meaningful · provider standin")
        else:
            parts.append(f"{engine} {version} · provider {provider}")
    return "; ".join(parts)


def _check(df: pd.DataFrame, needed: tuple[str, ...]) -> None:
    missing = [c for c in needed if c not in df.columns]
    if df.empty or missing:
        raise ConfigError(f"cannot plot: the results table is empty or lacks columns {missing}; run a sweep first")


def _title(kind: str, df: pd.DataFrame) -> str:
    pattern = ", ".join(sorted(df["pattern"].astype(str).unique()))
    if "phase" in df:
        pattern += " · phase " + ", ".join(sorted(df["phase"].astype(str).unique()))
    processes = ", ".join(str(p) for p in sorted(df["processes"].unique())) if "processes" in df else "1"
    return f"{pattern}: {kind} vs client threads<br><sup>{describe_servers(df)} · client processes {processes}</sup>"


def _finish(fig: go.Figure, df: pd.DataFrame) -> go.Figure:
    """Say under the plot when any point was client-bound, and leave room for that line."""
    if "client_saturated" in df and df["client_saturated"].fillna(False).astype(bool).any():
        fig.add_annotation(text=CLIENT_BOUND_NOTE, xref="paper", yref="paper", x=0, y=-0.18, showarrow=False, font=dict(size=11, color="firebrick"))
    fig.update_layout(margin=dict(b=90))
    return fig


def throughput_figure(df: pd.DataFrame) -> go.Figure:
    """Transactions/s vs threads, one line per approach, one panel per node count."""
    _check(df, ("pattern", "approach", "engine", "server_version", "provider", "nodes", "threads", "throughput"))
    data = df.sort_values(["nodes", "approach", "threads"]).copy()
    data["client_bound"] = data.get("client_saturated", False)
    data["client_bound"] = data["client_bound"].fillna(False).astype(bool).map({True: "client-bound", False: "ok"})
    fig = px.line(
        data,
        x="threads",
        y="throughput",
        color="approach",
        facet_col="nodes",
        markers=True,
        symbol="client_bound",
        symbol_map={"ok": "circle", "client-bound": "x"},
        labels={"throughput": "transactions / s", "threads": "client threads", "nodes": "nodes"},
        hover_data=[c for c in ("p95_us", "errors", "retries", "client_cpu_cores") if c in data],
        title=_title("throughput", data),
    )
    return _finish(fig, data)


def latency_figure(df: pd.DataFrame) -> go.Figure:
    """Mean, p95 and p99 latency (ms) vs threads: colour = approach, dash = statistic, panel = nodes."""
    _check(df, ("pattern", "approach", "engine", "server_version", "provider", "nodes", "threads", *LATENCY_STATS))
    long = df.melt(
        id_vars=[c for c in ("pattern", "approach", "nodes", "threads", "client_saturated") if c in df],
        value_vars=list(LATENCY_STATS),
        var_name="statistic",
        value_name="latency_us",
    )
    long["statistic"] = long["statistic"].map(LATENCY_STATS)
    long["latency_ms"] = long["latency_us"] / 1000.0
    long = long.sort_values(["nodes", "approach", "statistic", "threads"])
    fig = px.line(
        long,
        x="threads",
        y="latency_ms",
        color="approach",
        line_dash="statistic",
        facet_col="nodes",
        markers=True,
        labels={"latency_ms": "latency (ms)", "threads": "client threads", "nodes": "nodes"},
        title=_title("latency (mean, p95, p99)", df),
    )
    return _finish(fig, df)
