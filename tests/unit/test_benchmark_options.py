"""The benchmarks' own options: the command line a results file quotes is the one given, and the hot-spot
benchmark's verdict on what held a run back (region servers, the machine, or the client's workers; the one Thrift
gateway shows as the machine's cores it used)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import hbase_hot_spot  # noqa: E402
import report  # noqa: E402


def test_profile_run_quotes_the_given_options_and_parses_the_benchmarks_own(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["ycsb_engines.py", "--mixes", "d,e,f", "--quick"])
    profile, stem, command, args = report.profile_run("benchmarks/ycsb_engines.py", None,
                                                      lambda p: p.add_argument("--mixes", type=lambda v: v.split(",")))
    assert (profile, stem) == ("quick", "ycsb_engines_quick")
    assert command == ".venv/bin/python benchmarks/ycsb_engines.py --mixes d,e,f --quick"
    assert args.mixes == ["d", "e", "f"]


def test_profile_run_refuses_an_unknown_option(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["tactics.py", "--mixes", "a"])
    with pytest.raises(SystemExit):
        report.profile_run("benchmarks/tactics.py", None)
    assert "unrecognized arguments: --mixes a" in capsys.readouterr().err


@pytest.mark.parametrize("limit, said", [
    ("server rs3", "region servers (one at its budget)"),
    ("machine", "the machine's cores"),
    ("client-inflight", "the client (its processes, or too few requests in flight)"),
    ("none", "the client's workers (servers, gateway and machine below their limits)"),
])
def test_gateway_verdict_words_the_runners_limit(limit, said):
    assert hbase_hot_spot.gateway_verdict(limit) == said


def test_a_classroom_run_of_one_notebook_keeps_the_others_times_with_their_own_machine_and_date(monkeypatch, tmp_path):
    import classroom_profile
    import pandas as pd

    monkeypatch.setattr(classroom_profile, "TIMES", tmp_path / "classroom_profile.csv")
    earlier = pd.DataFrame([{"notebook": "00_getting_started", "ok": True, "seconds": 258, "minutes": 4.3, "date": "2026-11-27", "machine": "laptop A"},
                            {"notebook": "08_your_design", "ok": True, "seconds": 700, "minutes": 11.7, "date": "2026-11-27", "machine": "laptop A"}])
    classroom_profile.write_times(earlier)
    today = pd.DataFrame([{"notebook": "08_your_design", "ok": True, "seconds": 609, "minutes": 10.1, "date": "2026-11-28", "machine": "laptop B"}])
    merged = classroom_profile.kept_with_their_labels(today)
    assert merged.to_dict("records") == [earlier.iloc[0].to_dict(), today.iloc[0].to_dict()]
    classroom_profile.write_times(merged)
    md = (tmp_path / "classroom_profile.md").read_text()
    assert "laptop A (00_getting_started); laptop B (08_your_design)" in md and "| 2026-11-27 |" in md
