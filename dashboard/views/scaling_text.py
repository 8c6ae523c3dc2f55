"""What the scaling-law page writes about its results (SPEC §3), in the visitor's language: the readouts, the
census view's sentence, cards, table and notes, the forecast's models table, formulas and band text.

Pure functions of computed results (no callbacks, no memo of their own: the views that call them are memoised
per language); the attack lab shows the same models table and formulas.
"""
from __future__ import annotations

import math

import numpy as np
from dash import html

from dashboard import ids
from dashboard.components import card
from dashboard.core import country, regions, scaling
from dashboard.core.regions import Scenario
from dashboard.core.text import (
    body_source_note,
    current_language,
    format_count,
    format_number,
    format_small,
    language,
    local_number,
    ngettext,
)
from dashboard.core.text import gettext as _
from dashboard.figures import scaling as figs

PAGE = "scaling"
WORLD = scaling.WORLD


def _id(name: str) -> str:
    return ids.make(PAGE, name)


def _g(x: float, spec: str = "g") -> str:
    """A number as Python's format ``spec`` writes it (English: unchanged), in the current language's digits."""
    text = format(x, spec)
    if text.startswith("+"):
        return "+" + local_number(text[1:])
    return local_number(text)


def pp(value: float, spec: str = ".1f") -> str:
    """Percentage points: ``+1.2 pp`` (the language's own abbreviation)."""
    return _("{value} pp").format(value=_g(value, spec))


def tail_text(d: float, alpha: float, gamma: float) -> str:
    """What (d, α) means, in words."""
    if d < 0:
        return _("finite support: a symmetric Dirichlet over K = −α/d ≈ {count} sets (γ < 0, more even than "
                 "geometric)").format(count=format_count(-alpha / d))
    if d == 0:
        return _("geometric tail (d = 0, a Dirichlet process)")
    if gamma >= 1:
        return _("heavy, power-law tail (d > 0): many rare sets — the heaviest kind (γ ≥ 1, α ≤ 0)")
    return _("heavy, power-law tail (d > 0): many rare sets")


def tail_name(d: float) -> str:
    """The kind of tail in a few words (a card's explanation)."""
    if d < 0:
        return _("finite support")
    if d == 0:
        return _("geometric tail (d = 0, a Dirichlet process)")
    return _("heavy, power-law tail (d > 0)")


# --------------------------------------------------------------------------- explore


def readout_cards(n: float, values: tuple[float, float, float, float], k: int) -> list:
    kappa, xi, viol, sets = values
    return [
        card(_("Gallery size n"), figs.n_label(n), _("records the attacker matches against (an app's users)"),
             tooltip=True),
        card(_("Correctness"), figs.pct(kappa), _("share of records exact matching identifies correctly"),
             value_id=_id("readout-kappa"), tooltip=True, formula=_("the expected correctness κ(n) of the law")),
        card(_("Uniqueness"), figs.pct(xi), _("share of records alone in their anonymity set"),
             value_id=_id("readout-xi"), tooltip=True, formula=_("the expected uniqueness Ξ(n) of the law")),
        card(_("Violating {k}-anonymity").format(k=k), figs.pct(viol),
             _("share of records in sets of fewer than {k}").format(k=k), value_id=_id("readout-viol"), tooltip=True),
        card(_("Distinct sets"), format_count(sets) if sets >= 1 else format_small(sets, 3),
             _("expected number of different attribute combinations among the n records"), tooltip=True,
             formula=_("E[Kₙ], the expected number of distinct sets among n records")),
    ]


def law_params(law: scaling.LawCurves) -> html.Div:
    h_nats = scaling.bits_to_nats(law.h_bits)
    return html.Div([
        html.Div([html.Span(_("Pitman–Yor parameters:") + " ", className="muted"),
                  html.B(f"d = {figs.sci(law.d)}, α = {figs.sci(law.alpha)}", id=_id("dalpha"))],
                 className="law-dalpha"),
        html.Div(_("h = {h_bits} bits = {h_nats} nats; γ = {gamma} — {tail}.").format(
            h_bits=_g(law.h_bits), h_nats=_g(h_nats, ".4g"), gamma=_g(law.gamma),
            tail=tail_text(law.d, law.alpha, law.gamma)), className="field-help"),
        html.Div("h = ψ(α+1) − ψ(1−d),  γ = [ψ(1) − ψ(1−d)] / h", className="formula"),
    ])


# --------------------------------------------------------------------------- census


