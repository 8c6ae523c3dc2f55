"""The data-set view without a browser: uploads decoded in memory and never memoised, limits, links, rendering."""
from __future__ import annotations

import base64
import logging
import re

import pytest

from dashboard.core import microdata as ds
from dashboard.core.errors import InputError
from dashboard.views import dataset as V
from dashboard.views import scaling as S


def _upload(text: str, mime: str = "text/csv") -> str:
    return f"data:{mime};base64," + base64.b64encode(text.encode()).decode()


CSV = "age,sex,zip\n" + "\n".join(f"{20 + i % 50},{'FM'[i % 2]},{10100 + i % 37}" for i in range(600)) + "\n"


def test_upload_is_analysed_and_never_memoised(caplog):
    caplog.set_level(logging.DEBUG)
    V._NHANES_MEMO.clear()
    req = V.parse_request("upload", ["age", "sex", "zip"], ["10"], [{"type": V.BIN_TYPE, "column": "age"}],
                          "drop", None, "0.2", "1")
    table = V.table_for("upload", _upload(CSV), "mine.csv")
    out = V.render(V.analyse(req, table), req, "mine.csv")
    assert len(V._NHANES_MEMO._data) == 0  # results of an upload are not kept
    assert out["command"].startswith("anonset dataset mine.csv --columns age,sex,zip --bins age=10")
    V.results_section(out)
    assert "10117" not in caplog.text and "mine.csv" not in caplog.text  # nothing of the file is logged


def test_nhanes_results_are_memoised_by_settings(cache_root):
    V._NHANES_MEMO.clear()
    req = V.parse_request("nhanes", ["sex", "age", "race"], [], [], "drop", None, None, None)
    table = V.table_for("nhanes", None, None)
    a = V.analyse(req, table)
    assert V.analyse(req, table) is a and len(V._NHANES_MEMO._data) == 1


def test_upload_limit_fits_the_request_limit():
    for body in (16 * 2**20, 4 * 2**20, 512 * 1024):
        limit = V.upload_limit(body)
        assert limit * 4 / 3 + V.REQUEST_OVERHEAD <= body
    assert V.upload_limit(16 * 2**20) == 10_000_000


@pytest.mark.parametrize("contents, message", [
    (None, "upload a CSV file first"),
    ("garbage", "could not be read"),
    ("data:text/csv;base64,@@@", "could not be read"),
    (_upload(""), "is empty"),
    (_upload("one\n1\n"), "single column"),
])
def test_bad_uploads(contents, message):
    with pytest.raises(InputError, match=message):
        V.table_for("upload", contents, "x.csv")


def test_too_large_upload(monkeypatch):
    monkeypatch.setattr(V, "upload_limit", lambda max_body_bytes=None: 100)
    with pytest.raises(InputError, match="at most"):
        V.table_for("upload", _upload("a,b\n" + "1,2\n" * 100), "big.csv")


def test_parse_request_errors():
    with pytest.raises(InputError, match="at least one"):
        V.parse_request("nhanes", [], [], [], "drop", None, None, None)
    with pytest.raises(InputError, match="not a number"):
        V.parse_request("nhanes", ["age"], [], [], "drop", "many", None, None)
    with pytest.raises(InputError, match="positive"):
        V.parse_request("nhanes", ["age"], ["-1"], [{"type": V.BIN_TYPE, "column": "age"}], "drop", None, None, None)
    with pytest.raises(InputError, match="between 0 and 1"):
        V.parse_request("nhanes", ["age"], [], [], "drop", None, "1.5", None)
    r = V.parse_request("nhanes", ["age", "sex"], ["5", "3"], [{"type": V.BIN_TYPE, "column": "age"},
                                                               {"type": V.BIN_TYPE, "column": "height_cm"}],
                        "weird", "1,000,000", None, None)
    assert r.bins == (("age", 5.0),) and r.missing == "drop" and r.population == 1e6


def test_scaling_link_is_understood_by_the_scaling_page():
    assert ds.SCALING_H_BITS == S.H_LIMITS and ds.SCALING_GAMMA == S.GAMMA_LIMITS
    url = ds.scaling_url(16.8, 0.2757, 330e6)
    query = dict(part.split("=") for part in url.split("?", 1)[1].split("&"))
    link = S.settings_from_link(**query)
    assert not link.notices and link.view == "explore"
    assert link.h_bits == pytest.approx(16.8) and link.gamma == pytest.approx(0.2757) and link.cursor == 330e6
    assert ds.scaling_url(150.0, 0.3, 1e6) is None


