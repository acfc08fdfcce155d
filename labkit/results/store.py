"""Results tables on disk (CSV or Parquet), appended atomically: a crash never leaves half a row."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from ..errors import ConfigError

FORMATS = (".csv", ".parquet")


def _check_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ConfigError(f"results file {path} must end in .csv or .parquet (got {suffix or 'no extension'!r})")
    return suffix


def load(path: str | Path) -> pd.DataFrame:
    """Read a results table written by `append_rows` (an empty frame when the file does not exist)."""
    path = Path(path)
    suffix = _check_format(path)
    if not path.exists():
        return pd.DataFrame()
    return pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)


def _usual_mode(path: Path) -> int:
    """The mode a plain open() would give the file: an existing table keeps its own; a new one gets
    0666 less the umask (mkstemp's temporary file is 0600, which a course's shared folder cannot read)."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_atomically(frame: pd.DataFrame, path: Path, suffix: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _usual_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, mode)
    os.close(fd)
    try:
        if suffix == ".csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # atomic on POSIX: readers see the old table or the new one, never a mix
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def append_rows(path: str | Path, rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Append rows (new columns are added, missing ones left empty) and return the whole table."""
    path = Path(path)
    suffix = _check_format(path)
    new = pd.DataFrame(list(rows))
    old = load(path)
    table = new if old.empty else pd.concat([old, new], ignore_index=True)
    _write_atomically(table, path, suffix)
    return table


class ResultsStore:
    """A results file that sweeps append to one row at a time."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        _check_format(self.path)

    def append(self, row: dict[str, Any]) -> None:
        append_rows(self.path, [row])

    def load(self) -> pd.DataFrame:
        return load(self.path)
