"""A test double of a whole new engine, built from docs/adding-an-engine.md and nothing else: an in-process
key-value store partitioned over "nodes" (cluster.py), its connection view, and an Index Table binding
(memory.py, found as `<pattern package>.<engine>` once the test points the description's package here).
tests/unit/test_adding_an_engine.py runs Index Table through labkit.sweeps on it and checks that the double
defines only what the page documents."""
