"""What Fan-out on Write is on every engine: its phases and approaches, and the follower network it posts to."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ...errors import ConfigError

NAME = "fan-out"
APPROACHES = ("naive", "pattern")
PHASES = ("post", "paginate")
EPOCH_MS = 1_700_000_000_000  # the first activity's time; each user's next one is a second later


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
