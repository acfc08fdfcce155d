import os
import sys
from pathlib import Path

# no one answers a prediction in a test run, nbval's kernels included (they inherit it): labkit.predictions
os.environ.setdefault("LABKIT_BATCH", "1")

# the fake workloads must be importable by name in spawned client processes too
sys.path.insert(0, str(Path(__file__).parent))
