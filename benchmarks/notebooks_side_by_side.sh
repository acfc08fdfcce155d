#!/usr/bin/env bash
# How long each notebook of `make run` takes in two trees, side by side in one run: notebook by notebook,
# alternating which tree goes first (ABBA), so the machine's drift (on a shared 2-core VM one commit's notebooks
# took 734 s, then 770 s an hour later) falls on both alike. Each tree is a clone with its own `make venv provision` done.
#
#   bash benchmarks/notebooks_side_by_side.sh ../before ../after     # about 25 minutes for the quick profile
#
# Prints "<notebook> <tree> ok in N s" per run; the executed notebooks go to each tree's build-il/.
set -u
if [ $# -ne 2 ] || [ ! -x "$1/.venv/bin/python" ] || [ ! -x "$2/.venv/bin/python" ]; then
  echo "usage: $0 TREE_A TREE_B (two clones of the lab, each with .venv made by 'make venv provision')" >&2
  exit 2
fi
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd)
i=0
for path in "$A"/notebooks/[0-9]*.ipynb; do
  nb=$(basename "$path" .ipynb)
  if [ $((i % 2)) -eq 0 ]; then order="$A $B"; else order="$B $A"; fi
  for tree in $order; do
    line=$(cd "$tree" && .venv/bin/python -m labkit.batch --profile quick --notebooks notebooks --out build-il "$nb" 2>/dev/null | grep -E "ok in|FAILED")
    echo "$nb $(basename "$tree") $line"
  done
  i=$((i + 1))
done
