"""External MongoDB and Couchbase without a server: where the URI, the login and TLS come from, what is
refused before connecting, and that records hide nothing from their owner and passwords from everyone else."""

from __future__ import annotations

import stat

import pytest

from labkit.clusters import provider_for
from labkit.clusters.external import couchbase as external_couchbase
from labkit.clusters.external import mongodb as external_mongodb
from labkit.clusters.external import records
from labkit.engines.credentials import from_environment, redacted
from labkit.engines.mongodb import security_options as mongo_security
from labkit.errors import ConfigError, NotAvailableError


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    for name in (external_mongodb.URI_ENV, external_couchbase.CONNECTION_ENV, external_couchbase.BUCKET_ENV,
                 "LABKIT_COUCHBASE_USERNAME", "LABKIT_COUCHBASE_PASSWORD", "LABKIT_COUCHBASE_CREDENTIALS",
                 "LABKIT_MONGODB_USERNAME", "LABKIT_MONGODB_PASSWORD", "LABKIT_MONGODB_TLS_CA", "LABKIT_MONGODB_TLS_NO_VERIFY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_both_engines_have_an_external_provider():
    assert provider_for("mongodb", "external") is external_mongodb.ExternalMongoCluster
    assert provider_for("couchbase", "external") is external_couchbase.ExternalCouchbaseCluster


def test_mongodb_uri_from_the_option_the_hosts_or_the_record(home, monkeypatch):
    assert external_mongodb.uri_from(None, "db1,db2:27018", None) == "mongodb://db1:27017,db2:27018/"
    assert external_mongodb.uri_from(None, "db1", 27100) == "mongodb://db1:27100/"
    with pytest.raises(ConfigError, match="mongodb://"):
        external_mongodb.uri_from("http://db1", None)
    with pytest.raises(ConfigError, match="labkit up mongodb --provider external --uri"):
        external_mongodb.ExternalMongoCluster()
    records.record(external_mongodb.NAME, "mongodb", uri="mongodb://course:pw@db1:27017/")
    assert external_mongodb.ExternalMongoCluster().uri == "mongodb://course:pw@db1:27017/"
    monkeypatch.setenv(external_mongodb.URI_ENV, "mongodb://db9/")
    assert external_mongodb.ExternalMongoCluster().uri == "mongodb://db9/"


def test_couchbase_connection_string_bucket_and_login(home, monkeypatch):
    assert external_couchbase.connection_string_from(None, "cb1, cb2") == "couchbase://cb1,cb2"
    with pytest.raises(ConfigError, match="couchbase://"):
        external_couchbase.connection_string_from("mongodb://x", None)
    c = external_couchbase.ExternalCouchbaseCluster(uri="couchbases://cb1")
    assert (c.connection_string, c.bucket) == ("couchbases://cb1", "lab")
    monkeypatch.setenv(external_couchbase.BUCKET_ENV, "course")
    assert external_couchbase.ExternalCouchbaseCluster(uri="couchbase://cb1").bucket == "course"
    with pytest.raises(ConfigError, match="LABKIT_COUCHBASE_USERNAME"):
        external_couchbase.login({})
    assert external_couchbase.login({"LABKIT_COUCHBASE_USERNAME": "ta", "LABKIT_COUCHBASE_PASSWORD": "pw", "LABKIT_COUCHBASE_TLS_CA": "/ca.pem"}) == ("ta", "pw", "/ca.pem")


def test_budgets_and_cassandra_options_are_refused(home):
    with pytest.raises(NotAvailableError, match="does not budget"):
        external_mongodb.ExternalMongoCluster(uri="mongodb://db1/", node_cpu=0.5)
    with pytest.raises(NotAvailableError, match="does not budget"):
        external_couchbase.ExternalCouchbaseCluster(uri="couchbase://cb1", node_cpu=0.5)
    with pytest.raises(ConfigError, match="Cassandra datacenters"):
        external_mongodb.ExternalMongoCluster.start_from_cli(nodes=None, dc="dc1", uri="mongodb://db1/")
    with pytest.raises(ConfigError, match="--uri"):
        external_couchbase.ExternalCouchbaseCluster.start_from_cli(nodes=None, port=11210, uri="couchbase://cb1")


def test_mongodb_login_and_tls_from_the_environment():
    assert mongo_security({}) == {}
    opts = mongo_security({"LABKIT_MONGODB_USERNAME": "ta", "LABKIT_MONGODB_PASSWORD": "pw", "LABKIT_MONGODB_TLS_CA": "/ca.pem"})
    assert opts == {"username": "ta", "password": "pw", "tls": True, "tlsCAFile": "/ca.pem"}
    assert mongo_security({"LABKIT_MONGODB_TLS_NO_VERIFY": "1"}) == {"tls": True, "tlsAllowInvalidCertificates": True}


def test_one_reader_of_credentials_for_every_engine(tmp_path):
    secret = tmp_path / "cred"
    secret.write_text("course:pa:ss\n")
    got = from_environment("couchbase", {"LABKIT_COUCHBASE_CREDENTIALS": str(secret)})
    assert (got.username, got.password, got.tls) == ("course", "pa:ss", False)


def test_records_are_private_and_messages_hide_passwords(home):
    path = records.record(external_mongodb.NAME, "mongodb", uri="mongodb://ta:secret@db1/")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert redacted("mongodb://ta:secret@db1:27017/?tls=true") == "mongodb://ta:***@db1:27017/?tls=true"
    assert redacted("couchbase://cb1") == "couchbase://cb1"


def test_up_refuses_uri_where_it_means_nothing(home):
    from typer.testing import CliRunner

    from labkit.cli import app

    r = CliRunner().invoke(app, ["up", "mongodb", "--provider", "standin", "--uri", "mongodb://db1/"])
    assert r.exit_code != 0 and "use them with --provider external" in r.output
    r = CliRunner().invoke(app, ["up", "cassandra", "--provider", "external", "--uri", "mongodb://db1/"])
    assert r.exit_code != 0 and "--hosts" in r.output
