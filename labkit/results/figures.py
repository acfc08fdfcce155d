"""Plotly figures of sweep results: throughput and latency vs client threads, naive vs pattern."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from ..errors import ConfigError

CLIENT_BOUND_NOTE = "✕ = client-bound run: the Python client, not the database, was the limit"
LIMIT_NOTE = "marker = what limited the point: ● none seen · ■ a node at ≥90% of its CPU budget (work or idle wake-ups) · ◆ the machine · ✕ the client"
LIMIT_SYMBOLS = {"none": "circle", "server": "square", "machine": "diamond", "client": "x"}


def limit_kind(row_limit: object, client_saturated: object = False) -> str:
    """'client', 'server', 'machine' or 'none' from a row's `limit` (older rows: client_saturated)."""
    text = str(row_limit) if isinstance(row_limit, str) and row_limit else ("client" if client_saturated is True else "none")
    kind = text.split(" ", 1)[0].split("-", 1)[0]  # 'server node2' -> server, 'client-inflight' -> client
    return kind if kind in LIMIT_SYMBOLS else "none"


def limit_kinds(df: pd.DataFrame) -> pd.Series:
    limits = df["limit"] if "limit" in df else pd.Series([None] * len(df), index=df.index)
    saturated = df["client_saturated"] if "client_saturated" in df else pd.Series([False] * len(df), index=df.index)
    return pd.Series([limit_kind(lim, sat) for lim, sat in zip(limits, saturated)], index=df.index)


def describe_budgets(df: pd.DataFrame) -> str:
    """'0.15 core per node' / 'no node CPU budget' for titles: a budgeted figure never passes for an unbudgeted one."""
    from ..clusters.base import budget_text

    if "node_cpu" not in df:
        return budget_text(None)
    values = sorted({None if pd.isna(v) else float(v) for v in df["node_cpu"]}, key=lambda v: -1 if v is None else v)
    return ", ".join(budget_text(v) for v in values)
LATENCY_STATS = {"mean_us": "mean", "p95_us": "p95", "p99_us": "p99"}


def describe_servers(df: pd.DataFrame) -> str:
    """'cassandra 5.0.9 · provider local' for the title; stand-ins are named as what they are."""
    servers = df.reindex(columns=["engine", "server_version", "provider", "server_label"]).astype(object).fillna("").astype(str)
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
    return f"{pattern}: {kind} vs client threads<br><sup>{describe_servers(df)} · {describe_budgets(df)} · client processes {processes}</sup>"


def _finish(fig: go.Figure, df: pd.DataFrame) -> go.Figure:
    """Say under the plot what the markers mean (what limited each point), and leave room for that line."""
    client = (limit_kinds(df) == "client").any()
    fig.add_annotation(text=LIMIT_NOTE, xref="paper", yref="paper", x=0, y=-0.27, showarrow=False, font=dict(size=11, color="firebrick" if client else "dimgray"))
    fig.update_layout(margin=dict(b=110))  # below the x-axis title, not over it
    return fig


POINT_KEYS = ("pattern", "phase", "approach", "engine", "server_version", "provider", "server_label", "nodes", "node_cpu", "threads", "target_rate")
SPREAD_NOTE = "each point: the median of its repeats; bars: their spread (min-max)"


