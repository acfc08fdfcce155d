"""Checks that can fail (#67 item 2): a lesson's check cell raises VerificationFailed when its runs did not
verify, so a lesson whose runs lost data stops there (under papermill, nbval and nbclient alike) instead of
printing "3 failed verification" and passing. Each check is shown to fail once and to pass once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from labkit.results import VerificationFailed, assert_verified, verification_report

ROOT = Path(__file__).resolve().parents[2]


def row(approach="pattern", threads=2, ok=True, **more):
    state = {True: "ok", False: "failed", None: "unfinished"}[ok]
    return {"phase": "register", "approach": approach, "nodes": 1, "threads": threads, "complete": True, "verify_ok": ok,
            "verify_state": state, "verify_checks": "users=40", "verify_problems": "" if ok else "5 users missing (first: [6, 13])", **more}


def test_one_failed_run_raises_and_names_it(capsys):
    runs = pd.DataFrame([row(), row("naive/legacy", ok=False), row(threads=8)])
    with pytest.raises(VerificationFailed) as failed:
        assert_verified(runs)
    assert isinstance(failed.value, AssertionError)
    assert failed.value.problems == ["phase=register approach=naive/legacy nodes=1 threads=2: FAILED verification — 5 users missing (first: [6, 13])"]
    assert "What to do" in str(failed.value)
    assert capsys.readouterr().out.strip() == verification_report(runs)  # the report is printed before it raises


def test_all_ok_runs_pass_and_print_the_report(capsys):
    runs = pd.DataFrame([row(), row("naive/legacy"), row(threads=8)])
    assert assert_verified(runs) is None  # nothing to show after the report in a cell that ends with it
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "3 runs, 0 failed verification"


def test_a_verify_that_could_not_finish_fails():
    with pytest.raises(VerificationFailed, match="verify could not finish"):
        assert_verified(pd.DataFrame([row(), row(ok=None, verify_problems="read timeout")]))


def test_a_table_built_from_results_without_verify_state_reads_ok_none_as_unfinished(capsys):
    """Lessons 01, 03 (volume) and 09 build their tables from run results (`verify_ok: result.verification.ok`):
    None there is Verification's "could not finish", which fails; a sweep row says "not run" itself."""
    built = pd.DataFrame([{"engine": "cassandra", "approach": "naive", "run": 1, "verify_ok": True},
                          {"engine": "cassandra", "approach": "pattern", "run": 1, "verify_ok": None}])
    with pytest.raises(VerificationFailed, match="approach=pattern: verify could not finish"):
        assert_verified(built)
    assert "NOT DONE" in capsys.readouterr().out
    assert_verified(pd.DataFrame([row(), row(threads=8, ok=None, verify_state="not run", verify_problems="")]))


def test_a_run_stopped_by_hand_is_no_failure_but_in_a_batch_run_it_is(capsys):
    runs = pd.DataFrame([row(), row(threads=8, ok=None, complete=False, verify_state="not run", verify_problems="")])
    assert_verified(runs, batch=False)
    assert "threads=8: stopped early, not verified" in capsys.readouterr().out
    with pytest.raises(VerificationFailed, match="stopped early in a batch run"):
        assert_verified(runs, batch=True)


def test_batch_follows_labkit_batch_as_the_predictions_module_reads_it(monkeypatch):
    from labkit import predictions
    from labkit.results import verification

    assert verification.BATCH_ENV == predictions.BATCH_ENV
    runs = pd.DataFrame([row(complete=False, ok=None, verify_state="not run")])
    monkeypatch.setenv(predictions.BATCH_ENV, "1")
    assert predictions.in_batch()
    with pytest.raises(VerificationFailed):
        assert_verified(runs)
    monkeypatch.setenv(predictions.BATCH_ENV, "0")
    assert not predictions.in_batch()
    assert_verified(runs)


def test_no_runs_fail_where_the_section_ran_and_a_skip_stays_a_printed_skip(capsys):
    for nothing in (pd.DataFrame(), [], None):
        with pytest.raises(VerificationFailed, match="no runs"):
            assert_verified(nothing)
    capsys.readouterr()
    assert_verified(None, expect_runs=False)
    assert capsys.readouterr().out.strip() == "skipped"


