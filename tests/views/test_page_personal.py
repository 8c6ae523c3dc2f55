"""The personal page without a browser: the privacy line in the callback map, the one server callback,
the public tables and their route, and no memo of answers in the core (issue 15)."""
from __future__ import annotations

import gzip
import json
import time

import pytest
from support import ROOT
from support.page_checks import checked_figure, component_text

import census_loaders as cl
from dashboard import forms, ids
from dashboard.core.errors import InputError
from dashboard.views import personal as V


@pytest.fixture(scope="module")
def personal(dash_page):
    return dash_page("personal")


@pytest.fixture(scope="module")
def app(personal):
    from dashboard.wsgi import app

    with app.server.test_client() as client:  # Dash merges the pages' callbacks on the first request
        assert client.get("/_dash-dependencies").status_code == 200
    return app


# --------------------------------------------------------------------------- the privacy line


def test_no_server_callback_takes_an_answer(app):
    """Over the whole app: no server-side callback has an answer of the personal page as input or state,
    and none reads the address bar's fragment (where a link keeps the answers)."""
    personal_ids = set(V.PERSONAL)
    assert {"me-district", "me-sex", "me-ages", "me-height-cm", "me-weight-kg", "me-aux", "me-users", "me-k"} <= personal_ids
    server = {k: v for k, v in app.callback_map.items() if v.get("callback") is not None}
    assert server, "the callback map lists no server callbacks: the test would prove nothing"
    for key, cb in server.items():
        deps = cb["inputs"] + cb["state"]
        carried = {d["id"] for d in deps if isinstance(d["id"], str)} & personal_ids
        assert not carried, f"server callback {key[:60]} receives {carried}"
        for d in deps:
            assert not (d["id"] == ids.URL and d["property"] in ("hash", "href")), f"{key[:60]} reads the fragment"
    # the personal page's own callbacks that handle answers exist, and are clientside
    clientside = [v for v in app.callback_map.values() if v.get("callback") is None]
    handled = {d["id"] for v in clientside for d in v["inputs"] + v["state"] if isinstance(d["id"], str)}
    assert personal_ids - {"me-map", "me-link-text"} <= handled
    me_server = [k for k in server if "me-" in k]
    assert len(me_server) == 1 and [d["id"] for d in server[me_server[0]]["inputs"]] == ["me-country"]


def test_core_keeps_no_memo_of_answers():
    from census_loaders.auxiliary import user_fraction
    from dashboard.core.country import load_country_model
    from dashboard.core.personal import Profile, profile_report

    model = load_country_model("DE")
    p = Profile.build("DE", "11000", "female", "40-45", 163.7, 5, 71.9, 5,
                      aux=("de_wearables", user_fraction("secret hobby", 12.5)))
    profile_report(model, p, users=1234)
    from dashboard.core.country._model import _MODEL_MEMO

    # the model's memos live in the byte-budgeted model memo, keyed (model, key)
    mine = {k[1]: v for k, v in list(_MODEL_MEMO._data.items()) if k[0] is model}
    dump = repr(mine)
    assert "secret hobby" not in dump and "Profile(" not in dump and "163.7" not in dump and "160.0, 165.0" not in dump
    from dashboard.core.personal import Profile as P

    for key, value in mine.items():
        assert not (isinstance(key, tuple) and key[:2] in (("lru", "resolved"), ("lru", "aux"))), key
        if isinstance(value, dict):
            assert not any(isinstance(k, P) for k in value), key


# --------------------------------------------------------------------------- the one server callback


def test_country_callback_gives_options_and_map(personal):
    from support.page_checks import component_text

    out = personal.on_country("AU")
    assert out[4] == {"display": "none"} and "map" in component_text(out[5])
    out = personal.on_country("US")
    assert out[4] == {} and any(o["value"] == "06037" for o in out[0])
    assert personal.on_country("XX")[0] == []


