"""`make run`'s executor: runs every notebook, keeps going past a failure, writes the HTML report."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from labkit import batch


def notebook(path: Path, code: str) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("profile = 'quick'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_batch_runs_all_notebooks_and_reports_failures(tmp_path: Path):
    src, out = tmp_path / "notebooks", tmp_path / "build"
    src.mkdir()
    notebook(src / "00_ok.ipynb", "print('profile is', profile)")
    notebook(src / "01_broken.ipynb", "raise RuntimeError('cluster unreachable')")
    code = batch.main(["--notebooks", str(src), "--out", str(out), "--profile", "classroom"])
    assert code == 1
    report = json.loads((out / "report.json").read_text())
    assert [(r["name"], r["ok"]) for r in report] == [("00_ok", True), ("01_broken", False)]
    assert "cluster unreachable" in report[1]["error"]
    executed = nbformat.read(out / "00_ok.ipynb", as_version=4)
    assert "profile is classroom" in json.dumps(executed.cells[-1].outputs)
    index = (out / "index.html").read_text()
    assert "00_ok.html" in index and "FAILED" in index
    assert (out / "00_ok.html").exists() and (out / "01_broken.html").exists()


@pytest.mark.full  # full tier: a slow unit test (5.5 s of make test's unit run on 2026-12-03)
def test_a_batch_kernel_is_told_no_one_will_answer_a_prediction(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("LABKIT_BATCH", raising=False)
    src, out = tmp_path / "notebooks", tmp_path / "build"
    src.mkdir()
    notebook(src / "00_ask.ipynb", "from labkit.predictions import in_batch\nprint('batch', in_batch())")
    assert batch.main(["--notebooks", str(src), "--out", str(out)]) == 0
    assert "batch True" in json.dumps(nbformat.read(out / "00_ask.ipynb", as_version=4).cells[-1].outputs)
    import os

    assert "LABKIT_BATCH" not in os.environ  # only while the notebooks run


@pytest.mark.full  # full tier: a slow unit test (5.6 s of make test's unit run on 2026-12-03)
def test_the_report_says_which_runs_had_a_prediction(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path / "home"))
    src, out = tmp_path / "notebooks", tmp_path / "build"
    src.mkdir()
    notebook(src / "00_cards.ipynb", "\n".join([
        "from labkit.predictions import Question",
        "from labkit.widgets.prediction import PredictionBox, result_card",
        "asked = PredictionBox(Question('index_nodes', 'How many nodes?', 'count'), None, notebook='00_cards')",
        "given = PredictionBox(Question('winner', 'Which wins?', 'choice', options=('a', 'b')), {'winner': 'b'}, notebook='00_cards')",
        "asked.freeze(); given.freeze()",
        "result_card(asked, 3, 'The trace lists 3 nodes.', keep=False)",
        "result_card(given, 'b', 'Paired ratio 1.4x.', keep=False)",
    ]))
    assert batch.main(["--notebooks", str(src), "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    assert "Predictions: 1 of 2 questions answered before their runs (a batch run records the others as none)" in index
    assert "index_nodes" in index and "no prediction" in index and "winner" in index and "right" in index


def test_a_batch_gives_the_callers_environment_back(tmp_path: Path, monkeypatch):
    """A test session is a batch run for every notebook nbval executes after this test: running labkit.batch
    inside it must not take LABKIT_BATCH away (it did, and every later notebook then asked for predictions)."""
    monkeypatch.setenv("LABKIT_BATCH", "1")
    monkeypatch.delenv("LABKIT_RESULTS_SINK", raising=False)
    src, out = tmp_path / "notebooks", tmp_path / "build"
    src.mkdir()
    notebook(src / "00_ok.ipynb", "print('ok')")
    assert batch.main(["--notebooks", str(src), "--out", str(out)]) == 0
    import os

    assert os.environ.get("LABKIT_BATCH") == "1"


def test_batch_with_no_notebooks_says_so(tmp_path: Path, capsys):
    assert batch.main(["--notebooks", str(tmp_path), "--out", str(tmp_path / "b")]) == 1
    assert "no notebooks to run" in capsys.readouterr().err


def test_the_size_is_named_size_and_profile_still_works(tmp_path: Path, capsys):
    """`SIZE=classroom make run` passes --size; the older --profile is the same option; anything else is refused."""
    for option in ("--size", "--profile"):
        assert batch.main([option, "smoke", "--notebooks", str(tmp_path)]) == 1  # parsed, then: no notebooks there
        assert "no notebooks to run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        batch.main(["--size", "huge", "--notebooks", str(tmp_path)])
