"""The ipywidgets control panel every notebook uses (the only part of labkit that knows about notebooks)."""

from .panel import ControlPanel, thread_counts
from .tactics import TacticPanel

__all__ = ["ControlPanel", "TacticPanel", "thread_counts"]
