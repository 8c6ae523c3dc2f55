"""Smaller items of issue 29: a cache folder that cannot be written is one line at start-up (no traceback,
no internal path), and the Content-Security-Policy lists each script hash once."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from flask import Flask
from support.browser import free_port  # one helper for a free loopback port

from dashboard import settings
from dashboard.server import cache

ROOT = Path(__file__).resolve().parents[2]


def _attach(monkeypatch, folder: Path) -> Flask:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(folder))
    monkeypatch.setattr(cache, "SETTINGS", cache.SETTINGS)
    # init_app makes this app the cache's default outside a request: put the served app back afterwards
    monkeypatch.setattr(cache.cache, "app", getattr(cache.cache, "app", None), raising=False)
    app = Flask("startup-faults")
    cache.init_app(app, settings.load())
    return app


def _one_line_records(caplog) -> list[logging.LogRecord]:
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    for r in records:
        text = r.getMessage()
        assert r.exc_info is None and "\n" not in text and "Traceback" not in text, text
    return records


def test_a_read_only_cache_folder_is_one_line_without_paths(tmp_path, monkeypatch, caplog):
    """Writes to the folder fail (EACCES, as on a read-only folder): the backend is created, start-up says so
    in one line, and no record carries a traceback or the cache file's path."""
    import cachelib.file

    folder = tmp_path / "fc"
    folder.mkdir(mode=0o700)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(folder / "tmpXYZ.__wz_cache"))

    monkeypatch.setattr(cachelib.file.tempfile, "mkstemp", refuse)
    with caplog.at_level(logging.WARNING):
        app = _attach(monkeypatch, folder)
        with app.app_context():
            problem = cache.check_backend()
    assert problem and "cannot be written" in problem and "\n" not in problem
    records = _one_line_records(caplog)
    assert records and any("PermissionError" in r.getMessage() for r in records)
    assert not any(str(folder) + "/" in r.getMessage() for r in records)  # no cache file's path


def test_a_cache_folder_that_cannot_be_created_does_not_stop_the_app(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with caplog.at_level(logging.WARNING):
        app = _attach(monkeypatch, blocker / "cache")  # ENOTDIR: cachelib's makedirs raised (a traceback) before
        with app.app_context():
            assert cache.cache.set("k", 1) is False and cache.cache.get("k") is None
            assert "cannot be written" in cache.check_backend()
    _one_line_records(caplog)


@pytest.mark.slow  # gunicorn loads the whole app: seconds
def test_gunicorn_starts_with_an_unwritable_cache_and_says_so_in_one_line(tmp_path, cache_root):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    port = free_port()
    env = {**os.environ, "ANONSET_FLASK_CACHE_DIR": str(blocker / "cache"), "ANONSET_BIND": f"127.0.0.1:{port}",
           "ANONSET_WORKERS": "1", "ANONSET_WARM": "0"}
    env.pop("REDIS_URL", None)
    log = tmp_path / "gunicorn.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py",
                                 "dashboard.wsgi:server"], cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 300
        while "Booting worker" not in log.read_text() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
        text = log.read_text()
        assert "Booting worker" in text, text[-3000:]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    assert "Traceback" not in text and 'File "' not in text
    assert "cannot be written" in text
    assert not re.search(r"cache file '", text)


# --------------------------------------------------------------------------- the CSP


def test_the_csp_lists_each_hash_once(monkeypatch):
    from dashboard.server import headers

    class FakeApp:
        def csp_hashes(self):
            return ["'sha256-A'", "'sha256-B'", "'sha256-A'"]

    monkeypatch.setattr(headers, "_csp_memo", {})
    policy = headers.content_security_policy(FakeApp())
    script_src = re.search(r"script-src ([^;]+)", policy).group(1).split()
    assert script_src == ["'self'", "'sha256-A'", "'sha256-B'"]


def test_no_page_repeats_a_csp_source(cache_root):
    from dashboard.wsgi import app

    client = app.server.test_client()
    for path in ("/", "/explore", "/about", "/anonland", "/me"):
        csp = client.get(path).headers["Content-Security-Policy"]
        for directive in csp.split(";"):
            values = directive.split()[1:]
            assert len(values) == len(set(values)), (path, directive)