def point_spread(df: pd.DataFrame, values: tuple[str, ...], color: str, extra_keys: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per point (the keys that name it, `color`'s column among them): each of `values` as the median
    of the point's repeats, with `<value>_min`, `<value>_max` and `runs`; `limit` the one most of them had.
    A/A control copies and partial runs are left out (unless nothing else is left)."""
    from .intervals import usable

    kept = usable(df)
    data = (kept if not kept.empty else df).copy()
    data["limited by"] = limit_kinds(data)
    keys = [c for c in dict.fromkeys((*POINT_KEYS, color, *extra_keys)) if c in data]
    hover = [c for c in ("p95_us", "errors", "retries", "client_cpu_cores", "server_cpu_ms_per_tx") if c in data and c not in values]
    aggregations = {"runs": (values[0], "size"), "limited by": ("limited by", lambda v: v.mode().iloc[0])}
    if "limit" in data:
        aggregations["limit"] = ("limit", lambda v: v.astype(str).mode().iloc[0])
    for v in values:
        aggregations.update({v: (v, "median"), f"{v}_min": (v, "min"), f"{v}_max": (v, "max")})
    aggregations.update({c: (c, "median") for c in hover})
    out = data.groupby(keys, dropna=False, sort=True).agg(**aggregations).reset_index()
    for v in values:
        out[f"{v}_above"], out[f"{v}_below"] = out[f"{v}_max"] - out[v], out[v] - out[f"{v}_min"]
    return out


def throughput_figure(df: pd.DataFrame, color: str = "approach") -> go.Figure:
    """Transactions/s vs threads, one line per approach (or per value of another column, `color`, e.g. a
    setting such as consistency), one panel per node count; a point repeated is drawn as its median with
    the repeats' spread."""
    _check(df, ("pattern", "approach", "engine", "server_version", "provider", "nodes", "threads", "throughput", color))
    data = point_spread(df, ("throughput",), color).sort_values(["nodes", color, "threads"])
    repeated = bool((data["runs"] > 1).any())
    fig = px.line(
        data,
        x="threads",
        y="throughput",
        color=color,
        facet_col="nodes",
        markers=True,
        custom_data=["limited by"],
        error_y="throughput_above" if repeated else None,
        error_y_minus="throughput_below" if repeated else None,
        labels={"throughput": "transactions / s", "threads": "client threads", "nodes": "nodes"},
        hover_data=[c for c in ("runs", "p95_us", "errors", "retries", "client_cpu_cores", "limit", "server_cpu_ms_per_tx", "node_cpu") if c in data],
        title=_title("throughput" + (f" ({SPREAD_NOTE})" if repeated else ""), data),
    )
    return _finish(_mark_limits(fig), data)


def latency_figure(df: pd.DataFrame, color: str = "approach") -> go.Figure:
    """Mean, p95 and p99 latency (ms) vs threads: colour = approach (or another column, `color`), dash =
    statistic, panel = nodes."""
    _check(df, ("pattern", "approach", "engine", "server_version", "provider", "nodes", "threads", color, *LATENCY_STATS))
    keep = [c for c in dict.fromkeys((*POINT_KEYS, color, "client_saturated", "limit", "complete", "control_copy")) if c in df]
    long = df.melt(id_vars=keep, value_vars=list(LATENCY_STATS), var_name="statistic", value_name="latency_us")
    long["statistic"] = long["statistic"].map(LATENCY_STATS)
    long["latency_ms"] = long["latency_us"] / 1000.0
    long = point_spread(long, ("latency_ms",), color, ("statistic",)).sort_values(["nodes", color, "statistic", "threads"])
    repeated = bool((long["runs"] > 1).any())
    fig = px.line(
        long,
        x="threads",
        y="latency_ms",
        color=color,
        line_dash="statistic",
        facet_col="nodes",
        markers=True,
        custom_data=["limited by"],
        error_y="latency_ms_above" if repeated else None,
        error_y_minus="latency_ms_below" if repeated else None,
        labels={"latency_ms": "latency (ms)", "threads": "client threads", "nodes": "nodes"},
        title=_title("latency (mean, p95, p99)" + (f" ({SPREAD_NOTE})" if repeated else ""), df),
    )
    return _finish(_mark_limits(fig), df)


def _mark_limits(fig: go.Figure) -> go.Figure:
    """Each point's marker says what the run found at its limit (the lines stay whole: one trace per approach): a square is a
    node at 90% of its budget, which before the 1 ms timer slack a budgeted Cassandra node was at any load."""
    for trace in fig.data:
        if trace.customdata is not None and len(trace.customdata):
            kinds = [row[0] for row in trace.customdata]
            trace.marker.symbol = [LIMIT_SYMBOLS.get(k, "circle") for k in kinds]
            trace.marker.size = 9
            trace.hovertemplate = (trace.hovertemplate or "") + "<br>limited by %{customdata[0]}"
    return fig


TIMELINE_FIELDS = ("second", "span_s", "transactions", "errors", "p50_us", "p95_us", "p99_us")


def timeline_frame(row: dict | pd.Series) -> pd.DataFrame:
    """A result row's per-second timeline (its `timeline` column) as a table with throughput per second."""
    import json

    text = row.get("timeline") if hasattr(row, "get") else None
    if not isinstance(text, str) or not text:
        raise ConfigError("this result has no per-second timeline (rows from labkit before the timeline was kept have none); run it again")
    frame = pd.DataFrame(json.loads(text), columns=list(TIMELINE_FIELDS))
    frame["throughput"] = frame["transactions"] / frame["span_s"].where(frame["span_s"] > 0.05)
    return frame


def timeline_figure(row: dict | pd.Series, marks: list[tuple[float, str]] | None = None) -> go.Figure:
    """Throughput and p50/p95/p99 second by second for one run (a result row), with vertical lines at
    `marks` [(second, label)], e.g. when a node was added and when it became effective."""
    from plotly.subplots import make_subplots

    frame = timeline_frame(row)
    labels = pd.DataFrame([dict(row)])
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("transactions / s", "latency (ms)"))
    fig.add_trace(go.Scatter(x=frame["second"], y=frame["throughput"], mode="lines+markers", name="throughput"), row=1, col=1)
    if frame["errors"].any():
        fig.add_trace(go.Bar(x=frame["second"], y=frame["errors"], name="errors", marker_color="firebrick", opacity=0.5), row=1, col=1)
    for field, dash in (("p50_us", "dot"), ("p95_us", "dash"), ("p99_us", "solid")):
        fig.add_trace(go.Scatter(x=frame["second"], y=frame[field] / 1000, mode="lines", name=field[:3], line=dict(dash=dash)), row=2, col=1)
    for second, label in marks or []:
        fig.add_vline(x=second, line_dash="dot", line_color="gray", annotation_text=label, annotation_position="top left")
    what = " · ".join(str(labels[c].iloc[0]) for c in ("pattern", "approach", "phase") if c in labels and pd.notna(labels[c].iloc[0]))
    setup = (f"{describe_servers(labels)} · {describe_budgets(labels)} · {labels['nodes'].iloc[0] if 'nodes' in labels else '?'} node(s) · "
             f"{labels['threads'].iloc[0] if 'threads' in labels else '?'} threads x {labels['processes'].iloc[0] if 'processes' in labels else 1} process(es)")
    fig.update_layout(title=f"{what or labels.get('workload', pd.Series(['run'])).iloc[0]}: second by second<br><sup>{setup}</sup>",
                      xaxis2_title="seconds since the measured window opened", height=560)
    return fig
