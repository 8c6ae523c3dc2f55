"""The explorer's view for app developers: safe bucket sizes (SPEC §7), without Dash.

Ids, defaults, parsing of the form and the link, and :func:`render`, which turns
the settings into plain values (text, figure dicts, table rows) for the thin page
``dashboard/pages/buckets.py``.  The numbers come from :mod:`dashboard.core.buckets`
(memoised there); the exports are the core's :func:`~dashboard.core.buckets.export_json`
and :func:`~dashboard.core.buckets.export_csv`, the same the CLI writes.
"""
from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import urlencode

import census_loaders as cl
from dashboard import forms, ids
from dashboard.core import country as catalog
from dashboard.core.body import DEFAULT_MODEL, check_model
from dashboard.core.buckets import (
    BITS_TOL,
    COVERAGE_NOTE,
    Advice,
    advice_if_cached,
    advise,
    borrowed_note,
    check_coverage,
    check_k,
    export_csv,
    export_json,
    filled_note,
    recommendation_text,
)
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import format_age_band
from dashboard.core.text import (
    N_,
    body_source_note,
    current_language,
    district_word,
    format_count,
    local_number,
    ngettext,
    percent_text,
    share_setting,
)
from dashboard.core.text import gettext as _
from dashboard.figures import buckets as fb
from dashboard.figures.maps import geojson_url, view_of
from dashboard.server import limits
from dashboard.views import data_notes

PAGE = "buckets"
PATH = "/explore/buckets"
TITLE = N_("For app developers: safe bucket sizes")
ID = {name: ids.make(PAGE, name) for name in (
    "country", "k", "coverage", "per-district", "model", "message", "notices", "sentence", "cards", "front", "map", "map-box",
    "no-map", "map-help", "short-table", "short-box", "per-district-box", "per-district-table", "cli", "download-json",
    "download-csv", "button-json", "button-csv", "query", "url-sync", "notes", "button-report", "report-message",
)}
DEFAULT_COUNTRY = "DE"
DEFAULT_K = 10.0
DEFAULT_COVERAGE = 0.95


class Settings(NamedTuple):
    country: str
    k: float
    q: float
    per_district: bool
    model: str = DEFAULT_MODEL  # the body model (SPEC §1.6): v2, or paper


DEFAULTS = Settings(DEFAULT_COUNTRY, DEFAULT_K, DEFAULT_COVERAGE, False)


# --------------------------------------------------------------------------- parsing


def _number(value, what: str) -> float:
    try:
        x = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        raise InputError(_("{what} {value} is not a number").format(what=what, value=repr(value))) from None
    if not math.isfinite(x):
        raise InputError(_("{what} {value} is not a finite number").format(what=what, value=repr(value)))
    return x


def parse_form(country, k, coverage_percent, per_district, model=None) -> Settings:
    """The form's values (coverage in percent) as settings; bad ones are InputErrors with the field named."""
    code = str(country or "").strip().upper()
    if not code:
        raise InputError(_("choose a country"))
    if code not in cl.countries():
        try:
            cl.canonical_code(code)
        except cl.UnknownDataset as exc:  # names the closest codes
            raise InputError(str(exc)) from None
    kk = check_k(_number(k, "k"))
    pct = _number(coverage_percent, _("coverage"))
    if not (0 < pct <= 100):
        raise InputError(_("coverage must lie above {zero} and at most {hundred}, not {value}").format(
            zero=percent_text("0"), hundred=percent_text("100"), value=percent_text(f"{pct:g}")))
    return Settings(code, kk, pct / 100.0, bool(per_district), check_model(model or DEFAULT_MODEL))


