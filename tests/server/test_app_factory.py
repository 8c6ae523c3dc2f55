"""The app factory (issue 25): nothing is built at import, two apps live side by side in one process,
and one guard turns a failing callback into the page's message — never a traceback."""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dash import html, no_update

from dashboard.components import error_box
from dashboard.core.errors import InputError
from dashboard.guard import guarded

ROOT = Path(__file__).resolve().parents[2]

NO_SIDE_EFFECTS = """
import gc, json, os, sys
import dash, flask
from dashboard import settings
from dashboard.core import memo
reads = []
load = settings.load
settings.load = lambda: (reads.append(1), load())[1]
budget = memo.budget()["limit"]
import dashboard.app, dashboard.server, dashboard.guard  # noqa: F401
from dashboard.server import cache
print(json.dumps({
    "flask_apps": sum(isinstance(o, flask.Flask) for o in gc.get_objects()),
    "dash_apps": sum(isinstance(o, dash.Dash) for o in gc.get_objects()),
    "pages": len(dash.page_registry),
    "page_modules": sorted(m for m in sys.modules if m.startswith("pages.")),
    "global_callbacks": len(dash._callback.GLOBAL_CALLBACK_LIST),
    "settings_reads": len(reads),
    "cache_attached": cache.SETTINGS is not None,
    "cache_dir": os.path.exists(os.environ["ANONSET_FLASK_CACHE_DIR"]),
    "budget_unchanged": memo.budget()["limit"] == budget,
    "wsgi_loaded": "dashboard.wsgi" in sys.modules,
}))
"""


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_importing_the_app_and_the_server_builds_nothing(tmp_path):
    """No Dash or Flask app, page, callback, settings read, cache or cache folder at import."""
    env = {**os.environ, "ANONSET_FLASK_CACHE_DIR": str(tmp_path / "fc")}
    out = subprocess.run([sys.executable, "-c", NO_SIDE_EFFECTS], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "flask_apps": 0, "dash_apps": 0, "pages": 0, "page_modules": [], "global_callbacks": 0,
        "settings_reads": 0, "cache_attached": False, "cache_dir": False, "budget_unchanged": True,
        "wsgi_loaded": False,
    }


@pytest.fixture
def restore_process_state(monkeypatch):
    """The factory sets what Dash and Flask-Caching keep per process (the latest app wins): put it back after."""
    from dashboard.core import memo
    from dashboard.server import cache

    monkeypatch.setattr(cache, "SETTINGS", cache.SETTINGS)
    monkeypatch.setattr(cache.cache, "app", getattr(cache.cache, "app", None), raising=False)
    budget = memo.budget()["limit"]
    yield
    memo.set_budget(budget)


def test_two_apps_built_in_one_process_are_independent(cache_root, tmp_path, restore_process_state):
    """Each app has its own Flask server, settings, hooks, cache folder and callbacks; both serve every page."""
    from support.dash_protocol import callback_body

    from dashboard import settings
    from dashboard.app import create_app

    base = settings.load()
    small = dataclasses.replace(base, cache_type="FileSystemCache", cache_dir=str(tmp_path / "a"),
                                max_body_bytes=1024 * 1024)
    large = dataclasses.replace(base, cache_type="FileSystemCache", cache_dir=str(tmp_path / "b"))
    a, b = create_app(small), create_app(large)
    assert a.server is not b.server and a.callback_map is not b.callback_map
    clients = {"a": a.server.test_client(), "b": b.server.test_client()}
    for name, client in clients.items():
        assert client.get("/").status_code == 200, name
        assert client.get("/explore").status_code == 200, name
        assert client.get("/no-such-page").status_code == 404, name
        assert client.get("/healthz").get_json()["status"] == "ok", name
        assert "frame-ancestors 'none'" in client.get("/about").headers["Content-Security-Policy"], name
    deps = {name: client.get("/_dash-dependencies").get_json() for name, client in clients.items()}
    assert deps["a"] == deps["b"] and len(deps["a"]) > 40
    assert set(a.callback_map) == set(b.callback_map)
    # each app's cache is its own folder (a request resolves the shared proxy to its own app's backend)
    assert any((tmp_path / "a").iterdir()) and any((tmp_path / "b").iterdir())
    # each app's settings: a 2 MB body is too large for the first app only
    big = b"x" * (2 * 1024 * 1024)
    assert clients["a"].post("/_dash-update-component", data=big, content_type="application/json").status_code == 413
    assert clients["b"].post("/_dash-update-component", data=big, content_type="application/json").status_code == 400
    # both answer a page callback
    dep = next(d for d in deps["a"] if d["output"].startswith("..explore-aux.options"))
    body = callback_body(dep, {("explore-countries", "value"): ["FR"], ("explore-aux", "value"): []},
                         ["explore-countries.value"])
    answers = [client.post("/_dash-update-component", json=body) for client in clients.values()]
    assert [r.status_code for r in answers] == [200, 200] and answers[0].get_data() == answers[1].get_data()


