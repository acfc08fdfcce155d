"""The `labkit` command: what a student sees through its installed entry point, and (in process, since a
subprocess costs two seconds each) every refusal the options table promises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LABKIT = str(Path(sys.executable).with_name("labkit"))


def labkit(*args: str, home: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if home is not None:
        env["LABKIT_HOME"] = str(home)
    return subprocess.run([LABKIT, *args], capture_output=True, text=True, timeout=120, env=env)


def in_process(*args: str, home: Path | None = None):
    """The same command through typer's test runner: the same parsing, messages and exit codes, without a
    new interpreter per case (the entry point itself is exercised by the tests that call `labkit`)."""
    from typer.testing import CliRunner

    from labkit.cli import app

    env = {"LABKIT_HOME": str(home)} if home is not None else None
    result = CliRunner().invoke(app, list(args), env=env)
    unexpected = result.exception if not isinstance(result.exception, SystemExit) else None
    assert unexpected is None, f"labkit {' '.join(args)} raised {unexpected!r}"
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_help_lists_the_commands():
    r = labkit("--help")
    assert r.returncode == 0
    for command in ("doctor", "up", "status", "down", "run"):
        assert command in r.stdout


def test_version():
    r = labkit("--version")
    assert r.returncode == 0 and r.stdout.startswith("labkit ")


def test_doctor_reports_java_and_engine_choices():
    r = labkit("doctor", "--json")
    report = json.loads(r.stdout)
    names = {c["name"] for c in report["checks"]}
    assert {"Python", "JDK 17", "Maven", "Go", "Docker engine", "free ports"} <= names
    assert set(report["engines"]) == {"cassandra", "mongodb", "couchbase", "hbase"}
    missing = [c["name"] for c in report["checks"] if c["required"] and not c["ok"]]  # JDK 17, Maven, Go, Python venv: make's list
    assert r.returncode == (1 if missing else 0), missing
    text = labkit("doctor")
    assert "JDK 17" in text.stdout and "cassandra" in text.stdout


def test_doctor_says_how_to_get_java_when_it_is_missing(tmp_path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent), JAVA_HOME=str(tmp_path))
    r = subprocess.run([LABKIT, "doctor"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1
    assert "install JDK 17" in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["up", "oracle"], "unknown engine 'oracle'"),
        (["up", "cassandra", "--provider", "cloud"], "unknown provider 'cloud'"),
        (["run", "sharding"], "unknown pattern 'sharding'"),
        (["run", "fan-out", "--engine", "redis"], "unknown engine 'redis'"),
        (["run", "fan-out", "--threads", "0"], "threads must be at least 1"),
        (["run", "fan-out", "--threads", "ten"], "START:STOP:STEP"),
        (["run", "fan-out", "--operations", "0"], "operations must be at least 1"),
        (["run", "fan-out", "--out", "r.xlsx"], ".csv or .parquet"),
        (["up", "cassandra", "--node-cpu", "0"], "node_cpu is the CPU budget of each node in cores"),
        (["run", "fan-out", "--node-cpu", "-1"], "node_cpu is the CPU budget of each node in cores"),
        (["up", "mongodb", "--provider", "standin", "--node-cpu", "0.2"], "stand-in runs for mechanics only"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(args, message, tmp_path):
    r = in_process(*args, home=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_a_refusal_through_the_entry_point_is_one_sentence_and_exit_2(tmp_path):
    r = labkit("run", "fan-out", "--threads", "0", home=tmp_path)
    assert r.returncode == 2 and "threads must be at least 1" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("driver", ["fast"])
def test_a_driver_the_lab_does_not_know_is_refused_before_anything_starts(driver, tmp_path):
    r = in_process("run", "fan-out", "--driver", driver, home=tmp_path)
    assert r.returncode == 2 and "auto, acsylla, cassandra-driver" in r.stderr and "Traceback" not in r.stderr


def test_ctrl_c_between_runs_says_what_was_kept_and_exits_130(monkeypatch, tmp_path, capsys):
    """A Ctrl-C outside a run's measured window (a cluster start, a load, a verify) never reaches the runner's
    handler: the command still says where the measured rows are, and exits 130."""
    import typer
    from labkit import cli
    from labkit import sweeps

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweeps, "run_sweep", interrupted)
    with pytest.raises(typer.Exit) as exit_:
        cli.run_pattern(pattern="fan-out", phase="", engine="cassandra", nodes="1", threads="1", operations=10, processes="1", node_cpu=None,
                        workers=None, driver=None, approaches="", size=[], workload="", target="", seconds=None, repeats=1, control=None,
                        provider="auto", clients=None, out=tmp_path / "r.csv")
    assert exit_.value.exit_code == 130 and "interrupted: the rows measured before it are in" in capsys.readouterr().err


def test_status_and_down_with_nothing_running(tmp_path):
    r = labkit("status", "--json", home=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["clusters"] == []
    assert not (tmp_path / "loopback.json").exists()  # looking claims no loopback range
    r = labkit("down", home=tmp_path)
    assert r.returncode == 0 and "nothing to stop" in r.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "index-table", "--phase", "read"], "unknown phase 'read' for index-table"),
        (["run", "fan-out", "--approaches", "naive,fast"], "unknown approach 'fast'"),
        (["run", "fan-out", "--set", "colour=3"], "has no setting 'colour'"),
        (["run", "fan-out", "--set", "users"], "NAME=NUMBER"),
        (["run", "fan-out", "--set", "users=many"], "setting users takes a whole number from 2 to 100000; got 'many'"),
        (["run", "fan-out", "--set", "follows=0"], "setting follows must be from 1 to 1000"),
        (["run", "index-table", "--phase", "register", "--set", "users=5"], "setting users of index-table is for phase login, not register"),
        (["run", "uuid-key", "--phase", "outage"], "unknown phase 'outage' for uuid-key"),
        (["run", "uuid-key", "--threads", "1:4:1"], "use even thread counts (got [1, 3])"),
        (["run", "uuid-key", "--threads", "2", "--operations", "101"], "operations must be even"),
        (["run", "uuid-key", "--set", "latency=70"], "has no setting 'latency'"),
        (["run", "enumerable-keys", "--phase", "delete"], "unknown phase 'delete' for enumerable-keys"),
        (["run", "enumerable-keys", "--set", "posts=3"], "it takes: comments, delete_every"),
        (["run", "index-table", "--processes", "many"], "--processes takes a whole number of at least 1, or auto; got 'many'"),
        (["run", "index-table", "--processes", "0"], "or auto; got '0'"),
        (["run", "index-table", "--threads", "6", "--processes", "4"], "6 client threads do not divide evenly over 4 processes"),
        (["run", "enumerable-keys", "--processes", "2"], "do not divide evenly over 2 processes"),
        (["run", "enumerable-keys", "--processes", "2", "--threads", "2,4"], "run it with processes=1"),
        (["run", "fan-out", "--engine", "mongodb"], "fan-out has no workload for mongodb in this version: it runs on cassandra"),
        (["run", "distorted-replicas", "--engine", "couchbase"], "Choose --engine cassandra"),
        (["run", "index-table", "--engine", "mongodb", "--approaches", "naive/sai"], "'naive/sai' for index-table in phase login on mongodb (naive/sai is cassandra's)"),
        (["run", "index-table", "--approaches", "naive/index"], "choose from naive/legacy, naive/sai, pattern"),
    ],
)
def test_pattern_options_are_checked_before_any_cluster_starts(args, message, tmp_path):
    r = in_process(*args, "--out", str(tmp_path / "r.csv"), home=tmp_path)
    assert r.returncode != 0 and message in r.stderr + r.stdout
    assert not (tmp_path / "r.csv").exists()


def test_run_help_lists_every_pattern_phase_and_setting_from_the_descriptions():
    from labkit.catalogue import descriptions

    r = in_process("run", "--help")
    text = " ".join(r.stdout.split()).replace("- ", "-")  # the help wraps lines after a hyphen: "index-" / "table"
    for pattern in descriptions():
        assert f"{pattern.name}: {'|'.join(pattern.phases)}" in text
        for setting in pattern.settings:
            values = "|".join(setting.choices) if setting.choices else f"{setting.low}-{setting.high}"
            assert f"{setting.name}={setting.default} ({values}" in text, setting.name
    assert "10:100:10" in text and "300:3000:300" in text  # not rendered as an emoji
    assert "--workload" in text and "--target" in text and "--seconds" in text


def test_run_ycsb_refuses_what_it_cannot_run_before_anything_starts(tmp_path):
    out = str(tmp_path / "r.csv")
    for args, message in (
        (("--workload", "g"), "unknown YCSB workload 'g'"),
        (("--seconds", "2"), "give the loads with --target"),
        (("--target", "0,100"), "target_rate must be a positive"),
        (("--phase", "index-query", "--workload", "a"), "in phase index-query: choose from baseline/no-index"),
        (("--set", "tags=5"), "setting tags of ycsb is for phase index-query, index-insert, not mix"),
        (("--engine", "mongodb", "--phase", "cache"), "run --phase cache with --engine cassandra"),
        (("--engine", "mongodb", "--phase", "index-query"), "--approaches baseline/no-index,baseline/2i"),
    ):
        r = in_process("run", "ycsb", *args, "--out", out, home=tmp_path)
        assert r.returncode != 0 and message in r.stderr + r.stdout, (args, r.stderr)
    r = in_process("run", "fan-out", "--workload", "a", "--out", out, home=tmp_path)
    assert r.returncode != 0 and "use --approaches" in r.stderr
    assert not (tmp_path / "r.csv").exists()


def test_patterns_command_explains_a_pattern_from_its_description():
    from labkit.catalogue import describe

    r = labkit("patterns", "fan-out")
    assert r.returncode == 0, r.stderr
    pattern = describe("fan-out")
    for word in (*pattern.phases, *pattern.approaches, *(f"--set {s.name}={s.default}" for s in pattern.settings), "classroom", "quick"):
        assert word in r.stdout, word
    r = in_process("patterns", "sharding")
    assert r.returncode != 0 and "unknown pattern 'sharding'" in r.stderr

def test_run_takes_repeats_and_an_a_a_control_and_noise_refuses_too_few_repeats():
    from typer.testing import CliRunner

    from labkit.cli import app

    runner = CliRunner()
    helped = runner.invoke(app, ["run", "--help"])
    assert "--repeats" in helped.output and "--control" in helped.output
    refused = runner.invoke(app, ["run", "fan-out", "--repeats", "2", "--control", "pattern/x", "--out", "x.csv"])
    assert refused.exit_code == 2 and "A/A control" in refused.output
    too_few = runner.invoke(app, ["noise", "--repeats", "2"])
    assert too_few.exit_code != 0 and "--repeats" in too_few.output
    assert "noise floor" in runner.invoke(app, ["noise", "--help"]).output
