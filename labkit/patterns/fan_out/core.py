"""What Fan-out on Write is on every engine: its phases and approaches, and the follower network it posts to."""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from ...errors import ConfigError

NAME = "fan-out"
APPROACHES = ("naive", "pattern")
PHASES = ("post", "paginate")
EPOCH_MS = 1_700_000_000_000  # the first activity's time; each user's next one is a second later
NEWEST = 2**62  # a bound above every activity's time: "from the newest on"


@dataclass(frozen=True)
class Network:
    """Who follows whom, and which activities will be posted in which order (all from one seed)."""

    users: int
    follows: int  # followed users per user
    posts: int  # activities per user
    seed: int = 7
    following: dict[int, list[int]] = field(init=False, repr=False, compare=False)
    followers: dict[int, list[int]] = field(init=False, repr=False, compare=False)
    schedule: list[tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.users < 2 or not 1 <= self.follows < self.users or self.posts < 1:
            raise ConfigError(
                f"a network needs at least 2 users, 1 <= follows < users and posts >= 1; got users={self.users}, "
                f"follows={self.follows}, posts={self.posts}"
            )
        rng = random.Random(self.seed)
        following = {u: sorted(rng.sample([v for v in range(self.users) if v != u], self.follows)) for u in range(self.users)}
        followers: dict[int, list[int]] = {u: [] for u in range(self.users)}
        for u, followed in following.items():
            for v in followed:
                followers[v].append(u)
        schedule = [(u, k) for u in range(self.users) for k in range(self.posts)]
        rng.shuffle(schedule)
        # a user's k-th post must come after its (k-1)-th: keep each user's posts in order within the shuffle
        next_k: dict[int, int] = {u: 0 for u in range(self.users)}
        ordered = []
        for u, _ in schedule:
            ordered.append((u, next_k[u]))
            next_k[u] += 1
        object.__setattr__(self, "following", following)
        object.__setattr__(self, "followers", followers)
        object.__setattr__(self, "schedule", ordered)

    @property
    def activities(self) -> int:
        return self.users * self.posts

    @staticmethod
    def created_at(user: int, k: int) -> int:
        return EPOCH_MS + k * 1000 + user  # one second apart per user; + user keeps authors apart

    @staticmethod
    def content(user: int, k: int) -> str:
        return f"activity {k} of user {user}"

    def expected_feed(self, reader: int, posted: set[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
        """(created_at, author) of every activity in `reader`'s feed, newest first."""
        items = [
            (self.created_at(a, k), a)
            for a in self.following[reader]
            for k in range(self.posts)
            if posted is None or (a, k) in posted
        ]
        return sorted(items, reverse=True)


# ---- the feed's next page, gathered at read time (fan-out on read) ---------------------------------------
# One question for both approaches: the `page_size` newest activities of the users a reader follows, ordered
# by (created_at, author) descending (the feed table's clustering order), each page continuing below the last.
# Fan-out on read asks each followed user for their `page_size` newest activities older than the last one of
# theirs already shown (a cursor per author), and keeps the newest `page_size` of all the answers.
# Why that is the feed's next page: the pages shown so far are the start of the feed's order, so what is left
# of each author is exactly their activities older than their cursor; the next page holds at most `page_size`
# of one author, their newest left, so `page_size` per author is enough. (created_at, author) names one
# activity (an author's times are their partition's clustering key), so the order has no ties: equal times
# across authors go by author, descending, as the feed's clustering puts them. One time bound for every author
# (the page's last time) would lose an activity whose time equals it when a page breaks between equal times.


def author_bounds(followed: Sequence[int], cursors: Mapping[int, int]) -> list[tuple[int, int]]:
    """(author, bound) per followed user: the next page asks for their activities older than `bound`, the
    time of the last one of theirs already shown (NEWEST before any was)."""
    return [(author, cursors.get(author, NEWEST)) for author in followed]


def merge_newest(answers: Iterable[tuple[int, Iterable[int]]], page_size: int) -> list[tuple[int, int]]:
    """The page from each followed user's answer (author, their newest times below their bound): the
    `page_size` newest (created_at, author), equal times broken by author descending, as the feed's
    clustering (created_at DESC, author DESC) breaks them."""
    return heapq.nlargest(page_size, ((created, author) for author, times in answers for created in times))


def advance(cursors: dict[int, int], page: Sequence[tuple[int, int]]) -> None:
    """Move each author's cursor to the oldest of their activities on `page` (newest first: the last seen)."""
    for created, author in page:
        cursors[author] = created
