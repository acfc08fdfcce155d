"""Thin adapters per engine: connect, reset, server version; they hand out the native driver objects."""
