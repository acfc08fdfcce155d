"""Errors a user can act on: every message says what went wrong and what to do about it."""

from __future__ import annotations


class LabkitError(Exception):
    """Base class for errors that carry a user-facing explanation."""


class ConfigError(LabkitError, ValueError):
    """A bad argument or setting (thread count 0, unknown engine, ...)."""


def refuse_unknown_names(given, known, what: str) -> None:
    """Name every key of a settings mapping that its settings object does not have, and list the ones it
    has; `what` names one of them ("run option", "YCSB setting")."""
    known = sorted(known)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ConfigError(f"unknown {what}(s) {', '.join(unknown)}; the {what}s are {', '.join(known)}")


class NotAvailableError(LabkitError):
    """Something the request needs does not exist here (a provider, a pattern, a binary)."""


class VerificationUnfinished(LabkitError):
    """verify() could not finish (a read kept timing out, a node did not answer): the result is unknown,
    which is neither a pass nor a lost record. The runner keeps the measured row and marks it not verified."""
