"""The compose provider: real clusters from the official images, through `docker compose`.

One class per engine over one lifecycle: generate the topology for N nodes, `up -d`, wait until every
server container reports healthy (and every init container exited 0), then ask the engine itself;
`stop` is `down -v`. A state directory under clusters_dir() lets `labkit status` / `labkit down` find it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Self, Sequence

from ...errors import ConfigError, LabkitError, NotAvailableError
from ..base import ClusterInfo
from ...host.users import current_user
from ..contract import Capabilities
from ..lifecycle import ProviderCluster, Ready
from ...home import clusters_dir
from . import topology
from .images import CREDENTIALS, IMAGES

Runner = Callable[[Sequence[str], float], "subprocess.CompletedProcess[str]"]


def run_command(args: Sequence[str], timeout: float) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)


def compose_available(runner: Runner = run_command) -> tuple[bool, str]:
    """Whether `docker compose` exists and a Docker engine answers, with a sentence either way."""
    if shutil.which("docker") is None:
        return False, "no docker client on PATH"
    try:
        version = runner(["docker", "compose", "version", "--short"], 15)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"docker compose did not answer ({exc})"
    if version.returncode != 0:
        return False, "the docker client has no compose plugin (install docker-compose-plugin)"
    engine = runner(["docker", "info", "--format", "{{.ServerVersion}}"], 15)
    if engine.returncode != 0:
        return False, f"docker compose {version.stdout.strip()} present, but no Docker engine answers"
    return True, f"docker compose {version.stdout.strip()}, Docker engine {engine.stdout.strip()}"


def service_states(ps_json: str) -> dict[str, tuple[str, str, int | None]]:
    """`docker compose ps --all --format json` -> {service: (state, health, exit code)}.

    Compose prints one JSON object per line (v2.21+) or one JSON array (older v2); both are read."""
    text = ps_json.strip()
    if not text:
        return {}
    items = json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    return {i["Service"]: (i.get("State", ""), i.get("Health", ""), i.get("ExitCode")) for i in items}


def readiness(states: dict[str, tuple[str, str, int | None]], servers: Sequence[str], one_shots: Sequence[str]) -> tuple[bool, str]:
    """Ready when every server is running and healthy and every init container exited 0; else why not."""
    for name in one_shots:
        state, _health, code = states.get(name, ("missing", "", None))
        if state == "exited" and code not in (0, None):
            raise LabkitError(f"the init container {name} failed (exit code {code}); see `docker compose logs {name}`")
    waiting = [n for n in servers if states.get(n, ("missing", "", None))[:2] != ("running", "healthy")]
    waiting += [n for n in one_shots if states.get(n, ("missing", "", None))[0] != "exited"]
    return (not waiting, "waiting for " + ", ".join(f"{n} ({'/'.join(filter(None, states.get(n, ('missing', '', None))[:2]))})" for n in waiting))


class ComposeCluster(ProviderCluster):
    """Base of the compose clusters: the compose lifecycle; subclasses add the engine's own readiness
    check and driver objects."""

    provider = "compose"
    engine = ""
    capabilities = Capabilities(resize=True)
    detached = False
    startup_timeout_per_node = 120.0

    def __init__(self, nodes: int = 3, *, runner: Runner = run_command, directory: Path | None = None, **options: Any):
        self.document = topology.topology(self.engine, nodes, **options)
        self.options = options
        self.node_count = nodes
        self.runner = runner
        self.project = self.document["name"]
        self.directory = directory or clusters_dir() / self.project
        self.file = self.directory / "docker-compose.yml"
        self._server_version: str | None = None

    # ---- topology ----------------------------------------------------------------------------

    @property
    def servers(self) -> list[str]:
        return [n for n, s in self.document["services"].items() if "healthcheck" in s]

    @property
    def one_shots(self) -> list[str]:
        return [n for n, s in self.document["services"].items() if n.endswith("-init")]

    @property
    def nodes(self) -> list[str]:
        """The data-bearing servers the node slider counts."""
        return [n for n in self.servers if n.startswith(self.engine) or n.startswith("mongo-shard")]

    def command(self, *args: str) -> list[str]:
        return ["docker", "compose", "--project-name", self.project, "--file", str(self.file), *args]

    def _compose(self, *args: str, timeout: float = 600) -> str:
        result = self.runner(self.command(*args), timeout)
        if result.returncode != 0:
            raise LabkitError(f"`{' '.join(self.command(*args))}` failed:\n{(result.stderr or result.stdout).strip()[-2000:]}")
        return result.stdout

    # ---- lifecycle ---------------------------------------------------------------------------

    def write_files(self) -> Path:
        path = topology.write(self.directory, "docker-compose.yml", self.document)
        (self.directory / "cluster.json").write_text(
            json.dumps({"engine": self.engine, "provider": "compose", "name": self.project, "nodes": self.node_count, "options": self.options, "file": str(self.file)})
        )
        return path


    def start(self) -> Self:
        ok, detail = compose_available(self.runner)
        if not ok:
            raise NotAvailableError(
                f"the compose provider needs Docker with the compose plugin: {detail}. Install Docker (and docker-compose-plugin), "
                "or use --provider local (Cassandra here; MongoDB with mongod on PATH)."
            )
        self.write_files()
        self._compose("up", "--detach", "--remove-orphans", timeout=900)
        try:
            self.wait_healthy()
            self.wait_engine_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_healthy(self, timeout: float | None = None, interval: float = 3.0) -> None:
        """Poll `ps` until every server is healthy and every init container exited 0."""
        why = ["nothing asked yet"]

        def healthy() -> bool:
            ready, why[0] = readiness(service_states(self._compose("ps", "--all", "--format", "json", timeout=60)), self.servers, self.one_shots)
            return ready

        Ready(f"{self.project}'s services to be healthy", healthy, timeout or self.startup_timeout_per_node * max(1, len(self.servers)), interval=interval,
              explain=lambda: f"{why[0]}. See `docker compose -p {self.project} logs`.").wait()

    def wait_engine_ready(self) -> None:
        """Engine-level readiness (peers, shards, bucket); subclasses check with their driver."""

    def stop(self) -> None:
        if self.file.exists():
            self._compose("down", "--volumes", "--remove-orphans", timeout=300)
        state = self.directory / "cluster.json"
        if state.exists():
            state.unlink()

    def scale(self, nodes: int) -> "ComposeCluster":
        """The node slider: the topology for `nodes` nodes replaces the running one (a fresh cluster)."""
        self.stop()
        fresh = type(self)(nodes, runner=self.runner, directory=self.directory, **self.options)
        return fresh.start()

    def held_addresses(self) -> list[tuple[str, int]]:
        """The loopback ports the services publish (every one is bound to 127.0.0.1)."""
        held = []
        for service in self.document["services"].values():
            for mapping in service.get("ports", []):
                host, port, _container = str(mapping).split(":")
                held.append((host, int(port)))
        return held

    @property
    def owner(self) -> str:
        return current_user()

    def cpu_meter(self) -> None:
        """None: the servers run inside the Docker engine, out of the lab's sight."""
        return None

    def live_nodes(self) -> list[str]:
        states = service_states(self._compose("ps", "--all", "--format", "json", timeout=60))
        return [n for n in self.nodes if states.get(n, ("", "", None))[0] == "running"]

    def info(self) -> ClusterInfo:
        return ClusterInfo(
            engine=self.engine, server_version=self.server_version, provider="compose", nodes=len(self.nodes), node_cpu=self.options.get("node_cpu")
        )

    @property
    def server_version(self) -> str:
        return self._server_version or IMAGES[self.engine].rsplit(":", 1)[1].removeprefix("community-")

    # ---- CLI and registry hooks ----------------------------------------------------------------

    @classmethod
    def start_from_cli(cls, nodes: int, dcs: int, node_cpu: float | None = None) -> "ComposeCluster":
        options: dict[str, Any] = {"dcs": dcs, "node_cpu": node_cpu} if cls.engine == "cassandra" else {"node_cpu": node_cpu}
        if dcs != 1 and cls.engine != "cassandra":
            raise ConfigError(f"--dcs applies to cassandra; {cls.engine} regions come from separate clusters")
        return cls(nodes, **options).start()

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        state = json.loads((directory / "cluster.json").read_text())
        cluster = cls(state["nodes"], directory=directory, **state.get("options", {}))
        try:
            states = service_states(cluster._compose("ps", "--all", "--format", "json", timeout=60))
        except (LabkitError, OSError) as exc:
            states, note = {}, str(exc)
        else:
            note = ""
        nodes = [{"name": n, "address": "127.0.0.1", "dc": "", "state": "/".join(filter(None, states.get(n, ("DOWN", "", None))[:2])) or "DOWN"} for n in cluster.servers]
        return {"name": state["name"], "engine": state["engine"], "provider": "compose", "server_version": cluster.server_version, "nodes": nodes, "note": note}

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        state = json.loads((directory / "cluster.json").read_text())
        cls(state["nodes"], directory=directory, **state.get("options", {})).stop()