def from_query(query: Mapping, strict: bool = False) -> tuple[Settings, tuple[str, ...]]:
    """Settings from a link (``?country=DE&k=10&coverage=0.95&per_district=1``); bad parts reported and defaulted.

    ``strict`` (the report's URL, :mod:`dashboard.reports`): a bad part is an InputError saying what is wrong."""
    q = forms.query_last(query)  # a key given twice: the last one, as in every page's link
    notices = []
    country, k, cov, per, model = DEFAULTS
    if "country" in q:
        code = q["country"].strip().upper()
        if code in cl.countries():
            country = code
        elif strict:
            raise InputError(_("Unknown country {country}{suggestion}").format(
                country=repr(q["country"][:40]), suggestion=catalog.closest_note([code])))
        else:
            notices.append(_("Unknown country {country} in the link{suggestion}; showing {default}.").format(
                country=repr(q["country"][:40]), suggestion=catalog.closest_note([code]), default=DEFAULT_COUNTRY))
    if "k" in q:
        try:
            k = check_k(_number(q["k"], "k"))
        except InputError as exc:
            if strict:
                raise
            notices.append(_("{error} (in the link); using k = {k}.").format(error=exc, k=f"{DEFAULT_K:g}"))
    if "coverage" in q:
        try:
            cov = check_coverage(_number(q["coverage"], _("coverage")))
        except InputError as exc:
            if strict:
                raise
            notices.append(_("{error} (in the link); using {coverage}.").format(error=exc, coverage=_share(DEFAULT_COVERAGE)))
    if "per_district" in q:
        per = q["per_district"].strip().lower() in ("1", "true", "yes", "on")
    if "model" in q:
        try:
            model = check_model(q["model"])
        except InputError as exc:
            if strict:
                raise
            notices.append(_("{error} (in the link); using {model}.").format(error=exc, model=DEFAULT_MODEL))
    return Settings(country, k, cov, per, model), tuple(notices)


def to_query(s: Settings) -> str:
    q = {"country": s.country, "k": f"{s.k:g}", "coverage": f"{s.q:g}"}
    if s.per_district:
        q["per_district"] = "1"
    if s.model != DEFAULT_MODEL:
        q["model"] = s.model
    return "?" + urlencode(q)


def cli_command(s: Settings) -> str:
    args = ["anonset", "buckets", "--country", s.country, "--k", f"{s.k:g}", "--coverage", f"{s.q:g}"]
    if s.per_district:
        args.append("--per-district")
    if s.model != DEFAULT_MODEL:
        args += ["--model", s.model]
    return shlex.join(args)


def country_options() -> list[dict]:
    return catalog.country_options(cl.manifest())


def form_values(s: Settings) -> dict:
    return {"country": s.country, "k": f"{s.k:g}", "coverage": f"{100 * s.q:g}",
            "per_district": ["yes"] if s.per_district else [], "model": s.model}


# --------------------------------------------------------------------------- rendering


def advice(s: Settings) -> Advice:
    """The advice for ``s``: from memory, or computed in one of the server's heavy slots (1–9 s of CPU)."""
    known = advice_if_cached(s.country, s.k, s.q, per_district=s.per_district, model=s.model)
    if known is not None:
        return known
    with limits.heavy_slot(_("This advice"), cli_command(s)):
        return advise(s.country, s.k, s.q, per_district=s.per_district, model=s.model)


def file_name(s: Settings, ext: str) -> str:
    return f"anonset-buckets-{s.country}-k{s.k:g}-q{s.q:g}.{ext}"


def export(s: Settings, kind: str) -> tuple[str, str]:
    """``(text, file name)`` of the JSON config or the CSV of every configuration."""
    a = advice(s)
    if kind == "json":
        return export_json(a), file_name(s, "json")
    if kind == "csv":
        return export_csv(a), file_name(s, "csv")
    raise InputError(f"unknown export {kind!r}")  # a programming error, never a visitor's


def _share(q: float) -> str:
    """A coverage someone set: "95%" in English (as before), "95 %" in German."""
    return share_setting(q) if current_language() == "en" else percent_text(f"{float(f'{100 * float(q):.6g}'):g}")