def census_summary(sc: scaling.CensusScaling) -> list:
    part, fit = sc.partition, sc.fit
    gap = sc.max_gap()
    pitman_yor = (_("Pitman–Yor discount and concentration · finite support ≈ {count} sets").format(
        count=format_count(fit.support)) if fit.support else _("Pitman–Yor discount and concentration"))
    return [
        card(_("Fitted entropy"), _("{value} bits").format(value=_g(fit.h_bits, ".2f")),
             _("how much the attributes tell people apart: each bit halves the crowd"), value_id=_id("c-h"),
             tooltip=True, formula=_("h = {value} nats").format(value=_g(fit.h, ".3f"))),
        card(_("Tail complexity γ"), _g(fit.gamma, ".3g"), tail_name(fit.d), value_id=_id("c-gamma"), tooltip=True),
        card("(d, α)", [f"d = {figs.sci(fit.d, 3)}", html.Br(), f"α = {figs.sci(fit.alpha, 3)}"], pitman_yor,
             tooltip=True),
        card(_("Anonymity sets"), format_count(part.n_sets),
             _("holding {people} people (largest {largest}; {alone} of one person)").format(
                 people=format_count(part.records), largest=format_count(part.largest),
                 alone=format_count(part.singletons)), tooltip=True),
        card(_("Largest gap"), pp(100 * gap) if math.isfinite(gap) else "–",
             _("largest difference between the exact and the fitted κ(n) inside the population"), tooltip=True),
    ]


def census_table(sc: scaling.CensusScaling, app_n: float, values: dict) -> html.Table:
    """κ at the table's gallery sizes (``values`` from :func:`scaling.census_values`)."""
    head = [_("Gallery of n residents"), _("exact κ"), _("PYC κ"), _("PYC − exact (pp)")]
    body = []
    for n in scaling.gallery_sizes(sc, app_n):
        exact, law = values[n]
        tags = []
        if n == app_n:
            tags.append(_("your app"))
        if n == sc.partition.records:
            tags.append(_("the whole population"))
        if n == WORLD:
            tags.append(_("the world"))
        label = figs.n_label(n) + (f" ({', '.join(tags)})" if tags else "")
        diff = "–" if exact is None else _g(100 * (law - exact), "+.1f")
        diff = local_number("0.0") if diff.lstrip("+-−") == local_number("0.0") else diff
        cells = [label, figs.pct(exact), figs.pct(law), diff]
        # on a phone each row is a block, each value under its column's name (four columns ran off a 390 px screen)
        body.append(html.Tr([html.Td(v, className="num" if i else None, **{"data-label": head[i]})
                             for i, v in enumerate(cells)]))
    return html.Table([
        html.Thead(html.Tr([html.Th(h, className="num" if i else None) for i, h in enumerate(head)])),
        html.Tbody(body),
    ], className="table stack-on-phone")


def _attributes(s: Scenario) -> str:
    parts = [_("district"), _("sex") if len(s.sexes) == 2 else None, _("age group")]
    if s.include_body:
        parts += [_("{width} cm height band").format(width=_g(s.height_width)),
                  _("{width} kg weight band").format(width=_g(s.weight_width))]
    parts += [a if isinstance(a, str) else a.name for a in s.aux]
    return ", ".join(p for p in parts if p)


def _who(part: scaling.CensusPartition) -> str:
    s = part.scenario
    place = country.country_name(part.code)
    if math.isfinite(s.ages[1]):
        ages = f"{_g(s.ages[0])}–{_g(s.ages[1])}"
    else:
        ages = _("{age} and over").format(age=_g(s.ages[0]))
    if s.sexes == ("female",):
        return _("the women of {place} aged {ages}").format(place=place, ages=ages)
    if s.sexes == ("male",):
        return _("the men of {place} aged {ages}").format(place=place, ages=ages)
    return _("the residents of {place} aged {ages}").format(place=place, ages=ages)


def census_sentence(sc: scaling.CensusScaling, app_n: float, values: dict) -> str:
    """The view's answer in one sentence: how accurately exact matching identifies an app's users."""
    part = sc.partition
    exact, law = values[float(app_n)]
    words = {"users": figs.n_label(app_n), "who": _who(part), "attributes": _attributes(part.scenario),
             "law": figs.pct(law)}
    if exact is None:
        return _("In an app of {users} users drawn from {who}, exact matching on {attributes} would pick the right "
                 "person for about {law} of them by the fitted law — more users than the {people} people the census "
                 "describes, so only the law can say.").format(people=format_count(part.records), **words)
    return _("In an app of {users} users drawn from {who}, exact matching on {attributes} would pick the right person "
             "for {exact} of them (exact, from the census); the fitted law says {law}.").format(
        exact=figs.pct(exact), **words)


def fit_message(fit) -> str:
    """The census fit's message in words: "converged", or why not (the optimiser's own words stay as SciPy wrote
    them)."""
    out = []
    for piece in fit.message.split("; "):
        if piece == "converged":
            out.append(_("converged"))
        elif piece.startswith("d reached the search limit"):
            out.append(_("d reached the search limit: the sets are as even as a uniform distribution over about "
                         "{count} sets").format(count=format_count(fit.alpha / -fit.d) if fit.d < 0 else "–"))
        elif piece.startswith("optimiser: "):
            out.append(_("optimiser: {message}").format(message=piece[len("optimiser: "):]))
        else:
            out.append(piece)
    return "; ".join(out)


def scenario_notes(scenario: Scenario, code: str) -> list:
    """The scenario's notes as the explorer shows them: ours in the page's language, a body source note said in
    it, any other text of the data's own quoted in English (``lang="en"``, GLOSSARY.md)."""
    notes = regions.scenario_notes(scenario, code)
    if current_language() == "en":
        return list(notes)
    with language("en"):
        english = regions.scenario_notes(scenario, code)
    out = []
    for note, en in zip(notes, english, strict=True):
        said = body_source_note(note) if note == en else None
        out.append(note if note != en else said or html.Span(note, lang="en"))
    return out


