"""Where a batch run collects every row its notebooks measure: `make run` names a file per notebook in
LABKIT_RESULTS_SINK, every sweep appends its rows there too, and the report reads them (the notebooks
themselves need not know)."""

from __future__ import annotations

import os
from typing import Any

SINK_ENV = "LABKIT_RESULTS_SINK"


def record(row: dict[str, Any]) -> None:
    """Append `row` to the batch's results file, when a batch asked for one."""
    path = os.environ.get(SINK_ENV)
    if path:
        from .store import ResultsStore

        ResultsStore(path).append(row)
