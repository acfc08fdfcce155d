"""Whether a history of register operations is linearizable, by Porcupine (github.com/anishathalye/porcupine).

Why Porcupine: it checks a history against a sequential model per key in well under a second for the few thousand
operations a lesson's run records, treats an operation whose outcome is unknown as one that may take effect at any
time after its call (a timeout must not count against a database), and draws the history with its linearizations
as one HTML page a student can open. It is a Go library: labkit builds the small command beside this module
(`checker/main.go`) once, like toxiproxy, from the Go module proxy, into the labkit home.

A history is JSON lines, one operation each: process, key, op (read, write, cas), value (a write's), expected and
new (a cas's; expected null: only when absent), result (a read's value or null, a cas's applied), outcome (ok,
fail: took no effect, unknown: timed out), call and return (one monotonic clock, nanoseconds; no return when
unknown).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import ConfigError, LabkitError
from ..home import labkit_home
from ..host.go_build import build_once

PORCUPINE = "1.3.1"
SOURCE = Path(__file__).with_name("checker")
MODELS = ("register", "cas-register")
"""register: reads and writes of one value per key; cas-register: reads, writes and compare-and-set."""


def _source_digest() -> str:
    """A short hash of the command's source, so an edited checker is built again instead of a stale one used."""
    digest = hashlib.sha256()
    for name in ("main.go", "go.mod", "go.sum"):
        digest.update((SOURCE / name).read_bytes())
    return digest.hexdigest()[:12]


def binary_path() -> Path:
    return labkit_home() / "linearizability" / f"porcupine-{PORCUPINE}-{_source_digest()}" / "checker"


def install() -> Path:
    """`go build` of checker/main.go into the labkit home (once; Porcupine from the Go module proxy)."""
    target = binary_path()

    def build(go: str) -> subprocess.CompletedProcess:
        building = target.with_name(f".checker-{os.getpid()}")
        proc = subprocess.run([go, "build", "-trimpath", "-o", str(building), "."], cwd=SOURCE, capture_output=True, text=True,
                              env={**os.environ, "GOFLAGS": "-mod=readonly"})
        if proc.returncode == 0 and building.exists():
            building.replace(target)
        return proc

    return build_once(target, build, what=f"the linearizability checker (Porcupine {PORCUPINE})")


@dataclass(frozen=True)
class KeyVerdict:
    """One key's history: Ok (linearizable), Illegal (no order of its operations is a register's), Unknown (timed
    out); for an illegal one, the length of the longest linearizable prefix the search found (`prefix`) and the
    operation it cannot be extended past (`unplaced`, with its line): the earliest return no order could reach."""

    key: str
    result: str
    operations: int
    unplaced: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    prefix: int = 0


@dataclass(frozen=True)
class Verdict:
    """What the checker found: linearizable or not (Unknown when it ran out of time), per key, the smallest failing
    key, what was left out (failed operations, unknown reads) and the page of the history, when asked for."""

    linearizable: bool
    result: str
    operations: int
    dropped: Mapping[str, int]
    keys: tuple[KeyVerdict, ...]
    failing_key: str | None
    page: Path | None

    def failing(self) -> KeyVerdict | None:
        return next((k for k in self.keys if k.key == self.failing_key), None)

    def text(self) -> str:
        """One sentence: 'linearizable (412 operations on 3 keys)' or 'not linearizable: key k2 (58 operations) ...'."""
        where = f"{self.operations} operation{'s' if self.operations != 1 else ''} on {len(self.keys)} key{'s' if len(self.keys) != 1 else ''}"
        if self.result == "Ok":
            return f"linearizable ({where})"
        if self.result == "Unknown":
            return f"not decided: the checker ran out of time ({where})"
        failing = self.failing()
        said = (f"; the longest linearizable prefix ({failing.prefix} operations) cannot be extended past: {failing.unplaced[0]} "
                f"(line {failing.lines[0]})" if failing and failing.unplaced else "")
        return f"not linearizable: key {self.failing_key} ({failing.operations if failing else '?'} operations){said} ({where})"


def _written(history: Path | Iterable[Mapping[str, Any]], folder: Path) -> Path:
    if isinstance(history, (str, Path)):
        path = Path(history)
        if not path.exists():
            raise ConfigError(f"no history at {path}")
        return path
    path = folder / "history.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for op in history:
            out.write(json.dumps(dict(op)) + "\n")
    return path


def check_history(history: Path | Iterable[Mapping[str, Any]], model: str = "cas-register", *, page: Path | None = None,
                  timeout_s: float = 30.0) -> Verdict:
    """Check `history` (a JSON lines file, or the operations as mappings) against `model` (MODELS); `page`: write
    Porcupine's HTML page of the history and its linearizations there. A malformed history raises ConfigError
    naming the line."""
    if model not in MODELS:
        raise ConfigError(f"model must be one of {', '.join(MODELS)} (got {model!r})")
    checker = install()
    with tempfile.TemporaryDirectory(prefix="labkit-history-") as folder:
        path = _written(history, Path(folder))
        command = [str(checker), "-history", str(path), "-model", model, "-timeout", f"{timeout_s}s"]
        if page is not None:
            Path(page).parent.mkdir(parents=True, exist_ok=True)
            command += ["-page", str(page)]
        proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode == 2:
        raise ConfigError(f"the history cannot be checked: {proc.stderr.strip().removeprefix('checker: ')}")
    if proc.returncode != 0:
        raise LabkitError(f"the linearizability checker failed (exit {proc.returncode}): {proc.stderr.strip()[-1000:]}")
    found = json.loads(proc.stdout)
    keys = tuple(KeyVerdict(k["key"], k["result"], k["operations"], tuple(k.get("unplaced") or ()), tuple(k.get("lines") or ()),
                            k.get("prefix") or 0) for k in found.get("keys") or ())
    return Verdict(found["linearizable"], found["result"], found["operations"], dict(found.get("dropped") or {}), keys,
                   found.get("failing_key") or None, Path(found["page"]) if found.get("page") else None)
