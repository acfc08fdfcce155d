"""The instructor's report in a real browser: `labkit.batch` executes a small notebook (a real kernel, no
cluster) that shows a plotly figure and a live FigureWidget and records measured rows (the committed
Distorted Replicas benchmark's) as a sweep would; Chromium then opens build/index.html and the notebook's
page: the headline table is there, the figures draw from the one shared plotly.js, no script fails, and the
notebook page stays small. Screenshots land in build/test-artifacts/."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from labkit import batch

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "build" / "test-artifacts"
MEASURED = REPO / "benchmarks" / "results" / "distorted_replicas.csv"

CELLS = [
    "profile = 'quick'",
    "import pandas as pd, plotly.express as px, plotly.io as pio, plotly.graph_objects as go\n"
    "from labkit.results import sink\n"
    "pio.renderers.default = 'plotly_mimetype+notebook'\n"
    f"rows = pd.read_csv({str(MEASURED)!r})\n"
    "for row in rows[rows['experiment'] == 'vertical'].to_dict('records'):\n"
    "    sink.record(row)  # what every sweep does during `make run`\n"
    "px.bar(rows[rows['experiment'] == 'vertical'], x='groups', y='throughput', color='approach', barmode='group', facet_col='phase').show()",
    "go.FigureWidget(data=[go.Scatter(y=[1, 3, 2])])",
    "rows.head(3)",
]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Debian's Chromium is not installed and could not be (make test installs it with apt-get as root): browser test skipped")
    return path


def test_report_and_notebook_page_render(tmp_path):
    browser_path = chromium()
    notebooks, out = tmp_path / "notebooks", tmp_path / "build"
    notebooks.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CELLS])
    nb.cells[0].metadata["tags"] = ["parameters"]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, notebooks / "01_report_check.ipynb")
    assert batch.main(["--notebooks", str(notebooks), "--out", str(out), "--timeout", "300"]) == 0

    page_file = out / "01_report_check.html"
    assert (out / "plotly.min.js").stat().st_size > 1_000_000
    assert page_file.stat().st_size < 2_000_000, "the notebook page should not carry plotly.js itself"
    assert "* plotly.js v" not in page_file.read_text()
    index = (out / "index.html").read_text()
    assert "pattern/naive" in index and "verified" in index and "1 of 1 notebooks ran" in index

    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto((out / "index.html").as_uri())
            page.wait_for_selector("#fig0 .main-svg", timeout=30_000)
            assert page.locator("table.headline tr").count() >= 3
            page.screenshot(path=str(ARTIFACTS / "report_index.png"), full_page=True)
            page.goto(page_file.as_uri())
            page.wait_for_selector(".plotly-graph-div .main-svg", timeout=30_000)
            page.screenshot(path=str(ARTIFACTS / "report_notebook_page.png"), full_page=False)
            assert errors == [], errors
        finally:
            browser.close()
