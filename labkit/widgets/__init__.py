"""The ipywidgets control panel every notebook uses (the only part of labkit that knows about notebooks)."""

from .panel import ControlPanel, thread_counts

__all__ = ["ControlPanel", "thread_counts"]
