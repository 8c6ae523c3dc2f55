"""Hardening under hostile load (issue 14): clean errors, 404s, the cost model, the response cache,
rerun slots across workers, honest cache faults and the start-up check of the cache backend.

The memory test (the largest data sets at 1 cm × 1 kg through the real callback endpoint of a gunicorn
worker, RSS measured) is ``test_memory_stays_within_the_budget`` (slow).
"""
from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dash import no_update
from support import ROOT
from support.dash_protocol import ROUTER_OUTPUT, callback_body

import census_loaders as cl
from dashboard.core.errors import InputError
from dashboard.core.regions import Scenario
from dashboard.server import limits


def _deps():
    from dashboard.wsgi import app

    return app._callback_list


def _dep(prefix: str) -> dict:
    return next(d for d in _deps() if d["output"].startswith(prefix))


# --------------------------------------------------------------------------- malformed requests


def test_deeply_nested_json_is_400_without_a_traceback(client, caplog):
    deep = "[" * 50_000 + "]" * 50_000
    nested_ok_json = json.dumps({"output": "explore-cdf.figure", "inputs": [{"v": json.loads("[" * 500 + "]" * 500)}],
                                 "outputs": {}})
    with caplog.at_level("DEBUG"):
        for body in (deep, '{"a":' * 20_000 + "1" + "}" * 20_000, nested_ok_json):
            r = client.post("/_dash-update-component", data=body, content_type="application/json")
            assert r.status_code == 400, r.status_code
            assert r.get_json() == {"error": "malformed callback request"}
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
    assert "nested too deeply" in caplog.text


def test_a_renderer_request_still_works_after_the_body_checks(client):
    dep = _dep("..explore-aux.options")
    body = callback_body(dep, {("explore-countries", "value"): ["DE"], ("explore-aux", "value"): []},
                         ["explore-countries.value"])
    r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 200 and "response" in r.get_json()


# --------------------------------------------------------------------------- 404


