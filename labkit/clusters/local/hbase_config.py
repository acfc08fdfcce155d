"""The files each local HBase process reads: its hbase-site.xml and log4j.properties, and ZooKeeper's zoo.cfg.

Every address is on the labkit home's own loopback range; no process opens a web UI (HBase's info servers
would load Hadoop 2's servlet-api 2.5 beside Jetty 9's and fail), so each process listens on its RPC port only."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

ZK_SESSION_TIMEOUT_MS = 20_000
"""How long ZooKeeper waits for a silent region server before its session expires and the master reassigns its
regions (HBase's default is 90 s, capped by ZooKeeper at 20 ticks = 40 s). 20 s: a killed server's regions move
within a lesson's minute, and a server held to a CPU budget stays far from it (a control group's quota throttles
it within 10 ms periods; the unprivileged helper pauses it for well under a second at a time)."""
REPORT_INTERVAL_MS = 1_000
"""Each region server reports its load (request counts per region) to the master every second (default 3 s), so
the counts a lesson reads after a run are at most a second old."""

LOG4J = """log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
log4j.logger.org.apache.zookeeper=WARN
log4j.logger.org.apache.hadoop.hbase.zookeeper=WARN
log4j.logger.org.apache.hadoop.metrics2=WARN
"""

LOG4J_CLIENT = """log4j.rootLogger=ERROR,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
"""
"""The admin tool's: errors only, on stderr, so its stdout is the one JSON line."""


def site_xml(properties: dict[str, str]) -> str:
    rows = "".join(f"  <property><name>{escape(k)}</name><value>{escape(str(v))}</value></property>\n" for k, v in properties.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{rows}</configuration>\n'


def common_site(root: Path, zookeeper: str, zk_port: int, region_servers: int) -> dict[str, str]:
    """What every process of one cluster shares: where the data is and how to find ZooKeeper."""
    return {
        "hbase.cluster.distributed": "true",  # a master and region servers as processes of their own
        "hbase.rootdir": f"file://{root / 'data'}",
        "hbase.unsafe.stream.capability.enforce": "false",  # the local filesystem cannot hflush/hsync: the WAL is not durable here
        "hbase.wal.provider": "filesystem",  # the async WAL writer needs HDFS
        "hbase.zookeeper.quorum": zookeeper,
        "hbase.zookeeper.property.clientPort": str(zk_port),
        "zookeeper.session.timeout": str(ZK_SESSION_TIMEOUT_MS),
        "hbase.regionserver.msginterval": str(REPORT_INTERVAL_MS),
        "hbase.master.wait.on.regionservers.mintostart": str(region_servers),  # spread the first regions over all of them
        "hbase.master.wait.on.regionservers.timeout": "1000",  # and then go on: the default waits 4.5 s more for servers no one started
        "hbase.master.wait.on.regionservers.interval": "500",
        "hbase.master.info.port": "-1",
        "hbase.regionserver.info.port": "-1",
    }


def master_site(host: str, port: int) -> dict[str, str]:
    return {"hbase.master.hostname": host, "hbase.master.ipc.address": host, "hbase.master.port": str(port)}


def region_server_site(host: str, port: int) -> dict[str, str]:
    return {"hbase.regionserver.hostname": host, "hbase.regionserver.ipc.address": host, "hbase.regionserver.port": str(port)}


def zoo_cfg(data_dir: Path, host: str, port: int) -> str:
    """A standalone ZooKeeper on one loopback address, without its admin web server."""
    return "\n".join([
        "tickTime=2000",
        f"dataDir={data_dir}",
        f"clientPort={port}",
        f"clientPortAddress={host}",
        f"maxSessionTimeout={2 * ZK_SESSION_TIMEOUT_MS}",
        "admin.enableServer=false",
        "maxClientCnxns=0",
        "4lw.commands.whitelist=ruok,mntr,stat",
        "",
    ])
