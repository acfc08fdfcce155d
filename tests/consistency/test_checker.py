"""The linearizability checker (#72 item 2) on hand-made histories: Porcupine, built by labkit from the Go module
proxy, must call a linearizable history linearizable and name what breaks one that is not (a stale read, a lost
update), and must allow a write whose outcome is unknown to have happened or not. No servers: the histories are
written here, each operation's call and return on one clock (nanoseconds; the numbers only order them)."""

from __future__ import annotations

import shutil

import pytest

from labkit.consistency import check_history
from labkit.errors import ConfigError

NO_GO = pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: make test installs it (labkit/system-deps.sh)")


def op(process, kind, call, ret, *, key="x", value=None, expected=None, new=None, result=None, outcome="ok"):
    line = {"process": process, "key": key, "op": kind, "call": call, "return": ret, "outcome": outcome, "result": result}
    line.update({k: v for k, v in (("value", value), ("new", new)) if v is not None})
    if kind == "cas":
        line["expected"] = expected  # null: only when absent
    return line


@NO_GO
def test_a_linearizable_history_of_reads_writes_and_a_compare_and_set(tmp_path):
    history = [op(0, "write", 0, 10, value=1), op(1, "read", 5, 15, result=1),  # overlapping: the read may come after
               op(0, "cas", 20, 30, expected=1, new=2, result=True), op(1, "read", 31, 40, result=2),
               op(1, "cas", 41, 50, expected=1, new=3, result=False)]
    verdict = check_history(history, page=tmp_path / "page.html")
    assert verdict.linearizable and verdict.result == "Ok" and verdict.failing_key is None
    assert verdict.text() == "linearizable (5 operations on 1 key)"
    assert verdict.page == tmp_path / "page.html" and "<html" in verdict.page.read_text().lower()


@NO_GO
def test_a_stale_read_after_a_completed_write_is_not_linearizable_and_the_read_is_named(tmp_path):
    history = [op(0, "write", 0, 10, value=1, key="a"), op(1, "read", 20, 30, result=None, key="a"),  # after the write returned
               op(0, "write", 0, 10, value=5, key="b"), op(1, "read", 20, 30, result=5, key="b")]
    verdict = check_history(history)
    assert not verdict.linearizable and verdict.result == "Illegal" and verdict.failing_key == "a"
    assert [k.result for k in verdict.keys] == ["Illegal", "Ok"]
    assert verdict.failing().unplaced == ("read a -> (none)",) and verdict.failing().lines == (2,)


@NO_GO
def test_a_lost_update_two_compare_and_sets_from_one_value_both_applied_and_always_the_same_one_named():
    history = [op(0, "write", 0, 5, value=0), op(1, "cas", 10, 20, expected=0, new=1, result=True),
               op(2, "cas", 10, 20, expected=0, new=2, result=True)]
    named = {check_history(history).failing().unplaced for _ in range(8)}  # the search's order of equal candidates varies
    assert named == {("cas x 0 -> 1: true",)}, named  # the same history names the same operation: of equal returns, the earlier line


@NO_GO
def test_the_operation_named_is_where_the_search_got_stuck_not_an_innocent_concurrent_one():
    history = [op(0, "write", 0, 10, value=1), op(0, "write", 11, 20, value=2),
               op(1, "read", 12, 100, result=3),  # long and concurrent with the write of 3: innocent
               op(2, "read", 21, 30, result=1),  # after the write of 2 returned: the stale one
               op(0, "write", 31, 40, value=3), op(2, "read", 41, 50, result=3)]
    verdict = check_history(history)
    assert verdict.failing().unplaced == ("read x -> 1",) and verdict.failing().lines == (4,) and verdict.failing().prefix == 2
    assert "the longest linearizable prefix (2 operations) cannot be extended past: read x -> 1 (line 4)" in verdict.text()


@NO_GO
def test_compare_and_set_edges_an_unknown_one_and_if_not_exists():
    unknown = op(0, "cas", 0, None, expected=None, new=1, outcome="unknown")
    assert check_history([unknown]).linearizable  # matches at the end, with no one to see it
    assert check_history([unknown, op(1, "read", 10, 20, result=1), op(1, "read", 21, 30, result=1)]).linearizable
    assert not check_history([unknown, op(1, "read", 10, 20, result=1), op(1, "read", 21, 30, result=None)]).linearizable
    present = [op(0, "write", 0, 10, value=5)]
    assert check_history(present + [op(1, "cas", 20, 30, expected=None, new=6, result=False)]).linearizable  # IF NOT EXISTS on a row
    assert not check_history(present + [op(1, "cas", 20, 30, expected=None, new=6, result=True)]).linearizable


