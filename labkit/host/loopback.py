"""Each labkit home's own loopback range, 127.X.Y.0/24, so forty students on one lab server never reach
for the same address and port: node i of a home's cluster listens (CQL, storage, JMX) on 127.X.Y.i.

On Linux the whole 127.0.0.0/8 is local, so no alias is needed. The range is chosen from a hash of the
home's path (stable: the same home gets the same range every time) and claimed in a directory every
user of the host can write (`/tmp/labkit-loopback`, sticky like /tmp itself): one file per range naming
the home, the user and the user id that hold it. A range another home claimed, or whose first address
already answers on a node's ports, is skipped for the next candidate. `LABKIT_LOOPBACK=127.X.Y` chooses
a range by hand (the way out when something outside labkit sits on the hashed one).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..home import labkit_home
from ..errors import ConfigError
from .users import current_user

CLAIMS = Path(os.environ.get("LABKIT_LOOPBACK_CLAIMS", "/tmp/labkit-loopback"))
"""Where the ranges in use on this host are claimed: shared by every user, so it lives outside any home."""
OVERRIDE = "LABKIT_LOOPBACK"
COORDINATION_INDEX = 240
"""The range's address for an engine's coordination services beside its nodes (HBase's ZooKeeper, master and gateway)."""
HELPER_INDEX = 250
"""The range's address for helpers a lesson starts beside the nodes (toxiproxy's API and its proxies)."""
LINKS_INDEX = 251
"""The range's address for the toxiproxy a cluster's internode links go through (partitions without root)."""
BROADCAST_OFFSET = 100
"""Node i's second address, 127.X.Y.(100+i), where the other datacenter reaches it through that proxy."""
_PREFIX = re.compile(r"^127\.(\d{1,3})\.(\d{1,3})$")
PROBE_PORTS = (9042, 7000, 7199, 16020)
"""A candidate range whose first address answers on one of a node's ports is someone else's: Cassandra's CQL, storage
and JMX ports, and HBase's region server port (clusters.local.hbase.REGION_SERVER_PORT; region server 1 is on .1)."""


@dataclass(frozen=True)
class LoopbackRange:
    """127.X.Y.0/24 of one labkit home."""

    prefix: str
    home: str
    user: str

    def address(self, index: int) -> str:
        """Node `index` (1-based) of this home's cluster; 200 and up are for helpers (proxies, stand-ins)."""
        if not 1 <= index <= 254:
            raise ConfigError(f"a loopback range has addresses 1 to 254; asked for {index}")
        return f"{self.prefix}.{index}"

    @property
    def cidr(self) -> str:
        return f"{self.prefix}.0/24"

    def contains(self, address: str) -> bool:
        return address.startswith(self.prefix + ".")


@dataclass(frozen=True)
class Claim:
    """A range some labkit home on this host holds, as its claim file says."""

    prefix: str
    home: str
    user: str
    uid: int


def candidates(home: Path, count: int = 64) -> list[str]:
    """The ranges a home tries, in order: the first from a hash of its path, then the next ones. X is never
    0 (127.0.0.0/24 is where other programs, resolvers and the host name live)."""
    digest = int.from_bytes(hashlib.sha256(str(home).encode()).digest()[:4], "big")
    start = digest % (254 * 256)
    out = []
    for step in range(count):
        n = (start + step) % (254 * 256)
        out.append(f"127.{1 + n // 256}.{n % 256}")
    return out


def _home_gone(home: str) -> bool:
    """True only when the home surely no longer exists (another user's home we cannot see counts as there)."""
    try:
        return not Path(home).exists()
    except OSError:
        return False


def claims() -> list[Claim]:
    """Every range claimed on this host by a home that still exists (readable by everyone: `labkit status`
    lists them). Our own claims for homes since removed (a test's temporary home) are dropped on the way."""
    out: list[Claim] = []
    if not CLAIMS.is_dir():
        return out
    for path in sorted(CLAIMS.iterdir()):
        if not _PREFIX.match(path.name):
            continue
        try:
            data = json.loads(path.read_text())
            claim = Claim(path.name, str(data["home"]), str(data["user"]), int(data["uid"]))
        except (OSError, ValueError, KeyError):
            continue  # half-written by a start that is still running; skipped
        if _home_gone(claim.home):
            if claim.uid == os.getuid():
                path.unlink(missing_ok=True)
            continue
        out.append(claim)
    return out


def _claims_dir() -> Path:
    """The shared claims directory, made sticky and writable by all (as /tmp) by whoever comes first."""
    try:
        CLAIMS.mkdir(parents=True, exist_ok=True)
        if CLAIMS.stat().st_uid == os.getuid():
            os.chmod(CLAIMS, 0o1777)
    except OSError as exc:
        raise ConfigError(f"cannot use {CLAIMS} to claim this home's loopback range ({exc}); set {OVERRIDE}=127.X.Y to choose one by hand") from exc
    return CLAIMS


def _answers(prefix: str) -> bool:
    from .processes import port_open

    return any(port_open(f"{prefix}.1", port) for port in PROBE_PORTS)


def _try_claim(prefix: str, home: Path, user: str) -> bool:
    """True when the range is now this home's (claimed afresh or already ours)."""
    path = _claims_dir() / prefix
    record = json.dumps({"home": str(home), "user": user, "uid": os.getuid()})
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return False
        if data.get("uid") != os.getuid():
            return False
        if data.get("home") != str(home):
            if not _home_gone(str(data.get("home"))):
                return False
            path.write_text(record)  # our own claim for a home since deleted (a test's or a removed venv's): reused
        return True
    with os.fdopen(fd, "w") as f:
        f.write(record)
    return True


def _override() -> str | None:
    """LABKIT_LOOPBACK, checked, or None."""
    chosen = os.environ.get(OVERRIDE, "").strip()
    if not chosen:
        return None
    m = _PREFIX.match(chosen)
    if not m or not (0 <= int(m.group(1)) <= 255 and 0 <= int(m.group(2)) <= 255):
        raise ConfigError(f"{OVERRIDE} must be three parts of a loopback address, 127.X.Y (X, Y from 0 to 255); got {chosen!r}")
    return chosen


def own_range(home: Path | None = None) -> LoopbackRange:
    """This home's range: LABKIT_LOOPBACK if set, else the one it claimed before, else the first free
    candidate (claimed now). Raises with what to do when none of 64 candidates is free."""
    home = (home or labkit_home()).expanduser().resolve()
    user = current_user()
    chosen = _override()
    if chosen:
        return LoopbackRange(chosen, str(home), user)
    remembered = home / "loopback.json"
    if remembered.exists():
        try:
            prefix = json.loads(remembered.read_text())["prefix"]
            if _try_claim(prefix, home, user):
                return LoopbackRange(prefix, str(home), user)
        except (OSError, ValueError, KeyError):
            pass
    for prefix in candidates(home):
        path = CLAIMS / prefix
        if not path.exists() and _answers(prefix):
            continue  # something that never claimed it (another tool, an old labkit) listens there
        if _try_claim(prefix, home, user):
            home.mkdir(parents=True, exist_ok=True)
            remembered.write_text(json.dumps({"prefix": prefix}))
            return LoopbackRange(prefix, str(home), user)
    raise ConfigError(
        f"no free loopback range for {home}: the 64 it tries are claimed in {CLAIMS} or in use; "
        f"set {OVERRIDE}=127.X.Y to a free one (`labkit status` lists the ranges in use)"
    )


def owner_of(address: str) -> Claim | None:
    """Whose range an address is in, by the claims on this host (None: nobody's)."""
    prefix = address.rsplit(".", 1)[0]
    return next((c for c in claims() if c.prefix == prefix), None)


def _known_prefix() -> str | None:
    """This home's range if it has one already (looking only: status must not claim one)."""
    chosen = _override()
    if chosen:
        return chosen
    try:
        return json.loads((labkit_home() / "loopback.json").read_text())["prefix"]
    except (OSError, ValueError, KeyError):
        return None


def host_ranges() -> list[dict[str, object]]:
    """Every claimed range on this host, whose it is, and whether a node answers on its first address
    (what `labkit status` shows, so a student sees whose cluster is whose)."""
    mine = _known_prefix()
    return [{"range": f"{c.prefix}.0/24", "user": c.user, "home": c.home, "yours": c.prefix == mine,
             "serving": _answers(c.prefix)} for c in sorted(claims(), key=lambda c: c.prefix != mine)]
