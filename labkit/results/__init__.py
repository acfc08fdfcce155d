"""Tidy results: labelled rows, sweeps, atomic CSV/Parquet files and plotly figures."""

from .figures import latency_figure, throughput_figure, timeline_figure
from .metadata import METADATA_COLUMNS, run_metadata
from .store import ResultsStore, append_rows, load
from .sweep import SweepPlan, parse_range, sweep
from .verification import verification_report

__all__ = [
    "METADATA_COLUMNS",
    "ResultsStore",
    "SweepPlan",
    "append_rows",
    "latency_figure",
    "load",
    "parse_range",
    "run_metadata",
    "sweep",
    "throughput_figure",
    "timeline_figure",
    "verification_report",
]
