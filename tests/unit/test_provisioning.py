"""`labkit provision all` fetches every part the lessons use, names a part it could not get with its reason, still
fetches the others, and exits non-zero then; the locks let it run beside a first start (make test runs it beside the
unit tests) without two resolvers or two builds at once."""

from __future__ import annotations

import threading
import time

from typer.testing import CliRunner

from labkit import provisioning
from labkit.cli import app
from labkit.clusters import maven
from labkit.errors import NotAvailableError


def test_every_part_runs_and_a_missing_one_is_named_with_its_reason(monkeypatch):
    ran = []

    def ready(part):
        def step():
            ran.append(part)
            return f"{part} ready"
        return step

    def no_maven():
        ran.append("hbase")
        raise NotAvailableError("resolving Apache HBase 2.6.1's jars from Maven Central needs Maven (`mvn`)")

    steps = {part: ready(part) for part in provisioning.PARTS}
    steps["hbase"] = no_maven  # a part in the middle: the ones after it still run
    monkeypatch.setattr(provisioning, "STEPS", steps)
    said = []
    assert provisioning.provision_all(said.append) == ["hbase"]
    assert ran == list(provisioning.PARTS)
    assert said[1] == "hbase: not ready: resolving Apache HBase 2.6.1's jars from Maven Central needs Maven (`mvn`)"

    result = CliRunner().invoke(app, ["provision", "all"])
    assert result.exit_code == 1, result.output
    assert "not ready: hbase" in result.output and "couchbase stand-in ready" in result.output


def test_the_cli_runs_every_part_and_exits_zero_when_all_are_ready(monkeypatch):
    monkeypatch.setattr(provisioning, "STEPS", {part: (lambda part=part: f"{part} ready") for part in provisioning.PARTS})
    result = CliRunner().invoke(app, ["provision", "all"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"{part} ready" for part in provisioning.PARTS]


def test_two_resolvers_of_the_same_jars_resolve_them_once(tmp_path, monkeypatch):
    """The second waits for the first's lock and finds the directory complete: one Maven run, not two."""
    runs = []

    def fake_resolve(mvn, dependencies, coordinates, target, what):
        runs.append(what)
        time.sleep(0.3)  # long enough for the other thread to reach the lock
        target.mkdir(parents=True)
        (target / ".complete").write_text("done")
        return target

    monkeypatch.setattr(maven.shutil, "which", lambda name: "/usr/bin/mvn")
    monkeypatch.setattr(maven, "_resolve", fake_resolve)
    target = tmp_path / "lib"
    results = []
    threads = [threading.Thread(target=lambda: results.append(maven.resolve(["g:a:1"], target, "the jars"))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert runs == ["the jars"] and results == [target, target]


def test_all_into_a_shared_cache_is_refused_with_what_to_run_instead(monkeypatch, tmp_path):
    monkeypatch.setattr(provisioning, "STEPS", {part: (lambda: (_ for _ in ()).throw(AssertionError("nothing may run"))) for part in provisioning.PARTS})
    result = CliRunner().invoke(app, ["provision", "all", "--shared", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "labkit provision cassandra --shared DIR" in result.output and "unknown engine" not in result.output, result.output