class ComposeCassandraCluster(ComposeCluster):
    """A Cassandra ring in containers; every node's CQL port is published on 127.0.0.1 (9042, 9043, ...)."""

    engine = "cassandra"

    @property
    def addresses(self) -> list[str]:
        return ["127.0.0.1"]

    def datacenters(self) -> dict[str, list[str]]:
        """One contact point for the ring: the containers' datacenters are not reachable apart from the host."""
        if self.options.get("dcs", 1) > 1:
            raise NotAvailableError("the compose provider publishes one contact point for the whole ring, so a client cannot "
                                    "talk to one datacenter: run the two-datacenter lessons with --provider local")
        return {"dc1": self.addresses}

    def wait_engine_ready(self) -> None:
        from ...engines import cassandra as cql

        session = cql.connect(self.addresses)
        try:
            Ready(f"the driver to see all {self.node_count} nodes", lambda: len(session.cluster.metadata.all_hosts()) >= self.node_count, 120,
                  interval=1, explain=lambda: f"it sees {len(session.cluster.metadata.all_hosts())}").wait()
            self._server_version = cql.server_version(session)
        finally:
            session.cluster.shutdown()

    def session(self, keyspace: str | None = None):
        from ...engines import cassandra as cql

        return cql.connect(self.addresses, keyspace=keyspace)