def test_each_section_of_a_mapping_must_hold_runs():
    with pytest.raises(VerificationFailed) as failed:
        assert_verified({"cassandra": pd.DataFrame([row()]), "mongodb": pd.DataFrame()})
    assert failed.value.problems == ["[mongodb] no runs: the cells that measure this section did not run (run them first), or ran nothing"]
    assert_verified({"cassandra": pd.DataFrame([row()]), "mongodb": pd.DataFrame([row(engine="mongodb")])})


def test_what_the_lesson_names_must_be_none(capsys):
    runs = pd.DataFrame([row()])
    assert_verified(runs, expect_none={"tactics the server did not confirm": []})
    assert "tactics the server did not confirm: 0" in capsys.readouterr().out
    with pytest.raises(VerificationFailed, match=r"tactics the server did not confirm: 1 \(add-node\), expected none"):
        assert_verified(runs, expect_none={"tactics the server did not confirm": ["add-node"]})


def test_runs_with_errors_fail_only_where_the_lesson_allows_none():
    runs = pd.DataFrame([row(errors=0), row(threads=8, errors=3, error_kinds="Timeout=3")])
    assert_verified(runs)
    with pytest.raises(VerificationFailed, match=r"threads=8: 3 failed transactions \(Timeout=3\)"):
        assert_verified(runs, allow_errors=False)


def test_every_run_false_prints_only_what_did_not_verify(capsys):
    runs = pd.DataFrame([row(), row(threads=8), row(threads=4, ok=None, verify_state="not run", verify_problems="")])
    assert_verified(runs, every_run=False)
    assert capsys.readouterr().out.strip().splitlines() == ["phase=register approach=pattern nodes=1 threads=4: not verified (users=40)",
                                                            "3 runs, 0 failed verification"]


def test_the_report_reads_verify_ok_as_text_and_numpy_bools():
    runs = pd.DataFrame([row(ok=True), row(threads=8, ok=False)])
    as_text = runs.assign(verify_ok=runs.verify_ok.astype(str))
    assert verification_report(runs) == verification_report(as_text)
    assert verification_report(runs).endswith("2 runs, 1 failed verification")
    with pytest.raises(VerificationFailed):
        assert_verified(as_text)


@pytest.mark.full  # full tier: a slow unit test (4.2 s of make test's unit run on 2026-12-03)
def test_a_notebook_stops_at_the_failed_check_and_runs_nothing_after_it(tmp_path):
    """What the check cells are for, without a server: under nbclient (as under papermill and nbval) the cell
    raises VerificationFailed, execution stops there, and the cells after it do not run."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.v4.new_notebook()
    rows = [row(), row("naive/legacy", ok=False)]
    nb.cells = [nbformat.v4.new_code_cell(f"import pandas as pd\nfrom labkit.results import assert_verified\nruns = pd.DataFrame({rows!r})"),
                nbformat.v4.new_code_cell("assert_verified(runs)"),
                nbformat.v4.new_code_cell("print('after the check')")]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError) as failed:
        client.execute()
    assert failed.value.ename == "VerificationFailed"
    check, after = nb.cells[1], nb.cells[2]
    assert [o["ename"] for o in check.outputs if o["output_type"] == "error"] == ["VerificationFailed"]
    assert any("2 runs, 1 failed verification" in o.get("text", "") for o in check.outputs if o["output_type"] == "stream")
    assert after.execution_count is None and after.outputs == []


# ---- the notebooks' check cells ------------------------------------------------------------------------------

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


BEFORE = "c89553b"
"""The last commit whose lessons printed their reports under `# NBVAL_CHECK_OUTPUT` (24 cells) instead of asserting them."""


def checks_that_compare_nothing(notebook: dict) -> list[str]:
    """The code cells of a notebook committed without outputs that print a verification report, or carry the
    `# NBVAL_CHECK_OUTPUT` marker nbval honours only beside a stored output: each checks nothing."""
    found = []
    for cell in (c for c in notebook["cells"] if c["cell_type"] == "code"):
        text = "".join(cell["source"])
        if not cell["outputs"] and ("NBVAL_CHECK_OUTPUT" in text or "verification_report(" in text):
            found.append(cell.get("id", "?"))
    return found


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_lesson_prints_a_report_that_compares_nothing(path):
    notebook = json.loads(path.read_text())
    assert checks_that_compare_nothing(notebook) == [], f"{path.name}: print a report with assert_verified, which fails the cell"
    assert all(not c.get("outputs") for c in notebook["cells"]), f"{path.name} is committed with outputs"


def test_the_check_finds_the_cells_that_compared_nothing_before():
    """Not vacuous: at BEFORE the lessons' 24 marked cells (and 05's and 06's report cells) are found."""
    import subprocess

    found = []
    for path in LESSONS:
        old = subprocess.run(["git", "show", f"{BEFORE}:notebooks/{path.name}"], cwd=ROOT, capture_output=True, text=True)
        if old.returncode != 0:
            pytest.skip("not a git checkout with the lessons as they were")
        found += checks_that_compare_nothing(json.loads(old.stdout))
    assert len(found) == 24 + 3, found  # ycsb-09, ycsb-19 and tactics-21 printed the reports the marked cells cut


