"""MongoDB through pymongo: a MongoClient with clear errors, the server version, a clean slate.

Pattern code gets a plain `pymongo.MongoClient`; this module only saves it the ceremony.
"""

from __future__ import annotations

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from ..errors import LabkitError

SYSTEM_DATABASES = {"admin", "config", "local"}


def connect(uri: str, timeout_s: float = 10, **options) -> MongoClient:
    """A MongoClient that has already reached the server (so a wrong URI fails here, with advice)."""
    client = MongoClient(uri, serverSelectionTimeoutMS=int(timeout_s * 1000), **options)
    try:
        client.admin.command("ping")
    except PyMongoError as exc:
        client.close()
        raise LabkitError(
            f"cannot reach MongoDB at {uri} ({type(exc).__name__}: {exc}). Is the cluster up? "
            "`labkit status` shows it; `labkit up mongodb` starts one."
        ) from exc
    return client


def server_version(client: MongoClient) -> str:
    return client.server_info()["version"]


def reset(client: MongoClient) -> list[str]:
    """Drop every user database (what a clean run starts from); return their names."""
    dropped = [n for n in client.list_database_names() if n not in SYSTEM_DATABASES]
    for name in dropped:
        client.drop_database(name)
    return dropped