def test_layout_builds(dash_page):
    page = dash_page("dataset")
    text = str(page.layout())
    assert "never written to disk, logged or cached" in text


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_adult_source_model_choice_and_plan(cache_root):
    req = V.parse_request("adult", ["age", "sex", "race", "marital_status"], [], [], "value", None, None, "1",
                          None, "5", "0.05")
    table = V.table_for("adult", None, None)
    assert V.default_columns(table)[:2] == ["age", "sex"] and V.default_missing(table) == "value"
    out = V.render(V.analyse(req, table), req)
    assert out["model_text"].startswith("Model shown: ") and "validates better" in out["model_text"]
    assert out["command"].startswith("anonset dataset adult --columns age,sex,race,marital_status --missing value")
    section = V.plan_section(V.coarsening(req, table), req)
    text = str(section)
    assert "Which columns to coarsen" in text and ("generalisation steps bring" in text or "generalisation step brings" in text)
    with pytest.raises(InputError, match="k must"):
        V.parse_request("adult", ["age"], [], [], "value", None, None, None, None, "1", None)
    with pytest.raises(InputError, match="model must be one of"):
        V.parse_request("adult", ["age"], [], [], "value", None, None, None, "neural", None, None)


def test_records_download_leaves_values_out_unless_asked(cache_root):
    import csv
    import io

    req = V.parse_request("nhanes", ["sex", "age", "race"], [], [], "drop", None, None, "1")
    table = V.table_for("nhanes", None, None)
    plain = V.records_download(req, table, False)
    rows = list(csv.DictReader(io.StringIO(plain["content"])))
    assert plain["filename"] == "anonset-nhanes-records.csv" and len(rows) == 8_366
    assert list(rows[0]) == ["record", "class_size", "p", "xi", "kappa", "tfrr_risk", "tfrr_risk_binomial"]
    analysis = V.analyse(req, table)
    assert float(rows[5]["xi"]) == pytest.approx(float(analysis.xi[5]), rel=1e-5)
    assert int(rows[5]["class_size"]) == int(analysis.class_size[5])
    with_values = list(csv.DictReader(io.StringIO(V.records_download(req, table, True)["content"])))
    assert set(with_values[0]) >= {"sex", "age", "race"} and with_values[0]["sex"] in ("female", "male")


def test_the_report_holds_aggregates_only_and_refuses_bad_input(dash_page, caplog):
    """The "Download report" button: the form as it is now, no record value in the file, nothing of it logged."""
    from dash import html

    page = dash_page("dataset")
    caplog.set_level(logging.DEBUG)
    states = ("upload", _upload(CSV), "mine.csv", ["age", "sex", "zip"], ["10"], [{"type": V.BIN_TYPE, "column": "age"}],
              "drop", None, "0.2", "1", None, None, "5", "0.05")
    sent, message = page.on_report(1, *states)
    assert message is None and sent["filename"] == "anonset-report-dataset-upload.html"
    body = sent["content"].split("</head>", 1)[1]
    assert "This report holds no record values" in body.split("What was asked")[0]
    assert "anonset dataset mine.csv --columns age,sex,zip --bins age=10" in body
    for zip_code in range(10100, 10137):  # every value of the file's most identifying column
        # as a number of its own: the digits inside a figure's float (0.10130278…) are not the value
        assert not re.search(rf"(?<![\d.]){zip_code}(?!\d)", body)
    assert "10117" not in caplog.text
    sent, message = page.on_report(1, "upload", _upload(CSV), "mine.csv", [], [], [], "drop", None, None, None, None,
                                   None, None, None)
    assert sent is page.no_update and isinstance(message, html.Div)
    assert "No report: Choose at least one quasi-identifier column" in str(message)
    # a shipped data set's report is not this callback's: the button's clientside callback fetches GET /_reports/dataset
    assert page.on_report(1, "nhanes", None, None, ["age", "sex"], [], [], "drop", None, None, None, None, None, None,
                          None) == (page.no_update, page.no_update)


