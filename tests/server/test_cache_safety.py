"""Nothing the server reads back from its cache can run code, and its cache folder is private (issue 29).

* A pickle planted where a job's state, a job's result or a public table is kept — a file in the
  cache folder, a key in Redis — is read back as a miss ("no longer known"), logged once without
  its content, and runs nothing (the planted pickle would create a marker folder; the control
  shows that cachelib's stock backend does run it).
* The cache folder is created 0700 under a per-user location and refused, in one line, when another
  user owns it or others may write to it.

The Redis tests start their own ``redis-server`` on a free loopback port (as tests/server/test_deploy.py).
"""
from __future__ import annotations

import logging
import os
import pickle
import socket
import stat
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from flask import Flask
from support.browser import free_port  # one helper for a free loopback port

from dashboard import settings
from dashboard.server import cache, cache_folder, jobs, serialize, tables

ROOT = Path(__file__).resolve().parents[2]


class Planted:
    """A pickle that creates ``marker`` (a folder) when it is unpickled."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _planted(marker: Path) -> bytes:
    return pickle.dumps(Planted(marker))


@pytest.fixture
def fresh_warning(monkeypatch):
    """The once-per-process warning of serialize, reset for this test."""
    monkeypatch.setattr(serialize, "_warned", threading.Event())


def _attach(monkeypatch, **env) -> Flask:
    """The module's cache attached to a new Flask app with ``env``'s backend (SETTINGS restored after the test)."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(cache, "SETTINGS", cache.SETTINGS)
    # init_app makes this app the cache's default outside a request: put the served app back afterwards
    monkeypatch.setattr(cache.cache, "app", getattr(cache.cache, "app", None), raising=False)
    app = Flask("cache-safety")
    cache.init_app(app, settings.load())
    return app


# --------------------------------------------------------------------------- the format


def test_values_round_trip_without_pickle():
    df = pd.DataFrame({
        "citizen": np.arange(4, dtype="int32"),
        "district_class": pd.Categorical(["metropolis", "village", "metropolis", "town"]),
        "cas": [1.5, float("nan"), 3.0, 1e300],
        "divergence": np.array([0.1, -0.2, 0.3, 0.4], dtype="float32"),
        "flag": [True, False, True, True],
        "name": ["a", None, "c", "d"],
    })
    value = {"citizens": df, "summary": {"run": {"runtime_seconds": 1.25}, "height_mean": (170.0, 160.5),
                                         "rows": [{"range": "1–10", "n": 3}], "nothing": None}}
    blob = serialize.encode(value)
    assert blob.startswith(serialize.JSON) and b"pickle" not in blob and b"\x80\x04" not in blob[:8]
    back = serialize.decode(blob)
    pd.testing.assert_frame_equal(back["citizens"], df)
    assert back["summary"] == value["summary"] and isinstance(back["summary"]["height_mean"], tuple)
    assert serialize.decode(serialize.encode(b"\x1f\x8b gzipped")) == b"\x1f\x8b gzipped"
    for plain in (1, True, "x", [1, 2], {"state": "running", "fraction": 0.5}):
        assert serialize.decode(serialize.encode(plain)) == plain
    with pytest.raises(TypeError):
        serialize.encode({"x": object()})


@pytest.mark.parametrize("blob", [
    pickle.dumps({"state": "done"}),
    b"!" + pickle.dumps({"state": "done"}),
    serialize.JSON + b'{"state": "do',
    serialize.JSON + b"[" * 100_000,
    serialize.JSON + b'{"$frame": {"columns": ["a"], "dtypes": ["datetime64[ns]"], "categories": {}, "data": [[1]]}}',
    serialize.JSON + b'{"$frame": {"columns": ["a"], "dtypes": ["int64"], "categories": {}, "data": [["x"]]}}',
    serialize.JSON + b'{"$frame": {"columns": ["a", "b"], "dtypes": ["int64"], "categories": {}, "data": [[1]]}}',
    serialize.JSON + b'{"$bytes": "not base64!"}',
    b"",
])
def test_anything_else_is_refused(blob):
    with pytest.raises(serialize.BadValue):
        serialize.decode(blob)


# --------------------------------------------------------------------------- the planted pickle: folder backend