def test_body_statistics_panel_says_source_and_year(personal):
    """Issue 27: the panel is the twin of `anonset body --country CC` (same numbers, source, year)."""
    from dashboard.core.country import body_statistics

    kr = personal.on_country("KR")[6]
    b = body_statistics("KR")
    text = str(kr)
    assert f"Body statistics: {b['source']}, 2010" in text and "anonset body --country KR --json" in text
    g = b["groups"][0]
    assert f"{g['height_mean']:.1f} ± {g['height_sd']:.1f}" in text and f"{g['bmi_mean']:.1f} ± {g['bmi_sd']:.1f}" in text
    de = str(personal.on_country("DE")[6])
    assert "12211-9018" in de and "2017" in de and "BMI" not in de
    assert "Height and weight: NCD-RisC" in component_text(personal.on_country("KR")[5])


def test_a_national_only_country_starts_at_the_country(personal):
    """Nigeria (UN estimate): no district list to pick from, no map, one line saying why; never an empty list."""
    districts, ages, _aux, base, map_style, note, _body, district_style, line = personal.on_country("NG")
    assert [d["value"] for d in districts] == ["NG"] and ages[0]["value"].startswith("18")
    assert base is None and map_style == {"display": "none"} and district_style == {"display": "none"}
    assert line.startswith("No district statistics are published for Nigeria:") and "\n" not in line
    assert "UN model estimate for 2025" in line and "United Nations" in component_text(note)
    _, _, _, _, _, _, _, de_style, de_line = personal.on_country("DE")
    assert de_style == {} and de_line == ""
    page = str(personal.layout(country="ng"))  # codes in any case
    assert "No district statistics are published for Nigeria" in page and "Unknown country" not in page
    assert "closest: DE (Germany)" in str(personal.layout(country="Germny"))


def test_country_picker_is_grouped_by_continent_and_knows_local_names():
    from dashboard.core import country as catalog

    options = catalog.country_options(cl.manifest())
    heads = [o["label"] for o in options if o.get("disabled")]
    assert heads == ["— Africa —", "— Asia —", "— Europe —", "— North America —", "— South America —", "— Oceania —"]
    where = {o["value"]: i for i, o in enumerate(options)}
    europe, america = where[catalog.HEADING + "Europe"], where[catalog.HEADING + "North America"]
    assert europe < where["DE"] < america and where[catalog.HEADING + "Africa"] < where["NG"] < where[catalog.HEADING + "Asia"]
    by_code = {o["value"]: o for o in options}
    for code, typed in (("DE", "deutschland"), ("BR", "brasil"), ("ES", "espana"), ("ES", "España"),
                        ("CI", "cote d'ivoire"), ("CI", "cote d ivoire"), ("CI", "Côte"), ("CI", "ivoire"),
                        ("JP", "japan"), ("JP", "日本"), ("TR", "turkey"), ("TR", "Türkiye"), ("DZ", "algerie"),
                        ("DE", "europe"), ("DE", "de")):
        assert _dropdown_finds(typed, by_code[code]), (code, typed)
    assert not _dropdown_finds("brasil", by_code["DE"]) and not _dropdown_finds("deutschland europa", by_code["DE"])


def _dropdown_finds(typed: str, option: dict) -> bool:
    """As dcc.Dropdown (dash 4) searches: lower-cased words split at spaces, every typed word a substring of a
    word of the option's label or ``search`` (js-search's all-substrings index)."""
    words = f'{option["label"]} {option.get("search", "")}'.lower().split()
    return all(any(t in w for w in words) for t in typed.lower().split())