def test_the_report_button_fetches_a_shipped_data_sets_report_by_get(dash_page):
    """Issue 29: the button's data- attributes and the clientside callback's states make the route's query; an upload
    is left to the page's own callback (data-local)."""
    from urllib.parse import urlencode

    from dashboard.wsgi import app

    dash_page("dataset")
    client = app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    clientside = [d for d in deps if any(i["id"] == V.ID["report"] for i in d["inputs"]) and d.get("clientside_function")]
    assert len(clientside) == 1 and clientside[0]["clientside_function"]["function_name"] == "downloadReport"
    assert len(clientside[0]["state"]) == len(V.REPORT_STATES)
    assert V.REPORT_PARAMS == "source,columns,bin.*,,missing,population,fraction,trials,model,classes_rule,k,target"
    # the query the browser builds from the form's defaults: the route's file for it
    query = urlencode([("source", "nhanes"), *(("columns", c) for c in V.DEFAULT_COLUMNS), ("missing", "drop"),
                       ("fraction", "0.1"), ("trials", "3"), ("model", "auto"), ("classes_rule", V.DEFAULT_CLASSES_RULE),
                       ("k", "5"), ("target", "0.05")])
    r = client.get(f"/_reports/dataset?{query}")
    assert r.status_code == 200 and "anonset dataset nhanes --columns" in r.get_data(as_text=True)
    assert r.headers["Content-Disposition"] == 'attachment; filename="anonset-report-dataset-nhanes.html"'


def test_tiny_probabilities_read_as_one_in_and_a_fit_on_few_records_is_flagged():
    """Issue 28: ten records all at ξ = 0.000 for a large population; γ fitted to a 3-record file without a word."""
    assert V.chance(0.4123) == "0.412" and V.chance(0) == "0" and V.chance(None) == "–"
    assert V.chance(1.7e-5) == "1 in 59,000" and V.chance(2e-9) == "1 in 500,000,000"
    assert V.chance(0.00099) == "1 in 1,000"
    few = "age,sex\n" + "\n".join(f"{20 + i % 7},{'FM'[i % 2]}" for i in range(90)) + "\n"
    req = V.parse_request("upload", ["age", "sex"], [], [], "drop", None, "0.6", "1")
    out = V.render(V.analyse(req, V.table_for("upload", _upload(few), "few.csv")), req, "few.csv")
    assert out["pyc"].get("available")  # the law is fitted on 90 records …
    assert any("Only 90 records" in w and "rough" in w for w in out["warnings"]), out["warnings"]  # … and flagged
    big = V.render(V.analyse(V.parse_request("upload", ["age", "sex", "zip"], [], [], "drop", None, "0.2", "1"),
                             V.table_for("upload", _upload(CSV), "mine.csv")), V.parse_request(
        "upload", ["age", "sex", "zip"], [], [], "drop", None, "0.2", "1"), "mine.csv")
    assert not any("Only" in w and "records" in w for w in big["warnings"])


def test_the_latent_class_rule_is_a_choice_on_the_page(dash_page):
    """A select of the rules for the number of latent classes, the validated one by default, each with its sentence;
    the choice reaches the analysis, the results' text and the CLI command; a forged value is a message."""
    page = dash_page("dataset")
    select = next(c for c in _walk(page.layout()) if getattr(c, "id", None) == V.ID["classes-rule"])
    assert select.value == ds.DEFAULT_CLASSES_RULE == "unique-shares"
    assert [o["value"] for o in select.options] == list(ds.CLASSES_RULES) == ["unique-shares", "bic", "heldout"]
    assert all(ds.CLASSES_RULE_TEXT[o["value"]] in o["title"] for o in select.options)
    states = ("upload", _upload(CSV), "mine.csv", ["age", "sex", "zip"], ["10"], [{"type": V.BIN_TYPE, "column": "age"}],
              "drop", None, "0.2", "1", "latent-class", "bic", "5", "0.05")
    results, message = page.on_analyse(1, *states)
    text = str(results)
    assert message is None and f"{ds.CLASSES_RULE_TEXT['bic']}." in text and "--classes-rule bic" in text
    req = V.parse_request(*states[:1], *states[3:10], "latent-class", classes_rule="bic")
    assert req.classes_rule == "bic" and req.key() != V.parse_request(*states[:1], *states[3:10], "latent-class").key()
    _, message = page.on_analyse(1, *states[:11], "aic", "5", "0.05")
    assert "the number of classes is chosen by unique-shares, bic, heldout" in str(message)


def _walk(component):
    yield component
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children] if children is not None else []:
        if hasattr(child, "to_plotly_json"):
            yield from _walk(child)


