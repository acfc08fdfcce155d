"""Sweeps produce labelled tidy rows; stores append atomically; figures name what was measured."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

from fakes import CountingWorkload, sweep
from labkit.clusters.base import ClusterInfo
from labkit.errors import ConfigError
from labkit.results import METADATA_COLUMNS, ResultsStore, append_rows, latency_figure, load, throughput_figure
from labkit.sweeps import SweepPlan, parse_range
from labkit.results import store as store_module


def fake_cluster(n: int) -> ClusterInfo:
    return ClusterInfo(engine="cassandra", server_version="5.0.9", provider="local", nodes=n)


def test_parse_range_forms():
    assert parse_range("10:100:10") == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert parse_range("1:4") == [1, 2, 3, 4]
    assert parse_range("1,2,4") == [1, 2, 4]
    assert parse_range("8") == [8]
    for bad in ("a:b", "10:1:1", "1:10:0", "1:2:3:4"):
        with pytest.raises(ConfigError, match="START:STOP:STEP"):
            parse_range(bad)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_sweep_yields_one_labelled_row_per_run_and_stores_it(tmp_path: Path, fmt):
    out = tmp_path / f"results.{fmt}"
    plan = SweepPlan(pattern="index-table", approaches=["naive/sai", "pattern"], threads=[1, 3], nodes=[1, 2], operations=30)
    built = []

    def cluster_for(n):
        built.append(n)
        return fake_cluster(n)

    rows = list(sweep(plan, cluster_for=cluster_for, workload_for=lambda a, c: CountingWorkload(), store=out))
    assert len(rows) == plan.runs == 8
    assert built == [1, 2]  # one cluster per node count, not per run
    for col in METADATA_COLUMNS:
        assert all(col in r for r in rows), col
    assert {(r["nodes"], r["approach"], r["threads"]) for r in rows} == {
        (n, a, t) for n in (1, 2) for a in ("naive/sai", "pattern") for t in (1, 3)
    }
    assert all(r["count"] == 30 and r["engine"] == "cassandra" and r["server_version"] == "5.0.9" for r in rows)
    table = load(out)
    assert len(table) == 8
    assert list(table["threads"]) == [r["threads"] for r in rows]


def test_cancelled_sweep_keeps_what_it_measured(tmp_path: Path):
    out = tmp_path / "r.csv"
    cancel = threading.Event()
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[1, 2], operations=40)

    rows = []
    for row in sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload(), store=out, cancel=cancel):
        rows.append(row)
        if len(load(out)) == 2:
            cancel.set()
    assert len(rows) == 2 and len(load(out)) == 2


def test_a_failing_run_keeps_earlier_rows(tmp_path: Path):
    out = tmp_path / "r.csv"
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[1], operations=5, warmup_block=False)

    def workload_for(approach, cluster):
        if approach == "pattern":
            raise ConnectionError("cluster unreachable")
        return CountingWorkload()

    with pytest.raises(ConnectionError):
        list(sweep(plan, cluster_for=fake_cluster, workload_for=workload_for, store=out))
    assert list(load(out)["approach"]) == ["naive"]


def test_append_is_atomic_when_writing_crashes(tmp_path: Path, monkeypatch):
    out = tmp_path / "r.csv"
    append_rows(out, [{"a": 1, "b": 2}])
    before = out.read_bytes()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("crash mid-write")

    monkeypatch.setattr(store_module.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        append_rows(out, [{"a": 3, "b": 4}])
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]  # no temp file left behind


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_result_files_get_the_usual_permissions_and_keep_their_own(tmp_path: Path, fmt):
    import os
    import stat

    path = tmp_path / f"shared.{fmt}"
    old = os.umask(0o022)
    try:
        append_rows(path, [{"a": 1}])
        assert stat.S_IMODE(path.stat().st_mode) == 0o644  # readable by the course, like any file written with open()
        path.chmod(0o664)  # a shared folder's group-writable table stays so
        append_rows(path, [{"a": 2}])
        assert stat.S_IMODE(path.stat().st_mode) == 0o664
    finally:
        os.umask(old)
    assert list(load(path)["a"]) == [1, 2]


def test_append_adds_new_columns(tmp_path: Path):
    out = tmp_path / "r.parquet"
    append_rows(out, [{"a": 1}])
    table = append_rows(out, [{"a": 2, "read_p95_us": 10}])
    assert list(table.columns) == ["a", "read_p95_us"] and len(table) == 2


def test_unknown_result_format_is_refused(tmp_path: Path):
    with pytest.raises(ConfigError, match=".csv or .parquet"):
        ResultsStore(tmp_path / "r.xlsx")


@pytest.mark.parametrize(
    "change,match",
    [
        (dict(approaches=["fast"]), "must be 'naive' or 'pattern'"),
        (dict(threads=[0]), "threads must be at least 1"),
        (dict(nodes=[0]), "node counts"),
        (dict(operations=0), "operations must be at least 1"),
    ],
)
def test_bad_plans_are_refused_before_anything_runs(change, match):
    with pytest.raises(ConfigError, match=match):
        SweepPlan(**{**dict(pattern="fan-out", approaches=["naive"], threads=[1], operations=5), **change})


def sample_table() -> pd.DataFrame:
    plan = SweepPlan(pattern="index-table", approaches=["naive", "pattern"], threads=[1, 2], nodes=[1, 2], operations=20)
    return pd.DataFrame(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload(sleep_s=0.001)))


def test_figures_are_labelled_and_faceted_by_nodes():
    df = sample_table()
    for fig in (throughput_figure(df), latency_figure(df)):
        title = fig.layout.title.text
        assert "cassandra 5.0.9" in title and "provider local" in title and "index-table" in title
        facets = {a.text for a in fig.layout.annotations}
        assert {"nodes=1", "nodes=2"} <= facets
        assert {t.name.split(",")[0] for t in fig.data} >= {"naive", "pattern"}
    lat = latency_figure(df)
    assert {t.name.split(", ")[1] for t in lat.data} == {"mean", "p95", "p99"}


def test_standin_results_are_never_labelled_as_the_real_engine():
    df = sample_table()
    df["engine"], df["provider"], df["server_label"] = "mongodb", "standin", "mongo-java-server 1.47.0"
    title = throughput_figure(df).layout.title.text
    assert "STAND-IN mongo-java-server 1.47.0 (not mongodb)" in title


def test_every_point_is_marked_with_what_limited_it():
    df = sample_table()
    df["limit"] = "none"
    df.loc[0, "limit"] = "client"
    df.loc[1, "limit"] = "server node2"
    df["node_cpu"] = 0.15
    for fig in (throughput_figure(df), latency_figure(df)):
        symbols = [s for t in fig.data for s in t.marker.symbol]
        assert {"x", "square", "circle"} <= set(symbols) and "diamond" not in symbols
        assert any("what limited the point" in (a.text or "") for a in fig.layout.annotations)
        assert "0.15 core per node" in fig.layout.title.text


def test_rows_without_a_limit_column_fall_back_to_client_saturated():
    df = sample_table().drop(columns=["limit"], errors="ignore")
    df["client_saturated"] = False
    df.loc[0, "client_saturated"] = True
    fig = throughput_figure(df)
    assert sum(s == "x" for t in fig.data for s in t.marker.symbol) == 1
    assert "no node CPU budget" in fig.layout.title.text


def test_plotting_nothing_says_what_to_do():
    with pytest.raises(ConfigError, match="run a sweep first"):
        throughput_figure(pd.DataFrame())


def test_sweep_closes_each_runs_workload_after_verify():
    from fakes import HookedWorkload

    made = []

    def workload_for(approach, cluster):
        made.append(HookedWorkload())
        return made[-1]

    plan = SweepPlan(pattern="fan-out", approaches=["naive"], threads=[1, 2], operations=5)
    list(sweep(plan, cluster_for=fake_cluster, workload_for=workload_for))
    assert [w.phases[-1] for w in made] == ["close_process"] * 3  # the warm-up block's run, then the two measured
    assert all(w.phases.index("verify") < w.phases.index("close_process") for w in made)


def test_verification_report_is_one_line_per_run_and_counts_failures():
    import pandas as pd

    from labkit.results import verification_report

    df = pd.DataFrame([
        {"phase": "login", "approach": "pattern", "nodes": 3, "threads": 8, "complete": True, "verify_ok": True, "verify_checks": "users=10", "verify_problems": ""},
        {"phase": "login", "approach": "naive/sai", "nodes": 3, "threads": 2, "complete": True, "verify_ok": False, "verify_checks": "users=9", "verify_problems": "1 users missing"},
        {"phase": "login", "approach": "naive/sai", "nodes": 3, "threads": 8, "complete": False, "verify_ok": None, "verify_checks": "", "verify_problems": ""},
    ])
    text = verification_report(df).splitlines()
    assert text[0] == "phase=login approach=naive/sai nodes=3 threads=2: FAILED (users=9) — 1 users missing"
    assert text[1].endswith("stopped early, not verified")
    assert text[2] == "phase=login approach=pattern nodes=3 threads=8: ok (users=10)"
    assert text[-1] == "3 runs, 1 failed verification"


def test_sweeps_run_greenlets_unless_told_otherwise_and_run_itself_keeps_threads():
    from labkit.runner import run

    plan = SweepPlan(pattern="p", approaches=["naive"], threads=[4], operations=40)
    rows = list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload()))
    assert rows[0]["workers"] == "greenlets"
    plan = SweepPlan(pattern="p", approaches=["naive"], threads=[4], operations=40, run_options={"workers": "threads"})
    assert list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload()))[0]["workers"] == "threads"
    assert run(CountingWorkload(), threads=2, operations=10).to_row()["workers"] == "threads"


def test_repeated_points_are_drawn_as_their_median_with_the_spread():
    plan = SweepPlan(pattern="index-table", approaches=["naive", "pattern"], threads=[1, 2], operations=20, repeats=3, control="naive",
                     warmup_block=False)
    df = pd.DataFrame(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload(sleep_s=0.001)))
    fig = throughput_figure(df)
    naive = next(t for t in fig.data if t.name == "naive")
    first = df[(df["approach"] == "naive") & (df["threads"] == 1) & ~df["control_copy"]]["throughput"]  # the A/A copies are left out
    assert list(naive.x) == [1, 2] and naive.y[0] == pytest.approx(first.median())
    assert naive.error_y.array[0] == pytest.approx(first.max() - first.median())
    assert naive.error_y.arrayminus[0] == pytest.approx(first.median() - first.min())
    assert "median of its repeats" in fig.layout.title.text
    lat = latency_figure(df)
    assert all(len(t.x) == 2 for t in lat.data) and lat.data[0].error_y.array is not None
    single = throughput_figure(sample_table())
    assert single.data[0].error_y.array is None and "median" not in single.layout.title.text


def test_a_plan_is_frozen_and_checked_when_made():
    """A plan that cannot run is refused when made, with what to pass instead; nothing downstream can change one
    (a sweep that knows more makes a new plan with dataclasses.replace, which is checked again)."""
    import dataclasses

    plan = SweepPlan(pattern="fan-out", approaches=["naive"], threads=[1], operations=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.threads = [0]
    with pytest.raises(ConfigError, match="threads must be at least 1"):
        dataclasses.replace(plan, threads=[0])
    with pytest.raises(ConfigError, match="unknown run option"):
        SweepPlan(pattern="fan-out", approaches=["naive"], threads=[1], operations=5, run_options={"warm_up": 5})
    given = {"warmup": 5}
    made = SweepPlan(pattern="fan-out", approaches=["naive"], threads=[1], operations=5, run_options=given)
    given["warm_up"] = 5  # the caller's dict stays the caller's
    with pytest.raises(TypeError):
        made.run_options["warm_up"] = 5  # and the plan's cannot be written to
    assert dict(made.run_options) == {"warmup": 5} and made.labelled({"phase": "post"}).labels == {"phase": "post"}
