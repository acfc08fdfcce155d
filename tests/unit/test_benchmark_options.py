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
