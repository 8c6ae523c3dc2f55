"""The AnonLand page without a browser: figure builders on the shipped result, callbacks called directly."""
from __future__ import annotations

import math
import os
import sys
import threading
import time

import numpy as np
import plotly.graph_objects as go
import pytest
from dash import dcc, html, no_update
from support.page_checks import checked_figure, component_text

from dashboard.core import anonland as core
from dashboard.core.anonland import (
    BOX_RAS_LIMIT,
    DEFAULT_CLASSES,
    box_frame,
    load_result,
    own_set_divergence,
    run_anonland,
)
from dashboard.core.ras_ranges import RAS_RANGES, ras_range_label
from dashboard.figures import anonland as figs
from dashboard.server import jobs, limits
from dashboard.views import anonland as V


@pytest.fixture(scope="module")
def shipped(cache_root):
    try:
        return load_result(cache_root / "anonland")
    except FileNotFoundError:
        pytest.skip("no precomputed AnonLand result in data_cache/anonland")


@pytest.fixture(scope="module")
def page_module(dash_page):
    return dash_page("anonland")


# --------------------------------------------------------------------------- figure builders


def _checked(fig) -> go.Figure:
    """A builder's plain figure dict, validated against plotly's schema (``go.Figure`` raises on a bad property)."""
    assert type(fig) is dict and set(fig) == {"data", "layout"}
    return checked_figure(fig)


#: Trace properties that are per-point numbers: they must go out as float arrays, never lists.
NUMERIC = ("x", "y", "customdata", "q1", "median", "q3", "lowerfence", "upperfence", "mean")


def _walk(value, path=""):
    """Every (path, value) inside a figure dict."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")


@pytest.mark.parametrize("census", ["plain", "noisy", "both"])
def test_figures_are_plain_dicts_with_float_array_columns(shipped, census):
    """Cheap to serve: no go.Figure, no template, per-point columns as float arrays, customdata numeric."""
    built = {"divergence": figs.divergence_figure(shipped.citizens, census),
             "box": figs.box_figure(shipped.summary, census), "difference": figs.difference_figure(shipped.citizens)}
    for name, fig in built.items():
        _checked(fig)
        assert "template" not in fig["layout"], name
        for trace in fig["data"]:
            for key in NUMERIC:
                if key in trace and not (name == "box" and trace["type"] == "scatter"):  # the 2-point ideal line
                    assert isinstance(trace[key], np.ndarray) and trace[key].dtype == float, (name, key)
            if "text" in trace:  # per-point strings: a numpy string array, also serialised in one step
                assert isinstance(trace["text"], np.ndarray) and trace["text"].dtype.kind == "U", name
        for path, value in _walk(fig):
            # object arrays and lists of lists are what Dash's serialiser walks element by element
            assert not (isinstance(value, np.ndarray) and value.dtype.kind == "O"), (name, path)
            assert not (isinstance(value, list) and value and isinstance(value[0], (list, np.ndarray))), (name, path)
        for ax in ("xaxis", "yaxis"):  # what plotly's default template gave: room for the tick labels
            assert fig["layout"][ax]["automargin"] is True
    for trace in built["divergence"]["data"]:
        cd = trace["customdata"]
        assert cd.ndim == 2 and cd.shape == (len(trace["x"]), 2)


def test_divergence_figure_has_one_legend_entry_per_class_and_the_band(shipped):
    fig = _checked(figs.divergence_figure(shipped.citizens))
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert legend == ["metropolis", "city", "county", "town", "village"]
    assert all(isinstance(t, go.Scatter) and t.mode == "markers" for t in fig.data)
    assert sum(len(t.x) for t in fig.data) == len(shipped.citizens) == 5000
    assert fig.layout.xaxis.type == "log"
    band = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(band) == 1 and (band[0].y0, band[0].y1) == (-0.25, 0.25)
    # outliers above the cap are drawn at it, the band stays visible
    ys = np.concatenate([np.asarray(t.y, float) for t in fig.data])
    assert ys.max() <= figs.DIVERGENCE_CAP and ys.min() >= -1
    assert fig.layout.yaxis.range[1] <= figs.DIVERGENCE_CAP + 0.2
    assert shipped.citizens["divergence"].max() > figs.DIVERGENCE_CAP  # the shipped result has such outliers
    assert any("drawn at the edge" in a.text for a in fig.layout.annotations)


def test_divergence_figure_noisy_and_both(shipped):
    noisy = _checked(figs.divergence_figure(shipped.citizens, "noisy"))
    plain = _checked(figs.divergence_figure(shipped.citizens, "plain"))
    got = np.sort(np.concatenate([np.asarray(t.y, float) for t in noisy.data]))
    want = np.sort(np.minimum(shipped.citizens["divergence_noisy"].to_numpy(float), figs.DIVERGENCE_CAP))
    assert np.allclose(got, want)
    both = _checked(figs.divergence_figure(shipped.citizens, "both"))
    assert len(both.data) > len(plain.data)
    assert "noisy census (all classes)" in [t.name for t in both.data]
    with pytest.raises(ValueError):
        figs.divergence_figure(shipped.citizens, "fancy")


def test_divergence_hover_names_each_points_class_and_true_values(shipped):
    """A class trace names its class in the hover template; the all-class overlay names each point's own (``text``)."""
    c = shipped.citizens
    fig = figs.divergence_figure(c, "both")
    truth = {(float(r.ras), float(r.cas_noisy)): (str(r.district_class), 100 * float(r.divergence_noisy))
             for r in c.itertuples()}
    overlay = [t for t in fig["data"] if t["name"] == "noisy census (all classes)"]
    assert sum(len(t["x"]) for t in overlay) == len(c)
    for t in overlay:
        assert t["hovertemplate"].startswith("%{text}<br>")
        for x, (cas, div), cls in zip(t["x"], t["customdata"], t["text"]):
            assert truth[(x, cas)][0] == cls and math.isclose(truth[(x, cas)][1], div)
    for t in fig["data"]:
        if t["name"] != "noisy census (all classes)":
            cls = t["legendgroup"]
            assert "text" not in t and t["hovertemplate"].startswith(f"{cls}<br>RAS %{{x:,}}<br>")
            assert np.isin(t["customdata"][:, 0], c.loc[c["district_class"] == cls, "cas"]).all()


