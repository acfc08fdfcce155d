"""The one JDK every local engine runs on: JDK 17's `java`, or a sentence that says how to get it."""

from __future__ import annotations

import os
import shutil

from ...errors import NotAvailableError
from ...machine import java_major


def require_java17(needs: str) -> str:
    """Path of a JDK 17 `java` (JAVA_HOME's, else PATH's); `needs` starts the error ("Cassandra 5.0 needs JDK 17")."""
    major, line = java_major()
    if major != 17:
        found = f"found: {line}" if major is None else f"found Java {major}"
        raise NotAvailableError(
            f"{needs} and none is usable here ({found}). Install it (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless; "
            "conda: conda install -c conda-forge openjdk=17) and put it on PATH or set JAVA_HOME."
        )
    home = os.environ.get("JAVA_HOME")
    return os.path.join(home, "bin", "java") if home else shutil.which("java") or "java"