def _percent(share: float) -> str:
    """A reached coverage to a tenth of a percent: "95.3%" in English (as before), "95,3 %" in German."""
    return f"{share:.1%}" if current_language() == "en" else percent_text(f"{100 * share:.1f}")


def _cards(a: Advice) -> list[dict]:
    rec = a.recommended
    dl, rl = district_word(a.district_label), district_word(a.region_label)
    label = district_word(a.district_label, plural=True)
    n_short = len(a.short_under_recommended)
    area = None if rec is None else rec.config.area
    of = _("{n} of {total}").format(n=local_number(f"{n_short:,}"), total=local_number(f"{len(a.district_ids):,}"))
    if area == "district_or_region":
        last = {"title": _("{districts} withheld").format(districts=label), "value": of,
                "explain": _("below the target with the {district} itself: released with the {region}").format(
                    district=dl, region=rl)}
    elif area in ("region", "withheld"):
        last = {"title": _("{districts} below the target").format(districts=label), "value": of,
                "explain": _("if the {district} were released with these buckets (it is not)").format(district=dl)}
    else:
        last = {"title": _("{districts} below the target").format(districts=label), "value": of,
                "explain": _("their own people, under the recommended buckets")}
    return [
        {"title": _("people with CAS ≥ {k}").format(k=local_number(f"{a.k:g}")),
         "value": "–" if rec is None else _percent(rec.coverage),
         "explain": _("target {share} of {count} people aged {ages}").format(
             share=_share(a.q), count=format_count(a.people), ages=format_age_band(*a.study))},
        {"title": _("information kept"), "value": "–" if rec is None else _("{bits} bits").format(
            bits=local_number(f"{rec.bits:.1f}")),
         "explain": _("entropy of the released profile per person")},
        {"title": _("configurations searched"), "value": local_number(f"{len(a.evaluated):,}"),
         "explain": _("{n} on the Pareto front; exact coverage for each").format(n=len(a.front))},
        last,
    ]


def _map_help(a: Advice) -> str:
    if a.recommended is None:
        return ""
    dl, dls, rl = district_word(a.district_label), district_word(a.district_label, plural=True), \
        district_word(a.region_label)
    k, share = local_number(f"{a.k:g}"), _share(a.q)
    text = _("Colour: the share of each {district}'s own people whose CAS is at least {k} with the recommended age "
             "groups and bands, released with the {district}.").format(district=dl, k=k) + " "
    area = a.recommended.config.area
    most = 2 * len(a.short_under_recommended) > len(a.district_ids)
    outlined = (_("Outlined in black: the {districts} at or above {share} (most fall below it)") if most
                else _("Outlined: the {districts} below {share}")).format(districts=dls, share=share)
    if area == "district":
        text += _("The target counts the whole country, so large cities can carry small {districts}. {outlined}. "
                  "Tick \"{option}\" for a per-district answer.").format(
            districts=dls, outlined=outlined, option=_("each district's own finest safe buckets"))
    elif area == "district_or_region":
        text += _("The {districts} below {share} are the ones the recommendation withholds (it gives their "
                  "{region}). {outlined}.").format(districts=dls, share=share, region=rl, outlined=outlined)
    else:
        text += _("The recommendation does not release the {district} at all; this shows what releasing it would "
                  "give. {outlined}.").format(district=dl, outlined=outlined)
    return text


def _short_rows(a: Advice) -> list[dict]:
    rows = []
    for d in sorted(a.short_under_recommended, key=lambda d: a.district_coverage[d]):
        rows.append({"district": a.district_names[d], "district_id": a.district_ids[d],
                     "people": format_count(a.district_people[d]),
                     "coverage": percent_text(f"{100 * a.district_coverage[d]:.1f}")})
    return rows


