"""The attack lab without a browser: parsing, caps, the memoised render, the figures and the callback."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest
from dash import html
from support.page_checks import component_text

from dashboard.core import attack as sa
from dashboard.core.errors import InputError
from dashboard.views import attack as V

pytestmark = pytest.mark.usefixtures("cache_root")

FORM = dict(known=3, stars=1, days=14, wrong=0, sizes="50, 150, 300", repeats=2, seed=4, phi=1.5)


def test_form_parses_into_a_config():
    cfg = V.parse_form(**FORM)
    assert cfg == sa.AttackConfig(known=3, noise_stars=1.0, noise_days=14, wrong_share=0.0, sizes=(50, 150, 300),
                                  repeats=2, seed=4, phi=1.5)
    assert V.parse_form(**{**FORM, "sizes": "300;50 150"}).sizes == (50, 150, 300)
    assert V.command(cfg) == ("anonset attack --known 3 --noise-days 14 --noise-stars 1 --sizes 50,150,300 "
                              "--repeats 2 --seed 4")


@pytest.mark.parametrize("change, message", [
    ({"known": 40}, "Known ratings m: 40 is outside the range 1–20"),
    ({"known": None}, "Known ratings m: please enter a number"),
    ({"known": 2.5}, "whole number"),
    ({"stars": 0.25}, "half a star"),
    ({"days": 1000}, "Date error (days): 1000 is outside"),
    ({"wrong": 1.2}, "Wrong items"),
    ({"sizes": "50, 100, 900"}, "Gallery size 900 is larger than the data set: it has 671 users"),
    ({"sizes": "50, 100"}, "at least three"),
    ({"sizes": "1,2,3,4,5,6,7,8,9"}, "at most 8 sizes on this page"),
    ({"sizes": "50, 50, 100"}, "only once"),
    ({"sizes": "50, x, 100"}, "'x' is not a number"),
    ({"repeats": 11}, "Repetitions: 11 is outside the range 1–10 on this page (the CLI takes up to 20)"),
    ({"phi": 0}, "Eccentricity threshold"),
])
def test_bad_form_values_are_messages(change, message):
    with pytest.raises(InputError) as err:
        V.parse_form(**{**FORM, **change})
    assert message in str(err.value)
    out, msg = V.run(*{**FORM, **change}.values())
    assert out is None and isinstance(msg, html.Div) and message in msg.children


def test_render_is_memoised_and_complete():
    cfg = V.parse_form(**FORM)
    first = V.render(cfg)
    assert V.render(V.parse_form(**FORM)) is first  # same settings, same answer object
    assert set(first) == set(V.RESULT_KEYS)
    for key in V.GRAPH_KEYS:
        go.Figure(first[key])  # a valid plotly figure
    n_fig = first["n-graph"]
    assert [t["name"] for t in n_fig["data"]] == ["identified", "no match", "wrong"]
    assert list(n_fig["data"][0]["x"]) == [50, 150, 300]
    m_fig = first["m-graph"]
    assert list(m_fig["data"][0]["x"]) == list(V.KNOWN_CURVE)
    assert m_fig["data"][0]["y"][0] < m_fig["data"][0]["y"][-1]
    text = component_text(first["cards"])
    assert "Identified at n = 300" in text and "Forecast at" in text
    # issue 28: each forecast carries its jackknife range beside the number; the hold-out error's sign is explained
    import re

    fc = first["cards"]
    for c in fc:
        t = component_text(c)
        if t.startswith("Forecast at") and "jackknife" in t:
            assert re.search(r"%\s*\(range [\d.]+ %?\s*–\s*[\d.]+ %\)", t), t
    hold = next(component_text(c) for c in fc if component_text(c).startswith("Hold-out error"))
    if "pp" in hold and "forecast minus measured" in hold:
        value = float(re.search(r"([+-][\d.]+) pp", hold).group(1))
        assert ("below" if value < 0 else "above") in hold
    assert "anonset attack --known 3" in component_text(first["command"])


def test_link_settings_and_notices():
    cfg, notices = V.settings_from_link(known="8", days="3", other="ignored")
    assert cfg.known == 8 and cfg.noise_days == 3 and notices == ()
    cfg, notices = V.settings_from_link(known="99")
    assert cfg == V.DEFAULT and "Known ratings m" in notices[0]
    assert V.settings_from_link() == (V.DEFAULT, ())


def test_callback_maps_outputs(dash_page):
    page = dash_page("attack")
    out = page.on_run(1, *FORM.values())
    assert len(out) == len(V.RESULT_KEYS) + 1 and out[-1] is None
    bad = page.on_run(1, *{**FORM, "known": 0}.values())
    assert all(o is not None for o in bad) and "Known ratings m" in bad[-1].children
    layout = page.layout(known="8", nonsense="1")
    text = component_text(layout)
    assert "GroupLens" in text and "Harper" in text


def test_the_attack_lab_in_portuguese(dash_page):
    """Issue 31: the form, the cards, the measured table, the hold-out text, the charts' titles, axes and names and
    the explanation in Portuguese, numbers its way; the data's attribution stays as published (lang="en"), the CLI
    commands stay English; the experiment is measured once for every language."""
    from support.languages import english_words

    from dashboard.core import text

    page = dash_page("attack")
    with text.language("pt"):
        layout = page.layout()
        out = page.on_run(1, *FORM.values())
        bad = page.on_run(1, *{**FORM, "known": 40}.values())
        words = set(english_words("pt"))
    results = dict(zip(V.RESULT_KEYS, out[:-1], strict=True))
    shown = component_text(layout) + " " + component_text([results[k] for k in results if "graph" not in k])
    assert "Laboratório de ataque: desanonimizar dados esparsos" in shown and "Executar o ataque" in shown
    assert "Identificados em n = 300" in shown and "Previsão com" in shown
    assert "Proporções medidas, agregadas sobre as repetições" in shown and "Reservado: n = 300" in shown
    assert "Como funcionam o ataque e as medições" in shown and "O ataque." in shown
    assert "Avaliações conhecidas m: 40 está fora do intervalo 1–20" in bad[-1].children
    n_graph = results["n-graph"]
    assert n_graph["layout"]["title"]["text"].startswith("Identificação segundo o tamanho da galeria")
    assert n_graph["layout"]["separators"] == ",." and n_graph["data"][0]["name"] == "identificados"
    assert n_graph["layout"]["xaxis"]["title"]["text"] == "tamanho da galeria n (usuários, escala log.)"
    import re

    assert re.search(r"\d,\d\d%", component_text(results["measured"])), component_text(results["measured"])
    attribution = next(c for c in layout.children if getattr(c, "id", None) == V.ID["attribution"])
    assert attribution.children[1].lang == "en" and "GroupLens" in attribution.children[1].children
    def texts(c):
        if isinstance(c, str):
            return [c.strip()]
        if isinstance(c, (list, tuple)):
            return [t for x in c for t in texts(x)]
        found = texts(getattr(c, "children", None) or [])
        for prop in ("label", "placeholder"):
            found += texts(getattr(c, prop, None) or [])
        return found + [t for o in (getattr(c, "options", None) or []) for t in texts(o.get("label") or [])]

    seen = texts(layout) + texts([results[k] for k in results if "graph" not in k])
    assert sorted({t for t in seen if t in words}) == []
    assert "anonset attack --known 3" in component_text(results["command"])
    with text.language("en"):  # the same measurement, written in English again
        english = page.on_run(1, *FORM.values())
    assert "Identified at n = 300" in component_text(english[0])
