"""Brazil, Censo Demográfico 2010: 5,565 municipalities × sex × age (IBGE via DATASUS; data set ``BR``).

One CSV of DATASUS's tabulation ``POPBR10`` of the 2010 census, as redistributed by the R
package ``csapAIH`` 0.0.4.8 with decoded columns and municipality names: ``munic_res6``,
``munic_code7``, ``munic_name``, ``uf_name``, ``sex`` (M/F), ``area`` (urban/rural),
``fxetaria`` (age code), ``age_start``, ``age_end`` (−1 = open), ``populacao``: 132 cells per
municipality (2 sexes × 2 areas × 33 age classes: single years 0–19, 5-year groups 20–79, 80+).
Boundaries: IBGE's municipal mesh via ``tbrugz/geodata-br`` (CC0), keyed by the 7-digit code.
See ``data/raw/br/PROVENANCE.md``.

Urban and rural are added; single years 0–19 are grouped into 5-year groups, so every
municipality has 0–4 … 75–79 and 80+.  Checked: every municipality has its 132 cells
exactly once; the 6-digit code is the 7-digit one without its check digit; the name and
state are the same on every row of a municipality.  Nazária (PI), installed after the mesh
was drawn, has no polygon and keeps its people.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import geometry as geo
from .notes import N_, Note, Num
from .schema import (
    LINE_COLUMN,
    CountryData,
    LoaderError,
    SourceFile,
    read_text,
    require_columns,
    validate_population,
)

CODE = "BR"
REFERENCE_DATE = "2010-08-01"  # census reference date
CENSUS_FILE = "ibge-datasus_census2010-POPBR10_municipality_sex_urbanrural_age_2010_via-csapAIH-8cfefea.csv.gz"
BOUNDARY_FILE = "ibge_municipalities_boundaries_5564_via-geodata-br-c39dfb0.geojson"

COLUMNS = ("munic_res6", "munic_code7", "munic_name", "uf_name", "sex", "area", "fxetaria", "age_start", "populacao")
#: DATASUS age classes: single years 0–19 ('0000' … '1919'), 5-year groups 20–79, 80 and over ('8099').
AGE_CODES = tuple(f"{a:02d}{a:02d}" for a in range(20)) + tuple(f"{a}{a + 4}" for a in range(20, 80, 5)) + ("8099",)
#: Each class's 5-year group: [0, 5) … [75, 80), [80, ∞).
GROUP_FROM = {code: float(min(int(code[:2]) // 5 * 5, 80)) for code in AGE_CODES}
SEXES = {"M": "male", "F": "female"}
AREAS = ("urban", "rural")
MUNICIPALITY = re.compile(r"\d{7}")

#: IBGE state codes (first two digits of a municipality code) and their abbreviations.
UF = {"11": "RO", "12": "AC", "13": "AM", "14": "RR", "15": "PA", "16": "AP", "17": "TO", "21": "MA", "22": "PI",
      "23": "CE", "24": "RN", "25": "PB", "26": "PE", "27": "AL", "28": "SE", "29": "BA", "31": "MG", "32": "ES",
      "33": "RJ", "35": "SP", "41": "PR", "42": "SC", "43": "RS", "50": "MS", "51": "MT", "52": "GO", "53": "DF"}

PUBLISHER = "Instituto Brasileiro de Geografia e Estatística (IBGE), via DATASUS"
LICENCE = "public data of the Government of Brazil (IBGE/DATASUS); package csapAIH GPL ≥ 3"
CITATION = ("IBGE, Censo Demográfico 2010, população residente por município, sexo, situação e faixa etária "
            "(DATASUS POPBR10); via the R package csapAIH 0.0.4.8")
BOUNDARY_PUBLISHER = "IBGE municipal mesh (via GitHub tbrugz/geodata-br)"
BOUNDARY_LICENCE = "CC0 1.0 (geodata-br); source IBGE"
#: 5,564 polygons, most tens of km across: ≈ 2.2 km tolerance and 3 decimals (≈ 110 m), coverage-
#: preserving: 3.1 MB served (4.1 MB at 0.01°), as Italy's 7,901 comuni (2.8 MB).  The first draw is
#: dominated by the map trace, not the vertices (benchmarks/bench_map_draw.py).
BOUNDARY_TOLERANCE = 0.02
BOUNDARY_DECIMALS = 3


#: Why a municipality of the census has no polygon in the mesh (PROVENANCE.md).
WHY_NO_POLYGON = {"2206720": Note(N_("created from {parent} after the mesh was drawn, {parent}'s polygon still covers "
                                     "it"), parent="Teresina")}


def _first_bad(mask: np.ndarray, lines: np.ndarray) -> int:
    return int(lines[int(np.flatnonzero(mask)[0])])


def read_census(path: Path) -> pd.DataFrame:
    """Every row with its line, checked: ``code7``, ``name``, ``uf``, ``sex``, ``area``, ``age`` (class code), ``count``."""
    path = Path(path)
    text = read_text(path)
    try:
        raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, on_bad_lines="error")
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise LoaderError(path, int(m.group(1)) if m else None, f"malformed row ({exc})") from None
    require_columns(raw.columns, COLUMNS, path, 1)
    if raw.empty:
        raise LoaderError(path, None, "no data rows below the header")
    lines = np.arange(len(raw)) + 2
    code7, code6 = raw["munic_code7"].str.strip(), raw["munic_res6"].str.strip()
    bad = ~code7.str.fullmatch(MUNICIPALITY).to_numpy()
    if bad.any():
        i = _first_bad(bad, lines)
        raise LoaderError(path, i, f"munic_code7 {code7.iloc[i - 2]!r} is not a 7-digit IBGE code")
    bad = (code7.str[:6] != code6).to_numpy()
    if bad.any():
        i = _first_bad(bad, lines)
        raise LoaderError(path, i, f"munic_res6 {code6.iloc[i - 2]!r} is not munic_code7 {code7.iloc[i - 2]!r} without its check digit")
    bad = ~code7.str[:2].isin(UF).to_numpy()
    if bad.any():
        i = _first_bad(bad, lines)
        raise LoaderError(path, i, f"munic_code7 {code7.iloc[i - 2]!r} is in no Brazilian state")
    for column, allowed in (("sex", SEXES), ("area", AREAS), ("fxetaria", AGE_CODES)):
        values = raw[column].str.strip()
        bad = ~values.isin(allowed).to_numpy()
        if bad.any():
            i = _first_bad(bad, lines)
            raise LoaderError(path, i, f"{column} {values.iloc[i - 2]!r} is not one of {', '.join(allowed)}")
    counts = pd.to_numeric(raw["populacao"].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(counts) | (counts < 0)
    if bad.any():
        i = _first_bad(bad, lines)
        raise LoaderError(path, i, f"populacao {raw['populacao'].iloc[i - 2]!r} is not a non-negative number")
    df = pd.DataFrame({"code7": code7, "name": raw["munic_name"].str.strip(), "uf": raw["uf_name"].str.strip(),
                       "sex": raw["sex"].str.strip().map(SEXES), "area": raw["area"].str.strip(),
                       "age": raw["fxetaria"].str.strip(), "count": counts, LINE_COLUMN: lines})
    dup = df.duplicated(["code7", "sex", "area", "age"]).to_numpy()
    if dup.any():
        i = _first_bad(dup, lines)
        r = df.iloc[i - 2]
        raise LoaderError(path, i, f"municipality {r['code7']}, {r['sex']}, {r['area']}, age {r['age']}: listed twice")
    names = df.drop_duplicates(["code7", "name", "uf"])
    clash = names["code7"].duplicated().to_numpy()
    if clash.any():
        r = names.iloc[int(np.flatnonzero(clash)[0])]
        raise LoaderError(path, int(r[LINE_COLUMN]), f"municipality {r['code7']} is named {r['name']!r} ({r['uf']}) "
                                                     "here but differently above")
    cells = df.groupby("code7").size()
    short = cells[cells != len(SEXES) * len(AREAS) * len(AGE_CODES)]
    if not short.empty:
        raise LoaderError(path, None, f"municipality {short.index[0]} has {short.iloc[0]} rows, not "
                                      f"{len(SEXES) * len(AREAS) * len(AGE_CODES)} (2 sexes × 2 areas × 33 ages): "
                                      "the table is incomplete")
    return df


def load(folder: Path) -> list[CountryData]:
    """One data set, ``BR``: 5,565 municipalities, 17 age groups (80 and over open)."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    df = read_census(path)
    df["age_from"] = df["age"].map(GROUP_FROM)
    grouped = (df.groupby(["code7", "sex", "age_from"], as_index=False, sort=False)
                 .agg(count=("count", "sum"), name=("name", "first"), uf=("uf", "first"), line=(LINE_COLUMN, "min")))
    long = pd.DataFrame({
        "district_id": grouped["code7"], "district_name": grouped["name"],
        "region_id": grouped["code7"].str[:2],
        "region_name": [f"{uf} ({UF[c[:2]]})" for uf, c in zip(grouped["uf"], grouped["code7"])],
        "sex": grouped["sex"], "age_from": grouped["age_from"],
        "age_to": np.where(grouped["age_from"] >= 80, np.nan, grouped["age_from"] + 5),
        "count": grouped["count"], "filled": False, LINE_COLUMN: grouped["line"],
    })
    population = validate_population(long, path)

    geo_path = folder / BOUNDARY_FILE
    shapes = geo.read_boundary_file(geo_path, "code7")
    shapes = shapes[shapes.geometry.notna()]
    names = dict(zip(long["district_id"], long["district_name"]))
    people = df.groupby("code7")["count"].sum()
    no_shape = sorted(set(names) - set(shapes["district_id"]))
    unused = sorted(set(shapes["district_id"]) - set(names))
    if unused:
        raise LoaderError(geo_path, None, f"polygon(s) {unused[:5]} have no municipality in {CENSUS_FILE}")
    urban = float(df.loc[df["area"] == "urban", "count"].sum())
    notes = [
        Note(N_("Old data: the census of 2010 (reference date 1 August 2010), {people} people in {n} municipalities "
                "of {states} states; Brazil has counted again since (census 2022), and five municipalities were "
                "created after 2010."), people=Num(people.sum()), n=Num(len(names)), states=Num(27)),
        Note(N_("Urban ({urban}) and rural people are added. Single years 0–19 are grouped into five-year groups; "
                "{top} and over form one open-ended group."), urban=Num(urban), top="80"),
        Note(N_("Names as in the census table; the map is IBGE's municipal mesh, simplified (≈ 2 km) for the web.")),
    ]
    if no_shape:
        notes.append(geo.missing_polygons_note(geo.NO_POLYGON_MUNICIPALITIES, no_shape, names, people, extra=WHY_NO_POLYGON))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="Censo 2010, DATASUS POPBR10",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER,
                            table_id="malha municipal (geodata-br geojs-<UF>-mun)", reference_date="2010",
                            licence=BOUNDARY_LICENCE, citation="tbrugz/geodata-br, 27 state files merged, simplified")
    return [CountryData(
        code=CODE,
        name="Brazil — census 2010",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="municipality",
        region_label="state",
        boundaries=shapes[["district_id", "geometry"]].reset_index(drop=True),
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=BOUNDARY_DECIMALS,
        notes=notes,
    )]
