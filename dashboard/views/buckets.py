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
from dashboard import ids
from dashboard.core import country as catalog
from dashboard.core.body import DEFAULT_MODEL, check_model
from dashboard.core.buckets import (
    Advice,
    advice_if_cached,
    advise,
    check_coverage,
    check_k,
    export_csv,
    export_json,
    recommendation_text,
)
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import format_age_band
from dashboard.core.text import format_count, plural, share_setting
from dashboard.figures import buckets as fb
from dashboard.figures.maps import geojson_url, view_of
from dashboard.server import limits

PAGE = "buckets"
PATH = "/explore/buckets"
TITLE = "For app developers: safe bucket sizes"
ID = {name: ids.make(PAGE, name) for name in (
    "country", "k", "coverage", "per-district", "model", "message", "notices", "sentence", "cards", "front", "map", "map-box",
    "no-map", "map-help", "short-table", "short-box", "per-district-box", "per-district-table", "cli", "download-json",
    "download-csv", "button-json", "button-csv", "query", "url-sync", "notes", "button-report", "download-report",
    "report-message",
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
        raise InputError(f"{what} {value!r} is not a number") from None
    if not math.isfinite(x):
        raise InputError(f"{what} {value!r} is not a finite number")
    return x


def parse_form(country, k, coverage_percent, per_district, model=None) -> Settings:
    """The form's values (coverage in percent) as settings; bad ones are InputErrors with the field named."""
    code = str(country or "").strip().upper()
    if not code:
        raise InputError("choose a country")
    if code not in cl.countries():
        try:
            cl.canonical_code(code)
        except cl.UnknownDataset as exc:  # names the closest codes
            raise InputError(str(exc)) from None
    kk = check_k(_number(k, "k"))
    pct = _number(coverage_percent, "coverage")
    if not (0 < pct <= 100):
        raise InputError(f"coverage must lie above 0 % and at most 100 %, not {pct:g} %")
    return Settings(code, kk, pct / 100.0, bool(per_district), check_model(model or DEFAULT_MODEL))


def from_query(query: Mapping) -> tuple[Settings, tuple[str, ...]]:
    """Settings from a link (``?country=DE&k=10&coverage=0.95&per_district=1``); bad parts reported and defaulted."""
    q = {str(key): ("" if v is None else str(v[0] if isinstance(v, (list, tuple)) and v else v))
         for key, v in dict(query).items()}
    notices = []
    country, k, cov, per, model = DEFAULTS
    if "country" in q:
        code = q["country"].strip().upper()
        if code in cl.countries():
            country = code
        else:
            notices.append(f"Unknown country {q['country'][:40]!r} in the link{catalog.closest_note([code])}; "
                           f"showing {DEFAULT_COUNTRY}.")
    if "k" in q:
        try:
            k = check_k(_number(q["k"], "k"))
        except InputError as exc:
            notices.append(f"{exc} (in the link); using k = {DEFAULT_K:g}.")
    if "coverage" in q:
        try:
            cov = check_coverage(_number(q["coverage"], "coverage"))
        except InputError as exc:
            notices.append(f"{exc} (in the link); using {DEFAULT_COVERAGE:.0%}.")
    if "per_district" in q:
        per = q["per_district"].strip().lower() in ("1", "true", "yes", "on")
    if "model" in q:
        try:
            model = check_model(q["model"])
        except InputError as exc:
            notices.append(f"{exc} (in the link); using {DEFAULT_MODEL}.")
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
    with limits.heavy_slot("This advice", cli_command(s)):
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
    raise InputError(f"unknown export {kind!r}")


def _cards(a: Advice) -> list[dict]:
    rec = a.recommended
    label = plural(a.district_label)
    n_short = len(a.short_under_recommended)
    area = None if rec is None else rec.config.area
    if area == "district_or_region":
        last = {"title": f"{label} withheld", "value": f"{n_short:,} of {len(a.district_ids):,}",
                "explain": f"below the target with the {a.district_label} itself: released with the {a.region_label}"}
    elif area in ("region", "withheld"):
        last = {"title": f"{label} below the target", "value": f"{n_short:,} of {len(a.district_ids):,}",
                "explain": f"if the {a.district_label} were released with these buckets (it is not)"}
    else:
        last = {"title": f"{label} below the target", "value": f"{n_short:,} of {len(a.district_ids):,}",
                "explain": "their own people, under the recommended buckets"}
    return [
        {"title": f"people with CAS ≥ {a.k:g}", "value": "–" if rec is None else f"{rec.coverage:.1%}",
         "explain": f"target {share_setting(a.q)} of {format_count(a.people)} people aged {format_age_band(*a.study)}"},
        {"title": "information kept", "value": "–" if rec is None else f"{rec.bits:.1f} bits",
         "explain": "entropy of the released profile per person"},
        {"title": "configurations searched", "value": f"{len(a.evaluated):,}",
         "explain": f"{len(a.front)} on the Pareto front; exact coverage for each"},
        last,
    ]


def _map_help(a: Advice) -> str:
    if a.recommended is None:
        return ""
    dl, dls = a.district_label, plural(a.district_label)
    text = (f"Colour: the share of each {dl}'s own people whose CAS is at least {a.k:g} with the recommended age "
            f"groups and bands, released with the {dl}. ")
    area = a.recommended.config.area
    most = 2 * len(a.short_under_recommended) > len(a.district_ids)
    outlined = (f"Outlined in black: the {dls} at or above {share_setting(a.q)} (most fall below it)" if most
                else f"Outlined: the {dls} below {share_setting(a.q)}")
    if area == "district":
        text += (f"The target counts the whole country, so large cities can carry small {dls}. {outlined}. Tick "
                 f"\"each district's own finest safe buckets\" for a per-district answer.")
    elif area == "district_or_region":
        text += (f"The {dls} below {share_setting(a.q)} are the ones the recommendation withholds (it gives their "
                 f"{a.region_label}). {outlined}.")
    else:
        text += (f"The recommendation does not release the {dl} at all; this shows what releasing it would give. "
                 f"{outlined}.")
    return text


def _short_rows(a: Advice) -> list[dict]:
    rows = []
    for d in sorted(a.short_under_recommended, key=lambda d: a.district_coverage[d]):
        rows.append({"district": a.district_names[d], "district_id": a.district_ids[d],
                     "people": format_count(a.district_people[d]),
                     "coverage": f"{100 * a.district_coverage[d]:.1f} %"})
    return rows


def _per_district_rows(a: Advice) -> list[dict]:
    if a.per_district is None:
        return []
    out = []
    for r in a.per_district.rows():
        if r["withhold_district"]:
            what = f"withhold the {a.district_label}"
        else:
            what = fb.describe({**r, "area": "district"}, a.district_label, a.region_label).rsplit(" · ", 1)[0]
        out.append({"district": r["district_name"], "district_id": r["district_id"],
                    "finest safe buckets": what,
                    "coverage": "–" if r["coverage"] is None else f"{100 * r['coverage']:.1f} %",
                    "bits": "–" if r["bits"] is None else f"{r['bits']:.1f}"})
    return out


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
        no_map = "No configuration meets the target, so there is no choice to map."
    elif cl.boundaries(a.code) is None:
        no_map = info.get("boundary_note") or f"No {a.district_label} boundaries are available for this data set."
    else:
        view = view_of(info["boundaries"]["frame"], fb.MAP_WIDTH, fb.MAP_HEIGHT - 46)
        title = ""
        map_fig = fb.shortfall_map(geojson_url(a.code), a.district_ids, a.district_names, a.district_coverage,
                                   [a.district_ids[i] for i in a.short_under_recommended], a.q, a.k, view=view,
                                   district_label=a.district_label, title=title)
    return {
        "sentence": recommendation_text(a),
        "cards": _cards(a),
        "front": front_fig,
        "map": map_fig,
        "no_map": no_map,
        "short_rows": _short_rows(a),
        "per_district_rows": _per_district_rows(a),
        "notes": [*load_country_model(a.code).with_model(s.model).model_notes()[:1], *a.notes],
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
