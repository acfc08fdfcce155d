"""A student's path through a real browser: JupyterLab serves 02_index_table.ipynb, Chromium (Debian's,
driven by Playwright) runs every cell; each live experiment stops with one sentence until its prediction is
given. The student answers the two trace questions, one right and one wrong, reads both cards (each verdict
with its own "look at" sentence) and explains the right one in the box under it, which the card then shows;
skips the register question, answers the login question, runs on from each experiment and reads the login's
result card (their prediction beside the measurement). Then they pick 0.15 core in the login panel's "CPU per
node" control, find Run locked until they predict again, answer, click Run, wait for the live figure to gain
the new, budgeted points of every approach, and read the re-run's own card in the panel. The screenshots land
in build/test-artifacts/."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from labkit.host.processes import processes_under
from labkit.home import clusters_dir

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "build" / "test-artifacts"
TINY = {"overrides": {"register": {"nodes": [1], "threads": [2], "operations": 60, "repeats": 1},
                      "login": {"nodes": [1], "threads": [2], "operations": 60, "warmup": 0, "settings": {"users": 100}, "repeats": 1}}}
GROWS = "more as the cluster grows"  # labkit.lessons.index_table.GROWS, written out as the student reads it
RUNS_PER_SWEEP = 3 * 1  # approaches x thread counts: the panel's path is the same for one thread count as for several


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Debian's Chromium is not installed and could not be (make test installs it with apt-get as root): browser test skipped")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tiny_copy(workdir: Path) -> Path:
    """The real notebook with CI's tiny parameters and without its closing cell (the test stops the
    kernel itself, after clicking Run)."""
    nb = nbformat.read(REPO / "notebooks" / "02_index_table.ipynb", as_version=4)
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    params.source += "\n# browser test\n" + "\n".join(f"{k} = {v!r}" for k, v in TINY.items())
    # the budgeted sweep and the committed figures come after the panels: they are nbval's to check, and a
    # longer notebook lets JupyterLab's windowing detach the register panel before the test can read it
    last = max(i for i, c in enumerate(nb.cells) if "assert_verified(login_panel.results)" in c.source)
    nb.cells = [c for c in nb.cells[: last + 1] if "slot.stop()" not in c.source]
    path = workdir / "02_index_table.ipynb"
    nbformat.write(nb, path)
    return path


def api(port: int, token: str, path: str, method: str = "GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


@pytest.fixture
def jupyterlab(tmp_path):
    notebook = tiny_copy(tmp_path)
    port, token = free_port(), secrets.token_hex(16)
    log = open(tmp_path / "jupyterlab.log", "w")
    # every cell rendered (no windowing), so the test can select the cell it runs on from
    settings = tmp_path / "jupyter-config" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    student = {k: v for k, v in os.environ.items() if k != "LABKIT_BATCH"}  # a student's kernel: predictions are asked
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={tmp_path}", "--ServerApp.open_browser=False", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        stdout=log, stderr=subprocess.STDOUT, env={**student, "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")},
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                api(port, token, "/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{(tmp_path / 'jupyterlab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/lab/tree/{notebook.name}?token={token}", (port, token)
    finally:
        try:  # a polite kernel shutdown lets the kernel's exit handlers stop the cluster it started
            for kernel in api(port, token, "/api/kernels"):
                api(port, token, f"/api/kernels/{kernel['id']}", method="DELETE")
        except OSError:
            pass
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        deadline = time.monotonic() + 30
        while [p for p in processes_under(clusters_dir()) if "java" in p.name()] and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not [p for p in processes_under(clusters_dir()) if "java" in p.name()], "the notebook's cluster outlived its kernel"


ASKED = "Predict first"


def predict(page, question: str, choice: str | None = None, skip: bool = False) -> None:
    """Answer (or skip) the prediction box whose question starts with `question`."""
    box = page.locator(".widget-vbox", has=page.locator(".widget-html", has_text=question)).last
    box.scroll_into_view_if_needed()
    if skip:
        box.locator("button", has_text="skip").click()
    else:
        if choice is not None:
            box.locator(".widget-toggle-button", has_text=choice).click()
        box.locator("button", has_text="Lock in").click()
    box.locator(".widget-html", has_text="skipped" if skip else "locked").wait_for(timeout=30_000)


def run_from(page, cell_text: str) -> None:
    """Select the code cell holding `cell_text` and run it and every cell below (Run menu)."""
    cell = page.locator(".jp-CodeCell", has_text=cell_text).first
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-InputPrompt").click()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run Selected Cell and All Below").first.click()


def stopped_at(page, cell_text: str):
    """Wait until the cell holding `cell_text` has asked for its prediction (and the kernel is idle)."""
    cell = page.locator(".jp-CodeCell", has_text=cell_text).first
    cell.locator(".jp-OutputArea-output", has_text=ASKED).wait_for(state="attached", timeout=480_000)
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
    return cell


def test_student_runs_the_index_table_notebook_and_the_panel_in_chromium(jupyterlab):
    from playwright.sync_api import sync_playwright

    url, _ = jupyterlab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(url, timeout=120_000)
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
            page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)  # the kernel is ready
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

            # Run All stops at the first experiment with one sentence, no traceback, and nothing below ran
            trace = stopped_at(page, 'asked.require("index_nodes"')
            assert page.locator(".widget-html", has_text="phase (a)").count() == 0
            predict(page, "Predict: Cluster size")  # the slider's 1: one node touched on a one-node cluster, right
            predict(page, "Predict: And one login through the lookup table", choice=GROWS)  # wrong: two reads by key, whatever the size
            run_from(page, 'asked.require("index_nodes"')
            stopped_at(page, 'ask_first(asked["register_winner"])')
            assert trace.locator(".jp-OutputArea-output", has_text=ASKED).count() == 0  # the traces ran this time

            # the two trace cards: one right, one wrong; the student explains the right one and the card keeps it
            cards = page.locator(".jp-CodeCell", has_text='asked.card("index_nodes"').first
            cards.scroll_into_view_if_needed()
            right = cards.locator(".labkit-card", has_text="legacy secondary index")
            wrong = cards.locator(".labkit-card", has_text="through the lookup table")
            assert "verdict right" in " ".join(right.inner_text().split()), right.inner_text()
            assert "verdict wrong" in " ".join(wrong.inner_text().split()) and GROWS in wrong.inner_text(), wrong.inner_text()
            assert "look at" in right.inner_text() and "look at" in wrong.inner_text()  # each verdict's own sentence
            why = cards.locator(".widget-vbox", has=page.locator(".widget-html", has_text="Why do you think")).first
            why.locator("textarea").fill("One node holds every row, so the index asks only it.")
            why.locator("button", has_text="Keep").click()
            right.locator(".labkit-explanation", has_text="One node holds every row").wait_for(timeout=30_000)
            cards.screenshot(path=str(ARTIFACTS / "jupyterlab_right_and_wrong_cards.png"))
            predict(page, "Predict: Registering users", skip=True)
            run_from(page, 'ask_first(asked["register_winner"])')
            stopped_at(page, 'ask_first(asked["login_winner"])')
            predict(page, "Predict: Logging users in", choice="the lookup table")
            run_from(page, 'ask_first(asked["login_winner"])')

            done = page.locator(".widget-html", has_text=f"done: {RUNS_PER_SWEEP} runs")
            # JupyterLab renders only the cells near the viewport, so wait for presence, not visibility
            done.nth(1).wait_for(state="attached", timeout=480_000)  # both panels (register, login) finished their first sweep
            page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'] .jp-RenderedText, .jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
            assert "Traceback" not in " ".join(errors.all_text_contents()), errors.all_text_contents()

            # the login's result card: the student's prediction beside what the run measured
            card = page.locator(".jp-RenderedHTMLCommon", has_text="you predicted").filter(has_text="Logging users in").last
            card.wait_for(state="attached", timeout=60_000)
            card.scroll_into_view_if_needed()
            text = card.inner_text()
            assert "the lookup table" in text and "logins per second" in text and "verdict" in text, text
            assert "too few repeats to judge" in text or "right" in text or "wrong" in text or "within noise" in text, text
            card.screenshot(path=str(ARTIFACTS / "jupyterlab_prediction_card.png"))

            login_panel = page.locator(".widget-vbox", has=page.locator("h4", has_text="phase (b)")).last
            login_panel.scroll_into_view_if_needed()
            figure = login_panel.locator(".js-plotly-plot")
            before = figure.locator(".scatterlayer .trace .points path").count()
            assert before == RUNS_PER_SWEEP * 2  # each run is a point in the throughput and the latency panel
            cpu_per_node = login_panel.locator(".widget-dropdown", has_text="CPU per node").locator("select")
            assert cpu_per_node.evaluate("el => el.options[el.selectedIndex].text").startswith("none")
            cpu_per_node.select_option(label="0.15 core")  # the second sweep runs on budgeted nodes
            run = login_panel.locator("button", has_text="Run").first
            assert run.is_disabled()  # a new run asks for a new prediction first
            predict(page, "Predict: Logging users in", choice="the secondary index")
            page.wait_for_function("el => !el.disabled", arg=run.element_handle(), timeout=30_000)
            run.click()
            page.wait_for_function(
                "([el, n]) => el.querySelectorAll('.scatterlayer .trace .points path').length >= n",
                arg=[figure.element_handle(), 2 * before],
                timeout=600_000,
            )
            # the re-run asked again and gets its own card in the panel, with its own explanation box
            rerun_card = login_panel.locator(".labkit-card", has_text="you predicted")
            rerun_card.wait_for(timeout=120_000)
            assert "the secondary index" in rerun_card.inner_text() and "verdict" in rerun_card.inner_text(), rerun_card.inner_text()
            assert login_panel.locator("textarea").count() == 1
            legend = " ".join(figure.locator(".legendtext").all_text_contents())
            assert "naive/legacy" in legend and "naive/sai" in legend and "pattern" in legend, legend
            assert "0.15 core per node" in legend, legend  # the budgeted sweep's lines say so
            status = login_panel.locator(".widget-html").all_text_contents()
            assert any("cassandra" in s and "1 node" in s and "0.15 core per node" in s for s in status), status  # the engine/version/provider/budget line
            login_panel.screenshot(path=str(ARTIFACTS / "jupyterlab_index_table_panel.png"))
            page.screenshot(path=str(ARTIFACTS / "jupyterlab_index_table_page.png"), full_page=False)
        finally:
            browser.close()