class ComposeMongoCluster(ComposeCluster):
    """A sharded MongoDB cluster; clients talk to its mongos on 127.0.0.1:27017. `nodes` = shards."""

    engine = "mongodb"

    @property
    def uri(self) -> str:
        return f"mongodb://127.0.0.1:{topology.MONGOS_PORT}/"

    def wait_engine_ready(self) -> None:
        from ...engines import mongodb

        client = mongodb.connect(self.uri)
        try:
            self._server_version = mongodb.server_version(client)
        finally:
            client.close()

    def client(self):
        from ...engines import mongodb

        return mongodb.connect(self.uri)


class ComposeCouchbaseCluster(ComposeCluster):
    """One Couchbase cluster (or two with XDCR: clusters=2), reached from the host via alternate addresses."""

    engine = "couchbase"
    query_service = True  # SQL++ queries and GSI indexes (the stand-in has no query service)

    @property
    def connection_string(self) -> str:
        return self.connection_strings()[0]

    def _first_nodes(self) -> list[dict[str, int]]:
        """Host ports of each cluster's first node (cluster b's nodes are numbered after cluster a's)."""
        return [topology.couchbase_host_ports(c * self.node_count) for c in range(self.options.get("clusters", 1))]

    def connection_strings(self) -> list[str]:
        """One SDK connection string per cluster (two with XDCR: the UUID Key test's regions)."""
        return [f"couchbase://127.0.0.1:{ports['kv']}?network=external" for ports in self._first_nodes()]

    def management_urls(self) -> list[str]:
        """Each cluster's management REST API (XDCR pause and resume go through it)."""
        return [f"http://127.0.0.1:{ports['mgmt']}" for ports in self._first_nodes()]

    def wait_engine_ready(self) -> None:
        cluster = self.cluster()
        try:
            from ...engines import couchbase

            self._server_version = couchbase.server_version(cluster)
        finally:
            cluster.close()

    def cluster(self):
        """The SDK's Cluster, authenticated with the credentials of compose/labkit.env."""
        from ...engines import couchbase

        return couchbase.connect(self.connection_string, CREDENTIALS["LABKIT_COUCHBASE_USER"], CREDENTIALS["LABKIT_COUCHBASE_PASSWORD"])

    @property
    def bucket(self) -> str:
        return CREDENTIALS["LABKIT_COUCHBASE_BUCKET"]

    def collection(self):
        """The lab bucket's default collection."""
        from ...engines import couchbase

        return couchbase.collection(self.cluster(), CREDENTIALS["LABKIT_COUCHBASE_BUCKET"])


COMPOSE_CLUSTERS = {c.engine: c for c in (ComposeCassandraCluster, ComposeMongoCluster, ComposeCouchbaseCluster)}
