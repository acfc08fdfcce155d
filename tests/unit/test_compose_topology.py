"""The compose provider's generated topologies (checked here without a Docker engine) and its lifecycle
commands, with `docker` replaced by a recorder (no server involved)."""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from labkit.clusters.compose import topology as topo
from labkit.clusters.compose.images import CREDENTIALS, ENV_FILE, IMAGES, memory_bytes
from labkit.clusters.compose.provider import ComposeCassandraCluster, ComposeMongoCluster, readiness, service_states
from labkit.errors import ConfigError, LabkitError, NotAvailableError

REPO = Path(__file__).resolve().parents[2]
ALL = [("cassandra", n, {}) for n in range(1, 9)] + [("cassandra", n, {"dcs": 2}) for n in range(2, 9)] + \
      [("mongodb", n, {}) for n in range(1, 9)] + [("couchbase", n, {}) for n in range(1, 9)] + [("couchbase", n, {"clusters": 2}) for n in range(1, 5)]


def published(service):
    return service.get("ports", [])


@pytest.mark.parametrize("engine, nodes, options", ALL)
def test_every_topology_is_loopback_only_limited_and_health_checked(engine, nodes, options):
    doc = topo.topology(engine, nodes, **options)
    services = doc["services"]
    for name, svc in services.items():
        assert svc["image"] == IMAGES[engine], name
        assert memory_bytes(svc["mem_limit"]) <= 2 * 1024**3, name
        for port in published(svc):
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"
        if not name.endswith("-init"):
            assert svc["healthcheck"]["test"][0] == "CMD-SHELL", name
    host_ports = [p.split(":")[1] for s in services.values() for p in published(s)]
    assert len(host_ports) == len(set(host_ports)), "two services publish the same host port"


@pytest.mark.parametrize("nodes", range(1, 9))
def test_cassandra_ring_shape(nodes):
    services = topo.cassandra(nodes)["services"]
    assert list(services) == [f"cassandra{i}" for i in range(1, nodes + 1)]
    for i, (name, svc) in enumerate(services.items(), start=1):
        assert svc["ports"] == [f"127.0.0.1:{9041 + i}:{9041 + i}"]
        assert f"native_transport_port={9041 + i}" in svc["environment"]["JVM_EXTRA_OPTS"]
        assert svc["environment"]["CASSANDRA_BROADCAST_RPC_ADDRESS"] == "127.0.0.1"
        if i > 1:  # a joining node waits until the previous one is healthy
            assert svc["depends_on"] == {f"cassandra{i - 1}": {"condition": "service_healthy"}}


def test_two_datacenters_split_the_ring_with_a_seed_in_each():
    services = topo.cassandra(5, dcs=2)["services"]
    dcs = [s["environment"]["CASSANDRA_DC"] for s in services.values()]
    assert dcs == ["dc1", "dc1", "dc1", "dc2", "dc2"]
    assert services["cassandra1"]["environment"]["CASSANDRA_SEEDS"] == "cassandra1,cassandra4"


@pytest.mark.parametrize("shards", [1, 4, 8])
def test_mongodb_sharded_cluster_shape(shards):
    services = topo.mongodb(shards)["services"]
    assert {f"mongo-shard{k}" for k in range(1, shards + 1)} | {"mongo-config", "mongos", "mongo-init"} == set(services)
    assert services["mongos"]["ports"] == ["127.0.0.1:27017:27017"]
    assert f">= {shards}" in services["mongos"]["healthcheck"]["test"][1]  # healthy = every shard added
    script = services["mongo-init"]["entrypoint"][-1]
    shard_list = json.loads(script.split("const SHARDS = ", 1)[1].split(";", 1)[0])
    assert [s["id"] for s in shard_list] == [f"shard{k}" for k in range(1, shards + 1)]
    assert "code === 94" in script and "!have.includes" in script  # idempotent: initiate and addShard only when missing
    assert all(published(s) == [] for n, s in services.items() if n != "mongos")


def test_couchbase_xdcr_replicates_both_ways_and_every_node_has_an_alternate_address():
    services = topo.couchbase(2, clusters=2)["services"]
    script = services["couchbase-init"]["entrypoint"][-1]
    assert "xdcr couchbase-a1 region-b couchbase-b1" in script and "xdcr couchbase-b1 region-a couchbase-a1" in script
    for name in ("couchbase-a1", "couchbase-a2", "couchbase-b1", "couchbase-b2"):
        assert f"alternate {name} " in script
    assert services["couchbase-init"]["env_file"] == [ENV_FILE]
    assert "LABKIT_COUCHBASE_PASSWORD" in script and CREDENTIALS["LABKIT_COUCHBASE_PASSWORD"] not in script  # from the env file