def test_unknown_pages_answer_404_with_the_shell(client):
    for path in ("/no-such-page", "/explore/extra", "/about/x/y"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert 'id="react-entry-point"' in r.get_data(as_text=True)  # the shell: the friendly layout follows
    for path in ("/", "/explore", "/scaling", "/anonland", "/about", "/explore/"):
        assert client.get(path).status_code == 200, path
    assert client.get("/_dash-layout").status_code == 200
    assert client.get("/healthz").status_code in (200, 503)


def test_the_router_shows_the_not_found_layout(client):
    router = next(d for d in _deps() if d["output"] == ROUTER_OUTPUT)
    body = callback_body(router, {("_pages_location", "pathname"): "/no-such-page", ("_pages_location", "search"): ""},
                         ["_pages_location.pathname"])
    r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 200 and "Page not found" in r.get_data(as_text=True)


# --------------------------------------------------------------------------- cost model


def test_scenario_limits_say_the_limit_and_the_command(cache_root):
    every = cl.countries()
    s = Scenario.from_query({"country": ",".join(every), "body": "1", "height_width": "1", "weight_width": "1"})
    with pytest.raises(limits.CostError) as err:
        limits.check_scenario(s)
    msg = str(err.value)
    assert f"at most {limits.MAX_DATASETS}" in msg and "anonset cdf --country" in msg
    assert isinstance(err.value, InputError)
    fine = Scenario.from_query({"country": ",".join(every[:10]), "body": "1", "height_width": "1",
                                "weight_width": "1"})
    with pytest.raises(limits.CostError) as err:
        limits.check_scenario(fine)
    msg = str(err.value)
    assert "million height × weight cells" in msg and "at 1 cm × 1 kg" in msg
    assert "--height-width 1 --weight-width 1" in msg
    wider = re.search(r"At (\d+) cm × (\d+) kg these data sets fit", msg)
    assert wider, msg
    limits.check_scenario(fine.replace(height_width=float(wider[1]), weight_width=float(wider[2])))  # as it says
    limits.check_scenario(fine.replace(height_width=5.0, weight_width=5.0))  # every data set fits at 5 × 5
    limits.check_scenario(Scenario.from_query({"country": ",".join(every[:12]), "body": "1"}))
    limits.check_scenario(fine.replace(countries=("DE", "FR", "IT")))  # a few data sets at 1 × 1 are allowed
    europe = ("AT", "BE", "BG", "CH", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "IT")
    limits.check_scenario(fine.replace(countries=europe, height_width=2.0, weight_width=2.0))
    limits.check_scenario(Scenario.from_query({"country": "DE", "body": "1", "height_width": "1",
                                               "weight_width": "1"}))  # Germany's 400 districts at 1 × 1
    us = Scenario.from_query({"country": "US", "body": "1", "height_width": "1", "weight_width": "1"})
    with pytest.raises(limits.CostError) as err:  # 3,144 counties at 1 × 1: 3.3 billion district cells
        limits.check_scenario(us)
    assert "billion" in str(err.value) and "anonset districts --country US" in str(err.value)
    limits.check_scenario(us.replace(height_width=5.0, weight_width=5.0))


def test_explorer_refuses_forged_and_typed_scenarios_beyond_the_limits(dash_page):
    P = dash_page("explorer")
    every = cl.countries()[:12]
    out = P.on_form(every, ["female", "male"], "18-75", ["body"], 1, 1, "17-30", [], "", "", 5, "person_mean")
    assert out[0] is no_update
    assert "height × weight cells" in str(out[1]) and "anonset cdf" in str(out[1])
    forged = {"country": ",".join(every), "body": "1", "height_width": "1", "weight_width": "1"}
    _figure, _readouts, note, *_rest = P.on_cdf(forged, "5", "drawn", None)
    assert "height × weight cells" in str(note)
    assert "height × weight cells" in str(P.on_notes(forged))  # the notes above the map say it too


def test_a_link_beyond_the_limits_is_repaired_with_a_notice(cache_root):
    from dashboard.views import explorer as V

    link = V.scenario_from_link({"country": ",".join(cl.countries()), "height_width": "1", "weight_width": "1"})
    assert len(link.scenario.countries) == 1 and link.scenario.height_width == Scenario().height_width
    assert any("at most" in n and "anonset cdf" in n for n in link.notices)


def test_anonland_size_limit_names_the_command(cache_root):
    from dashboard.views import anonland as A

    with pytest.raises(InputError) as err:
        A.build_rerun(0.01, 2, 5, 5, 100, 7, sizes=(3_000_000,))
    assert "anonset anonland --scale 1 --epsilon 2" in str(err.value) and "10,250,000" in str(err.value)


# --------------------------------------------------------------------------- response cache


def test_repeated_explorer_answers_come_from_the_response_cache_never_personal_ones(client):
    from dashboard.server import hooks

    dep = _dep("..explore-aux.options")
    body = callback_body(dep, {("explore-countries", "value"): ["FR"], ("explore-aux", "value"): []},
                         ["explore-countries.value"])
    hooks.RESPONSES.clear()
    first = client.post("/_dash-update-component", json=body)
    assert len(hooks.RESPONSES) == 1
    second = client.post("/_dash-update-component", json=body)
    assert second.get_data() == first.get_data() and second.status_code == 200
    assert second.headers["Cache-Control"] == "no-store" and "Content-Security-Policy" in second.headers
    personal = [d for d in _deps() if "me-" in d["output"]]  # (a hand-made request may name a clientside one too)
    answers = [d for d in personal if any(i["id"] not in hooks.PUBLIC_PERSONAL_INPUTS for i in d["inputs"] + d["state"])]
    assert len(answers) >= 5
    typed = {("me-height-cm", "value"): 181, ("me-age", "value"): 44, ("me-sex", "value"): "female",
             ("me-country", "value"): "DE"}
    for dep in answers:
        client.post("/_dash-update-component", json=callback_body(dep, typed, []))
    router = next(d for d in _deps() if d["output"] == ROUTER_OUTPUT)
    for search in ("?height=181", "?country=DE&district=11000", "?country=DE&x=1"):
        client.post("/_dash-update-component", json=callback_body(
            router, {("_pages_location", "pathname"): "/", ("_pages_location", "search"): search},
            ["_pages_location.pathname"]))
    assert len(hooks.RESPONSES) == 1  # nothing of the personal page's answers or a personal link was kept
    # the page's public parts are: its layout for a country's link, and a country's districts, presets and map
    client.post("/_dash-update-component", json=callback_body(
        router, {("_pages_location", "pathname"): "/", ("_pages_location", "search"): "?country=FR&lang=de"},
        ["_pages_location.pathname"]))
    on_country = _dep("..me-district-all.data")
    client.post("/_dash-update-component", json=callback_body(on_country, {("me-country", "value"): "FR"},
                                                              ["me-country.value"]))
    assert len(hooks.RESPONSES) == 3


def test_only_allow_listed_pages_are_cacheable():
    from dashboard.server import hooks

    assert hooks.CACHEABLE_PAGES == ("explore", "scaling", "buckets", "attack")
    assert not hooks.cacheable({"outputs": [{"id": "dataset-results", "property": "children"}]})  # uploads
    assert hooks.cacheable({"outputs": [{"id": "explore-map", "property": "figure"}]})
    assert not hooks.cacheable({"outputs": [{"id": "explore-map", "property": "figure"},
                                              {"id": "me-message", "property": "children"}]})
    assert not hooks.cacheable({"outputs": {"id": "_pages_content", "property": "children"}})
    assert not hooks.cacheable({"outputs": {"id": {"type": "explore-x"}, "property": "children"}})
    router = {"output": ROUTER_OUTPUT, "outputs": [{"id": "_pages_content", "property": "children"}]}
    path = lambda p: {**router, "inputs": [{"id": "_pages_location", "property": "pathname", "value": p},  # noqa: E731
                                           {"id": "_pages_location", "property": "search", "value": "?x=1"}]}
    assert hooks.cacheable(path("/explore")) and hooks.cacheable(path("/about")) and hooks.cacheable(path("/anonland"))
    assert not hooks.cacheable(path("/")) and not hooks.cacheable(path("/no-such-page"))
    shipped = {"output": "..anonland-box.figure...anonland-back.style..", "outputs": [],
               "inputs": [{"id": "anonland-view", "property": "data", "value": {"source": "full"}},
                          {"id": "anonland-census", "property": "value", "value": "plain"}]}
    assert hooks.cacheable(shipped)
    shipped["inputs"][0]["value"] = {"source": "job", "job": "A" * 24}  # a rerun's result: never
    assert not hooks.cacheable(shipped)


# --------------------------------------------------------------------------- rerun slots and cache faults


HOLD_SLOTS = """
import sys, time
from flask import Flask
from dashboard import settings
from dashboard.server import cache, jobs
cache.init_app(Flask("holder"), settings.load())
held = [jobs.acquire_slot() for _ in range(jobs.max_running())]
print(sum(h is not None for h in held), flush=True)
time.sleep(60)
"""


def test_the_rerun_limit_holds_across_worker_processes(tmp_path, monkeypatch):
    """Another process (a second gunicorn worker) holds every slot: this one is refused."""
    from dashboard import settings
    from dashboard.server import cache, jobs

    folder = tmp_path / "fc"
    env = {**os.environ, "ANONSET_FLASK_CACHE_DIR": str(folder)}
    env.pop("REDIS_URL", None)
    proc = subprocess.Popen([sys.executable, "-c", HOLD_SLOTS], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == str(jobs.max_running())
        monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(folder))
        monkeypatch.delenv("REDIS_URL", raising=False)
        monkeypatch.setattr(cache, "SETTINGS", settings.load())
        assert jobs.acquire_slot() is None
        with pytest.raises(InputError, match="already running on this server"):
            jobs.start_job(object())
    finally:
        proc.kill()
        proc.wait(10)
    slot = jobs.acquire_slot()  # the kernel released the dead process's locks
    assert slot is not None
    slot.release()


def test_an_unwritable_cache_says_so_in_one_line(tmp_path, monkeypatch, caplog):
    from dashboard import settings
    from dashboard.server import cache, jobs

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(blocker / "cache"))  # cannot be created: ENOTDIR
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setattr(cache, "SETTINGS", settings.load())
    with caplog.at_level("DEBUG"), pytest.raises(InputError) as err:
        jobs.start_job(object())
    assert "cache cannot be written" in str(err.value) and "no longer known" not in str(err.value)
    lines = [r for r in caplog.records if "anonland" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None and "Traceback" not in caplog.text


def test_cachelib_failed_writes_log_one_line_without_a_traceback(tmp_path):
    from cachelib import FileSystemCache

    from dashboard.server.cache import OneLineCacheFaults

    fs = FileSystemCache(str(tmp_path / "fc"))
    (tmp_path / "fc").rename(tmp_path / "gone")
    (tmp_path / "fc").write_text("a file where the folder was")
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    root = logging.getLogger()
    handler, filt = Keep(), OneLineCacheFaults()
    root.addHandler(handler)
    root.addFilter(filt)
    try:
        assert fs.set("k", 1) is False
    finally:
        root.removeHandler(handler)
        root.removeFilter(filt)
    assert records and all("\n" not in r and "Traceback" not in r for r in records)
    assert any("NotADirectoryError" in r or "FileNotFoundError" in r for r in records)


@pytest.mark.slow  # a fresh interpreter importing the app: the full suite runs it
def test_start_up_warns_when_redis_does_not_answer(cache_root):
    from support.browser import free_port

    code = ("from dashboard.wsgi import server; from dashboard.server import cache;"
            "print(cache.check_backend())")
    env = {**os.environ, "REDIS_URL": f"redis://:secret@127.0.0.1:{free_port()}/0", "ANONSET_WARM": "0"}
    # a start-up that hangs on the unreachable Redis fails here (TimeoutExpired) rather than blocking the suite
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    line = out.stdout.strip().splitlines()[-1]
    assert "does not answer" in line and "Redis at 127.0.0.1" in line and "secret" not in line


def test_gunicorn_runs_threaded_workers():
    from gunicorn.util import load_class
    from gunicorn.workers.gthread import ThreadWorker

    text = (ROOT / "dashboard" / "gunicorn_conf.py").read_text()
    worker = re.search(r'^worker_class = "([\w.]+)"', text, re.M).group(1)
    assert issubclass(load_class(worker), ThreadWorker) and "threads = _settings.threads" in text
    assert "check_backend()" in text


# --------------------------------------------------------------------------- memory under the worst scenarios


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _worker_pid(master: int) -> int:
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{master}$", text, re.M):
            return int(status.parent.name)
    raise AssertionError("no gunicorn worker")


@pytest.mark.slow
def test_memory_stays_within_the_budget(cache_root, tmp_path):
    """The probe's worst case: explorer curves for the data sets at 1 cm × 1 kg, a new age range each
    range, through the real callback endpoint of one gunicorn worker.  Requests within the cost limits
    are answered (the data sets in batches the limits allow); the worker's RSS stays under its baseline
    plus the memo budget plus a margin for one request's transient arrays and the allocator."""
    import requests
    from support.browser import free_port

    budget_mb = 60
    port = free_port()
    env = {**os.environ, "ANONSET_BIND": f"127.0.0.1:{port}", "ANONSET_WORKERS": "1", "ANONSET_THREADS": "2",
           "ANONSET_CACHE_BUDGET_MB": str(budget_mb), "ANONSET_RESPONSE_CACHE": "0",
           "ANONSET_FLASK_CACHE_DIR": str(tmp_path / "fc"), "ANONSET_ACCESS_LOG": "/dev/null"}
    env.pop("REDIS_URL", None)
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py", "dashboard.wsgi:server"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 300
        while True:
            try:
                if requests.get(f"{url}/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert proc.poll() is None and time.time() < deadline, (tmp_path / "gunicorn.log").read_text()[-2000:]
            time.sleep(0.3)
        s = requests.Session()
        deps = s.get(f"{url}/_dash-dependencies", timeout=30).json()
        cdf = next(d for d in deps if d["output"].startswith("..explore-cdf.figure"))
        worker = _worker_pid(proc.pid)
        # one default request first: the baseline is a worker that has served the page
        drawn = {("explore-map-drawn", "data"): "drawn"}  # the page's map has drawn: the curves are computed
        r = s.post(f"{url}/_dash-update-component", json=callback_body(
            cdf, {("explore-scenario", "data"): Scenario().to_query(), **drawn}, ["explore-scenario.data"]), timeout=60)
        assert r.status_code == 200
        baseline = _rss_kb(worker) / 1024
        # the largest district sets and a few small and national ones: enough to overflow a 60 MB memo
        # budget several times over in a minute or two (all 192 data sets took 370 s)
        every = cl.countries()
        codes = [c for c in ("BR", "IT-COM", "US", "AU-SA2", "MA", "DE", "FR", "MT", "NI", "KH") if c in every]
        refused = s.post(f"{url}/_dash-update-component", json=callback_body(cdf, {("explore-scenario", "data"): {
            "country": ",".join(every), "body": "1", "height_width": "1", "weight_width": "1"}, **drawn},
            ["explore-scenario.data"]), timeout=60)
        assert refused.status_code == 200 and "anonset cdf" in refused.text  # the probe's request: refused, cheaply
        peak, answered = baseline, 0
        for ages, round_codes in (("20-70", codes), ("21-69", codes[::3])):  # a new age range: all anew
            def ok(batch, ages=ages) -> bool:
                try:
                    limits.check_scenario(Scenario.from_query({"country": ",".join(batch), "body": "1",
                                                               "height_width": "1", "weight_width": "1", "ages": ages}))
                    return True
                except limits.CostError:
                    return False

            batches, batch = [], []
            for code in round_codes:  # greedy batches the limits allow (a data set refused even alone is left out)
                if ok([*batch, code]):
                    batch.append(code)
                    continue
                if batch:
                    batches.append(batch)
                batch = [code] if ok([code]) else []
            batches += [batch] if batch else []
            for batch in batches:
                q = Scenario.from_query({"country": ",".join(batch), "body": "1", "height_width": "1",
                                         "weight_width": "1", "ages": ages}).to_query()
                r = s.post(f"{url}/_dash-update-component", json=callback_body(
                    cdf, {("explore-scenario", "data"): q, **drawn}, ["explore-scenario.data"]), timeout=120)
                assert r.status_code == 200 and "explore-cdf" in r.text, r.text[:300]
                answered += 1
                peak = max(peak, _rss_kb(worker) / 1024)
        after = _rss_kb(worker) / 1024
        hwm = _rss_kb(worker, "VmHWM") / 1024
        print(f"\nworker RSS: baseline {baseline:.0f} MB, peak sampled {peak:.0f} MB, after {after:.0f} MB, "
              f"high-water mark {hwm:.0f} MB; budget {budget_mb} MB; {answered} requests answered")
        margin = 150  # one request's transient arrays (a data set's 1 cm × 1 kg joint grid) and allocator slack
        assert answered >= len(codes) // 3
        assert after < baseline + budget_mb + margin, (baseline, after)
        assert peak < baseline + budget_mb + margin, (baseline, peak)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
