"""Tidy results: labelled rows, atomic CSV/Parquet files and plotly figures (the sweeps that make the rows: labkit.sweeps)."""

from .figures import latency_figure, throughput_figure, timeline_figure
from .offered_load import knees, offered_load_figure
from .metadata import METADATA_COLUMNS, run_metadata
from .store import ResultsStore, append_rows, load
from .verification import VerificationFailed, assert_verified, verification_report

__all__ = [
    "METADATA_COLUMNS",
    "ResultsStore",
    "VerificationFailed",
    "append_rows",
    "assert_verified",
    "knees",
    "latency_figure",
    "load",
    "offered_load_figure",
    "run_metadata",
    "throughput_figure",
    "timeline_figure",
    "verification_report",
]
