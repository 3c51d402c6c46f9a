"""Benchmarks (`make bench`): speed and memory, always beside peers measured in the same run."""
