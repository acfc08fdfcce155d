"""Standard workloads that are not patterns (YCSB's core mixes): the yardsticks every NoSQL course and
every study the lab draws on measures with, driven through the same runner, sweeps and panel."""
