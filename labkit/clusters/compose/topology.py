"""Compose files for N-node clusters, generated: a Cassandra ring, a MongoDB sharded cluster, one or two
Couchbase clusters (two with XDCR both ways), and a toxiproxy overlay.

Every published port is bound to 127.0.0.1; every server has a memory limit and a health check that
means "ready for the workload"; credentials come from compose/labkit.env. `python -m
labkit.clusters.compose.topology compose/` rewrites the committed example files from this module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

from ...errors import ConfigError
from .images import ENV_FILE, IMAGES, MEMORY, env_file_text

MAX_NODES = 8
CQL_PORT = 9042
MONGOS_PORT = 27017
COUCHBASE_PORTS = {"mgmt": 8091, "capi": 8092, "n1ql": 8093, "kv": 11210}
COUCHBASE_HOST_BASE = {"mgmt": 18091, "capi": 18092, "n1ql": 18093, "kv": 21210}  # + 100 x node index
TOXIPROXY_API_PORT = 8474
TOXIPROXY_PROXY_PORTS = range(26000, 26010)


def _check_nodes(nodes: int, what: str = "nodes") -> None:
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
        raise ConfigError(f"{what} must be a whole number from 1 to {MAX_NODES}; got {nodes!r}")


def _loopback(host_port: int, container_port: int) -> str:
    return f"127.0.0.1:{host_port}:{container_port}"


def _health(test: str, start_period: str = "30s", retries: int = 60) -> dict[str, Any]:
    return {"test": ["CMD-SHELL", test], "interval": "5s", "timeout": "10s", "retries": retries, "start_period": start_period}


# ---- Cassandra ---------------------------------------------------------------------------------------

def cassandra(nodes: int = 3, dcs: int = 1, chunk_cache_mb: int | None = None) -> dict[str, Any]:
    """A ring of `nodes` Cassandra nodes in one or two datacenters, started one after another (a joining
    node must see the previous one up). Node i serves CQL on 127.0.0.1:9041+i and tells clients so
    (broadcast_rpc_address 127.0.0.1 and its own native port), so the driver reaches every node from the host."""
    if chunk_cache_mb is not None:
        raise ConfigError("a node's chunk cache (chunk_cache_mb) is set in the cassandra.yaml labkit writes for local nodes; the official "
                          "image keeps its own: run this lesson with provider='local'")
    _check_nodes(nodes)
    if dcs not in (1, 2) or (dcs == 2 and nodes < 2):
        raise ConfigError("dcs must be 1, or 2 with at least 2 nodes")
    first_of_dc2 = nodes // 2 + 1 + (nodes % 2) if dcs == 2 else None
    seeds = ["cassandra1"] + ([f"cassandra{first_of_dc2}"] if first_of_dc2 else [])
    services: dict[str, Any] = {}
    for i in range(1, nodes + 1):
        port = CQL_PORT + i - 1
        dc = "dc2" if first_of_dc2 and i >= first_of_dc2 else "dc1"
        service: dict[str, Any] = {
            "image": IMAGES["cassandra"],
            "hostname": f"cassandra{i}",
            "env_file": [ENV_FILE],
            "environment": {
                "CASSANDRA_CLUSTER_NAME": "labkit",
                "CASSANDRA_SEEDS": ",".join(seeds),
                "CASSANDRA_ENDPOINT_SNITCH": "GossipingPropertyFileSnitch",
                "CASSANDRA_DC": dc,
                "CASSANDRA_RACK": "rack1",
                "CASSANDRA_NUM_TOKENS": "16",
                "CASSANDRA_BROADCAST_RPC_ADDRESS": "127.0.0.1",
                "MAX_HEAP_SIZE": "512M",
                "HEAP_NEWSIZE": "128M",
                "JVM_EXTRA_OPTS": f"-Dcassandra.native_transport_port={port} -Dcassandra.ring_delay_ms=10000",
            },
            "ports": [_loopback(port, port)],
            "mem_limit": MEMORY["cassandra"],
            # ready = this node answers CQL and sees itself Up/Normal in the ring
            "healthcheck": _health(
                f"cqlsh 127.0.0.1 {port} -e 'SELECT release_version FROM system.local' >/dev/null 2>&1 && nodetool status | grep -q '^UN'",
                start_period="60s",
            ),
        }
        if i > 1:
            service["depends_on"] = {f"cassandra{i - 1}": {"condition": "service_healthy"}}
        services[f"cassandra{i}"] = service
    return {"name": "labkit-cassandra", "services": services}


# ---- MongoDB -----------------------------------------------------------------------------------------

MONGO_INIT = """
function primary(host, id, configsvr) {
  const admin = new Mongo(host).getDB("admin");
  const status = admin.runCommand({replSetGetStatus: 1});
  if (status.code === 94) {  // NotYetInitialized: first start
    admin.runCommand({replSetInitiate: {_id: id, configsvr: configsvr, members: [{_id: 0, host: host}]}});
  }
  while (!admin.runCommand({hello: 1}).isWritablePrimary) { sleep(500); }
}
primary("mongo-config:27019", "config", true);
SHARDS.forEach(s => primary(s.host, s.id, false));
const mongos = new Mongo("mongos:27017").getDB("admin");
while (true) { try { mongos.runCommand({ping: 1}); break; } catch (e) { sleep(500); } }
const have = mongos.runCommand({listShards: 1}).shards.map(s => s._id);
SHARDS.filter(s => !have.includes(s.id)).forEach(s => {
  const r = mongos.runCommand({addShard: s.id + "/" + s.host, name: s.id});
  if (!r.ok) { throw new Error("addShard " + s.id + ": " + tojson(r)); }
});
print("labkit: " + mongos.runCommand({listShards: 1}).shards.length + " shards ready");
"""


def mongodb(shards: int = 2) -> dict[str, Any]:
    """A sharded cluster: a one-member config server replica set, `shards` one-member shard replica
    sets, one mongos on 127.0.0.1:27017, and an init service that initiates every replica set and adds
    every shard (idempotent: it skips what exists). mongos is healthy only once all shards are in."""
    _check_nodes(shards, "shards")

    def mongod(role: str, repl_set: str, port: int) -> dict[str, Any]:
        health = _health(f"mongosh --quiet --port {port} --eval 'quit(db.adminCommand({{ping: 1}}).ok ? 0 : 1)'")
        return {
            "image": IMAGES["mongodb"],
            "hostname": repl_set if role == "shardsvr" else "mongo-config",
            "command": ["mongod", f"--{role}", "--replSet", repl_set, "--port", str(port), "--bind_ip_all", "--wiredTigerCacheSizeGB", "0.25"],
            "mem_limit": MEMORY["mongod"],
            "healthcheck": health,
        }

    services: dict[str, Any] = {"mongo-config": mongod("configsvr", "config", 27019)}
    shard_list = []
    for k in range(1, shards + 1):
        name = f"mongo-shard{k}"
        services[name] = mongod("shardsvr", f"shard{k}", 27018)
        services[name]["hostname"] = name
        shard_list.append({"id": f"shard{k}", "host": f"{name}:27018"})
    services["mongos"] = {
        "image": IMAGES["mongodb"],
        "hostname": "mongos",
        "command": ["mongos", "--configdb", "config/mongo-config:27019", "--port", str(MONGOS_PORT), "--bind_ip_all"],
        "ports": [_loopback(MONGOS_PORT, MONGOS_PORT)],
        "mem_limit": MEMORY["mongos"],
        "depends_on": {"mongo-config": {"condition": "service_healthy"}},
        "healthcheck": _health(
            f"mongosh --quiet --port {MONGOS_PORT} --eval 'quit(db.adminCommand({{listShards: 1}}).shards.length >= {shards} ? 0 : 1)'"
        ),
    }
    script = "const SHARDS = " + json.dumps(shard_list) + ";" + MONGO_INIT
    services["mongo-init"] = {
        "image": IMAGES["mongodb"],
        "entrypoint": ["mongosh", "--nodb", "--quiet", "--eval", script],
        "restart": "on-failure",
        "mem_limit": MEMORY["init"],
        "depends_on": {name: {"condition": "service_healthy"} for name in services if name.startswith("mongo-")} | {"mongos": {"condition": "service_started"}},
    }
    return {"name": "labkit-mongodb", "services": services}


# ---- Couchbase ---------------------------------------------------------------------------------------

def couchbase_host_ports(index: int) -> dict[str, int]:
    """Host ports of the index-th Couchbase node (0-based over both clusters), published on 127.0.0.1."""
    return {service: base + 100 * index for service, base in COUCHBASE_HOST_BASE.items()}


COUCHBASE_INIT = r"""
set -eu
cli() { couchbase-cli "$$@" -u "$$LABKIT_COUCHBASE_USER" -p "$$LABKIT_COUCHBASE_PASSWORD"; }
init_cluster() {  # $$1 = first node, $$2.. = the others; skipped when already initialised
  first=$$1; shift
  if ! cli server-list -c "$$first:8091" >/dev/null 2>&1; then
    couchbase-cli cluster-init -c "$$first:8091" --cluster-username "$$LABKIT_COUCHBASE_USER" \
      --cluster-password "$$LABKIT_COUCHBASE_PASSWORD" --services data,index,query \
      --cluster-ramsize 512 --cluster-index-ramsize 256 --index-storage-setting default
  fi
  for node in "$$@"; do
    cli server-list -c "$$first:8091" | grep -q "$$node" || \
      cli server-add -c "$$first:8091" --server-add "$$node:8091" --server-add-username "$$LABKIT_COUCHBASE_USER" \
        --server-add-password "$$LABKIT_COUCHBASE_PASSWORD" --services data,index,query
  done
  cli rebalance -c "$$first:8091" --no-progress-bar
  cli bucket-list -c "$$first:8091" | grep -qx "$$LABKIT_COUCHBASE_BUCKET" || \
    cli bucket-create -c "$$first:8091" --bucket "$$LABKIT_COUCHBASE_BUCKET" --bucket-type couchbase \
      --bucket-ramsize 256 --bucket-replica 1 --enable-flush 1 --wait
}
alternate() {  # $$1 = node, $$2 = mgmt, $$3 = capi, $$4 = n1ql, $$5 = kv: how clients on the host reach it
  cli setting-alternate-address -c "$$1:8091" --set --node "$$1" --hostname 127.0.0.1 \
    --ports "mgmt=$$2,capi=$$3,n1ql=$$4,kv=$$5"
}
"""

XDCR = r"""
xdcr() {  # $$1 = source first node, $$2 = remote name, $$3 = remote first node
  cli xdcr-setup -c "$$1:8091" --list | grep -q "$$2" || \
    cli xdcr-setup -c "$$1:8091" --create --xdcr-cluster-name "$$2" --xdcr-hostname "$$3:8091" \
      --xdcr-username "$$LABKIT_COUCHBASE_USER" --xdcr-password "$$LABKIT_COUCHBASE_PASSWORD"
  cli xdcr-replicate -c "$$1:8091" --list | grep -q "$$LABKIT_COUCHBASE_BUCKET" || \
    cli xdcr-replicate -c "$$1:8091" --create --xdcr-cluster-name "$$2" \
      --xdcr-from-bucket "$$LABKIT_COUCHBASE_BUCKET" --xdcr-to-bucket "$$LABKIT_COUCHBASE_BUCKET"
}
"""


def couchbase(nodes: int = 3, clusters: int = 1) -> dict[str, Any]:
    """`clusters` Couchbase clusters (1, or 2 replicating both ways with XDCR: the UUID Key test's two
    regions) of `nodes` nodes each, with data, index and query services and the lab bucket. Each node
    advertises an alternate address on 127.0.0.1 with its own published ports, so the SDK on the host
    reaches every node (connect with network=external)."""
    _check_nodes(nodes)
    if clusters not in (1, 2):
        raise ConfigError(f"clusters must be 1 or 2 (two clusters replicate both ways with XDCR); got {clusters!r}")
    services: dict[str, Any] = {}
    script = [COUCHBASE_INIT] + ([XDCR] if clusters == 2 else [])
    firsts = []
    index = 0
    for region in ("a", "b")[:clusters]:
        names = [f"couchbase-{region}{i}" for i in range(1, nodes + 1)]
        firsts.append(names[0])
        script.append("init_cluster " + " ".join(names))
        for name in names:
            ports = couchbase_host_ports(index)
            index += 1
            services[name] = {
                "image": IMAGES["couchbase"],
                "hostname": name,
                "ports": [_loopback(ports[s], COUCHBASE_PORTS[s]) for s in ("mgmt", "capi", "n1ql", "kv")],
                "mem_limit": MEMORY["couchbase"],
                "healthcheck": _health("curl -sf http://127.0.0.1:8091/pools >/dev/null", start_period="30s"),
            }
            script.append(f"alternate {name} {ports['mgmt']} {ports['capi']} {ports['n1ql']} {ports['kv']}")
    if clusters == 2:
        script += [f"xdcr {firsts[0]} region-b {firsts[1]}", f"xdcr {firsts[1]} region-a {firsts[0]}"]
    script.append('echo "labkit: couchbase ready"')
    text = "\n".join(script)
    services["couchbase-init"] = {
        "image": IMAGES["couchbase"],
        "entrypoint": ["bash", "-c", text],
        "env_file": [ENV_FILE],
        "restart": "on-failure",
        "mem_limit": MEMORY["init"],
        "depends_on": {name: {"condition": "service_healthy"} for name in services},
    }
    return {"name": "labkit-couchbase" + ("-xdcr" if clusters == 2 else ""), "services": services}


# ---- toxiproxy ---------------------------------------------------------------------------------------

def toxiproxy() -> dict[str, Any]:
    """An overlay (`-f` it next to a cluster file): toxiproxy's API on 127.0.0.1:8474 and ten proxy ports
    26000-26009 for latency and cut links between "regions"."""
    return {
        "services": {
            "toxiproxy": {
                "image": IMAGES["toxiproxy"],
                "command": ["-host", "0.0.0.0", "-port", str(TOXIPROXY_API_PORT)],
                "ports": [_loopback(TOXIPROXY_API_PORT, TOXIPROXY_API_PORT)]
                + [f"127.0.0.1:{TOXIPROXY_PROXY_PORTS.start}-{TOXIPROXY_PROXY_PORTS.stop - 1}:{TOXIPROXY_PROXY_PORTS.start}-{TOXIPROXY_PROXY_PORTS.stop - 1}"],
                "mem_limit": MEMORY["toxiproxy"],
                "healthcheck": _health(f"/toxiproxy-cli -h 127.0.0.1:{TOXIPROXY_API_PORT} list >/dev/null"),
            }
        }
    }


# ---- files -------------------------------------------------------------------------------------------

def topology(engine: str, nodes: int, node_cpu: float | None = None, **options: Any) -> dict[str, Any]:
    """The compose document for `engine` with `nodes` nodes (MongoDB: shards); `node_cpu` gives every
    data-bearing service a `cpus:` limit (the compose form of labkit's per-node CPU budget)."""
    from ..contract import check_cores

    makers: dict[str, Callable[..., dict[str, Any]]] = {"cassandra": cassandra, "mongodb": mongodb, "couchbase": couchbase}
    if engine not in makers:
        raise ConfigError(f"no compose topology for engine {engine!r}: choose one of {', '.join(makers)}")
    document = makers[engine](nodes, **options)
    cores = check_cores(node_cpu)
    if cores is not None:
        for name, service in document["services"].items():
            if name.startswith(engine) or name.startswith("mongo-shard"):
                service["cpus"] = cores
    return document


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the init scripts) as literal blocks, so the files stay readable."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value.strip("\n") + ("\n" if style else ""), style=style)


