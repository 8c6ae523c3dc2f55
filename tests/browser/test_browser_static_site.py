"""The static copy (``anonset export-static``, issue 30) served by ``python -m http.server``, in Chromium.

* 30 profiles over five data sets, opened as a person's link (``?country=…#answers``) and then changed in
  the page: the funnel's every count and the headline equal ``anonset cas --json``.
* Every request goes to the static server, is a GET of a file the export wrote (no Python route, no other
  host), and the gzipped bytes fetched before the first answer stay within the budget.
* A country chosen in the form opens its own page, keeping the answers that carry over; a table the copy
  does not hold, and a country it does not hold, get a line saying so.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import random
import re
import socket
import subprocess
import sys
import time
from urllib.parse import quote, urlparse

import pytest

from dashboard import cli
from dashboard.core.country import load_country_model
from dashboard.core.text import format_count
from dashboard.server import static_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Five data sets: counties (the largest page), districts, single-year ages, a national-only one, ZIP areas.
CODES = ["US", "DE", "GB", "NG", "US-ZCTA"]
PER_CODE = 6  # 30 profiles
#: Per data set: v2 first, then paper, then the self-report correction (a link's fragment that leaves ``sr``
#: out keeps the box as it is, so the corrected profiles come last).
MODELS = ("v2", "v2", "v2", "paper", "v2sr", "v2sr")


@pytest.fixture(scope="module")
def static_site_url(tmp_path_factory, cache_root):
    from support.browser import free_port, require_chromium

    require_chromium()
    from dashboard.wsgi import app

    target = tmp_path_factory.mktemp("static") / "site"
    result = static_site.export(app, target, CODES)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", "-d", str(target), "--bind", "127.0.0.1", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if time.time() > deadline:
                proc.kill()
                raise RuntimeError("http.server did not listen") from None
            time.sleep(0.1)
    try:
        yield type("Site", (), {"url": f"http://127.0.0.1:{port}", "target": target, "result": result})
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _profiles(code: str, rng: random.Random) -> list[dict]:
    model = load_country_model(code)
    groups = [g for g in model.age_groups if g.lo >= 18 and math.isfinite(g.hi) and g.hi <= 75]
    districts = [str(d) for d in model.district_ids]
    out, last_band = [], None
    for body in MODELS:
        weight = rng.uniform(48, 118)
        while last_band == math.floor(weight / 5):  # each answer shows a new weight band: the wait below sees it
            weight = rng.uniform(48, 118)
        last_band = math.floor(weight / 5)
        group = rng.choice(groups)
        out.append({"district": rng.choice(districts) if len(districts) > 1 else None, "sex": rng.choice(["female", "male"]),
                    "group": group, "height": round(rng.uniform(150, 196), 1), "weight": round(weight, 1), "body": body})
    return out


def _cli_report(code: str, p: dict) -> dict:
    argv = ["cas", "--country", code, "--sex", p["sex"], "--age", f"{p['group'].lo:g}-{p['group'].hi:g}",
            "--height", str(p["height"]), "--weight", str(p["weight"]), "--model", p["body"][:2] if p["body"] == "v2sr"
            else p["body"], "--json"]
    if p["district"]:
        argv += ["--district", p["district"]]
    if p["body"] == "v2sr":
        argv.append("--self-report-correction")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(argv) == 0
    return json.loads(out.getvalue())


def _fragment(p: dict) -> str:
    parts = {"sex": p["sex"], "ages": p["group"].label, "units": "metric", "hcm": f"{p['height']:g}",
             "wkg": f"{p['weight']:g}", "hw": 5, "ww": 5, "model": "v2" if p["body"] == "v2sr" else p["body"]}
    if p["district"]:
        parts["district"] = p["district"]
    if p["body"] == "v2sr":
        parts["sr"] = 1
    return "&".join(f"{k}={quote(str(v))}" for k, v in parts.items())


def _shown_count_matches(shown: str, value: float) -> bool:
    if value < 1:
        return "fewer than one" in shown
    return any(format_count(v) == shown for v in (value, value * (1 + 1e-9), value * (1 - 1e-9)))


def _weight_band(w: float) -> str:
    lo = math.floor(w / 5) * 5
    return f"{lo:g}–{lo + 5:g} kg"


def test_the_static_page_equals_anonset_cas_on_30_profiles(static_site_url, browser):
    site = static_site_url
    rng = random.Random(20261126)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    requests, errors = [], []
    pg.on("response", lambda r: requests.append((r.request.method, r.url, r.status)))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    first_answer = {}
    checked = 0
    try:
        for code in CODES:
            profiles = _profiles(code, rng)
            for i, p in enumerate(profiles):
                report = _cli_report(code, p)
                if i == 0:  # a person's link opens the country's page
                    requests.clear()
                    pg.goto(f"{site.url}/?country={quote(code)}#{_fragment(p)}")
                else:  # then the answers change in the page
                    pg.evaluate("(h) => { window.location.hash = h; }", _fragment(p))
                # the new answer is drawn: its weight band, and its district (a dropdown takes a value a moment
                # after the link gives it, once the value is among its options)
                _wait_for_answer(pg, p, code, i)
                if i == 0:
                    first_answer[code] = sorted({urlparse(u).path for m, u, s in requests if u.startswith(site.url)})
                lines = pg.locator("#me-funnel-text li").all_inner_texts()
                shown = [line for line in report["funnel"] if line["step"] != "district" or p["district"]]
                assert len(lines) == len(shown), (code, p, lines)
                for text, line in zip(lines, shown):
                    assert _shown_count_matches(text.rsplit(": ", 1)[1], line["count"]), (code, p, text, line)
                assert pg.inner_text("#me-headline") == report["headline"], (code, p)
                assert f"Body model: {p['body'][:2]}" in pg.inner_text("#me-warnings")
                checked += 1
    finally:
        ctx.close()
    assert checked == 5 * PER_CODE
    assert not errors, errors
    _every_request_is_a_static_file(site, requests)
    _first_answers_within_budget(site, first_answer)


def _wait_for_answer(pg, p: dict, code: str, i: int) -> None:
    """The new answer is drawn: its weight band, and its district.  When it is not, say what the page shows and
    what its address holds (a stale address write once put the previous answers back: CI, session 11)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    band = _weight_band(p["weight"])
    try:
        pg.wait_for_function(
            "([band, district]) => { const t = document.querySelector('#me-funnel-text')?.innerText || '';"
            " return t.includes(band) && (!district || t.includes('(' + district + ')')); }",
            arg=[band, p["district"]])
    except PlaywrightTimeout:
        seen = pg.evaluate("() => ({funnel: document.querySelector('#me-funnel-text')?.innerText || null,"
                           " message: document.querySelector('#me-message')?.innerText || null,"
                           " address: window.location.search + window.location.hash})")
        raise AssertionError(f"{code} profile {i} ({band}, district {p['district']}) never drawn; the page: {seen}; "
                             f"the link: #{_fragment(p)}") from None