def _texts(component) -> list[str]:
    """Every visible string of a component tree: children, option labels, titles and placeholders."""
    out = []
    for c in _walk(component):
        if isinstance(getattr(c, "children", None), str):
            out.append(c.children)
        for prop in ("title", "placeholder"):
            if isinstance(getattr(c, prop, None), str):
                out.append(getattr(c, prop))
        for o in getattr(c, "options", None) or []:
            if isinstance(o, dict):
                out += [v for k, v in o.items() if k in ("label", "title") and isinstance(v, str)]
    return out


def test_the_data_set_page_in_german(dash_page):
    """Issue 31: the form, an analysis's results (cards, model choice, plan, tables, charts) and a bad setting's message
    in German, numbers the German way; the shipped data's note in German too; the CLI command stays English; an
    unknown language is English."""
    from dashboard.core import text

    page = dash_page("dataset")
    states = ("upload", _upload(CSV), "mine.csv", ["age", "sex", "zip"], ["10"],
              [{"type": V.BIN_TYPE, "column": "age"}], "drop", "1.000", "0,2", "1", "auto", "unique-shares")
    with text.language("de"):
        layout = page.layout()
        results, message = page.on_analyse(1, *states, "5", "0,05")
        _, bad = page.on_analyse(1, *states[:8], "abc", *states[9:], "5", "0,05")
        note = page._columns_of("nhanes", None, None)[3]
        words = set(text.translations("de")._catalog.values())
    form, shown = _texts(layout), _texts(html_div(results))
    assert "Wie identifizierbar ist ein Datensatz?" in form and "Analysieren" in form
    assert any("8.366 echte Einträge" in t for t in form) and any(t.startswith("Ihre Datei bleibt") for t in form)
    assert any(t.startswith("age — numerisch, ") for t in form) and "exakt" in form
    assert message is None and "Analysierte Einträge" in shown and "Welche Spalten vergröbern" in shown
    assert any(t.startswith("Gezeigtes Modell: ") for t in shown)
    assert any(re.search(r"\d,\d\u00a0%", t) for t in shown)  # a German percentage: "73,2 %"
    assert any("Verallgemeinerungsschritt" in t or "erreicht das Ziel bereits" in t for t in shown)
    curve = next(c for c in _walk(html_div(results)) if getattr(c, "id", None) == V._id("curve-graph"))
    assert curve.figure["layout"]["separators"] == ",." and curve.config["locale"] == "de"
    assert curve.figure["layout"]["title"]["text"] == "Populationseindeutigkeit Ξ(N)"
    own = {"age", "sex", "zip"}  # the upload's own column names, as its author wrote them
    english = [t for t in shown + form if t in text.translations("de")._catalog and t not in words | own]
    assert english == [], english
    assert "der Validierungsanteil muss eine Zahl sein" in str(bad)
    assert "anonset dataset mine.csv --columns age,sex,zip --bins age=10 --population 1000 --fraction 0.2" in str(results)
    said = "".join(str(c) for c in note)
    assert said.startswith("Mitgeliefert: NHANES-Stichprobe 2017–2018: National Health and Nutrition Examination Survey "
                           "2017–2018, untersuchte Personen (CDC / NCHS), 13 von 197 Spalten") and "lang" not in said
    with text.language("xx"):
        assert "How identifiable is a data set?" in _texts(page.layout())


def html_div(children):
    from dash import html

    return html.Div(children)


def test_the_shipped_data_sets_notes_in_every_language(dash_page):
    """Issue 31: the record-level data sets' notes are ours: said in the page's language with its digits (quoted in
    English, lang="en", only from a cache without their structure); English exactly the loaders' text."""
    from census_loaders import adult, cache, nhanes
    from dashboard.core import text

    page = dash_page("dataset")
    assert page._columns_of("adult", None, None)[3][1] == str(adult.SOURCE_NOTE)
    assert cache.microdata_info("nhanes")["note"] == str(nhanes.SOURCE_NOTE)
    for lang in ("de", "fr", "it", "es", "pt"):
        with text.language(lang):
            label, said = page._columns_of("adult", None, None)[3]
            grouped = text.local_number("32,561")
        assert isinstance(said, str) and said != str(adult.SOURCE_NOTE), lang  # a string: no lang-marked quotation
        assert grouped in said and "32,561" not in said and "records extracted" not in said, (lang, said)
        assert "US Census Bureau" in said and "Barry Becker" in said  # names stay
        assert "census income" not in label, label
    with text.language("pt"):
        assert page._columns_of("nhanes", None, None)[3][1].startswith(
            "National Health and Nutrition Examination Survey 2017–2018, pessoas examinadas")
