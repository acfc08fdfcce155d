"""Every pytest run in this repository is a batch run, nbval's notebook kernels included (they inherit the
environment): no one is there to answer a prediction, so the notebooks record it as absent and run on
(labkit.predictions). Here, not in tests/conftest.py, so that `pytest --nbval-lax notebooks` alone is one too."""

import os

os.environ.setdefault("LABKIT_BATCH", "1")