def _every_request_is_a_static_file(site, requests) -> None:
    for method, url, status in requests:
        parsed = urlparse(url)
        if parsed.scheme in ("data", "blob"):
            continue
        assert url.startswith(site.url + "/"), f"a request to another host: {url}"
        assert method == "GET" and status in (200, 304), (method, url, status)
        path = parsed.path.lstrip("/") or "index.html"
        assert (site.target / path).is_file(), f"not a file of the export: {url}"
        assert not path.startswith(("_dash-update-component", "_dash-layout", "_dash-dependencies")) or \
            path.endswith(".json"), url


def _first_answers_within_budget(site, first_answer) -> None:
    """What each page fetched before its first answer is among the files the export counts for it, and the
    largest data set's gzipped total is within the budget (measured: ~2.7 MB for the US)."""
    result = site.result
    for code, paths in first_answer.items():
        fetched = {p.lstrip("/") or "index.html" for p in paths}
        counted = set(result.first_answer_files(code))
        assert fetched - counted <= {"_places/" + code + ".json"}, (code, fetched - counted)
        assert result.first_answer_gz(code) <= static_site.BUDGET_FIRST_ANSWER_GZ_MB * 1e6, code


def test_a_country_opens_its_own_page_and_what_the_copy_lacks_is_named(static_site_url, browser):
    from support.browser import choose_option

    site = static_site_url
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    try:
        pg.goto(f"{site.url}/?country=de#sex=female&hcm=170&wkg=70&hw=2&ww=5")
        pg.wait_for_function("() => (document.querySelector('#me-message')?.innerText || '').includes('static copy')")
        message = pg.inner_text("#me-message")
        assert "not for a 2 cm height band and 5 kg weight band" in message
        assert "anonset cas --country DE --height-width 2 --weight-width 5 --model v2" in message
        # another country in the form opens that country's page; the answers a country change keeps go along
        pg.evaluate("() => { window.location.hash = 'sex=female&hcm=170&wkg=70&hw=5&ww=5'; }")
        pg.wait_for_function("() => (document.querySelector('#me-funnel-text')?.innerText || '').includes('70–75 kg')")
        choose_option(pg, "me-country", "United States", "US")
        pg.wait_for_url(re.compile(r".*[?]country=US#.*sex=female.*"))
        pg.wait_for_function("() => (document.querySelector('#me-funnel-text')?.innerText || '').includes('70–75 kg')")
        assert "United States" in pg.inner_text("#me-funnel-text")
        pg.goto(f"{site.url}/?country=FR")
        pg.wait_for_function("() => (document.querySelector('#me-notice')?.innerText || '').includes('FR')")
        assert "is not in this static copy of AnonSet; showing Germany instead" in pg.inner_text("#me-notice")
        assert pg.locator("#me-country").inner_text().startswith("Germany")
    finally:
        ctx.close()