def test_box_figure_uses_the_summary_statistics_and_draws_the_ideal_line(shipped):
    fig = _checked(figs.box_figure(shipped.summary))
    boxes = [t for t in fig.data if isinstance(t, go.Box)]
    assert len(boxes) == 1
    box = box_frame(shipped.summary, "cas")
    assert list(boxes[0].x) == list(box["ras"]) and max(box["ras"]) < BOX_RAS_LIMIT
    assert np.allclose(boxes[0].median, box["median"])
    assert np.allclose(boxes[0].upperfence, box["whisker_hi"])
    ideal = next(t for t in fig.data if t.name == "ideal: CAS = RAS")
    assert list(ideal.x) == list(ideal.y)
    assert len([t for t in _checked(figs.box_figure(shipped.summary, "both")).data if isinstance(t, go.Box)]) == 2
    rows = figs.box_rows(shipped.summary)
    assert rows[0]["RAS"] == 1 and rows[0]["citizens"] == shipped.summary["box_by_ras"][0]["cas"]["n"]


def test_difference_histogram_counts_every_citizen_and_marks_the_largest(shipped):
    fig = _checked(figs.difference_figure(shipped.citizens))
    bars = fig.data[0]
    assert isinstance(bars, go.Bar) and sum(bars.y) == len(shipped.citizens)
    largest = shipped.summary["noisy_vs_plain"]["max"]
    lines = [s.x0 for s in fig.layout.shapes if s.type == "line"]
    assert any(math.isclose(x, math.log10(largest), rel_tol=1e-4) for x in lines)
    assert any("largest" in a.text for a in fig.layout.annotations)
    rows = figs.difference_rows(shipped.citizens)
    assert sum(r["citizens"] for r in rows) == len(shipped.citizens)


def test_summary_rows_follow_the_ras_ranges(shipped):
    rows = figs.summary_rows(shipped.summary)
    assert [r["RAS"] for r in rows] == [ras_range_label(lo, hi) for lo, hi in RAS_RANGES]
    assert sum(r["citizens"] for r in rows) == 5000
    assert rows[0][figs.threshold_label(0.25) + ", plain"] == figs.share(shipped.summary["by_ras_range"][0]["share_diverging"])
    div_rows = figs.divergence_rows(shipped.citizens)
    assert [r["citizens"] for r in div_rows] == [r["citizens"] for r in rows]