def test_link_previews_never_carry_the_host_header(cache_root, tmp_path, restore_process_state, monkeypatch):
    """A forged Host header is never printed into the page: the address comes from ANONSET_PUBLIC_URL or is left out."""
    from dashboard import settings
    from dashboard.app import create_app

    base = dataclasses.replace(settings.load(), cache_type="FileSystemCache", cache_dir=str(tmp_path / "c"))
    plain = create_app(base).server.test_client()
    page = plain.get("/explore", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page and "twitter:url" not in page
    assert 'property="twitter:title"' in page  # the other preview tags stay
    public = create_app(dataclasses.replace(base, public_url="https://anonset.example.org")).server.test_client()
    page = public.get("/explore?country=DE", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page
    assert '<meta property="twitter:url" content="https://anonset.example.org/explore">' in page
    monkeypatch.setenv("ANONSET_PUBLIC_URL", "https://anonset.example.org/")
    assert settings.load().public_url == "https://anonset.example.org"
    for bad in ("javascript:alert(1)", "https://a.example/\"><script>", "ftp://x", "https://x?q=1"):
        monkeypatch.setenv("ANONSET_PUBLIC_URL", bad)
        with pytest.raises(ValueError, match="ANONSET_PUBLIC_URL must be an http"):
            settings.load()


# --------------------------------------------------------------------------- the guard


SORRY = "Sorry — this could not be computed. Please check the values."


def _guarded_callback(fail_with: Exception | None, **options):
    @guarded(lambda message: (no_update, error_box(message)), log=logging.getLogger("anonset.test"),
             where="test page on_thing", sorry=SORRY, **options)
    def on_thing(value):
        """A callback's docstring."""
        if fail_with is not None:
            raise fail_with
        return value, None

    return on_thing


def test_the_guard_shows_the_apology_and_logs_only_the_class(caplog):
    on_thing = _guarded_callback(RuntimeError("secret 181.37 cm"))
    with caplog.at_level(logging.DEBUG):
        out = on_thing(1)
    assert out[0] is no_update and isinstance(out[1], html.Div)
    assert out[1].className == "error" and out[1].children == SORRY
    assert "test page on_thing: RuntimeError" in caplog.text
    assert "secret" not in caplog.text and "Traceback" not in caplog.text
    assert all(r.exc_info is None for r in caplog.records)
    assert on_thing.__name__ == "on_thing" and on_thing.__doc__ == "A callback's docstring."


def test_the_guard_shows_an_input_errors_message_unless_told_otherwise(caplog):
    with caplog.at_level(logging.DEBUG):
        shown = _guarded_callback(InputError("Ages: give the study population, e.g. 18-75"))(1)
        hidden = _guarded_callback(InputError("secret"), input_errors=False)(1)
    assert shown[1].children == "Ages: give the study population, e.g. 18-75" and shown[1].className == "error"
    assert hidden[1].children == SORRY
    assert "secret" not in caplog.text and caplog.text.count("InputError") == 1
    assert _guarded_callback(None)(5) == (5, None)


def test_the_guard_lets_prevent_update_through():
    from dash.exceptions import PreventUpdate

    with pytest.raises(PreventUpdate):
        _guarded_callback(PreventUpdate())(1)


def test_a_guarded_callback_answers_the_same_message_through_the_server(dash_page, monkeypatch, caplog):
    """An unexpected exception inside a real page callback: HTTP 200 with the page's apology, no traceback."""
    from support.dash_protocol import callback_body

    from dashboard.wsgi import app

    scaling = dash_page("scaling")

    def boom(*_a, **_k):
        raise RuntimeError("secret 0.123")

    monkeypatch.setattr(scaling, "render_law", boom)
    client = app.server.test_client()
    client.get("/")
    dep = next(d for d in app._callback_list if d["output"].startswith("..scaling-law-graph.figure"))
    body = callback_body(dep, {("scaling-h-input", "value"): 20, ("scaling-gamma-input", "value"): 0.5,
                               ("scaling-k", "value"): 1, ("scaling-cursor-input", "value"): 6},
                         ["scaling-h-input.value"])
    with caplog.at_level(logging.DEBUG):
        r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 200
    box = r.get_json()["response"]["scaling-law-message"]["children"]
    assert box["props"] == {"children": SORRY, "className": "error"} and box["type"] == "Div"
    text = r.get_data(as_text=True)
    assert "secret" not in text and "Traceback" not in text
    assert "RuntimeError" in caplog.text and "secret" not in caplog.text and "Traceback" not in caplog.text
