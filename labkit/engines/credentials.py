"""Credentials and TLS settings for clusters the lab did not start, read from the environment.

Why the environment: every client process a run spawns inherits it, so all of them connect the same way,
and no secret lands in a notebook or a results file. Each engine reads its own names:
LABKIT_<ENGINE>_USERNAME and _PASSWORD (or _CREDENTIALS, a file with `username:password` on its first
line), _TLS_CA (a PEM file: TLS, the server's certificate checked against it) and _TLS_NO_VERIFY=1 (TLS
without checking, for a course server with a self-signed certificate).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import LabkitError


@dataclass(frozen=True)
class Security:
    """What one engine's environment asks for: a login (or None) and TLS (off, checked against `ca`, or unchecked)."""

    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca: str | None = None
    verify: bool = True


def names(engine: str) -> dict[str, str]:
    """The environment variables an engine's security settings come from."""
    prefix = f"LABKIT_{engine.upper()}_"
    return {key: prefix + key.upper() for key in ("username", "password", "credentials", "tls_ca", "tls_no_verify")}


def from_environment(engine: str, environ: Mapping[str, str] | None = None) -> Security:
    """The settings for `engine` (nothing set: no login, no TLS, what the lab's own clusters need)."""
    env = os.environ if environ is None else environ
    var = names(engine)
    user, password = env.get(var["username"]), env.get(var["password"])
    if env.get(var["credentials"]) and not user:
        path = env[var["credentials"]]
        try:
            first = open(path, encoding="utf-8").readline().strip()
        except OSError as exc:
            raise LabkitError(f"cannot read the {engine} credentials file {path} ({var['credentials']}): {exc.strerror}") from exc
        if ":" not in first:
            raise LabkitError(f"{path} ({var['credentials']}) must hold username:password on its first line")
        user, password = first.split(":", 1)
    if user and password is None:
        raise LabkitError(f"{var['username']} is set but {var['password']} is not: set both (or {var['credentials']})")
    ca = env.get(var["tls_ca"]) or None
    unchecked = env.get(var["tls_no_verify"]) == "1"
    return Security(user or None, password if user else None, bool(ca or unchecked), ca, not unchecked)


def ssl_context(security: Security) -> Any:
    """An ssl.SSLContext for drivers that take one (cassandra-driver); None without TLS."""
    import ssl

    if not security.tls:
        return None
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=security.ca)
    if not security.verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def redacted(uri: str) -> str:
    """A URI or connection string with its password hidden, for messages and `status`."""
    scheme, sep, rest = uri.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return uri
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{place}"
