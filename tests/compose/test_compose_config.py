"""Every committed compose file, and every file the provider generates for 1..8 nodes, passes the real
compose implementation's `config` (no Docker engine needed; compose is built once if the docker
client lacks the plugin). Validated statically only: this machine cannot pull images or run them."""

from pathlib import Path

import pytest
import yaml

from labkit.clusters.compose import topology as topo
from labkit.clusters.compose import validate

pytestmark = pytest.mark.full  # full tier (make test-full): builds Docker Compose from Go sources on a fresh machine (197-372 s)

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted(p.name for p in (REPO / "compose").glob("*.yml") if p.name != "toxiproxy.yml")
GENERATED = [("cassandra", n, {}) for n in range(1, 9)] + [("cassandra", n, {"dcs": 2}) for n in range(2, 9)] + \
            [("mongodb", n, {}) for n in range(1, 9)] + [("couchbase", n, {}) for n in range(1, 9)] + [("couchbase", n, {"clusters": 2}) for n in range(1, 5)]


@pytest.fixture(scope="module")
def compose():
    return validate.compose_command()  # builds Docker Compose into labkit's cache the first time


def check_model(text: str) -> dict:
    model = yaml.safe_load(text)
    for name, svc in model["services"].items():
        for port in svc.get("ports", []):
            assert port.get("host_ip") == "127.0.0.1", f"{name}: {port}"
        assert svc.get("mem_limit") or svc.get("deploy", {}).get("resources", {}).get("limits", {}).get("memory"), name
        if not name.endswith("-init"):
            assert svc["healthcheck"]["test"], name
    return model


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_files_pass_compose_config_with_the_toxiproxy_overlay(compose, name):
    model = check_model(validate.config(REPO / "compose" / name, REPO / "compose" / "toxiproxy.yml"))
    assert "toxiproxy" in model["services"]


@pytest.mark.parametrize("engine, nodes, options", GENERATED, ids=lambda v: str(v))
def test_generated_topologies_pass_compose_config(compose, engine, nodes, options, tmp_path):
    path = topo.write(tmp_path, "docker-compose.yml", topo.topology(engine, nodes, **options))
    model = check_model(validate.config(path))
    assert len(model["services"]) == len(topo.topology(engine, nodes, **options)["services"])


def test_a_broken_file_is_rejected_with_composes_reason(compose, tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("services:\n  x:\n    image: busybox\n    ports: [\"127.0.0.1:notaport:80\"]\n")
    with pytest.raises(Exception, match="bad.yml is not a valid compose file"):
        validate.config(bad)
