"""The external provider without a server: where credentials and TLS come from, what it refuses before
connecting, and that `labkit down` forgets a recorded external cluster instead of stopping anything."""

from __future__ import annotations

import json
import ssl

import pytest

from labkit.clusters import provider_for
from labkit.clusters.external import cassandra as external
from labkit.engines.cassandra import security_options
from labkit.errors import ConfigError, LabkitError, NotAvailableError


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    monkeypatch.delenv(external.HOSTS_ENV, raising=False)
    return tmp_path


def test_credentials_from_the_environment_or_a_file(tmp_path):
    opts = security_options({"LABKIT_CASSANDRA_USERNAME": "student", "LABKIT_CASSANDRA_PASSWORD": "s3cret"})
    assert opts["auth_provider"].username == "student" and opts["auth_provider"].password == "s3cret"
    secret = tmp_path / "cred"
    secret.write_text("course:pa:ss\n")
    opts = security_options({"LABKIT_CASSANDRA_CREDENTIALS": str(secret)})
    assert (opts["auth_provider"].username, opts["auth_provider"].password) == ("course", "pa:ss")
    assert security_options({}) == {}  # the lab's own clusters: no credentials, no TLS


def test_bad_credentials_settings_say_what_to_do(tmp_path):
    with pytest.raises(LabkitError, match="set both"):
        security_options({"LABKIT_CASSANDRA_USERNAME": "student"})
    bad = tmp_path / "cred"
    bad.write_text("no colon here\n")
    with pytest.raises(LabkitError, match="username:password"):
        security_options({"LABKIT_CASSANDRA_CREDENTIALS": str(bad)})
    with pytest.raises(LabkitError, match="cannot read"):
        security_options({"LABKIT_CASSANDRA_CREDENTIALS": str(tmp_path / "missing")})


def test_tls_checks_the_certificate_unless_told_not_to():
    opts = security_options({"LABKIT_CASSANDRA_TLS_NO_VERIFY": "1"})
    assert opts["ssl_context"].verify_mode == ssl.CERT_NONE
    with pytest.raises(FileNotFoundError):
        security_options({"LABKIT_CASSANDRA_TLS_CA": "/nonexistent/ca.pem"})


def test_external_is_the_provider_for_an_existing_cassandra(home):
    assert provider_for("cassandra", "external") is external.ExternalCassandraCluster


def test_nothing_recorded_says_how_to_record_it(home):
    with pytest.raises(ConfigError, match="labkit up cassandra --provider external --hosts"):
        external.ExternalCassandraCluster()


def test_budgets_are_refused_for_a_cluster_labkit_did_not_start(home):
    with pytest.raises(NotAvailableError, match="does not budget"):
        external.ExternalCassandraCluster(hosts="10.0.0.1", node_cpu=0.5)


def test_hosts_come_from_the_record_or_the_environment(home, monkeypatch):
    external.record(["10.1.1.1", "10.1.1.2"], 9142, "dc-east")
    c = external.ExternalCassandraCluster()
    assert (c.hosts, c.port, c.dc) == (["10.1.1.1", "10.1.1.2"], 9142, "dc-east")
    monkeypatch.setenv(external.HOSTS_ENV, "10.2.2.2, 10.2.2.3")
    assert external.ExternalCassandraCluster().hosts == ["10.2.2.2", "10.2.2.3"]
    assert external.ExternalCassandraCluster(hosts="10.3.3.3").hosts == ["10.3.3.3"]


def test_down_forgets_an_external_cluster_and_stops_nothing(home, monkeypatch):
    from labkit.clusters import registry
    from labkit.clusters.registry import stop_all

    monkeypatch.setattr(registry, "heal_all", lambda: None)  # machine-wide iptables rules: not this test's business
    monkeypatch.setattr(registry.Toxiproxy, "stop", lambda self: None)

    external.record(["10.1.1.1"])
    assert json.loads((home / "clusters" / external.NAME / "cluster.json").read_text())["provider"] == "external"
    stopped = stop_all()
    assert stopped == [f"{external.NAME} (forgotten: labkit did not start it, so nothing was stopped)"]
    assert not (home / "clusters" / external.NAME).exists()


def test_up_refuses_hosts_for_a_cluster_labkit_starts(home):
    from typer.testing import CliRunner

    from labkit.cli import app

    r = CliRunner().invoke(app, ["up", "cassandra", "--provider", "local", "--hosts", "10.0.0.1"])
    assert r.exit_code != 0 and "use them with --provider external" in r.output
    r = CliRunner().invoke(app, ["up", "cassandra", "--provider", "external"])
    assert r.exit_code != 0 and "--hosts" in r.output
