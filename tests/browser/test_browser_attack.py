"""The attack lab in headless Chromium: the default experiment, the attribution, a run, a bad value, offline."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def _wait_text(pg, selector: str, pattern: str, timeout: int = 90_000) -> str:
    pg.wait_for_function(
        "([sel, pat]) => { const el = document.querySelector(sel); return el && new RegExp(pat).test(el.innerText); }",
        arg=[selector, pattern], timeout=timeout,
    )
    return pg.inner_text(selector)


def test_attack_lab_runs_and_stays_offline(app_url, page):
    from dashboard.core import attack as sa
    from dashboard.views import attack as V

    pg = page.page
    pg.goto(f"{app_url.url}/attack")
    first = _wait_text(pg, "#attack-kappa-largest", "%")
    want = sa.run_experiment(sa.movielens(), V.DEFAULT).measured[-1].kappa
    assert float(re.search(r"([\d.]+) %", first).group(1)) == pytest.approx(100 * want, abs=0.05)
    attribution = pg.inner_text("#attack-attribution")
    assert "GroupLens" in attribution and "Harper" in attribution and pg.is_visible("#attack-attribution")
    for graph in ("n-graph", "m-graph", "entropy-graph", "forecast-graph"):
        pg.wait_for_selector(f"#attack-{graph} .main-svg")
    assert "Held out n = 671" in pg.inner_text("#attack-holdout")
    # a different experiment from the form
    pg.fill("#attack-known", "4")
    pg.fill("#attack-sizes", "100, 200, 400")
    pg.fill("#attack-repeats", "2")
    pg.click("#attack-run")
    _wait_text(pg, "#attack-cards", "Identified at n = 400")
    assert "--known 4" in pg.inner_text("#attack-command")
    # a bad value: a message beside the button, the results stay
    pg.fill("#attack-known", "40")
    pg.click("#attack-run")
    assert "Known ratings m: 40 is outside the range 1–20" in _wait_text(pg, "#attack-message", "outside")
    assert "Identified at n = 400" in pg.inner_text("#attack-cards")
    pg.fill("#attack-known", "4")
    pg.fill("#attack-sizes", "100, 200, 2000")
    pg.click("#attack-run")
    assert "larger than the data set" in _wait_text(pg, "#attack-message", "larger")
    pg.wait_for_load_state("networkidle")
    page.screenshot("attack")
    assert page.console_errors == []
    assert page.foreign_requests() == []
