"""Enumerable Keys on Couchbase: the whole post read, modified and written back with CAS for every
comment (naive: each lost race is another round), or `binary().increment()` on a per-post counter
plus one document per comment, paged with `get_multi` of ten known keys (pattern)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engines.couchbase import ClusterPerProcess
from ...runner import Transaction
from .core import CommentStore, list_newest_first, list_page, page_of_numbers, store_workload

if TYPE_CHECKING:
    from ...clusters.contract import CouchbaseCluster


class CouchbaseComments(ClusterPerProcess, CommentStore):
    """"<post>": {"comments": [...]}; "<post>::count": the counter; "<post>::c::<n>": {"n", "text"}."""

    engine = "couchbase"

    def __init__(self, connect: Any, bucket: str, approach: str, phase: str, **options: Any):
        super().__init__(approach, phase, **options)
        self.connect = connect  # () -> a connected SDK Cluster
        self.bucket = bucket

    @classmethod
    def for_cluster(cls, cluster: CouchbaseCluster, approach: str, phase: str, **options: Any) -> "CouchbaseComments":
        return cls(cluster.cluster, cluster.bucket, approach, phase, **options)

    @property
    def counter_key(self) -> str:
        return f"{self.post}::count"

    def key(self, n: int) -> str:
        return f"{self.post}::c::{n:09d}"

    def count(self) -> int:
        from couchbase.exceptions import DocumentNotFoundException

        try:
            return int(self.collection.get(self.counter_key).content_as[int])
        except DocumentNotFoundException:
            return 0

    # ---- storage ---------------------------------------------------------------------------------

    def reset(self) -> None:
        from couchbase.exceptions import DocumentNotFoundException

        keys = [self.key(n) for n in range(1, self.count() + 1)] + [self.counter_key]
        for key in keys:
            try:
                self.collection.remove(key)
            except DocumentNotFoundException:
                pass
        self.collection.upsert(self.post, {"comments": []})

    def add(self, tx: Transaction, text: str) -> None:
        if self.naive:
            self.rewrite_post(tx, lambda comments: comments.append(text))
            return
        from couchbase.options import DeltaValue, IncrementOptions, SignedInt64

        counter = self.collection.binary()
        n = tx.call("increment_counter", counter.increment, self.counter_key, IncrementOptions(initial=SignedInt64(1), delta=DeltaValue(1))).content
        tx.call("insert_comment", self.collection.insert, self.key(n), {"n": n, "text": text})

    def rewrite_post(self, tx: Transaction | None, change) -> None:
        """Read the post, change its list, write it back only if nobody wrote in between (CAS); a lost
        race costs another read and write ("replace_post" counts every attempt)."""
        from couchbase.exceptions import CasMismatchException

        from ..exercise import a_transaction

        tx = tx or a_transaction()
        while True:
            got = tx.call("read_post", self.collection.get, self.post)
            comments = got.content_as[dict]["comments"]
            change(comments)
            try:
                tx.call("replace_post", self.collection.replace, self.post, {"comments": comments}, cas=got.cas)
                return
            except CasMismatchException:
                tx.measurements.op("cas_conflict").record(0)

    def delete(self, text: str) -> None:
        if self.naive:
            self.rewrite_post(None, lambda comments: comments.remove(text))
        else:
            for n, stored_text in self.stored():
                if stored_text == text:
                    self.collection.remove(self.key(n))
                    return

    def delete_stored(self, n: int, text: str) -> None:
        if self.naive:
            super().delete_stored(n, text)
        else:
            self.collection.remove(self.key(n))  # the pattern's number is the key: no search

    def stored(self) -> list[tuple[int, str]]:
        if self.naive:
            return list_newest_first(self.collection.get(self.post).content_as[dict]["comments"])
        found = []
        top = self.count()
        for start in range(top, 0, -100):
            result = self.collection.get_multi([self.key(n) for n in range(start, max(0, start - 100), -1)])
            found += [(doc.content_as[dict]["n"], doc.content_as[dict]["text"]) for doc in result.results.values()]
        return sorted(found, reverse=True)

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        if self.naive:
            return list_page(tx.call("read_post", self.collection.get, self.post).content_as[dict]["comments"], cursor)  # the whole list, every page
        if cursor is None:
            cursor = tx.call("read_counter", self.count)

        def fetch(numbers: list[int]) -> list[tuple[int, str]]:
            result = tx.call("read_comments", self.collection.get_multi, [self.key(n) for n in numbers])  # deleted ones come back as missing
            return [(d.content_as[dict]["n"], d.content_as[dict]["text"]) for d in result.results.values()]

        return page_of_numbers(cursor, fetch)

    def highest_number(self, stored_numbers: list[int]) -> int:
        return super().highest_number(stored_numbers) if self.naive else self.count()

    def post_size(self) -> int:
        import json

        return len(json.dumps(self.collection.get(self.post).content_as[dict]).encode())


STORE = CouchbaseComments
workload = store_workload(STORE)
