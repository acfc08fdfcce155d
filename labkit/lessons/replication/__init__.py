"""Notebook 00's exercise: choosing a replication factor and consistency levels for stated guarantees."""
