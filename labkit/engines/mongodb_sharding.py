"""Sharding the patterns' collections where the deployment is sharded, and reading back how many shards a
query asked.

Why: on a sharded cluster a collection that is never sharded lives on one shard (its primary), so every
post and comment would sit on one machine and a "4 vs 8 shards" comparison would compare nothing. Each
pattern names the key it spreads its documents by; `shard_collections` shards them hashed on that key,
through the mongos, idempotently (a collection already sharded on that key is left alone; one sharded on
another key is an error that says so). On a replica set, a single server or a stand-in it does nothing.
"""

from __future__ import annotations

from typing import Any, Mapping

from pymongo.errors import OperationFailure

from ..errors import LabkitError


def hello(client: Any) -> dict[str, Any]:
    """The server's handshake reply (`hello`; `isMaster` on servers and stand-ins that predate it)."""
    try:
        return client.admin.command("hello")
    except OperationFailure:
        return client.admin.command("isMaster")


def is_sharded(client: Any) -> bool:
    """Is this client talking to a mongos (a sharded cluster)?"""
    return hello(client).get("msg") == "isdbgrid"


def shard_key_of(client: Any, namespace: str) -> dict[str, Any] | None:
    """The shard key a collection has now (config.collections), or None when it is not sharded."""
    found = client["config"]["collections"].find_one({"_id": namespace, "dropped": {"$ne": True}})
    return dict(found["key"]) if found and "key" in found else None


def shard_collections(client: Any, database: str, keys: Mapping[str, str]) -> list[str]:
    """Shard `database.<collection>` hashed on `keys[collection]` for each collection, where the deployment
    is sharded; return the namespaces sharded by this call (none elsewhere, none already done)."""
    if not is_sharded(client):
        return []
    client.admin.command("enableSharding", database)  # required before 6.0, accepted (and a no-op) after
    done = []
    for collection, field in keys.items():
        namespace = f"{database}.{collection}"
        wanted = {field: "hashed"}
        have = shard_key_of(client, namespace)
        if have == wanted:
            continue
        if have is not None:
            raise LabkitError(f"{namespace} is sharded on {have}, but the pattern spreads it by {wanted}: drop the lab's database "
                              f"({database}) and run again (it holds only what the lab wrote)")
        client.admin.command("shardCollection", namespace, key=wanted)
        done.append(namespace)
    return done


def shards_asked(client: Any, database: str, collection: str, query: Mapping[str, Any]) -> int | None:
    """How many shards a find with `query` is sent to, from the mongos's explain (None where there is no mongos)."""
    if not is_sharded(client):
        return None
    plan = client[database].command("explain", {"find": collection, "filter": dict(query)}, verbosity="queryPlanner")
    winning = plan.get("queryPlanner", {}).get("winningPlan", {})
    shards = winning.get("shards")
    return len(shards) if shards is not None else 1
