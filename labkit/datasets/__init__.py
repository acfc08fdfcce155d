"""Seeded generators of the lab's larger data sets (the patterns' small ones live next to each pattern).
Nothing is downloaded: the same seed and size give the same records on every machine."""
