"""Enumerable Keys on MongoDB: comments `$push`ed into the post (naive) or a per-post counter plus one
document per comment, paged by `_id $in` of known keys (pattern)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engines.mongodb import ClientPerProcess
from ...engines.mongodb_sharding import shard_collections
from ...runner import Transaction
from ...namespace import Namespaced, in_namespace
from .core import PAGE_SIZE, CommentStore, list_newest_first, page_of_numbers, store_workload

if TYPE_CHECKING:
    from ...clusters.contract import MongoCluster

DATABASE = "enumerable_keys"
SHARD_KEYS = {"posts": "_id", "comments": "_id"}  # hashed: a post's comments spread over every shard


class MongoComments(Namespaced, ClientPerProcess, CommentStore):
    """posts: {_id, comments: [...], size, count}; comments: {_id: "<post>:<n>", post, n, text}."""

    base_keyspace = DATABASE

    engine = "mongodb"

    def __init__(self, uri: str, approach: str, phase: str, **options: Any):
        super().__init__(approach, phase, **options)
        self.uri = uri

    @classmethod
    def for_cluster(cls, cluster: MongoCluster, approach: str, phase: str, **options: Any) -> "MongoComments":
        return in_namespace(cls(cluster.uri, approach, phase, **options), cluster)

    def connected(self, client: Any) -> None:
        shard_collections(client, self.database, SHARD_KEYS)  # where the deployment is sharded; idempotent

    @property
    def db(self):
        return self.client[self.database]

    def key(self, n: int) -> str:
        return f"{self.post}:{n:09d}"

    # ---- storage ---------------------------------------------------------------------------------

    def reset(self) -> None:
        self.db.posts.delete_one({"_id": self.post})
        self.db.comments.delete_many({"post": self.post})
        self.db.posts.insert_one({"_id": self.post, "comments": [], "size": 0, "count": 0})

    def add(self, tx: Transaction, text: str) -> None:
        posts = self.db.posts
        if self.naive:
            tx.call("push_comment", posts.update_one, {"_id": self.post}, {"$push": {"comments": text}, "$inc": {"size": 1}})
            return
        from pymongo import ReturnDocument

        # BEFORE, plus one: the stand-in's AFTER can repeat values under concurrency; BEFORE is exact on both
        before = tx.call("increment_counter", posts.find_one_and_update, {"_id": self.post}, {"$inc": {"count": 1}},
                         projection={"count": 1}, return_document=ReturnDocument.BEFORE)
        n = before["count"] + 1
        tx.call("insert_comment", self.db.comments.insert_one, {"_id": self.key(n), "post": self.post, "n": n, "text": text})

    def delete(self, text: str) -> None:
        if self.naive:
            self.db.posts.update_one({"_id": self.post}, {"$pull": {"comments": text}, "$inc": {"size": -1}})
        else:
            self.db.comments.delete_one({"post": self.post, "text": text})

    def stored(self) -> list[tuple[int, str]]:
        if self.naive:
            return list_newest_first((self.db.posts.find_one({"_id": self.post}) or {}).get("comments", []))
        return [(d["n"], d["text"]) for d in self.db.comments.find({"post": self.post}).sort("n", -1)]

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        posts = self.db.posts
        if self.naive:
            # cursor: how many of the oldest comments are still unread; a page is the newest ten of them
            if cursor is None:
                doc = tx.call("read_post", posts.find_one, {"_id": self.post}, {"comments": {"$slice": -PAGE_SIZE}, "size": 1})
                end, page = doc["size"], doc["comments"]
            else:
                end = cursor
                page = tx.call("read_post", posts.find_one, {"_id": self.post}, {"comments": {"$slice": [max(0, end - PAGE_SIZE), min(end, PAGE_SIZE)]}})["comments"]
            start = max(0, end - PAGE_SIZE)
            return list(reversed(page)), (start or None)
        if cursor is None:
            cursor = tx.call("read_counter", posts.find_one, {"_id": self.post}, {"count": 1})["count"]
        return page_of_numbers(cursor, lambda numbers: [(d["n"], d["text"]) for d in tx.call("read_comments", self.comments_by_id, [self.key(n) for n in numbers])])

    def comments_by_id(self, keys: list[str]) -> list[dict]:
        """One request for the comments with these keys (missing ones, deleted, are simply absent)."""
        return list(self.db.comments.find({"_id": {"$in": keys}}))

    def highest_number(self, stored_numbers: list[int]) -> int:
        if self.naive:
            return super().highest_number(stored_numbers)
        return (self.db.posts.find_one({"_id": self.post}) or {}).get("count", 0)

    def server_counters(self) -> dict[str, float] | None:
        """MongoDB's own count of write conflicts and lock waits (real servers; a stand-in has none)."""
        from ...engines import mongodb

        return mongodb.contention_counters(self.db.client)

    def post_size(self) -> int:
        import bson

        return len(bson.encode(self.db.posts.find_one({"_id": self.post}) or {}))


STORE = MongoComments
workload = store_workload(STORE)
