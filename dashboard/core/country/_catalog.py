"""What the cache holds, as rows for the About page and the CLI, and as the pages' country choices
(pure, from the manifest).
"""
from __future__ import annotations

import re


def country_options(manifest: dict) -> list[dict]:
    """Every data set as a dropdown option, "Germany (DE)", in code order."""
    return [{"label": f"{d['name']} ({code})", "value": code} for code, d in sorted(manifest["datasets"].items())]


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


def source_rows(manifest: dict) -> list[dict]:
    """One row per (data set, source file): what was used, by whom, under which licence, and the
    file's sha256 (so anyone can check that a cited file is the one the cache was built from)."""
    groups: list[tuple[str, str, list]] = []
    for code, d in sorted(manifest["datasets"].items()):
        groups.append((f"{d['name']} ({code})", "population", d["sources"]))
        groups.append((f"{d['name']} ({code})", "boundaries", (d.get("boundaries") or {}).get("sources", [])))
    for country, p in sorted(manifest.get("body_priors", {}).items()):
        groups.append((f"height and weight ({country})", "body statistics", p["sources"]))
    for key, label in (("height_cohorts", "mean height by birth cohort (NCD-RisC, every country)"),
                       ("bmi_gamma", "BMI by age group, 2022 (NCD-RisC, every country)")):
        if manifest.get(key):
            groups.append((label, "body statistics", manifest[key]["sources"]))
    for _key, a in sorted(manifest.get("auxiliary", {}).items()):
        groups.append((a["name"], "auxiliary knowledge", a["sources"]))
    for _key, m in sorted(manifest.get("microdata", {}).items()):
        groups.append((m["name"], "record-level data", m["sources"]))
    return [
        {"data set": name, "kind": kind, "publisher": s["publisher"], "table": s["table_id"],
         "date": s["reference_date"], "licence": s["licence"], "file": s["file"], "sha256": s["sha256"]}
        for name, kind, sources in groups
        for s in sources
    ]


def dataset_rows(manifest: dict) -> list[dict]:
    """One row per data set: coverage, date, sources, map, and whose body statistics it uses.

    The About page's table and ``anonset data summary`` both show these rows.
    """
    rows = []
    for code, d in sorted(manifest["datasets"].items()):
        prior = d["body_prior"]
        rows.append(
            {
                "code": code,
                "name": d["name"],
                "districts": d["districts"],
                "district_label": d["district_label"],
                "population": round(d["population"]),
                "reference_date": d["reference_date"],
                "source": "; ".join(f"{s['publisher']} {s['table_id']}" for s in d["sources"]),
                "body_prior_source": prior["source"]
                + (f" ({prior['year']})" if prior.get("year") else "")
                + (f" (borrowed from {prior['borrowed_from']})" if prior.get("borrowed_from") else "")
                + ("".join(f"; {k} of {v} stand in" for k, v in sorted((prior.get("stand_ins") or {}).items()))),
                "map": d.get("boundaries") is not None,
            }
        )
    return rows