def test_number_formats():
    assert figs.percent(-0.6178) == "−61.8 %" and figs.percent(0.5) == "+50.0 %" and figs.percent(None) == "–"
    assert figs.share(0.8168) == "81.7 %"
    assert figs.number(2815.5) == "2,816" and figs.number(0.13168) == "0.132"
    assert figs.power_of_ten(-3) == "10⁻³" and figs.power_of_ten(2) == "100"


# --------------------------------------------------------------------------- page rendering


def test_layout_shows_the_shipped_result_without_computing(page_module, shipped):
    lay = page_module.layout(foo="bar", country="<script>")
    text = component_text(lay)
    assert "102,500,000 people" in text and "What is AnonLand?" in text and "Rerun a smaller AnonLand" in text
    view = V.render_full("plain")
    assert view["label"].startswith("The precomputed full-scale AnonLand: 102,500,000 people")
    # memoised figures are plain dicts (served many times; see figures.style)
    assert view["divergence"]["data"] and view["box"]["data"]
    assert _checked(view["divergence"]).data[0].type == "scatter"
    cards = component_text(view["cards"])
    assert figs.number(shipped.summary["noisy_vs_plain"]["max"]) in cards and "privacy noise, in people" in cards
    assert figs.percent(shipped.summary["median_divergence_large_ras"]["plain"], 2) in cards
    one = next(r for r in own_set_divergence(shipped.citizens) if r["range"] == "1")  # SPEC §1.7
    assert "your own set" in cards and figs.percent(one["median_divergence_expected"], 2) in cards
    params = component_text(view["parameters"])
    assert "metropolis" in params and "5,000,000" in params and "2026" in params
    assert f"{shipped.summary['run']['runtime_seconds']:.2f} s" in component_text(view["run"])
    assert "MB" in component_text(view["run"])
    # every chart has a table alternative
    for key in ("divergence-table", "box-table", "difference-table"):
        assert isinstance(view[key], html.Details) and isinstance(view[key].children[1].children, html.Table)


# --------------------------------------------------------------------------- rerun input


GOOD = dict(scale=0.01, epsilon=2, height_width=5, weight_width=5, citizens=20, seed=7, model="v2")


def _start(P, sizes=(None,) * 5, **change):
    args = {**GOOD, **change}
    return P.on_start(1, *args.values(), *sizes)


@pytest.mark.parametrize(
    "change, sizes, message",
    [
        (dict(epsilon=0), None, "ε (privacy parameter): must be greater than 0"),
        (dict(epsilon=-1), None, "must be greater than 0"),
        (dict(epsilon="abc"), None, "'abc' is not a number"),
        (dict(epsilon=None), None, "ε (privacy parameter): please enter a number"),
        (dict(citizens=0), None, "Test citizens per class: 0 is outside the allowed range 1 to 400"),
        (dict(citizens=2.5), None, "whole number"),
        (dict(citizens=5000), None, "outside the allowed range 1 to 400"),
        (dict(scale=0), None, "Scale: 0 is outside"),
        (dict(scale=0.5), None, "Scale: 0.5 is outside the allowed range 0.001 to 0.1"),
        (dict(scale=float("nan")), None, "finite number"),
        (dict(height_width=0), None, "Height band (cm)"),
        (dict(weight_width=-5), None, "Weight band (kg)"),
        (dict(seed=-1), None, "Seed"),
        ({}, (None, None, -5, None, None), "People per county: -5 is outside"),
        ({}, (None, None, "ten", None, None), "People per county: 'ten' is not a number"),
        ({}, (3_000_000, None, None, None, None), "reruns are limited to 10,250,000"),
        (dict(citizens=300), (10, None, None, None, None), "exceed the 50 people of the metropolis class"),
    ],
)
def test_bad_rerun_input_gives_a_clear_message(page_module, change, sizes, message):
    out = _start(page_module, sizes or (None,) * 5, **change)
    job, interval_disabled, start_disabled = out[:3]
    assert job is no_update and interval_disabled is True and start_disabled is False
    assert isinstance(out[4], html.Div) and out[4].className == "error"
    assert message in out[4].children


