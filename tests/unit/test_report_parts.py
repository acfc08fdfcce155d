"""The batch report's parts: headline rows from measured rows, the slimmed notebook page, failures."""

from __future__ import annotations

import json

import nbformat
import pandas as pd

from labkit.report import PLOTLY_FILE, failure, first_figure, headline, slim_html


def rows() -> pd.DataFrame:
    base = {"pattern": "distorted-replicas", "phase": "read", "nodes": 1, "node_cpu": 0.2, "engine": "cassandra", "server_version": "5.0.9",
            "provider": "local", "verify_ok": True, "limit": "none"}
    data = []
    for groups, naive, pattern in ((1, 1000.0, 1100.0), (3, 1000.0, 400.0)):
        for threads, scale in ((8, 0.5), (64, 1.0)):
            data.append({**base, "groups": groups, "threads": threads, "approach": "naive", "throughput": naive * scale})
            data.append({**base, "groups": groups, "threads": threads, "approach": "pattern", "throughput": pattern * scale,
                         "limit": "server node1", "verify_ok": groups == 1 or threads == 8})
    return pd.DataFrame(data)


def test_headline_is_one_row_per_phase_setting_and_size_at_the_highest_thread_count():
    table = headline(rows())
    assert list(table["groups"]) == [1, 3]  # a setting that differs between runs keeps its runs apart
    assert list(table["threads"]) == [64, 64]
    assert list(table["pattern/naive"]) == ["1.1x (one pair, too few repeats for an interval)", "0.40x (one pair, too few repeats for an interval)"]
    assert list(table["verified"]) == ["4/4", "3/4"]
    assert list(table["budget"]) == ["0.2 core", "0.2 core"]
    assert table["limited by"].iloc[0] == "naive: none; pattern: server node1"
    assert headline(pd.DataFrame()).empty


def test_headline_ratios_come_from_paired_repeats_with_their_interval():
    data = []
    for repeat, (naive, pattern) in enumerate(((100.0, 260.0), (120.0, 290.0), (90.0, 250.0))):
        data += [{**r, "repeat": repeat} for r in rows().to_dict("records") if r["groups"] == 1 and r["threads"] == 64]
        data[-2]["throughput"], data[-1]["throughput"] = naive, pattern
    table = headline(pd.DataFrame(data))
    assert table["repeats"].iloc[0] == 3 and table["naive tx/s"].iloc[0] == 100.0  # the median
    from labkit.results.intervals import ratio_interval

    assert table["pattern/naive"].iloc[0] == ratio_interval([2.6, 290 / 120, 250 / 90]).text() and "(" in table["pattern/naive"].iloc[0]


def test_a_profiles_headline_compares_each_design_over_the_first_and_says_nothing_was_verified():
    from labkit.results.intervals import ratio_interval

    data = []
    for repeat, (first, second) in enumerate(((100.0, 300.0), (110.0, 310.0), (90.0, 290.0))):
        for design, value in (("design/by_index", first), ("design/by_query", second)):
            data.append({"pattern": "chat", "phase": "mix", "nodes": 1, "threads": 16, "repeat": repeat, "approach": design,
                         "throughput": value, "verify_ok": None, "limit": "none", "complete": True})
    table = headline(pd.DataFrame(data))
    assert table["design/by_query/design/by_index"].iloc[0] == ratio_interval([3.0, 310 / 110, 290 / 90]).text()
    assert table["verified"].iloc[0] == "not run (no verify)"


def test_slim_html_shares_plotly_and_stubs_the_widget_module():
    plotly = "/**\n* plotly.js v4.1.1\n*/ window.Plotly = {};" + "x" * 2000
    state = {"version_major": 2, "state": {"m1": {"model_name": "AnyModel", "state": {"_esm": "y" * 200_000, "value": 1}}}}
    body = (f"<html><head></head><body><script>window.PlotlyConfig={{}};</script><script>{plotly}</script><div>figure</div>"
            f"<script>Plotly.newPlot('a')</script><script type=\"application/vnd.jupyter.widget-state+json\">{json.dumps(state)}</script></body></html>")
    page, removed = slim_html(body)
    assert removed == plotly
    assert f'<script src="{PLOTLY_FILE}"></script><div>figure</div>' in page and "plotly.js v4" not in page
    assert "Plotly.newPlot('a')" in page and "window.PlotlyConfig" in page
    esm = json.loads(page.split('widget-state+json">')[1].split("</script>")[0])["state"]["m1"]["state"]["_esm"]
    assert len(esm) < 500 and "JupyterLab" in esm
    assert len(page) < 5000


def test_failure_names_the_cell_and_the_error():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("# start the cluster\nslot.ensure(3)")])
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="LabkitError", evalue="port 9042 is taken", traceback=[])]
    assert failure(nb) == "code cell 2 (# start the cluster): LabkitError: port 9042 is taken"
    nb.cells[1].outputs = []
    assert failure(nb) == ""


def test_first_figure_prefers_a_tagged_cell():
    fig = lambda name: nbformat.v4.new_output("display_data", data={"application/vnd.plotly.v1+json": {"data": [], "layout": {"title": name}}})  # noqa: E731
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a"), nbformat.v4.new_code_cell("b")])
    nb.cells[0].outputs = [fig("first")]
    nb.cells[1].outputs = [fig("main")]
    assert first_figure(nb)["layout"]["title"] == "first"
    nb.cells[1].metadata["tags"] = ["main-figure"]
    assert first_figure(nb)["layout"]["title"] == "main"


def test_the_sink_appends_rows_only_when_a_batch_asks(tmp_path, monkeypatch):
    from labkit.results import sink

    target = tmp_path / "rows.csv"
    monkeypatch.delenv(sink.SINK_ENV, raising=False)
    sink.record({"a": 1})
    assert not target.exists()
    monkeypatch.setenv(sink.SINK_ENV, str(target))
    sink.record({"a": 1})
    sink.record({"a": 2})
    assert list(pd.read_csv(target)["a"]) == [1, 2]


def test_the_report_counts_per_notebook_what_its_cards_could_judge(tmp_path):
    """The instructor sees what an overnight run could judge: per notebook and in all, from the executed notebooks' cards."""
    from types import SimpleNamespace

    import nbformat

    from labkit.predictions import ABSENT, CARD_MIME, JUDGED_ANSWER, TIE, TOO_FEW
    from labkit.report import judged_table

    for name, could in (("02_index_table", [JUDGED_ANSWER, TIE, TOO_FEW]), ("05_ycsb", [TOO_FEW])):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("asked.card(...)", outputs=[
            nbformat.v4.new_output("display_data", data={CARD_MIME: {"question": f"q{i}", "verdict": ABSENT, "could_judge": c}}) for i, c in enumerate(could)])]
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    runs = [SimpleNamespace(name="02_index_table"), SimpleNamespace(name="05_ycsb"), SimpleNamespace(name="06_missing")]
    table = judged_table(runs, tmp_path).set_index("notebook")
    assert list(table.index) == ["02_index_table", "05_ycsb", "all"]
    assert table.loc["02_index_table", ["questions", "could judge", "tie", "too few"]].tolist() == [3, 2, 1, 1]
    assert table.loc["all", ["questions", "could judge", "too few", "no prediction"]].tolist() == [4, 2, 2, 4]
