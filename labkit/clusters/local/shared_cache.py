"""An instructor fills one read-only cache of server jars and class archive for every user of a lab server
(`labkit provision --shared DIR`), so forty students do not each download and keep their own copy."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

from ...errors import ConfigError
from ...home import SHARED_CACHE_ENV


def _toxiproxy() -> str:
    """The lessons' proxy (WAN latency; partitions without root), built once for everyone when Go is here."""
    from ...errors import NotAvailableError
    from ...faults import latency

    try:
        return f"toxiproxy {latency.VERSION} ready in {latency.install()}"
    except NotAvailableError as exc:
        return f"toxiproxy not built ({exc}); each student's first latency or partition lesson builds its own"


def provide(directory: Path, provision: Callable[[], str]) -> str:
    """Run `provision` with `directory` as the labkit home, then leave only what every user may read:
    jars and archives, no state of the run that made them (its loopback claim, cluster directories)."""
    directory = directory.expanduser().resolve()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make the shared cache {directory} ({exc}); run this as the user who owns it (often root)") from exc
    saved = {name: os.environ.get(name) for name in ("LABKIT_HOME", SHARED_CACHE_ENV)}
    os.environ["LABKIT_HOME"] = str(directory)
    os.environ[SHARED_CACHE_ENV] = str(directory)  # fill this one, not read another
    try:
        said = provision() + "\n" + _toxiproxy()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    shutil.rmtree(directory / "clusters", ignore_errors=True)
    (directory / "loopback.json").unlink(missing_ok=True)
    for root, dirs, files in os.walk(directory):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            path = os.path.join(root, name)
            os.chmod(path, 0o755 if os.stat(path).st_mode & 0o100 else 0o644)  # programs (toxiproxy) stay runnable
    os.chmod(directory, 0o755)
    default = "" if str(directory) == "/opt/labkit/cache" else f" Set {SHARED_CACHE_ENV}={directory} in every student's environment (or use /opt/labkit/cache, which labkit reads without it)."
    return f"{said}\nShared with every user of this host: {directory} (read-only for them).{default}"
