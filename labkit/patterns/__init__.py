"""One package per pattern: its description (`PATTERN`), an engine-neutral core and one module per
engine binding. `labkit.catalogue.describe(name)` is how the CLI, sweeps and benchmarks find a pattern."""

from __future__ import annotations

from ..errors import ConfigError


def check_choice(pattern: str, kind: str, value: str, choices: tuple[str, ...]) -> None:
    """A workload's approach/phase/test must be one its pattern has; the error lists them."""
    if value not in choices:
        raise ConfigError(f"unknown {kind} {value!r} for {pattern}: choose one of {', '.join(choices)}")
