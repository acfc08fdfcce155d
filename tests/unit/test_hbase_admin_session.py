"""The admin tool's pipe, with a stand-in tool (a short Python script speaking the same line protocol): answers in
order past noise on stdout, an error answer becomes a sentence, a tool that does not answer is killed and the next
call starts another, and close ends it."""

from __future__ import annotations

import sys

import pytest

from labkit.clusters.local.hbase_admin_session import AdminSession
from labkit.errors import LabkitError

TOOL = r'''
import json, sys, time
assert sys.argv[-1] == "serve"
print("log4j: noise before any answer", flush=True)
for line in sys.stdin:
    command = line.rstrip("\n").split("\t")
    if command[0] == "sleep":
        time.sleep(float(command[1]))
    if command[0] == "bad":
        print(json.dumps({"error": "TableExistsException: t"}), flush=True)
    else:
        print(json.dumps({"echo": command}), flush=True)
'''


@pytest.fixture
def session(tmp_path):
    script = tmp_path / "tool.py"
    script.write_text(TOOL)
    made = AdminSession([sys.executable, str(script)], tmp_path / "admin.log")
    yield made
    made.close()


def test_answers_come_back_in_order_past_other_output(session):
    assert session.call("metrics") == {"echo": ["metrics"]}
    assert session.call("create", "t", "f", "4", "8") == {"echo": ["create", "t", "f", "4", "8"]}


def test_an_error_answer_is_a_sentence_naming_the_call(session):
    with pytest.raises(LabkitError, match="admin call bad t failed: TableExistsException"):
        session.call("bad", "t")
    assert session.call("version") == {"echo": ["version"]}  # the same tool answers on


def test_a_tool_that_does_not_answer_in_time_is_ended_and_replaced(session):
    first = session._running().pid
    with pytest.raises(LabkitError, match="got no answer in 0.5 s"):
        session.call("sleep", "5", timeout=0.5)
    assert session._process is None
    assert session.call("version") == {"echo": ["version"]}
    assert session._process.pid != first


def test_close_ends_the_tool_and_a_tab_in_a_name_is_refused(session):
    session.call("version")
    process = session._process
    session.close()
    assert process.poll() is not None and session._process is None
    with pytest.raises(LabkitError, match="tabs or line breaks"):
        session.call("create", "a\tb", "f")
