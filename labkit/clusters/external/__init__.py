"""Clusters the lab did not start (a course server, a managed service): labkit connects, labels, measures
and cleans up its own keyspaces, and never starts, resizes, budgets, stops or wipes the cluster itself."""
