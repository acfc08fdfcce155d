"""Whose a process or a cluster is: the Unix user this process runs as."""

from __future__ import annotations

import getpass


def current_user() -> str:
    """The Unix user this process runs as: whose the clusters it starts are."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a container user without a passwd entry
        import os

        return str(os.getuid())
