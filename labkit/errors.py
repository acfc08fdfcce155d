"""Errors a user can act on: every message says what went wrong and what to do about it."""

from __future__ import annotations


class LabkitError(Exception):
    """Base class for errors that carry a user-facing explanation."""


class ConfigError(LabkitError, ValueError):
    """A bad argument or setting (thread count 0, unknown engine, ...)."""


class NotAvailableError(LabkitError):
    """Something the request needs does not exist here (a provider, a pattern, a binary)."""


class VerificationUnfinished(LabkitError):
    """verify() could not finish (a read kept timing out, a node did not answer): the result is unknown,
    which is neither a pass nor a lost record. The runner keeps the measured row and marks it not verified."""
