"""This machine as the lab sees it: its processes (found and stopped by PID), the loopback addresses each labkit
home claims, and whose they are. Below clusters, faults and the runner, which all use it; it imports only the
ground floor (errors, clusters.base)."""
