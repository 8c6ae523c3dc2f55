"""Fixtures of the server tests."""
from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from support.browser import free_port  # one helper for a free loopback port


@pytest.fixture(scope="module")
def client(cache_root):
    """A Flask test client of the app, after one request to ``/`` (which sets Dash up: callback map, page router)."""
    from dashboard.wsgi import app

    c = app.server.test_client()
    assert c.get("/").status_code == 200
    return c


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A real redis-server on a free loopback port for the module (skips when redis-server is missing)."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    redis = pytest.importorskip("redis")
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(folder), "--protected-mode", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.time() + 20
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.skip("redis-server did not start")
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