def test_country_options_index_no_word_twice_and_still_find_every_name():
    """Issue 26: the dropdown indexes every substring of every word at mount (~0.2 s for ~200 countries before);
    ``search`` keeps only the words its label and longer words do not already hold, and every word of the full
    search text is still found."""
    from dashboard.core import country as catalog
    from dashboard.core.country import _catalog

    manifest = cl.manifest()
    substrings = lambda text: sum(len(w) * (len(w) + 1) // 2 for w in text.lower().split())  # noqa: E731
    before = after = 0
    for o in catalog.country_options(manifest):
        if o.get("disabled"):
            continue
        full = _catalog.search_text(o["value"], manifest["datasets"][o["value"]])
        assert _dropdown_finds(full, o), o
        words = o["search"].split()
        assert len(words) == len(set(words)) and all(not (a != b and a in b) for a in words for b in words), o
        before += substrings(o["label"]) + substrings(full)
        after += substrings(o["label"]) + substrings(o["search"])
    assert after < 0.6 * before, (after, before)


def test_layout_accepts_unknown_queries(personal):
    text = str(personal.layout(country="XX", district="nope", foo="bar"))
    assert "Unknown country" in text
    assert "Unknown district" in str(personal.layout(country="DE", district="nope"))
    # a repeated key (?district=&district=, which Dash passes as a list): the last one counts, no error
    assert "Unknown district" in str(personal.layout(country="DE", district=["09162", "nope"]))
    assert "Unknown district" not in str(personal.layout(country="DE", district=["nope", "09162"]))
    assert "Unknown district" not in str(personal.layout(country="DE", district=["", ""]))


def test_district_options_carry_what_the_search_ranks_by():
    munich = [o for o in V.country_choices("DE").districts if o["value"] == "09162"][0]
    assert "Muenchen" in munich["search"] and "München" in munich["label"] and munich["name"].startswith("München")
    assert munich["pop"] > 1e6
    assert V.dropdown_option(munich).keys() == {"label", "value", "search"}
    ages = {o["value"]: o["search"] for o in V.country_choices("DE").ages}
    assert "34" in ages["30–35"].split() and "34" not in ages["35–40"].split()  # typing one's age finds the group


def test_places_route(app):
    """English and local names come from the GeoNames index, fetched per data set (issue 28)."""
    client = app.server.test_client()
    r = client.get("/_places/DE.json", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip" and r.headers["ETag"]
    body = json.loads(gzip.decompress(r.data))
    assert body["word"] == "Kreis" and len(body["places"]) > 10_000
    munich = [p for p in body["places"] if p[0] == "Munich"][0]
    assert munich[2] == "09162" and munich[4] is True and "Munchen" in munich[1].split("|")
    assert client.get("/_places/DE.json", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    assert client.get("/_places/XX.json").status_code == 404


def test_map_is_a_plain_dict_without_a_chosen_district():
    import numpy as np

    fig = V.map_figure("DE")
    assert type(fig) is dict
    checked_figure(fig)
    main = fig["data"][0]
    assert main["geojson"] == "/geo/DE.geojson" and isinstance(main["z"], np.ndarray)
    assert all(t.get("name") != "selected district" or not t.get("locations") for t in fig["data"])


# --------------------------------------------------------------------------- the public tables


def test_tables_route(app):
    client = app.server.test_client()
    r = client.get("/_tables/DE.json?model=paper&hw=5&ww=5", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
    assert "immutable" in r.headers["Cache-Control"] and "public" in r.headers["Cache-Control"]
    table = json.loads(gzip.decompress(r.data))
    assert table["code"] == "DE" and table["hw"] == 5 and len(table["districts"]["ids"]) == 400
    tag = r.headers["ETag"]
    assert client.get("/_tables/DE.json?model=paper&hw=5&ww=5", headers={"If-None-Match": tag}).status_code == 304
    assert client.get("/_tables/DE.json?model=paper&hw=10&ww=5").headers["ETag"] != tag
    plain = client.get("/_tables/DE.json?model=paper&hw=5&ww=5")
    assert "Content-Encoding" not in plain.headers and json.loads(plain.data) == table


def test_a_table_is_built_once_per_host(app, monkeypatch):
    """Another worker (an empty in-process memo) serves the bytes the first one put in the shared cache."""
    from dashboard.core.personal import _public_tables  # where the tables are made (patched there)
    from dashboard.server import tables

    client = app.server.test_client()
    url, gz = "/_tables/DE.json?model=paper&hw=10&ww=10", {"Accept-Encoding": "gzip"}
    first = client.get(url, headers=gz)
    tables._gzipped.cache_clear()

    def no_build(*args, **kwargs):
        raise AssertionError("built again although the shared cache holds it")

    monkeypatch.setattr(_public_tables, "public_tables", no_build)
    again = client.get(url, headers=gz)
    assert again.status_code == 200 and again.data == first.data and again.headers["ETag"] == first.headers["ETag"]


def test_warming_fills_the_shared_cache_once(app, monkeypatch):
    """The first worker puts each data set's default table in the shared cache; a visitor of another
    worker is then served without a build; a warm while another runs returns at once, and a warm
    after it (a restarted server on the same cache) builds nothing."""
    from dashboard.core import personal as pt
    from dashboard.core.personal import _public_tables  # where the tables are made (patched there)
    from dashboard.server import tables
    from dashboard.server.cache import cache

    monkeypatch.setattr(_public_tables, "code_hash", lambda: "warm-test-" + str(id(app)))  # a fresh tables version
    with app.server.app_context():
        lock = f"tables-warm:{tables.tables_version()}"
        assert cache.add(lock, 1, timeout=60)  # another worker is warming
        during = tables.warm_shared(["DE", "FR"])
        cache.delete(lock)
        first = tables.warm_shared(["DE", "FR"])
        again = tables.warm_shared(["DE", "FR"])
    assert "skipped" in during
    assert first["built"] == 2 and first["present"] == 0
    assert again["built"] == 0 and again["present"] == 2
    tables._gzipped.cache_clear()

    def no_build(*args, **kwargs):
        raise AssertionError("built although warmed")

    monkeypatch.setattr(_public_tables, "public_tables", no_build)
    r = app.server.test_client().get("/_tables/FR.json", headers={"Accept-Encoding": "gzip"})
    table = json.loads(gzip.decompress(r.data))
    assert r.status_code == 200 and table["code"] == "FR" and table["model"] == pt.default_model()


def test_a_cold_table_waits_for_a_table_slot_and_is_refused_when_the_server_is_busy(app, monkeypatch):
    """A table no worker has built costs up to a second of CPU: it takes one of the server's table slots
    (their own pool: never queued behind a bucket advice); a table already built is served while the
    slots are busy."""
    import uuid

    from dashboard.core.personal import _public_tables  # where the tables version is made (patched there)
    from dashboard.server import jobs, limits, tables

    version = f"cold-test-{uuid.uuid4()}"
    monkeypatch.setattr(_public_tables, "code_hash", lambda: version)  # a new tables version: nothing shared yet
    client, gz = app.server.test_client(), {"Accept-Encoding": "gzip"}
    monkeypatch.setattr(limits, "TABLE_WAIT_S", 0.2)
    with app.server.app_context():
        analyses = [jobs.acquire_slot("heavy", limits.heavy_at_once()) for _ in range(limits.heavy_at_once())]
    assert None not in analyses
    try:  # every analysis slot taken (a long bucket advice): a cold table is still built, in its own pool
        warm = client.get("/_tables/LU.json?model=paper&hw=5&ww=5", headers=gz)
        assert warm.status_code == 200
    finally:
        for slot in analyses:
            slot.release()
    with app.server.app_context():
        held = [jobs.acquire_slot(limits.TABLE_POOL, limits.heavy_at_once()) for _ in range(limits.heavy_at_once())]
    assert None not in held
    try:
        tables._gzipped.cache_clear()
        started = time.monotonic()
        cold = client.get("/_tables/LU.json?model=paper&hw=2&ww=10&sr=1", headers=gz)
        assert time.monotonic() - started >= 0.2  # it waited for a slot before refusing
        assert cold.status_code == 503 and cold.headers["Retry-After"] == "5"
        assert cold.headers["Cache-Control"] == "no-store"
        assert "busy" in cold.get_json()["error"] and "anonset cas --country LU" in cold.get_json()["error"]
        again = client.get("/_tables/LU.json?model=paper&hw=5&ww=5", headers=gz)  # in the shared cache
        assert again.status_code == 200 and again.data == warm.data
    finally:
        for slot in held:
            slot.release()
    assert client.get("/_tables/LU.json?model=paper&hw=2&ww=10&sr=1", headers=gz).status_code == 200


def test_a_dead_shared_cache_still_serves_the_table(app, monkeypatch, caplog):
    from dashboard.server import tables

    def down(*args, **kwargs):
        raise ConnectionError("Redis refuses the connection")

    tables._gzipped.cache_clear()
    monkeypatch.setattr(tables.cache, "get", down)
    monkeypatch.setattr(tables.cache, "set", down)
    r = app.server.test_client().get("/_tables/DE.json?model=paper&hw=5&ww=10", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and json.loads(gzip.decompress(r.data))["code"] == "DE"
    assert "shared cache unavailable for a public table (ConnectionError)" in caplog.text


def test_a_table_url_and_etag_change_with_the_code(app, monkeypatch):
    """Tables are immutable for a year in browsers and a week in the shared cache: new code is a new URL."""
    from dashboard.core import personal as pt
    from dashboard.core.personal import _public_tables  # where the tables are made (patched there)
    from dashboard.server import tables
    from dashboard.views.personal import page_config

    before = (pt.etag("DE", "v2", 5, 5), tables.table_url("DE", "v2", 5, 5), page_config()["v"])
    assert len(pt.code_hash()) == 16 and before[2] == pt.tables_version()
    monkeypatch.setattr(_public_tables, "code_hash", lambda: "0" * 16)
    after = (pt.etag("DE", "v2", 5, 5), tables.table_url("DE", "v2", 5, 5), page_config()["v"])
    assert all(a != b for a, b in zip(before, after))


@pytest.mark.parametrize("query, message", [
    ("XX.json", "unknown data set"),
    ("DE.json?hw=3", "hw 3 is not one of the band widths"),
    ("DE.json?ww=abc", "ww 'abc' is not a number"),
    ("DE.json?model=nope", "unknown body model"),
    ("DE.json?model=v2&sr=yes", "sr 'yes' must be 1"),
])
def test_tables_route_rejects_bad_parameters(app, query, message):
    r = app.server.test_client().get("/_tables/" + query)
    assert r.status_code == 400 and message in r.get_json()["error"]


def test_us_table_is_small():
    """Issue 15's budget for the US (default widths; both models).  v2 at 1 cm × 1 kg is larger: its
    joint CDF slices hold every whole-unit edge (about 3.8 MB gzip, fetched only when chosen)."""
    from dashboard.core.personal import tables_json

    assert len(gzip.compress(tables_json("US", "v2", 5, 5))) < 1.5e6
    assert len(gzip.compress(tables_json("US", "paper", 5, 5))) < 1.5e6
    assert len(gzip.compress(tables_json("US", "paper", 1, 1))) < 1.5e6


def test_self_report_correction_is_a_table_setting(app):
    """sr=1 selects the v2 table with self-reported statistics corrected; it is no-op (one table) for the
    paper model and for measured statistics (the US), and the ETag tells the variants apart."""
    from dashboard.core.personal import check_params, public_tables

    codes = ("DE", "US")
    assert check_params("DE", "v2", 5, 5, codes, "1")[-1] is True
    assert check_params("DE", "paper", 5, 5, codes, "1")[-1] is False
    assert check_params("US", "v2", 5, 5, codes, "1")[-1] is False
    plain, corrected = public_tables("DE", "v2", 5, 5), public_tables("DE", "v2", 5, 5, self_report_correction=True)
    assert corrected["self_report_correction"] and not plain["self_report_correction"]
    assert corrected["body"]["self_report_note"] and not plain["body"]["self_report_note"]
    assert corrected["body"]["joint_cdf"]["groups"][0]["F"] != plain["body"]["joint_cdf"]["groups"][0]["F"]
    client = app.server.test_client()
    tags = {client.get(f"/_tables/DE.json?model=v2&sr={sr}").headers["ETag"] for sr in (0, 1)}
    assert len(tags) == 2


def test_table_holds_every_band_a_page_can_ask_for():
    from dashboard.core.personal import band_intervals

    bands = band_intervals("height", 2)
    keys = {(lo, hi) for lo, hi in bands}
    assert (170.0, 172.0) in keys and (170.0, 175.0) in keys  # the 2-cm band and the 5-cm what-if band
    assert (170.0, 180.0) in keys  # 174–176 widened to 5 is 170–180 (widths 2 and 5 do not nest)
    assert min(lo for lo, _ in bands) == 40 and max(lo for lo, _ in bands) < 250  # 50–52 widened to 20 is 40–60


def test_forms_module():
    # the page converts feet, inches and pounds in the browser (forms.height_cm / weight_kg were dead code)
    js = (ROOT / "assets" / "personal_page.js").read_text(encoding="utf-8")
    assert f"CM_PER_INCH = {forms.CM_PER_INCH}, KG_PER_LB = {forms.KG_PER_LB}" in js
    assert (6 * 12 + 0) * forms.CM_PER_INCH == pytest.approx(182.88)
    assert 100 * forms.KG_PER_LB == pytest.approx(45.359237)
    assert forms.number("", "x") is None
    with pytest.raises(InputError, match="please enter a number"):
        forms.number(" ", "x", required=True)
    with pytest.raises(InputError, match="below 0"):
        forms.number(-1, "x", lo=0)


def test_data_note_unfolds_the_data_sets_own_notes(cache_root):
    """Issue 26: Japan's unknown ages and Brazil's census year are said where the data set is chosen."""
    from support.page_checks import component_text

    japan = component_text(V.data_note("JP", V.country_choices("JP")))
    assert "About Japan — census 2020" in japan and "2,931,838 people" in japan and "in proportion" in japan
    brazil = component_text(V.data_note("BR", V.country_choices("BR")))
    assert "Brazil — census 2010" in brazil and "Old data: the census of 2010" in brazil
    kenya = component_text(V.data_note("KE-SUB", V.country_choices("KE-SUB")))
    assert "the county data set KE has a map" in kenya  # no map: the boundary note stays in the first line


def test_data_note_speaks_the_pages_language(cache_root):
    """Issue 31: the data set's own notes in German — no "in English" label, no English quotation, German digits."""
    from dashboard.core.text import language

    with language("de"):
        italy = V.data_note("IT", V.country_choices("IT"))
        kenya = component_text(V.data_note("KE-SUB", V.country_choices("KE-SUB")))
    said = component_text(italy)
    assert "Über Italy" in said or "Über Italien" in said
    assert "(3 Hinweise)" in said and "in English" not in said and "auf Englisch" not in said
    assert "Bevölkerung am 1. Januar 2022: 59.030.133 in 107 NUTS-3-Regionen" in said
    assert "8 Codes, die keine NUTS-2021-Regionen sind, wurden weggelassen (keine Daten für 2022): ITG25" in said
    assert "Population on 1 January" not in said and "lang" not in str(italy)
    assert "Die Grenzen der 345 Sub-Countys Kenias sind nicht in einer für AnonSet nutzbaren Form veröffentlicht" in kenya


def test_districts_are_found_without_accents_and_with_umlauts_spelled_out():
    """Issue 28: people type "Munchen", "Muenchen", "Koln" or "Cantu" on phones and foreign keyboards."""
    import census_loaders as cl
    from dashboard.core.country import place_rows, rank_districts
    from dashboard.views.personal import country_choices

    def top(code, typed):
        options, _ = rank_districts(typed, country_choices(code).districts, place_rows(code),
                                    cl.dataset_info(code)["district_label"])
        return options[0]["value"]

    for typed in ("München", "munchen", "Muenchen", "MUNICH"):
        assert top("DE", typed) == "09162", typed  # Kreisfreie Stadt München
    for typed in ("koln", "Koeln", "Cologne"):
        assert top("DE", typed) == "05315", typed
    assert top("IT-COM", "cantu") == "013041"


def test_a_data_set_published_per_sex_names_both_files():
    """Issue 28: the US note named the female file for a man; every source table is named once."""
    note = V.country_choices("US").note
    assert "tables " in note and "female" in note and ", male" in note
    from dashboard.core import personal as pt

    assert "male" in pt.public_tables("US", "v2", 5, 5)["source"]["table_id"].split(";")[-1]
    assert "; " not in V.country_choices("DE").note.split("Height")[0]  # one table: named once


def test_warming_covers_every_data_set_census_ones_first(cache_root):
    """National UN estimates are warmed too (after the census data sets), so no visit builds one through the
    deployment's single heavy slot."""
    import census_loaders as cl
    from dashboard.server import tables

    order = tables.warm_order()
    assert sorted(order) == sorted(cl.countries()) and len(order) == len(set(order))
    national = [i for i, c in enumerate(order) if cl.dataset_info(c).get("national_model")]
    assert len(national) > 100 and national == list(range(len(order) - len(national), len(order)))
    assert "NG" in order and order.index("DE") < order.index("NG")


def _outside_details(node, found: list) -> list:
    """Strings of a component tree that are not inside an html.Details (the details layer)."""
    from dash import html

    if isinstance(node, str):
        found.append(node)
    elif isinstance(node, (list, tuple)):
        for child in node:
            _outside_details(child, found)
    elif not isinstance(node, html.Details) and hasattr(node, "children"):
        _outside_details(node.children, found)
    return found


def test_lay_pages_say_it_in_words_and_keep_spec_sections_in_details(personal):
    """Issue 28: "SPEC §1.6" (a document a visitor cannot open) moved into the details layer on lay pages."""
    from dashboard.components import model_help
    from dashboard.views import explorer as X
    from dashboard.views import explorer_layout

    plain, details = model_help()
    assert "SPEC" not in plain and "SPEC §1.6" in component_text(details)
    from dashboard.core.regions import Scenario

    for page in (personal.layout(country="DE"), explorer_layout.form_section(Scenario(), X.form_values(Scenario()))):
        shown = " ".join(_outside_details(page, []))
        assert "SPEC §" not in shown and "nats" not in shown, shown[:200]


def test_body_panel_and_age_choices_speak_the_pages_language(cache_root):
    """Issue 31: the body statistics' notes and source (ours) and a trimmed age group's label in German — no
    English quotation left (no lang="en"), the English page as before."""
    from dashboard.core.text import language

    with language("de"):
        panel = V.body_panel("FR")
        choices = V.country_choices("FR")
    said = component_text(panel)
    assert "lang" not in str(panel)
    assert "Körperstatistik: NCD-RisC: mittlere Größe je Geburtsjahrgang" in said
    assert "Zensusalter unter 18 verwenden die Gruppe 18–20" in said and "85+: die Jahrgänge" in said
    assert "Census ages" not in said and "the oldest" not in said and "NCD-RisC estimates" not in said
    assert "Größe und Gewicht: NCD-RisC: mittlere Größe je Geburtsjahrgang" in choices.note
    trimmed = [o for o in choices.ages if "(" in o["label"] and "five" not in o["value"]]
    assert trimmed and all("(von " in o["label"] and "(of " in o["value"] for o in trimmed)
    english = component_text(V.body_panel("FR"))
    assert "Census ages below 18 use the 18–20 group (the nearest body group), flagged as such." in english
    assert "Body statistics: NCD-RisC: mean height by birth cohort (eLife 2016)" in english


def test_the_auxiliary_presets_speak_the_pages_language(cache_root):
    """Issue 31: the presets' names and notes are ours (census_loaders.auxiliary): the form's choice and its title in
    German, and the page's JavaScript receives their translations (its warnings say them); English as before."""
    from census_loaders.auxiliary import FLO_NOTE, PRESET_TEXTS, WEARABLES_NAME
    from dashboard.core.text import client_text, language

    assert V.country_choices("DE").aux[0]["label"] == WEARABLES_NAME
    with language("de"):
        aux = V.country_choices("DE").aux[0]
        shipped = client_text(list(PRESET_TEXTS))["messages"]
    assert aux["label"] == "Trägt eine Smartwatch oder ein Fitnessarmband (Deutschland, 2020)"
    assert aux["title"].startswith("Anteil der Bevölkerung") and "(etwa 90 %)" in aux["title"]
    assert shipped[FLO_NOTE].startswith("OBERGRENZE: etwa 50 Millionen") and "0,2958" in shipped[FLO_NOTE]
