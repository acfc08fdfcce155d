"""Consistency you can check: histories of register operations and whether a model can explain them.

Why a package of its own: a linearizability check is about what clients saw (each operation's call, return and
outcome), not about any engine, so it sits beside the runner and the engines rather than inside them. The
checker is Porcupine (Go), built once by labkit from the Go module proxy (`checker`).
"""

from .checker import KeyVerdict, Verdict, check_history

__all__ = ["KeyVerdict", "Verdict", "check_history"]
