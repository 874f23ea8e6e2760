"""Server memory under a 300 MB request body (issue 13): RSS of a uvicorn process before and
after a 300 MB JSON body to the anonymous estimate, declared (Content-Length) and streamed
(chunked). Run: `.venv/bin/python benchmarks/body_limit_memory.py`. Reports, asserts nothing."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZE = 300_000_000
CHUNK = b" " * 1_000_000


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def send(port: int, *, chunked: bool) -> tuple[int, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    try:
        if chunked:
            conn.putrequest("POST", "/api/v1/estimate")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            for _ in range(SIZE // len(CHUNK)):
                conn.send(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
            conn.send(b"0\r\n\r\n")
        else:
            conn.putrequest("POST", "/api/v1/estimate")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(SIZE))
            conn.endheaders()
            for _ in range(SIZE // len(CHUNK)):
                conn.send(CHUNK)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered 413 and closed: the rest of the body is refused
    try:
        status = conn.getresponse().status
    except (ConnectionResetError, http.client.RemoteDisconnected):
        status = 413
    return status, time.perf_counter() - start


def main() -> None:
    tmp = tempfile.mkdtemp()
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp}/b.db", "STRATAGEM_SECRET_KEY": "b"}
    prepare = "from app.bootstrap import prepare_database as p; from app.settings import Settings as S; p(S(), echo=print)"
    subprocess.run([sys.executable, "-c", prepare], env=env, check=True, capture_output=True)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        base = rss_mb(server.pid)
        print(f"server RSS at rest: {base:.0f} MB")
        for chunked in (False, True):
            status, took = send(port, chunked=chunked)
            kind = "streamed (chunked)" if chunked else "declared (Content-Length)"
            print(
                f"300 MB {kind}: HTTP {status} in {took:.2f} s, server RSS {rss_mb(server.pid):.0f} MB"
            )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
