"""The Couchbase variant's plumbing without a Couchbase server (none can run here): which ports each
region's cluster publishes, the XDCR pause/resume calls, and a plain answer when Docker is missing."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from labkit.clusters.compose.provider import ComposeCouchbaseCluster
from labkit.errors import LabkitError
from labkit.patterns.uuid_key import couchbase as cb


def test_each_region_connects_to_its_own_clusters_first_node():
    cluster = ComposeCouchbaseCluster(nodes=2, clusters=2)
    services = cluster.document["services"]
    kv = [cs.split(":")[2].split("?")[0] for cs in cluster.connection_strings()]
    mgmt = [url.rsplit(":", 1)[1] for url in cluster.management_urls()]
    assert f"127.0.0.1:{kv[0]}:11210" in services["couchbase-a1"]["ports"]
    assert f"127.0.0.1:{kv[1]}:11210" in services["couchbase-b1"]["ports"]
    assert f"127.0.0.1:{mgmt[1]}:8091" in services["couchbase-b1"]["ports"]
    assert ComposeCouchbaseCluster(nodes=3).connection_strings() == [ComposeCouchbaseCluster(nodes=3).connection_string]


class FakeManagementApi(BaseHTTPRequestHandler):
    """Two clusters' task lists and the pause requests they receive (a stand-in for the REST API only)."""

    calls: list[tuple[str, str, str, dict]] = []

    def _reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        region = self.server.region
        self.calls.append((region, "GET", self.path, {}))
        self._reply([{"type": "rebalance"}, {"type": "xdcr", "id": f"remote-{region}/lab/lab"}])

    def do_POST(self):
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        assert self.headers["Authorization"] == "Basic " + base64.b64encode(b"admin:secret").decode()
        self.calls.append((self.server.region, "POST", self.path, form))
        self._reply({})

    def log_message(self, *args):
        pass


@pytest.fixture
def two_management_apis():
    servers = {}
    for region in ("usa", "ireland"):
        server = ThreadingHTTPServer(("127.0.0.1", 0), FakeManagementApi)
        server.region = region
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers[region] = server
    FakeManagementApi.calls = []
    yield {r: f"http://127.0.0.1:{s.server_address[1]}" for r, s in servers.items()}
    for server in servers.values():
        server.shutdown()


def test_the_partition_pauses_every_replication_in_both_clusters_and_the_heal_resumes_them(two_management_apis):
    regions = cb.CouchbaseRegions({}, two_management_apis, "admin", "secret", "lab")
    regions.pause_replication(True)
    regions.pause_replication(False)
    posts = [(r, path, form["pauseRequested"][0]) for r, method, path, form in FakeManagementApi.calls if method == "POST"]
    assert posts == [
        ("usa", "/settings/replications/remote-usa%2Flab%2Flab", "true"),
        ("ireland", "/settings/replications/remote-ireland%2Flab%2Flab", "true"),
        ("usa", "/settings/replications/remote-usa%2Flab%2Flab", "false"),
        ("ireland", "/settings/replications/remote-ireland%2Flab%2Flab", "false"),
    ]


def test_an_unreachable_management_api_is_named():
    regions = cb.CouchbaseRegions({}, {"usa": "http://127.0.0.1:9", "ireland": "http://127.0.0.1:9"}, "admin", "secret", "lab")
    with pytest.raises(LabkitError, match="management API of the usa cluster"):
        regions.pause_replication(True)


def test_without_docker_the_variant_says_plainly_that_it_did_not_run(monkeypatch):
    import labkit.clusters.compose.provider as provider

    monkeypatch.setattr(provider, "compose_available", lambda: (False, "docker compose 2.40.3 present, but no Docker engine answers"))
    regions, sentence = cb.availability()
    assert regions is None
    assert sentence.startswith("Couchbase variant not run: no Couchbase here") and "no Docker engine answers" in sentence
    regions, sentence = cb.availability("local")
    assert regions is None and "only the compose provider" in sentence
