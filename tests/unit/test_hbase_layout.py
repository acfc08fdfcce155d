"""The local HBase provider's plan, before any process starts: who listens where (only the home's loopback range),
what each process is started with, and a sentence for what it cannot do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labkit.clusters import choose_provider, provider_for
from labkit.clusters.local import hbase, hbase_config, hbase_install
from labkit.errors import ConfigError
from labkit.host.loopback import LoopbackRange

OWN = LoopbackRange("127.61.7", "/home/student/.cache/labkit", "student")


def test_region_server_k_listens_on_its_own_address_and_the_coordination_on_one_more(tmp_path):
    procs = hbase.layout(3, tmp_path, OWN)
    assert [(p.name, p.address) for p in procs] == [
        ("zookeeper", "127.61.7.240:2181"), ("master", "127.61.7.240:16000"),
        ("rs1", "127.61.7.1:16020"), ("rs2", "127.61.7.2:16020"), ("rs3", "127.61.7.3:16020"), ("thrift", "127.61.7.240:9090")]
    assert all(Path(p.path).parent == tmp_path for p in procs)


@pytest.mark.parametrize("nodes", [0, 5, True, 2.0])
def test_a_region_server_count_outside_one_to_four_is_refused_with_the_range(nodes, tmp_path):
    with pytest.raises(ConfigError, match="1 to 4 region servers"):
        hbase.layout(nodes, tmp_path, OWN)


def test_every_address_in_the_configuration_is_on_the_homes_range(tmp_path):
    procs = hbase.layout(2, tmp_path, OWN)
    zk = procs[0]
    files = [hbase_config.site_xml({**hbase_config.common_site(tmp_path, zk.host, zk.port, 2), **hbase_config.master_site(procs[1].host, procs[1].port)}),
             hbase_config.site_xml(hbase_config.region_server_site(procs[2].host, procs[2].port)),
             hbase_config.zoo_cfg(tmp_path / "zk", zk.host, zk.port)]
    addresses = {a for text in files for a in re.findall(r"\b\d+\.\d+\.\d+\.\d+\b", text)}
    assert addresses and all(OWN.contains(a) for a in addresses), addresses
    assert "<name>hbase.master.info.port</name><value>-1</value>" in files[0]  # no web UI on any address
    assert "admin.enableServer=false" in files[2] and f"clientPortAddress={zk.host}" in files[2]


def test_each_command_names_its_own_directory_and_binds_the_gateway_to_its_address(tmp_path, monkeypatch):
    monkeypatch.setattr(hbase_install, "lib_dir", lambda version=hbase_install.DEFAULT_VERSION: tmp_path / "lib")
    for proc in hbase.layout(1, tmp_path, OWN):
        cmd = hbase.command_line(proc, "/usr/bin/java")
        assert proc.path in " ".join(cmd)  # how the next start finds a leftover: by PID and this directory, never by name
        assert "--add-opens" in cmd and f"-Xmx{hbase.HEAP_MB[proc.role]}m" in cmd
        if proc.role == "thrift":
            assert cmd[-8:] == ["org.apache.hadoop.hbase.thrift.ThriftServer", "-b", proc.host, "-p", "9090", "--infoport", "-1", "start"]


def test_the_provider_is_registered_and_two_datacenters_are_refused():
    assert provider_for("hbase", "local") is hbase.LocalHBaseCluster
    assert choose_provider("hbase", docker=(False, "no engine"))[0] == "local"
    with pytest.raises(ConfigError, match="--dcs applies to cassandra"):
        hbase.LocalHBaseCluster.start_from_cli(nodes=2, dcs=2)


@pytest.mark.parametrize("engine", ["hbase", "cassandra"])
def test_without_jdk_17_the_start_says_what_to_install(monkeypatch, engine):
    from labkit.clusters.local import cassandra_install, jdk
    from labkit.errors import NotAvailableError

    monkeypatch.setattr(jdk, "java_major", lambda: (11, 'openjdk version "11.0.2"'))
    find_java = {"hbase": hbase_install.java, "cassandra": cassandra_install.require_java17}[engine]
    with pytest.raises(NotAvailableError, match="JDK 17.*found Java 11.*openjdk-17-jdk-headless"):
        find_java()


def test_a_port_held_by_another_program_is_named_before_anything_starts(tmp_path, monkeypatch):
    from held_ports import held
    from labkit.errors import LabkitError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = hbase.LocalHBaseCluster(nodes=2)  # made, not started: its range is this test home's own
    gateway = cluster.gateway
    with held(gateway.host, gateway.port), pytest.raises(
            LabkitError, match=rf"port {gateway.host}:{gateway.port} \(needed by HBase's thrift\) is taken by pid \d+ .*one of your own programs.*labkit down"):
        cluster._check_ports(grace=0.5)
    cluster._check_ports(grace=0.5)  # free again: no error


def test_hbase_missing_from_the_cache_without_maven_says_how_to_get_it(tmp_path, monkeypatch):
    from labkit.clusters import maven
    from labkit.errors import NotAvailableError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))  # an empty cache: the jars must be resolved
    monkeypatch.delenv("LABKIT_SHARED_CACHE", raising=False)
    monkeypatch.setattr(hbase_install, "shared_lib_dir", lambda version: None)
    monkeypatch.setattr(maven.shutil, "which", lambda name: None)
    with pytest.raises(NotAvailableError, match=r"resolving Apache HBase 2\.6\.1's jars from Maven Central needs Maven .*apt-get install maven"):
        hbase_install.install()