def test_a_pickle_planted_in_the_cache_folder_runs_nothing(tmp_path, monkeypatch, caplog, fresh_warning):
    from dashboard.views import anonland as V

    app = _attach(monkeypatch, ANONSET_FLASK_CACHE_DIR=str(tmp_path / "fc"))
    marker = tmp_path / "code-ran"
    job = "P" * 24
    with app.app_context():
        backend = cache.cache.cache
        assert type(backend).__name__ == "FileSystemCache" and type(backend).serializer is not None
        assert jobs._set_status(job, "running", 0.5, "drawing")  # a real job's state, where the poll looks
        assert jobs.job_status(job)["message"] == "drawing"
        for part in ("status", "result"):
            path = Path(backend._get_filename(jobs._key(job, part)))
            path.write_bytes(struct.pack("I", 0) + _planted(marker))  # no expiry, then the pickle
        with caplog.at_level(logging.DEBUG):
            assert jobs.job_status(job) is None
            assert jobs.job_result(job) is None
            poll = V.poll_job({"job": job})
            assert jobs.job_status(job) is None  # again: logged once only
        assert not marker.exists()
        assert "no longer known" in poll.message.children and poll.interval_disabled
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and "did not write" in r.getMessage()]
        assert len(warnings) == 1 and warnings[0].exc_info is None
        assert "Planted" not in caplog.text and "mkdir" not in caplog.text and str(marker) not in caplog.text

        # control: the same file read by cachelib's stock (pickling) backend runs the planted code
        from cachelib import FileSystemCache as Stock

        Stock(str(tmp_path / "fc"), threshold=0).get(jobs._key(job, "status"))
        assert marker.exists()


def test_a_planted_public_table_is_rebuilt_not_read(tmp_path, monkeypatch, fresh_warning):
    app = _attach(monkeypatch, ANONSET_FLASK_CACHE_DIR=str(tmp_path / "fc"))
    marker = tmp_path / "code-ran"
    with app.app_context():
        key = tables._shared_key('"some-etag"')
        tables._shared_set(key, b"gzipped bytes")
        assert tables._shared_get(key) == b"gzipped bytes"
        Path(cache.cache.cache._get_filename(key)).write_bytes(struct.pack("I", 0) + _planted(marker))
        assert tables._shared_get(key) is None
    assert not marker.exists()


def test_the_folder_backend_writes_no_pickle(tmp_path, monkeypatch):
    app = _attach(monkeypatch, ANONSET_FLASK_CACHE_DIR=str(tmp_path / "fc"))
    with app.app_context():
        assert jobs._set_status("Q" * 24, "done", 1.0, "Done.")
        cache.cache.set("n", 3)
        assert cache.cache.get("n") == 3
    for path in (tmp_path / "fc").iterdir():
        if path.suffix != ".lock":
            assert path.read_bytes()[4:8] in (serialize.JSON, serialize.BYTES), path.name


# --------------------------------------------------------------------------- the planted pickle: Redis


def test_a_pickle_planted_in_redis_runs_nothing(redis_url, tmp_path, monkeypatch, caplog, fresh_warning):
    import redis

    from dashboard.views import anonland as V

    app = _attach(monkeypatch, REDIS_URL=redis_url)
    client = redis.Redis.from_url(redis_url)
    marker = tmp_path / "code-ran"
    job = "R" * 24
    with app.app_context():
        assert type(cache.cache.cache).__name__ == "RedisCache"
        assert jobs._set_status(job, "running", 0.5, "drawing")
        stored = client.get("anonset:" + jobs._key(job, "status"))
        assert stored.startswith(serialize.JSON)  # where the poll looks, and no pickle in it
        for part in ("status", "result"):
            client.set("anonset:" + jobs._key(job, part), b"!" + _planted(marker))  # cachelib's pickle format
        with caplog.at_level(logging.DEBUG):
            assert jobs.job_status(job) is None
            assert jobs.job_result(job) is None
            poll = V.poll_job({"job": job})
        assert not marker.exists()
        assert "no longer known" in poll.message.children
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and "did not write" in r.getMessage()]
        assert len(warnings) == 1 and "Planted" not in caplog.text

        # slots (SET NX with a token) and integers (INCR) still work
        slot = jobs.acquire_slot("safety-test", 1)
        assert slot is not None and jobs.acquire_slot("safety-test", 1) is None
        slot.release()
        again = jobs.acquire_slot("safety-test", 1)
        assert again is not None
        again.release()
        cache.cache.set("counter", 5)
        assert cache.cache.cache.inc("counter") == 6 and cache.cache.get("counter") == 6

        # control: cachelib's stock (pickling) Redis backend runs the planted code
        from cachelib import RedisCache as Stock

        Stock(host=client, key_prefix="anonset:").get(jobs._key(job, "status"))
        assert marker.exists()