_Dumper.add_representer(str, _str)


def dump(document: dict[str, Any]) -> str:
    return "# Generated by labkit.clusters.compose.topology; edit the generator, not this file.\n" + yaml.dump(
        document, Dumper=_Dumper, sort_keys=False, width=120, default_flow_style=False
    )


def write(directory: Path, name: str, document: dict[str, Any]) -> Path:
    """Write one compose file next to the env file it names (so `docker compose -f` finds it)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ENV_FILE).write_text(env_file_text())
    path = directory / name
    path.write_text(dump(document))
    return path


EXAMPLES: dict[str, tuple[str, int, dict[str, Any]]] = {
    "cassandra-3.yml": ("cassandra", 3, {}),
    "cassandra-4-2dc.yml": ("cassandra", 4, {"dcs": 2}),
    "cassandra-4-budget.yml": ("cassandra", 4, {"node_cpu": 0.5}),
    "mongodb-4-shards.yml": ("mongodb", 4, {}),
    "couchbase-4.yml": ("couchbase", 4, {}),
    "couchbase-xdcr-2x2.yml": ("couchbase", 2, {"clusters": 2}),
}


def write_examples(directory: Path) -> list[Path]:
    """The committed files under compose/: the topologies the notebooks use by default, plus the overlay."""
    paths = [write(directory, name, topology(engine, nodes, **opts)) for name, (engine, nodes, opts) in EXAMPLES.items()]
    paths.append(write(directory, "toxiproxy.yml", toxiproxy()))
    return paths


if __name__ == "__main__":
    for p in write_examples(Path(sys.argv[1] if len(sys.argv) > 1 else "compose")):
        print(p)