@NO_GO
def test_a_write_that_timed_out_may_have_happened_or_not_but_not_both():
    unknown = op(0, "write", 0, None, value=1, outcome="unknown")
    assert check_history([unknown, op(1, "read", 20, 30, result=1)]).linearizable  # it happened
    assert check_history([unknown, op(1, "read", 20, 30, result=None)]).linearizable  # it did not (yet)
    seen_then_gone = check_history([unknown, op(1, "read", 20, 30, result=1), op(1, "read", 40, 50, result=None)])
    assert not seen_then_gone.linearizable  # once read, it happened: a later read cannot miss it


@NO_GO
def test_failed_operations_and_unknown_reads_are_left_out_and_counted():
    history = [op(0, "write", 0, 10, value=1), op(1, "cas", 11, 20, expected=1, new=9, outcome="fail"),
               op(1, "read", 21, None, outcome="unknown"), op(0, "read", 30, 40, result=1)]
    verdict = check_history(history)
    assert verdict.linearizable and verdict.operations == 2
    assert verdict.dropped == {"failed (took no effect)": 1, "unknown reads (constrain nothing)": 1}


@NO_GO
def test_a_history_the_checker_cannot_read_says_which_line_and_what_is_wrong(tmp_path):
    with pytest.raises(ConfigError, match="line 2: a completed operation needs a return"):
        check_history([op(0, "write", 0, 10, value=1), op(1, "read", 20, None, result=1)])
    with pytest.raises(ConfigError, match="use -model cas-register"):
        check_history([op(0, "cas", 0, 10, expected=None, new=1, result=True)], model="register")
    with pytest.raises(ConfigError, match="a read's result is a whole number or null"):
        check_history([op(0, "read", 0, 10, result=1.7)])
    with pytest.raises(ConfigError, match="a cas needs expected"):
        check_history([{"process": 0, "key": "x", "op": "cas", "new": 1, "result": True, "outcome": "ok", "call": 0, "return": 1}])
    with pytest.raises(ConfigError, match="model must be one of"):
        check_history([], model="queue")
    with pytest.raises(ConfigError, match="no history at"):
        check_history(tmp_path / "missing.jsonl")


def test_without_go_the_checker_says_what_to_install(monkeypatch, tmp_path):
    from labkit.consistency import checker
    from labkit.errors import NotAvailableError

    monkeypatch.setattr(checker, "binary_path", lambda: tmp_path / "not-built" / "checker")
    monkeypatch.setattr("labkit.host.go_build.shutil.which", lambda name: None)
    with pytest.raises(NotAvailableError, match=r"which labkit builds with Go: install Go 1\.19 or newer \(Debian/Ubuntu: apt-get install golang-go\)"):
        checker.install()


@NO_GO
def test_the_command_line_says_the_verdict_per_key_and_exits_non_zero_when_not_linearizable(tmp_path):
    import json

    from typer.testing import CliRunner

    from labkit.cli import app

    stale = tmp_path / "stale.jsonl"
    stale.write_text("".join(json.dumps(line) + "\n" for line in (op(0, "write", 0, 10, value=1), op(1, "read", 20, 30, result=None))))
    result = CliRunner().invoke(app, ["check-history", str(stale), "--page", str(tmp_path / "page.html")])
    assert result.exit_code == 1, result.output
    assert "not linearizable: key x" in result.output and "stuck after 1 at: read x -> (none) (line 2)" in result.output
    assert (tmp_path / "page.html").exists()
    fine = tmp_path / "fine.jsonl"
    fine.write_text(json.dumps(op(0, "write", 0, 10, value=1)) + "\n")
    result = CliRunner().invoke(app, ["check-history", str(fine), "--model", "register"])
    assert result.exit_code == 0 and result.output.startswith("linearizable (1 operation on 1 key)"), result.output
    result = CliRunner().invoke(app, ["check-history", str(tmp_path / "none.jsonl")])
    assert result.exit_code != 0 and "no history at" in result.output
