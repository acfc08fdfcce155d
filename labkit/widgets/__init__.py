"""The ipywidgets control panel every notebook uses, and the prediction asked before a run (the only part of
labkit that knows about notebooks)."""

from .panel import ControlPanel, PanelLimits, thread_counts
from .prediction import PredictionBox, result_card
from .tactics import TacticPanel

__all__ = ["ControlPanel", "PanelLimits", "PredictionBox", "TacticPanel", "result_card", "thread_counts"]
