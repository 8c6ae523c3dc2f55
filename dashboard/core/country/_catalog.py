"""What the cache holds, as rows for the About page and the CLI, and as the pages' country choices
(pure, from the manifest).
"""
from __future__ import annotations

import re

from babel import Locale

from census_loaders import closest_codes, dataset_info, fold

from ..text import N_, current_language, gettext

#: The order continents are listed in (then anything else, e.g. a code no table places).
CONTINENT_ORDER = ("Africa", "Asia", "Europe", "North America", "South America", "Oceania")
#: Value prefix of a continent's heading in a country picker (a disabled option: it cannot be chosen).
HEADING = "__continent__"


def closest_note(codes, root=None) -> str:
    """" (closest: DE (Germany), …)" for codes nobody knows, or "" when nothing is near (links, forms)."""
    near = list(dict.fromkeys(c for code in codes for c in closest_codes(str(code)[:40], root, n=3)))
    if not near:
        return ""
    codes = ", ".join(f"{c} ({dataset_info(c, root).get('country_name') or c})" for c in near)
    return " (" + gettext("closest: {codes}").format(codes=codes) + ")"


#: The continents' names, marked for translation (the headings of the country list).
CONTINENTS = (N_("Africa"), N_("Asia"), N_("Europe"), N_("North America"), N_("South America"), N_("Oceania"),
              N_("Other"))


def continent_of(d: dict) -> str:
    return d.get("continent") or "Other"


def _continent_rank(name: str) -> tuple[int, str]:
    return (CONTINENT_ORDER.index(name) if name in CONTINENT_ORDER else len(CONTINENT_ORDER), name)


#: What follows a data set's country in its name, marked for translation (the data set's name is data; these
#: few descriptions are the catalogue's): tests/core/country/test_catalog_descriptions.py checks every shipped one
#: is here.
DATASET_DESCRIPTIONS = (
    N_("ZIP code areas of Maine and New Hampshire (ACS 2016–2020)"), N_("statistical areas level 2"),
    N_("census 2011"), N_("census 2010"), N_("census 2017"), N_("census 2020"), N_("estimates 2015"),
    N_("UN model estimate for 2025, no districts"), N_("sub-counties, census 2019"), N_("counties, census 2019"),
    N_("municipalities"))


def territory_name(code: str) -> str:
    """Any country or territory by its ISO code in the current language (CLDR through Babel: "CH" → "Schweiz"), for
    one that need not have a data set of its own (a stand-in's); the code itself when CLDR does not know it."""
    return Locale.parse(current_language()).territories.get(code.upper(), code)


def country_name(code: str, d: dict | None = None) -> str:
    """A data set's country in the current language (Unicode CLDR through Babel: "Deutschland", "Alemanha");
    English: the name the data set gives."""
    d = d if d is not None else dataset_info(code)
    english = d.get("country_name") or d["name"].split(" — ", 1)[0]
    lang = current_language()
    if lang == "en":
        return english
    return Locale.parse(lang).territories.get(code.split("-", 1)[0].upper(), english)


def dataset_title(code: str, d: dict | None = None) -> str:
    """A data set's name in the current language: its country (:func:`country_name`) and its description."""
    d = d if d is not None else dataset_info(code)
    if current_language() == "en":
        return d["name"]
    head, sep, tail = d["name"].partition(" — ")
    return country_name(code, d) + (sep + gettext(tail) if sep else "")


def option_label(code: str, d: dict) -> str:
    """"Germany (DE) · Deutschland", "Nigeria — national only, UN estimate 2025 (NG)" (in the current language)."""
    name = dataset_title(code, d)
    if d.get("national_model"):
        name = gettext("{country} — national only, UN estimate {year}").format(
            country=country_name(code, d), year=str(d["reference_date"])[:4])
    local = [n for n in d.get("local_names", []) if n not in name]
    return f"{name} ({code})" + (f" · {local[0]}" if local else "")


def search_text(code: str, d: dict) -> str:
    """What a country's option is found by: its code, English, local and other names, and its continent —
    each also without accents and with punctuation as spaces ("cote d ivoire"), so Dash's word search finds it."""
    title = "" if d.get("national_model") else d["name"]  # "UN model estimate …" would match every one
    names = [code, d.get("country", ""), d.get("country_name", ""), title, *d.get("local_names", []),
             *d.get("search_names", []), continent_of(d)]
    words: list[str] = []
    for n in names:
        for variant in (n, fold(n), re.sub(r"[^\w]+", " ", fold(n))):
            if variant and variant not in words:
                words.append(variant)
    return " ".join(words)


