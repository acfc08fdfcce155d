"""A profile as one more kind of pattern description: its designs are the approaches (`design/<name>`), its
operations with their weights are the one phase's mix, so the CLI, the sweep entry point and the panel run
it as they run a pattern; every row carries the profile's name and a hash of its text.

Why a subclass and not a package: a pattern's engine binding is a module found by name, a profile's is made
from the file the student wrote, so `binding()` returns an object with the same `workload` function.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ConfigError
from ..namespace import in_namespace
from ..patterns.description import NamedSweep, Pattern, Setting
from .format import Profile, load_profile, mix_text

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster

PHASE = "mix"
DESIGN_PREFIX = "design/"
PROFILE_SIZES = {
    "smoke": {PHASE: NamedSweep(PHASE, (1,), (16,), 150, warmup=20)},
    "quick": {PHASE: NamedSweep(PHASE, (1,), (4, 16), 600, warmup=100, repeats=3)},
    "classroom": {PHASE: NamedSweep(PHASE, (1, 3), (8, 32, 64), 6000, warmup=600, repeats=3)},
}
"""Sizes when the profile gives none: a quick look, and the classroom's three thread counts on 1 and 3 nodes;
3 repeats each, so every design-over-design ratio comes with an interval. Smoke (make test) runs each design once
at one thread count: every cell runs, and the ratio's card says too few repeats to judge."""


def is_profile_path(name: str) -> bool:
    """`labkit run path/to/chat.yaml`: a profile file rather than a pattern's name."""
    return name.endswith((".yaml", ".yml"))


@dataclass(frozen=True)
class ProfilePattern(Pattern):
    profile: Profile | None = None
    text_hash: str = ""
    """The first 12 hex digits of the file's SHA-256: rows of two versions of a profile never mix unnoticed."""
    source: str = ""
    extra_labels: Mapping[str, Any] = field(default_factory=dict)

    @property
    def given_profile(self) -> Profile:
        """The profile whose designs this pattern runs (always given: `profile_pattern` makes every one)."""
        if self.profile is None:
            raise ConfigError(f"{self.name}: a profile pattern is made from a profile file (profile_pattern(path))")
        return self.profile

    def binding(self, engine: str) -> Any:
        self.check_engine(engine)
        profile = self.given_profile

        def workload(approach: str, phase: str, cluster: CassandraCluster, operations: int, replication: int = 1) -> Any:
            from .cassandra import DesignWorkload

            return in_namespace(DesignWorkload(cluster.addresses, profile, approach[len(DESIGN_PREFIX):], replication=replication), cluster)

        return SimpleNamespace(workload=workload)

    def phase_note(self, phase: str) -> str:
        """The mix the designs share: a transaction is one operation, picked by these weights."""
        return "mix (one operation per transaction, by weight): " + mix_text(self.given_profile)

    def labels(self, phase: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {**super().labels(phase, settings), "profile": self.given_profile.name, "profile_hash": self.text_hash}


def profile_pattern(path: str | Path) -> ProfilePattern:
    """The description of the profile in `path` (checked: a bad file is refused here, before anything starts)."""
    file = Path(path)
    profile = load_profile(file)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:12]
    return ProfilePattern(
        name=profile.name,
        title=f"{profile.name} (profile {file.name})",
        package="labkit.profiles",
        phases=(PHASE,),
        approaches=tuple(f"{DESIGN_PREFIX}{d}" for d in profile.designs),
        engines=(profile.engine,),
        settings=(Setting("replication", 1, 1, 5, "replication factor of each design's keyspace"),),
        sizes=PROFILE_SIZES,
        profile=profile,
        text_hash=digest,
        source=str(file),
    )
