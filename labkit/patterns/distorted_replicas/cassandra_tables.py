"""The CQL shape of a publication, shared by every Distorted Replicas table on Cassandra (the replicas of
one cluster and the shards of the route phase): column types and the rows each shape stores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core import FIELDS, GROUP_NAMES, GROUPS, values

if TYPE_CHECKING:
    from ...datasets.bibliography import Publication

COLUMN_TYPES = {"title": "text", "pages": "text", "url": "text", "ee": "text", "authors": "list<text>",
                "citations": "list<text>", "year": "int", "venue": "text", "volume": "int", "number": "int"}


def columns(fields: tuple[str, ...]) -> str:
    """'title text, pages text, ...' for a CREATE TABLE."""
    return ", ".join(f"{f} {COLUMN_TYPES[f]}" for f in fields)


def by_author_table(keyspace: str) -> str:
    """The second aggregate root: a full copy of each publication under every one of its authors (`pos`:
    where the author stands in the author list), one partition per author."""
    return (f"CREATE TABLE IF NOT EXISTS {keyspace}.publications_by_author (author text, pub_id text, pos int, {columns(FIELDS)}, "
            "PRIMARY KEY (author, pub_id))")


def insert_by_author(keyspace: str) -> str:
    return f"INSERT INTO {keyspace}.publications_by_author (author, pub_id, pos, {', '.join(FIELDS)}) VALUES (?, ?, ?{', ?' * len(FIELDS)})"


def row_of(pub: "Publication") -> tuple:
    """The aggregate's row: pub_id, then every field in FIELDS order."""
    return (pub.pub_id, *(values(pub, g)[f] for g in GROUP_NAMES for f in GROUPS[g]))


def by_author_row(pub: "Publication", pos: int, author: str) -> tuple:
    return (author, pub.pub_id, pos, *row_of(pub)[1:])
