import sys
from pathlib import Path

# the fake workloads must be importable by name in spawned client processes too
sys.path.insert(0, str(Path(__file__).parent))
