"""The official images the compose provider runs, pinned, and the one place credentials come from."""

from __future__ import annotations

IMAGES = {
    "cassandra": "cassandra:5.0.4",
    "mongodb": "mongo:8.0.4",
    "couchbase": "couchbase/server:community-7.6.2",
    "toxiproxy": "ghcr.io/shopify/toxiproxy:2.12.0",
}

ENV_FILE = "labkit.env"
"""Credentials for every compose topology, in compose/labkit.env (one file, not scattered)."""

CREDENTIALS = {
    "LABKIT_COUCHBASE_USER": "labkit",
    "LABKIT_COUCHBASE_PASSWORD": "labkit-password",
    "LABKIT_COUCHBASE_BUCKET": "lab",
}
"""Lab-only defaults: every port is published on 127.0.0.1, so nothing outside this machine reaches them."""

MEMORY = {
    "cassandra": "1g",  # 512 MiB heap + off-heap; the official image's default heap would take a quarter of the host
    "mongod": "512m",  # WiredTiger cache capped at 0.25 GiB
    "mongos": "256m",
    "couchbase": "1536m",  # data 512 MiB + index 256 MiB quotas + the server's own processes
    "toxiproxy": "64m",
    "init": "256m",
}


def env_file_text() -> str:
    lines = ["# Credentials for labkit's compose topologies (lab use only: every port is bound to 127.0.0.1)."]
    lines += [f"{k}={v}" for k, v in CREDENTIALS.items()]
    return "\n".join(lines) + "\n"


def memory_bytes(limit: str) -> int:
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    return int(limit[:-1]) * units[limit[-1]]