def _per_district_rows(a: Advice) -> list[dict]:
    if a.per_district is None:
        return []
    out = []
    for r in a.per_district.rows():
        if r["withhold_district"]:
            what = _("withhold the {district}").format(district=district_word(a.district_label))
        else:
            what = fb.describe({**r, "area": "district"}, a.district_label, a.region_label).rsplit(" · ", 1)[0]
        out.append({"district": r["district_name"], "district_id": r["district_id"],
                    "finest safe buckets": what,
                    "coverage": "–" if r["coverage"] is None else percent_text(f"{100 * r['coverage']:.1f}"),
                    "bits": "–" if r["bits"] is None else local_number(f"{r['bits']:.1f}")})
    return out


def advice_note(note: str, model=None) -> str:
    """One of the advice's notes (written in English: the advice is shared with the CLI) in the page's language
    where it is ours (``model``: the data set's, for its borrowed body statistics and filled districts); a body
    source note beyond its usual forms stays as written (the page quotes it in English)."""
    if note == COVERAGE_NOTE:
        return _(COVERAGE_NOTE)
    if note == f"Bits certified to within ±{BITS_TOL:g}.":
        return _("Bits certified to within ±{tolerance}.").format(tolerance=local_number(f"{BITS_TOL:g}"))
    if model is not None and note == borrowed_note(model):
        return _("{name} has no body statistics of its own; those of {source} are used.").format(
            name=model.name, source=model.prior_country_name or model.borrowed_from)
    if model is not None and note == filled_note(model):
        n = int(model.filled.sum())
        return ngettext("{n} {districts}: filled from the remainder of its {region} (SPEC §1.4).",
                        "{n} {districts}: filled from the remainder of their {region} (SPEC §1.4).", n).format(
            n=format_count(n), districts=district_word(model.district_label, plural=n != 1),
            region=district_word(model.region_label))
    return body_source_note(note) or note


def render(s: Settings, a: Advice | None = None) -> dict:
    """Everything the page shows for ``s``, as plain values (InputErrors propagate to the page); ``a``: the advice
    when already computed (the CLI's report computes it without the server's heavy slots)."""
    a = advice(s) if a is None else a
    d = a.to_dict(full=True)
    front_fig = fb.front_figure(d["all"], d["front"], d["recommended"], a.q, a.k, district_label=a.district_label,
                                region_label=a.region_label)
    info = cl.dataset_info(a.code)
    map_fig, no_map = None, ""
    if a.recommended is None:
        no_map = _("No configuration meets the target, so there is no choice to map.")
    elif cl.boundaries(a.code) is None:
        no_map = data_notes.boundary_note_text(a.code) or _(
            "No {district} boundaries are available for this data set.").format(
            district=district_word(a.district_label))
    else:
        view = view_of(info["boundaries"]["frame"], fb.MAP_WIDTH, fb.MAP_HEIGHT - 46)
        title = ""
        map_fig = fb.shortfall_map(geojson_url(a.code), a.district_ids, a.district_names, a.district_coverage,
                                   [a.district_ids[i] for i in a.short_under_recommended], a.q, a.k, view=view,
                                   district_label=a.district_label, title=title)
    model = load_country_model(a.code)
    # the body model's note is worded in the page's language already (core model_notes); the advice's notes are
    # English (shared with the CLI): ours said in the page's language, the data's own as written
    english = list(a.notes)
    notes = [*model.with_model(s.model).model_notes()[:1], *(advice_note(n, model) for n in english)]
    return {
        "sentence": recommendation_text(a),
        "cards": _cards(a),
        "front": front_fig,
        "map": map_fig,
        "no_map": no_map,
        "short_rows": _short_rows(a),
        "per_district_rows": _per_district_rows(a),
        "notes": notes,
        "quoted_notes": [n for n in notes if current_language() != "en" and n in english],
        "cli": cli_command(s),
        "query": to_query(s),
        "district_label": a.district_label,
        "map_help": _map_help(a),
    }


def warm() -> None:
    """Compute the default view once (the page opens with it)."""
    try:
        render(DEFAULTS)
    except Exception:  # noqa: BLE001 - a missing data set must not stop the server from starting
        pass