@pytest.mark.parametrize("bad", [0, 9, True, "3"])
def test_node_counts_outside_one_to_eight_are_refused(bad):
    with pytest.raises(ConfigError, match="from 1 to 8"):
        topo.cassandra(bad)


def test_committed_compose_files_are_what_the_generator_writes(tmp_path):
    written = topo.write_examples(tmp_path)
    for path in written + [tmp_path / ENV_FILE]:
        committed = REPO / "compose" / path.name
        assert committed.exists(), f"compose/{path.name} is missing: run python -m labkit.clusters.compose.topology compose"
        assert committed.read_text() == path.read_text(), f"compose/{path.name} differs from the generator's output; regenerate it"
    assert yaml.safe_load((REPO / "compose" / "cassandra-3.yml").read_text())["name"] == "labkit-cassandra"


class Recorder:
    """Stands in for the `docker` binary in these unit tests: records command lines, answers from a script."""

    def __init__(self, ps_outputs=(), compose=True, engine=True):
        self.calls = []
        self.ps = list(ps_outputs)
        self.compose, self.engine = compose, engine

    def __call__(self, args, timeout):
        self.calls.append(list(args))
        out, code = "", 0
        if args[:3] == ["docker", "compose", "version"]:
            out, code = "2.40.0", 0 if self.compose else 1
        elif args[:2] == ["docker", "info"]:
            out, code = "28.2.2", 0 if self.engine else 1
        elif "ps" in args:
            out = self.ps.pop(0) if len(self.ps) > 1 else self.ps[0]
        return subprocess.CompletedProcess(args, code, out, "")


def ps_line(service, state, health="", code=0):
    return json.dumps({"Service": service, "State": state, "Health": health, "ExitCode": code})


def test_start_runs_compose_up_waits_for_health_and_stop_runs_down(tmp_path, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/docker")
    starting = "\n".join([ps_line("mongo-config", "running", "starting"), ps_line("mongo-shard1", "running", "healthy"), ps_line("mongos", "running", "starting"), ps_line("mongo-init", "running")])
    ready = "\n".join([ps_line("mongo-config", "running", "healthy"), ps_line("mongo-shard1", "running", "healthy"), ps_line("mongos", "running", "healthy"), ps_line("mongo-init", "exited", code=0)])
    rec = Recorder([starting, ready])
    cluster = ComposeMongoCluster(1, runner=rec, directory=tmp_path)
    monkeypatch.setattr(cluster, "wait_engine_ready", lambda: None)
    monkeypatch.setattr("labkit.host.processes.time.sleep", lambda s: None)  # the health wait (clusters.lifecycle.Ready) polls without sleeping
    cluster.start()
    up = [c for c in rec.calls if "up" in c][0]
    assert up == ["docker", "compose", "--project-name", "labkit-mongodb", "--file", str(tmp_path / "docker-compose.yml"), "up", "--detach", "--remove-orphans"]
    assert (tmp_path / ENV_FILE).exists() and json.loads((tmp_path / "cluster.json").read_text())["provider"] == "compose"
    assert sum("ps" in c for c in rec.calls) == 2
    assert cluster.info().nodes == 1 and cluster.info().provider == "compose"
    cluster.stop()
    assert rec.calls[-1][-3:] == ["down", "--volumes", "--remove-orphans"] and not (tmp_path / "cluster.json").exists()


def test_without_the_compose_plugin_start_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/docker")
    with pytest.raises(NotAvailableError, match="compose plugin"):
        ComposeCassandraCluster(3, runner=Recorder(compose=False), directory=tmp_path).start()
    assert not (tmp_path / "cluster.json").exists()


def test_readiness_waits_for_health_and_reports_a_failed_init():
    states = service_states("\n".join([ps_line("cassandra1", "running", "healthy"), ps_line("cassandra2", "running", "starting")]))
    ok, why = readiness(states, ["cassandra1", "cassandra2"], [])
    assert not ok and "cassandra2 (running/starting)" in why
    assert readiness(service_states(json.dumps([{"Service": "a", "State": "running", "Health": "healthy"}])), ["a"], [])[0]  # older compose: one array
    with pytest.raises(LabkitError, match="init container mongo-init failed"):
        readiness(service_states(ps_line("mongo-init", "exited", code=1)), [], ["mongo-init"])