def test_build_rerun_sizes_are_scaled_or_given(cache_root):
    cfg = V.build_rerun(0.01, 2, 5, 5, 10, 1, (None, 20_000, None, None, 7))
    assert [c.size for c in cfg.classes] == [50_000, 20_000, 1_000, 100, 7]
    assert [c.number for c in cfg.classes] == [c.number for c in DEFAULT_CLASSES]
    assert cfg.population <= V.MAX_PEOPLE


def test_forged_job_ids_are_refused(cache_root):
    assert jobs.valid_job({"job": "../../etc/passwd"}) is None
    assert jobs.valid_job("x" * 10) is None
    poll = V.poll_job({"job": "A" * 24})  # well-formed but unknown
    assert poll.interval_disabled and "no longer known" in poll.message.children


# --------------------------------------------------------------------------- a tiny rerun, end to end


def _wait_for(P, job, timeout=60.0):
    deadline, seen = time.time() + timeout, []
    while time.time() < deadline:
        poll = V.poll_job(job)
        seen.append(poll)
        if poll.interval_disabled:
            return poll, seen
        time.sleep(0.1)
    raise AssertionError("the rerun did not finish")


def test_tiny_rerun_through_the_callbacks_replaces_the_charts(page_module):
    P = page_module
    out = _start(P, scale=0.001, citizens=15, epsilon=0.5, seed=11)
    job, interval_disabled, start_disabled, cancel_disabled, message, _progress, text, hidden = out
    assert message is None and interval_disabled is False and start_disabled is True and cancel_disabled is False
    assert hidden is False and "102,500 people" in text
    done, seen = _wait_for(P, job)
    assert done.progress == "100" and done.text.startswith("Done: 102,500 people and 75 test citizens")
    assert done.start_disabled is False and done.view == {"source": "job", "job": job["job"]}
    assert all(p.message is None for p in seen)
    # the poll callback returns the same
    assert P.on_poll(1, job)[5] == done.view

    outputs = P.on_view(done.view, "plain")
    view = dict(zip(V.RESULT_KEYS, outputs))
    back_style, note, label_class = outputs[len(V.RESULT_KEYS):]
    assert view["label"].startswith("Your rerun: parameters — 102,500 people") and "ε = 0.5" in view["label"]
    assert "seed 11" in view["label"] and back_style == {} and label_class.endswith("rerun") and note is None
    assert sum(len(t.x) for t in _checked(view["divergence"]).data) == 75
    _checked(view["box"])
    assert sum(_checked(view["difference"]).data[0].y) == 75
    assert "102,500" in component_text(view["parameters"])
    # the census switch redraws the rerun, and "back" returns to the shipped result
    both = dict(zip(V.RESULT_KEYS, P.on_view(done.view, "both")))
    assert "noisy census (all classes)" in [t.name for t in _checked(both["divergence"]).data]
    assert P.on_back(1) == {"source": "full"}
    full = P.on_view({"source": "full"}, "plain")
    assert full[0].startswith("The precomputed full-scale") and full[len(V.RESULT_KEYS)] == {"display": "none"}


def test_cancel_stops_a_rerun(page_module, monkeypatch):
    P = page_module
    gate = __import__("threading").Event()
    real = run_anonland

    def slow(cfg, progress):  # hold the run until Cancel has been pressed
        def hook(f, m):
            gate.wait(10)
            progress(f, m)
        return real(cfg, hook)

    monkeypatch.setattr(core, "run_anonland", slow)
    out = _start(P, scale=0.001, citizens=5)
    assert P.on_cancel(1, out[0]) == ("Cancelling…", True)
    gate.set()
    done, _ = _wait_for(P, out[0])
    assert done.text == "Cancelled." and done.view is no_update and done.start_disabled is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads have their own niceness on Linux")
def test_a_rerun_runs_nicer_than_the_requests(page_module, monkeypatch):
    seen = []
    real = run_anonland

    def spy(cfg, progress):
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return real(cfg, progress)

    monkeypatch.setattr(core, "run_anonland", spy)
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    out = _start(page_module, scale=0.001, citizens=5)
    done, _ = _wait_for(page_module, out[0])
    assert done.text.startswith("Done")
    assert seen == [min(19, base + jobs.RERUN_NICE)]  # the rerun's thread ...
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # ... not the request's