def test_every_lesson_with_live_runs_checks_them():
    checks = {p.stem: len(re.findall(r"assert_verified\(|assert_partition_outcome\(|assert_like_the_source\(", p.read_text())) for p in LESSONS}
    unchecked = [name for name, n in checks.items() if n == 0 and name != "00_getting_started"]
    assert unchecked == [], f"lessons without a check cell: {unchecked}"
    assert sum(checks.values()) >= 24


# ---- the lessons' own conditions -----------------------------------------------------------------------------

def partition(naive=(1000, 500, 500), uuid=(1000, 0, 0)):
    """Section 3's table of lesson 01: per approach (registered, keys handed out twice, records lost)."""
    rows = []
    for approach, (registered, twice, lost) in (("naive", naive), ("pattern", uuid), ("pattern/timeuuid", uuid)):
        rows.append({**row(approach, threads=4), "registered (both regions)": registered, "keys handed out twice": twice,
                     "users stored after repair": registered - lost, "records lost": lost})
    return pd.DataFrame(rows)


def test_lesson_01_expects_every_counter_key_twice_and_no_uuid_lost(capsys):
    from labkit.lessons.uuid_key import assert_partition_outcome, expected_losses

    assert expected_losses(partition()) == []
    assert_partition_outcome(partition())
    assert "records lost" in capsys.readouterr().out
    assert expected_losses(partition(uuid=(1000, 0, 3))) == ["pattern: 0 keys handed out twice and 3 records lost; expected none of either",
                                                              "pattern/timeuuid: 0 keys handed out twice and 3 records lost; expected none of either"]
    assert len(expected_losses(partition(naive=(1000, 0, 0)))) == 1  # a counter that never collided: the partition did not happen
    with pytest.raises(VerificationFailed, match="rows unlike the lesson's account"):
        assert_partition_outcome(partition(naive=(1000, 500, 499)))


def test_lesson_06_expects_runs_only_where_a_section_was_planned():
    from labkit.lessons.tactics import SECTIONS, sections_planned
    from labkit.tactics.scenarios import scenarios

    for profile in ("quick", "classroom"):
        assert sections_planned({p.key: p for p in scenarios(profile)}) == list(SECTIONS)
    assert sections_planned({p.key: p for p in scenarios("classroom", ["create-index-2i", "decommission-scan"])}) == []


def test_lesson_07_checks_the_bibliography_it_streamed():
    from labkit.datasets.bibliography import Bibliography, shape_problems
    from labkit.lessons.distorted_replicas import assert_like_the_source

    for size in (100, 1000, 5000):
        bibliography = Bibliography(size)
        for _ in bibliography.stream():
            pass
        assert shape_problems(bibliography) == [], size
        assert_like_the_source(bibliography)
    unread = Bibliography(1000)  # its statistics before any record was streamed
    with pytest.raises(VerificationFailed, match="the statistics count 0 publications, 1000 were asked for"):
        assert_like_the_source(unread)
    lopsided = Bibliography(1000)
    for _ in lopsided.stream():
        pass
    lopsided.stats.authorships *= 2  # twice the authors per publication the source has
    assert any("authors per publication" in p for p in shape_problems(lopsided))
