#!/usr/bin/env bash
# What `--clients local:N` costs per `labkit run` invocation against `--processes N`, as a new user runs it:
# whole invocations (cluster start, load, Dask's LocalCluster start, the run, shutdown), alternating
# A B B A ... so the machine's drift falls on both; prints each invocation's wall time and the measured
# point's logins/s, client path and limit from its rows.
#
#   bash benchmarks/dask_invocation_cost.sh            # 3 invocations of each (about 6 min)
#   bash benchmarks/dask_invocation_cost.sh 1          # one of each: checks the script, claims nothing
set -u
pairs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # $1: label, rest: the client options
  label=$1; shift
  csv="$out/$label-$RANDOM.csv"
  start=$(date +%s.%N)
  (cd "$here" && .venv/bin/labkit run index-table --approaches pattern --threads 32 --operations 4000 --set users=2000 "$@" --out "$csv" >/dev/null 2>&1)
  rc=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  "$here/.venv/bin/python" - "$csv" "$label" "$wall" "$rc" <<'EOF'
import sys
import pandas as pd
csv, label, wall, rc = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
try:
    row = pd.read_csv(csv).iloc[-1]
    print(f"{label:14s} exit {rc}  wall {wall:6.1f} s  logins/s {row.throughput:8.0f}  client CPU {row.client_cpu_cores:.2f} cores  "
          f"path {row.get('client_path', '?')}  limit {row.limit}")
except Exception as exc:  # an invocation that wrote no row: say so, keep going
    print(f"{label:14s} exit {rc}  wall {wall:6.1f} s  no row ({type(exc).__name__}: {exc})")
EOF
}
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) -eq 1 ]; then
    run processes:2 --processes 2; run clients:local:2 --clients local:2
  else
    run clients:local:2 --clients local:2; run processes:2 --processes 2
  fi
done
