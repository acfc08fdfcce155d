"""The `local` provider: real server processes on loopback addresses, no Docker."""