#: The last manifest's options (the cache hands out one manifest object until it is rebuilt): pages
#: render the picker on every visit, and folding ~230 data sets' names takes ~0.1 s.
_LAST_OPTIONS: dict[tuple[bool, str], tuple[dict, list[dict]]] = {}


def country_options(manifest: dict, headings: bool = True) -> list[dict]:
    """Every data set as a dropdown option, grouped by continent (a disabled heading before each group),
    then by country name and code; each option carries ``search`` (:func:`search_text`).

    Shared between calls for the same manifest object: treat as read-only.
    """
    key = (headings, current_language())
    last = _LAST_OPTIONS.get(key)
    if last is not None and last[0] is manifest:
        return last[1]
    out = _country_options(manifest, headings)
    _LAST_OPTIONS[key] = (manifest, out)
    return out


def _country_options(manifest: dict, headings: bool) -> list[dict]:
    datasets = manifest["datasets"]
    order = sorted(datasets, key=lambda c: (_continent_rank(continent_of(datasets[c])),
                                            fold(datasets[c].get("country_name") or datasets[c]["name"]), c))
    out, current = [], None
    for code in order:
        d = datasets[code]
        if headings and continent_of(d) != current:
            current = continent_of(d)
            out.append({"label": f"— {gettext(current)} —", "value": HEADING + current, "disabled": True,
                        "search": current})
        search = search_text(code, d) + ("" if current_language() == "en" else " " + fold(country_name(code, d)))
        label = option_label(code, d)
        out.append({"label": label, "value": code, "search": words_beyond(label, search)})
    return out


def words_beyond(label: str, search: str) -> str:
    """The words of ``search`` that Dash's dropdown would not find in ``label`` or a longer word already kept.

    The dropdown lower-cases an option's label and ``search``, splits them at spaces and indexes every substring
    of every word (js-search's all-substrings strategy), so a word inside another word finds nothing more.  At
    mount, indexing ~200 countries' words took ~0.15 s of the page's main thread (issue 26, maps that stay
    fast): half of the substrings were repeats.  What a person can type to find an option does not change."""
    have = label.lower().split()
    kept: list[str] = []
    for word in sorted(dict.fromkeys(search.lower().split()), key=len, reverse=True):
        if not any(word in other for other in have + kept):
            kept.append(word)
    return " ".join(kept)


def district_label(name: str, district_id: str, region_name: str = "", region_id: str = "",
                   filled: bool = False, with_region: bool = True) -> str:
    """A district as people search for it: "Castro — Lecce (075019)".

    The region (province, state, Land) is part of the label so that a district can be
    found by its region and two districts of one name (Castro, BG and Castro, LE) are told
    apart.  It is left out where it adds nothing: ``with_region=False`` (a data set with a
    single region), a region named like the district (Berlin, Berlin), or a region known
    only by its code (Eurostat's NUTS-2 regions).
    """
    region_name, name, district_id = str(region_name or ""), str(name), str(district_id)
    show = with_region and region_name and region_name not in (name, str(region_id or ""))
    label = f"{name} — {region_name}" if show else name
    if district_id != _slug(name):  # an id made from the name (New Zealand's areas) says nothing more
        label += f" ({district_id})"
    return label + (" — filled" if filled else "")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "").replace("’", "")).strip("-")


#: The kinds of source file, marked for translation (the About page shows them in the visitor's language).
SOURCE_KINDS = {"population": N_("population"), "boundaries": N_("boundaries"), "body statistics": N_("body statistics"),
                "auxiliary knowledge": N_("auxiliary knowledge"), "record-level data": N_("record-level data")}


def source_rows(manifest: dict) -> list[dict]:
    """One row per (data set, source file): what was used, by whom, under which licence, and the
    file's sha256 (so anyone can check that a cited file is the one the cache was built from).

    Our own words (the kind, a data set's name) are in the current language; a source's citation, and an auxiliary
    or record-level table's name (its own documentation, GLOSSARY.md), are as published.
    """
    groups: list[tuple[str, str, list]] = []
    for code, d in sorted(manifest["datasets"].items()):
        name = f"{dataset_title(code, d)} ({code})"
        groups.append((name, "population", d["sources"]))
        groups.append((name, "boundaries", (d.get("boundaries") or {}).get("sources", [])))
    for country, p in sorted(manifest.get("body_priors", {}).items()):
        groups.append((gettext("height and weight ({country})").format(country=country), "body statistics",
                       p["sources"]))
    for key, label in (("height_cohorts", N_("mean height by birth cohort (NCD-RisC, every country)")),
                       ("bmi_gamma", N_("BMI by age group, 2022 (NCD-RisC, every country)"))):
        if manifest.get(key):
            groups.append((gettext(label), "body statistics", manifest[key]["sources"]))
    for _key, a in sorted(manifest.get("auxiliary", {}).items()):
        groups.append((a["name"], "auxiliary knowledge", a["sources"]))
    for _key, m in sorted(manifest.get("microdata", {}).items()):
        groups.append((m["name"], "record-level data", m["sources"]))
    return [
        {"data set": name, "kind": gettext(SOURCE_KINDS[kind]), "publisher": s["publisher"], "table": s["table_id"],
         "date": s["reference_date"], "licence": s["licence"], "file": s["file"], "sha256": s["sha256"]}
        for name, kind, sources in groups
        for s in sources
    ]


