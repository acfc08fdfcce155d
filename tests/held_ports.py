"""A port held by this test process, for the tests of what a start says when a node's port is taken."""

from __future__ import annotations

import contextlib
import socket
from typing import Iterator

import pytest


@contextlib.contextmanager
def held(host: str, port: int) -> Iterator[socket.socket]:
    """Listen on host:port until the block ends; skip the test when something else already holds it."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind((host, port))
    except OSError:
        holder.close()
        pytest.skip(f"{host}:{port} is in use here")
    holder.listen()
    try:
        yield holder
    finally:
        holder.close()
