"""Fixtures of the server tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client(cache_root):
    """A Flask test client of the app, after one request to ``/`` (which sets Dash up: callback map, page router)."""
    from dashboard.wsgi import app

    c = app.server.test_client()
    assert c.get("/").status_code == 200
    return c
