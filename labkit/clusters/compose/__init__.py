"""The compose provider: real MongoDB, Cassandra and Couchbase clusters from the official images
(`topology` generates the compose files, `provider` runs them)."""