def census_notes(sc: scaling.CensusScaling, notes) -> list:
    part = sc.partition
    own = [
        _("Each plausible cell is one anonymity set of its expected size rounded to whole people; {zero} of {cells} "
          "cells round to 0 (holding {people} expected people) and are no set.").format(
            zero=format_count(part.zero_cells), cells=format_count(part.n_cells),
            people=local_number(f"{part.zero_mass:,.0f}")),
        _("Partition of {people} people built in {seconds} s; fit: {fit}.").format(
            people=format_count(part.records), seconds=_g(part.seconds, ".2f"), fit=fit_message(sc.fit)),
    ]
    return [html.Li(n) for n in (*own, *notes)]


# --------------------------------------------------------------------------- forecast


def _our_form(name: str) -> str:
    return _("{model} (our form)").format(model=name) if name in ("EXP", "POL") else name


def models_table(fc: scaling.Forecast, sizes: np.ndarray) -> html.Table:
    idx = [int(np.argmin(np.abs(fc.at - s))) for s in sizes]
    head = [html.Th(_("Model")), html.Th(_("Parameters")), html.Th(_("Fit RMSE"), className="num"),
            html.Th(_("Held-out RMSE"), className="num")]
    head += [html.Th(_("κ at {n}").format(n=figs.n_label(s)), className="num") for s in sizes]
    body = []
    for name, m in fc.models.items():
        label = _our_form(name)
        if not m.available:
            body.append(html.Tr([html.Td(label), html.Td(_("not available: {reason}").format(reason=m.reason),
                                                         colSpan=3 + len(sizes), className="unavailable")],
                                **{"data-model": name}))
            continue
        hold = fc.holdout.get(name)
        hold_text = "–" if hold is None else (pp(100 * hold.rmse, ".2f") if hold.available else _("n/a"))
        cells = []
        pred = fc.predictions[name]
        for i in idx:
            text = [figs.pct(float(pred[i]))]
            if name == "PYC-MB" and fc.band.available:
                text.append(html.Div(f"{figs.pct(float(fc.band.lower[i]))} – {figs.pct(float(fc.band.upper[i]))}",
                                     className="band-range", title=_("jackknife band")))
            cells.append(html.Td(html.Div(text), className="num", **{"data-label": head[4 + len(cells)].children}))
        note = [html.Div(m.note, className="field-help")] if m.note else []
        if hold is not None and not hold.available:
            note.append(html.Div(_("held-out check: {reason}").format(reason=hold.reason), className="field-help"))
        values = [label, [params_text(name, m.params), *note], pp(100 * m.rmse, ".2f"), hold_text]
        body.append(html.Tr([html.Td(v, className="num" if i > 1 else None, **{"data-label": head[i].children})
                             for i, v in enumerate(values)] + cells, **{"data-model": name}))
    return html.Table([html.Thead(html.Tr(head)), html.Tbody(body)], className="table models-table stack-on-phone")


def params_text(name: str, p: dict) -> str:
    """A model's fitted parameters (the symbols stay; the numbers and "bits", "sets" in the language)."""
    if name == "PYC-MB":
        return _("h = {h} bits, γ = {gamma} (d = {d}, α = {alpha})").format(
            h=format_number(p["h_bits"]), gamma=format_number(p["gamma"]), d=figs.sci(p["d"], 3),
            alpha=figs.sci(p["alpha"]))
    if name == "ENT":
        return _("h = {h} bits (K = {K} sets)").format(h=format_number(p["h_bits"]), K=format_number(p["K"], 4))
    if name == "EXP":
        return f"c = {format_number(p['c'])}; λ = {figs.sci(p['lambda'], 3)}"
    return f"a = {format_number(p['a'])}; b = {format_number(p['b'])}"


def formulas_list(fc: scaling.Forecast) -> html.Dl:
    items = []
    for name, m in fc.models.items():
        items += [html.Dt(_("{model} — our form").format(model=name) if name in ("EXP", "POL") else name),
                  html.Dd(html.Code(m.formula), className="formula")]
    return html.Dl(items, className="formulas")


def band_text(fc: scaling.Forecast, holdout: int) -> str:
    parts = []
    if fc.band.available:
        parts.append(_("Band: {method}.").format(method=fc.band.method))
    else:
        parts.append(_("No PYC-MB band: {reason}.").format(reason=fc.band.reason))
    if holdout:
        parts.append(ngettext(
            "Held-out RMSE: each model refitted without the {count} point of largest n and scored on it (a check of "
            "extrapolation).",
            "Held-out RMSE: each model refitted without the {count} points of largest n and scored on them (a check "
            "of extrapolation).", holdout).format(count=holdout))
    else:
        parts.append(_("No points held out (choose 1–3 to check how each model extrapolates)."))
    parts.append(_("Weights ln(n) as in the paper; the paper's supplement, which defines its own EXP and POL, is not "
                   "available, so EXP and POL here are our forms."))
    return " ".join(parts)