def _districts_with_geometry(d: dict) -> int:
    b = d.get("boundaries")
    return int(b["features"]) if b else 0


def dataset_rows(manifest: dict) -> list[dict]:
    """One row per data set: coverage, date, grain, sources, licence, map, and whose body statistics it uses.

    The About page's table and ``anonset data summary`` both show these rows (grouped by continent, then
    by country name).
    """
    rows = []
    datasets = manifest["datasets"]
    order = sorted(datasets, key=lambda c: (_continent_rank(continent_of(datasets[c])),
                                            fold(datasets[c].get("country_name") or c), c))
    for code in order:
        d = datasets[code]
        prior = d["body_prior"]
        rows.append(
            {
                "code": code,
                "name": d["name"],
                "country": d.get("country_name") or code,
                "local_names": d.get("local_names", []),
                "continent": continent_of(d),
                "districts": d["districts"],
                "districts_with_geometry": _districts_with_geometry(d),
                "district_label": d["district_label"],
                "grain": d.get("grain") or d["district_label"],
                "population": round(d["population"]),
                "reference_date": d["reference_date"],
                "reference_year": int(str(d["reference_date"])[:4]) if str(d["reference_date"])[:4].isdigit() else None,
                "source": "; ".join(f"{s['publisher']} {s['table_id']}" for s in d["sources"]),
                "licence": d.get("licence") or "; ".join(dict.fromkeys(s["licence"] for s in d["sources"])),
                "body_prior_source": prior["source"]
                + (f" ({prior['year']})" if prior.get("year") else "")
                + (f" (borrowed from {prior['borrowed_from']})" if prior.get("borrowed_from") else "")
                + ("".join(f"; {k} of {v} stand in" for k, v in sorted((prior.get("stand_ins") or {}).items()))),
                "map": d.get("boundaries") is not None,
                "national_model": bool(d.get("national_model")),
                "wpp_gap": (d.get("wpp_check") or {}).get("gap"),
            }
        )
    return rows


def map_datasets(manifest: dict) -> dict[str, str]:
    """The one data set that stands for each country (ISO2 → code): its national data set (code = the ISO
    code, e.g. AU not AU-SA2, KE not KE-SUB, IT not IT-COM) or else its largest; data sets covering part of a
    country (US-ZCTA) only when nothing else does.  The world total counts these, the world map colours them."""
    by_country: dict[str, list[tuple[str, dict]]] = {}
    for code, d in manifest["datasets"].items():
        by_country.setdefault(d.get("country") or code.split("-")[0], []).append((code, d))
    chosen = {}
    for country, items in by_country.items():
        whole = [(c, d) for c, d in items if not d.get("part_of_country")] or items
        exact = [(c, d) for c, d in whole if c == country]
        chosen[country] = (exact or sorted(whole, key=lambda cd: -cd[1]["population"]))[0][0]
    return chosen


def world_total(manifest: dict) -> dict:
    """The people of every country, each counted once (the data sets of :func:`map_datasets`)."""
    chosen = {country: (code, manifest["datasets"][code]) for country, code in map_datasets(manifest).items()}
    national = sum(1 for _, d in chosen.values() if d.get("national_model"))
    return {
        "population": round(sum(d["population"] for _, d in chosen.values())),
        "countries": len(chosen),
        "countries_with_districts": len(chosen) - national,
        "countries_national_only": national,
        "data_sets": len(manifest["datasets"]),
        "counted": sorted(c for c, _ in chosen.values()),
    }


def census_source(sources) -> dict:
    """A data set's population sources as one citation: every publisher and every table once, in order, so a
    data set published in one file per sex (US: CDC WONDER's female and male files) names both, not the first."""
    sources = list(sources or ())
    once = lambda key: "; ".join(dict.fromkeys(str(s.get(key, "")) for s in sources if s.get(key)))
    return {"publisher": once("publisher"), "table_id": once("table_id")}
