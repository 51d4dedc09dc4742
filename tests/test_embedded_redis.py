"""The suite's private redis-server: a port another process took is not mistaken for it."""

from __future__ import annotations

import redis

from service.embedded_redis import RedisServer


def test_a_port_taken_before_the_server_binds_it_means_another_port() -> None:
    with RedisServer() as first:
        second = RedisServer()
        second.port = first.port  # as if another suite took the free port in between
        with second:
            assert second.port != first.port
            assert second.process is not None
            info = redis.Redis.from_url(second.url).info("server")
            assert info["process_id"] == second.process.pid
        assert redis.Redis.from_url(first.url).ping()  # the other server is untouched
