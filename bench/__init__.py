"""Fray's benchmarks: `python -m bench` (or `make bench`) measures and prints one table.

Benchmarks never run in the test suite and assert nothing about speed. Each suite starts
its own private redis-server (`service.embedded_redis.RedisServer`) on a free loopback
port and never touches any other server. See docs/benchmarks.md for the figures.
"""