def test_expired_rerun_falls_back_to_the_shipped_result(page_module):
    outputs = page_module.on_view({"source": "job", "job": "B" * 24}, "plain")
    assert outputs[0].startswith("The precomputed full-scale")
    assert "expired" in outputs[len(V.RESULT_KEYS) + 1].children


def test_a_run_whose_worker_died_is_reported_lost(page_module):
    job = "C" * 24
    jobs.cache.set(jobs._key(job, "status"), {"state": "running", "fraction": 0.4, "message": "drawing",
                                              "updated": time.time() - jobs.STALE_AFTER - 1}, timeout=60)
    poll = V.poll_job({"job": job})
    assert poll.interval_disabled and poll.start_disabled is False
    assert "stopped answering" in poll.message.children


def test_the_busy_limit_refuses_instead_of_queueing(page_module):
    P = page_module
    held = [jobs.acquire_slot() for _ in range(jobs.max_running())]
    try:
        assert all(held) and jobs.acquire_slot() is None
        out = _start(P, scale=0.001, citizens=5)
        assert out[0] is no_update and "already running on this server" in out[4].children
    finally:
        for slot in held:
            if slot:
                slot.release()


def test_both_body_models_are_compared_and_a_rerun_can_choose(shipped):
    """The shipped result is v2's (the default) and keeps paper's CAS beside it, per citizen; a rerun picks either."""
    assert shipped.summary["body_model"] == "v2" and shipped.summary["parameters"]["body_model"] == "v2"
    np.testing.assert_array_equal(shipped.citizens["cas"], shipped.citizens["cas_v2"])
    rows = V.model_rows(shipped.summary)
    assert [r["real crowd (RAS)"] for r in rows] == [r["range"] for r in shipped.summary["by_ras_range"]]
    ras = shipped.citizens["ras"].to_numpy(float)
    big = (ras >= 100) & (ras <= 999)
    for name in ("v2", "paper"):
        div = np.abs(shipped.citizens[f"cas_{name}"].to_numpy() - ras) / ras
        assert rows[5][f"{name}: median |divergence|"] == figs.share(float(np.median(div[big])))
    title, value, explain = V.model_card(shipped.summary)
    assert value == "v2" and "paper" in explain and "100–999" in explain
    view = V.render_full()
    assert "models-table" in view and "paper: off by > 25 %" in component_text(view["models-table"])
    assert "body model of the CAS" in component_text(view["parameters"][1])
    cfg = V.build_rerun(0.01, 2, 5, 5, 20, 7, model="paper")
    assert cfg.body_model == "paper"
    assert "--model paper" in limits.anonland_command(1, 2, 5, 5, 20, 7, "paper")


# --------------------------------------------------------------------------- languages (issue 31)


def _texts(component) -> list[str]:
    """Every string a reader sees in a component tree: children, labels and placeholders of controls."""
    if component is None or isinstance(component, (int, float)):
        return []
    if isinstance(component, str):
        return [component.strip()]
    if isinstance(component, (list, tuple)):
        return [t for c in component for t in _texts(c)]
    out = [o["label"].strip() for o in getattr(component, "options", None) or []]
    out += [getattr(component, "placeholder", None) or ""]
    if isinstance(component, dcc.Markdown):
        return out + [component.children]
    return out + _texts(getattr(component, "children", None))


def _english_left(texts: list[str], lang: str) -> list[str]:
    """Texts equal to an English message whose translation in ``lang`` differs (what the browser check looks for)."""
    from support.languages import english_words

    words = set(english_words(lang))
    return [t for t in texts if t in words]