# --------------------------------------------------------------------------- the private folder


def test_the_default_folder_is_per_user_and_private(tmp_path, monkeypatch):
    monkeypatch.delenv("ANONSET_FLASK_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    path = Path(settings.load().cache_dir)
    assert path == tmp_path / f"anonset-{os.geteuid()}" / "flask-cache"
    cache_folder.prepare(path)
    for folder in (path, path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.geteuid()
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert settings.load().cache_dir == str(runtime / "anonset" / "flask-cache")


def test_a_configured_folder_is_created_private(tmp_path, monkeypatch):
    _attach(monkeypatch, ANONSET_FLASK_CACHE_DIR=str(tmp_path / "new" / "fc"))
    assert stat.S_IMODE((tmp_path / "new" / "fc").stat().st_mode) == 0o700


def test_a_folder_others_may_write_is_refused_in_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(cache_folder.UnsafeCacheFolder) as err:
        _attach(monkeypatch, ANONSET_FLASK_CACHE_DIR=str(folder))
    message = str(err.value)
    assert "\n" not in message and "written by other users" in message and "0777" in message
    folder.chmod(0o775)
    with pytest.raises(cache_folder.UnsafeCacheFolder):
        cache_folder.prepare(folder)
    folder.chmod(0o755)
    cache_folder.prepare(folder)  # the owner's alone to write: accepted


def test_a_folder_of_another_user_is_refused_in_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(folder, 65534, 65534)  # nobody
    else:  # cannot give a folder away: this process pretends to be someone else
        monkeypatch.setattr(cache_folder.os, "geteuid", lambda: os.getuid() + 1)
    with pytest.raises(cache_folder.UnsafeCacheFolder) as err:
        cache_folder.prepare(folder)
    assert "\n" not in str(err.value) and "belongs to another user" in str(err.value)


def _serve(env: dict, port: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dashboard", "serve", "--port", str(port)], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False)


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_anonset_serve_refuses_an_unsafe_folder_before_binding(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    port = free_port()
    out = _serve({"ANONSET_FLASK_CACHE_DIR": str(folder)}, port)
    assert out.returncode == 1, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "written by other users" in lines[0] and "Traceback" not in out.stderr
    assert "AnonSet on http" not in out.stdout and _port_is_free(port)


@pytest.mark.slow  # gunicorn loads the whole app before it refuses: seconds
def test_gunicorn_refuses_an_unsafe_folder_in_one_line(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    port = free_port()
    env = {**os.environ, "ANONSET_FLASK_CACHE_DIR": str(folder), "ANONSET_BIND": f"127.0.0.1:{port}",
           "ANONSET_WORKERS": "1", "ANONSET_WARM": "0"}
    env.pop("REDIS_URL", None)
    out = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py", "dashboard.wsgi:server"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "written by other users" in out.stderr
    assert f"Listening at: http://127.0.0.1:{port}" not in out.stderr


def test_polling_a_planted_job_over_http_runs_nothing(cache_root, tmp_path, fresh_warning):
    """The real app's poll callback (POST /_dash-update-component) for a job whose state is a planted pickle:
    a clean "no longer known" answer, status 200, and the planted code never ran."""
    from support.dash_protocol import callback_body

    from dashboard.wsgi import app

    client = app.server.test_client()
    assert client.get("/").status_code == 200
    with app.server.app_context():
        backend = cache.cache.cache
        if type(backend).__name__ != "FileSystemCache":
            pytest.skip("the app runs on Redis here (the Redis case is tested above)")
        marker = tmp_path / "code-ran"
        job = "H" * 24
        planted = [Path(backend._get_filename(jobs._key(job, part))) for part in ("status", "result")]
    dep = next(d for d in app._callback_list
               if any(i["property"] == "n_intervals" for i in d["inputs"]) and "anonland" in d["output"])
    interval = next(i["id"] for i in dep["inputs"] if i["property"] == "n_intervals")
    store = next(s["id"] for s in dep["state"] if s["property"] == "data")
    body = callback_body(dep, {(interval, "n_intervals"): 3, (store, "data"): {"job": job}}, [f"{interval}.n_intervals"])
    try:
        for path in planted:
            path.write_bytes(struct.pack("I", 0) + _planted(marker))
        r = client.post("/_dash-update-component", json=body)
    finally:
        for path in planted:
            path.unlink(missing_ok=True)
    assert r.status_code == 200 and not marker.exists()
    assert "no longer known" in r.get_data(as_text=True)
