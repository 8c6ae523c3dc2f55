"""The visitor's language on the server (issue 31): per request, from ?lang=, the page's headers or
Accept-Language; English for an unknown language, a malformed header and any page not translated yet."""
from __future__ import annotations

import json

import pytest


@pytest.fixture
def fresh_responses():
    """An empty response cache before and after: answers kept under another list of translated pages (another test
    in this process) would be served for the same request (flaky in the fast lane once, order-dependent)."""
    from dashboard.server import hooks

    hooks.RESPONSES.clear()
    yield
    hooks.RESPONSES.clear()


@pytest.fixture
def translated_home(monkeypatch, fresh_responses):
    """The personal page as if translated (the list is the one switch: no page is offered translated yet)."""
    monkeypatch.setattr("dashboard.core.text._i18n.TRANSLATED_PATHS", ("/",))


@pytest.fixture
def anonland_untranslated(monkeypatch, fresh_responses):
    """Every page is translated today: AnonLand stands for a page added later whose words are not all in the
    catalogues yet (the list is the one switch)."""
    from dashboard.core.text import _i18n

    monkeypatch.setattr(_i18n, "TRANSLATED_PATHS", tuple(p for p in _i18n.TRANSLATED_PATHS if p != "/anonland"))


def _html_lang(resp) -> str:
    head = resp.get_data(as_text=True)
    return head[head.index("<html"):head.index(">", head.index("<html")) + 1]


def test_no_page_is_offered_half_translated(client, anonland_untranslated):
    """Until a page is translated completely it is English, whatever is asked."""
    r = client.get("/anonland?lang=de", headers={"Accept-Language": "fr"})
    assert 'lang="en" data-asked="de"' in _html_lang(r)
    assert 'lang="de" data-asked="de"' in _html_lang(client.get("/explore?lang=de"))


def test_lang_wins_then_accept_language_then_english(client, translated_home):
    assert 'lang="de"' in _html_lang(client.get("/?lang=de", headers={"Accept-Language": "fr"}))
    assert 'lang="fr"' in _html_lang(client.get("/", headers={"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"}))
    assert 'lang="pt"' in _html_lang(client.get("/", headers={"Accept-Language": "pt-BR"}))
    assert 'lang="en"' in _html_lang(client.get("/?lang=xx", headers={"Accept-Language": "ja"}))
    for bad in ("de;q=abc,,;;", "\x00\xff", "*", "q=1;de", "a" * 500):
        r = client.get("/", headers={"Accept-Language": bad})
        assert r.status_code == 200 and 'lang="' in _html_lang(r)
    assert 'lang="en"' in _html_lang(client.get("/dataset?lang=de"))  # not translated: English, shell included


def _layout(client, lang=None, asked=None):
    headers = {}
    if lang:
        headers["X-AnonSet-Lang"] = lang
    if asked:
        headers["X-AnonSet-Asked"] = asked
    return json.dumps(client.get("/_dash-layout", headers=headers).get_json(), ensure_ascii=False)


def test_the_shell_speaks_the_pages_language_and_links_carry_it(client):
    de = _layout(client, "de", "de")
    assert "Zum Inhalt springen" in de and "Regionen erkunden" in de and "Skip to content" not in de
    assert "/explore?lang=de" in de and "/about?lang=de" in de
    en = _layout(client)
    assert "Skip to content" in en and "Zum Inhalt springen" not in en
    assert "?lang=" not in en.replace('"?lang=', "")  # an English visitor's links are as before (the switch aside)
    # an English page asked for in German (not translated yet): English words, links still carry German
    mixed = _layout(client, "en", "de")
    assert "Skip to content" in mixed and "/explore?lang=de" in mixed
    # an unknown language in the header is English, completely
    assert "Skip to content" in _layout(client, "xx", "xx")


def test_the_switch_offers_every_language_in_its_own_name(client):
    de = _layout(client, "de", "de")
    for name in ("English", "Deutsch", "Français", "Italiano", "Español", "Português"):
        assert name in de


def test_every_page_name_is_in_the_catalogues():
    """The navigation translates each registered page's name: each is marked (dashboard.app.PAGE_NAMES)."""
    import dash

    from dashboard.app import PAGE_NAMES

    assert {p["name"] for p in dash.page_registry.values() if p.get("nav", True)} <= set(PAGE_NAMES)


def test_a_callback_answers_in_its_pages_language_and_the_response_cache_keeps_them_apart(client, anonland_untranslated):
    """The personal page's one server callback (a new country) in German, French and English: the language comes
    with the request's header (never from another tab's request), and the router's kept answers are per language."""
    from support.dash_protocol import ROUTER_OUTPUT, callback_body

    deps = client.get("/_dash-dependencies").get_json()
    dep = next(d for d in deps if d["output"].startswith("..me-district-all.data"))
    body = callback_body(dep, {("me-country", "value"): "FR"}, changed=["me-country.value"])

    def note(lang):
        r = client.post("/_dash-update-component", json=body, headers={"X-AnonSet-Lang": lang} if lang else {})
        return json.dumps(r.get_json()["response"]["me-data-note"], ensure_ascii=False)

    assert "Bevölkerung:" in note("de") and "Population :" in note("fr") and "Population:" in note(None)
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    # a page not translated (yet): English in every language
    page = callback_body(router, {("_pages_location", "pathname"): "/anonland", ("_pages_location", "search"): ""},
                         changed=["_pages_location.pathname"])
    de = client.post("/_dash-update-component", json=page, headers={"X-AnonSet-Lang": "de"}).get_data()
    en = client.post("/_dash-update-component", json=page).get_data()
    assert de == en  # English in every language, and both answers are kept
    # the explorer is translated: its layout speaks the header's language, its numbers the language's format
    page = callback_body(router, {("_pages_location", "pathname"): "/explore", ("_pages_location", "search"): ""},
                         changed=["_pages_location.pathname"])
    de = json.dumps(client.post("/_dash-update-component", json=page, headers={"X-AnonSet-Lang": "de"}).get_json(),
                    ensure_ascii=False)
    en = json.dumps(client.post("/_dash-update-component", json=page).get_json(), ensure_ascii=False)
    assert "Ländertabellen" in de and "Country tables" not in de and "Country tables" in en


def test_every_page_is_offered_in_six_languages(client):
    """Issue 31: every registered page is translated (a page added later is English until it is, and then fails
    here until its words are in the catalogues and its path in ``TRANSLATED_PATHS``)."""
    import dash

    from dashboard.core import text

    paths = {p["path"] for p in dash.page_registry.values() if not p.get("path_template")}
    assert paths - set(text.TRANSLATED_PATHS) == set()
    for path in paths:
        assert 'lang="pt" data-asked="pt"' in _html_lang(client.get(path + "?lang=pt")), path