def test_the_anonland_page_in_german(page_module, shipped):
    """Issue 31: the page, its cards, tables, charts and the rerun's messages in German, numbers the German way
    (102.500.000, 84,1 %); the data keep their English class names, the CLI command stays English."""
    from dashboard.core import text

    P = page_module
    with text.language("de"):
        page = P.layout()
        view = V.render_full("both")
        bad = _start(P, sizes=(None, None, -5, None, None))[4].children
        too_big = _start(P, sizes=(3_000_000, None, None, None, None))[4].children
        out = _start(P, scale=0.001, citizens=15, epsilon=0.5, seed=11)
        started = out[6]
        done, seen = _wait_for(P, out[0])
        rerun = dict(zip(V.RESULT_KEYS, P.on_view(done.view, "plain")))
    texts = _texts(page)
    assert "AnonLand: die Schätzung an einem erfundenen Land prüfen" in texts
    assert "102,5 Millionen Menschen in 5 Metropolen" in component_text(page) and "2.500 Dörfern mit je 1.000" in \
        component_text(page)
    assert "Ein kleineres AnonLand neu rechnen" in texts and "Starten" in texts and "Abbrechen" in texts
    assert "Landkreis (250 Kreise)" in texts and "skaliert aus 100.000" in texts
    assert {"einfach", "verrauscht (Laplace, ε)", "beide"} <= set(texts)  # the census switch
    assert _english_left(texts, "de") == [], _english_left(texts, "de")
    # the shipped result: label, cards and tables in German, numbers the German way
    assert view["label"].startswith("Das vorab gerechnete AnonLand in voller Größe: 102.500.000 Menschen (je Kreis: "
                                    "Metropole 5.000.000")
    cards = component_text(view["cards"])
    assert "Mehr als 25 % daneben, wirkliche Menge unter 5" in cards  # (component_text: one space for any)
    big = sum(r["n"] for r in shipped.summary["by_ras_range"] if r["ras_lo"] >= 100)
    assert f"Dasselbe für die {big:,} Testpersonen".replace(",", ".") in cards
    assert "|Abweichung| > 25 %, einfach" in component_text(view["summary-table"])
    assert "Kreisklasse" in component_text(view["class-table"]) and "Dorf" in component_text(view["class-table"])
    assert "Menschen insgesamt" in component_text(view["parameters"]) and "102.500.000 in 5.280 Kreisen" in \
        component_text(view["parameters"])
    assert "Spitzenspeicher" in component_text(view["run"])
    for key in RESULT_TEXTS:
        assert _english_left(_texts(view[key]), "de") == [], (key, _english_left(_texts(view[key]), "de"))
    # the charts: German words, German separators, the classes by their German names
    div, box, diff = view["divergence"], view["box"], view["difference"]
    assert div["layout"]["separators"] == ",." and box["layout"]["separators"] == ",."
    assert div["layout"]["xaxis"]["title"]["text"] == "wirkliche Anonymitätsmenge<br>RAS (log. Skala)"
    assert div["layout"]["legend"]["title"]["text"] == "Kreisklasse"
    assert [t["name"] for t in div["data"] if t.get("showlegend")][:5] == [
        "Metropole", "Großstadt", "Landkreis", "Kleinstadt", "Dorf"]
    assert "Abweichung %{customdata[1]:+.1f}\u00a0%" in div["data"][0]["hovertemplate"]
    assert "+100\u00a0%" in div["layout"]["yaxis"]["ticktext"]
    assert [t["name"] for t in box["data"]] == ["CAS, einfacher Zensus", "CAS, verrauschter Zensus", "ideal: CAS = RAS"]
    assert diff["layout"]["annotations"][0]["text"].startswith("Median 0,")
    assert "Testpersonen" in diff["data"][0]["hovertext"][-1]
    # the data keep their English names; the rerun's messages are German, its command English
    assert list(shipped.citizens["district_class"].cat.categories)[0] == "metropolis"
    assert bad.startswith("Menschen je Landkreis: −5 liegt außerhalb des erlaubten Bereichs 1 bis 10.250.000")
    assert "auf 10.250.000 Menschen begrenzt" in too_big and "anonset anonland --scale 1 " in too_big
    assert started == "Start: 102.500 Menschen, 75 Testpersonen …"
    assert done.text.startswith("Fertig: 102.500 Menschen und 75 Testpersonen in ")
    assert all(p.message is None for p in seen)  # the thread wrote its messages in the page's language (above)
    assert rerun["label"].startswith("Ihr neuer Lauf: Parameter – 102.500 Menschen") and "ε = 0,5" in rerun["label"]
    with text.language("en"):  # the memo keeps each language's page apart
        assert V.render_full("both")["label"].startswith("The precomputed full-scale AnonLand: 102,500,000 people")


#: The result parts whose texts are checked for English left over.
RESULT_TEXTS = ("cards", "divergence-table", "box-table", "difference-table", "summary-table", "models-table",
                "class-table", "parameters", "run")
