"""One module per pattern: the naive and the scalable workload per engine, plus verify()."""

from __future__ import annotations

import importlib

from ..errors import ConfigError, NotAvailableError

PATTERNS = ("uuid-key", "index-table", "enumerable-keys", "fan-out")

IMPLEMENTED: dict[str, str] = {
    "uuid-key": "labkit.patterns.uuid_key",
    "index-table": "labkit.patterns.index_table",
    "enumerable-keys": "labkit.patterns.enumerable_keys",
    "fan-out": "labkit.patterns.fan_out",
}
"""pattern name -> module path, for the patterns this version ships."""


def check_choice(pattern: str, kind: str, value: str, choices: tuple[str, ...]) -> None:
    """A workload's approach/phase/test must be one its pattern has; the error lists them."""
    if value not in choices:
        raise ConfigError(f"unknown {kind} {value!r} for {pattern}: choose one of {', '.join(choices)}")


def pattern_module(name: str):
    """The module implementing a pattern, or an error naming the patterns that exist."""
    if name not in PATTERNS:
        raise ConfigError(f"unknown pattern {name!r}: choose one of {', '.join(PATTERNS)}")
    module = IMPLEMENTED.get(name)
    if module is None:
        have = ", ".join(sorted(IMPLEMENTED)) or "none yet"
        raise NotAvailableError(
            f"pattern {name!r} is not implemented in this version of labkit (implemented: {have})"
        )
    return importlib.import_module(module)
