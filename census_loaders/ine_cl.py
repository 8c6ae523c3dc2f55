"""Chile, Censo 2017: 346 comunas × sex × 5-year age (INE Chile; data set ``CL``).

One CSV of the census counts as redistributed by the R package ``chilemapas`` 0.3.0
(``censo_2017_comunas`` joined with ``codigos_territoriales``): ``codigo_comuna`` (5 digits,
text), ``nombre_comuna``, ``codigo_provincia``, ``nombre_provincia``, ``codigo_region``,
``nombre_region``, ``sexo``, ``sex`` (M/F), ``edad``, ``age_group`` (``0-4`` … ``95-99``,
``100+``), ``age_start``, ``poblacion``.  Boundaries: the package's comuna map, keyed by
``codigo_comuna``.  See ``data/raw/cl/PROVENANCE.md``.

Checked: every comuna has all 42 sex × age cells exactly once; a comuna's code starts with
its region's code and its name, province and region are the same on every row.  Antártica
(12202) has no polygon and keeps its people.
"""
from __future__ import annotations

import csv
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
    parse_count,
    read_text,
    require_columns,
    validate_population,
)

CODE = "CL"
REFERENCE_DATE = "2017-04-19"  # census day
CENSUS_FILE = "ine_censo2017_comuna_sex_age5_2017_via-chilemapas-0.3.0.csv.gz"
BOUNDARY_FILE = "ine_2017_comunas_boundaries_345_via-chilemapas-0.3.0.geojson"

COLUMNS = ("codigo_comuna", "nombre_comuna", "codigo_provincia", "nombre_provincia", "codigo_region",
           "nombre_region", "sex", "age_group", "poblacion")
AGE_GROUPS = tuple(f"{a}-{a + 4}" for a in range(0, 100, 5)) + ("100+",)
SEXES = {"M": "male", "F": "female"}
COMUNA = re.compile(r"\d{5}")

PUBLISHER = "Instituto Nacional de Estadísticas (INE), Chile"
LICENCE = "INE Chile open data (attribution: INE, Censo 2017); package chilemapas GPL-3"
CITATION = ("INE, Censo de Población y Vivienda 2017, población por comuna, sexo y edad quinquenal; "
            "via the R package chilemapas 0.3.0 (censo_2017_comunas)")
BOUNDARY_PUBLISHER = "INE Chile (comuna map of the R package chilemapas 0.3.0)"
BOUNDARY_LICENCE = "INE Chile data; package chilemapas GPL-3; reference map without legal validity (DFL-83 of 1979)"
#: ≈ 900 m tolerance, 4 decimals: Santiago's comunas (≈ 5 km across) stay recognisable, and the
#: fjords and islands of the south (2,453 polygon parts) take about 1 MB (0.003 gave 2.5 MB).
BOUNDARY_TOLERANCE = 0.008
BOUNDARY_DECIMALS = 4


def read_census(path: Path) -> pd.DataFrame:
    """Every row, checked: comuna, province and region codes and names, ``sex``, ``age_group``, ``count``."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    rows, seen, places, first_line = [], {}, {}, {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        code, sex, age = (rec[col[c]].strip() for c in ("codigo_comuna", "sex", "age_group"))
        if not COMUNA.fullmatch(code):
            raise LoaderError(path, line, f"codigo_comuna {code!r} is not a 5-digit comuna code")
        if sex not in SEXES:
            raise LoaderError(path, line, f"sex {sex!r} is not M or F")
        if age not in AGE_GROUPS:
            raise LoaderError(path, line, f"unknown age group {age!r}")
        if (code, sex, age) in seen:
            raise LoaderError(path, line, f"comuna {code}, {sex}, age {age}: listed twice (first on line {seen[code, sex, age]})")
        seen[code, sex, age] = line
        place = tuple(rec[col[c]].strip() for c in ("nombre_comuna", "codigo_provincia", "nombre_provincia",
                                                     "codigo_region", "nombre_region"))
        if not code.startswith(place[3]) or not place[1].startswith(place[3]):
            raise LoaderError(path, line, f"comuna {code} is not in region {place[3]!r}")
        first_line.setdefault(code, line)
        if places.setdefault(code, place) != place:
            raise LoaderError(path, line, f"comuna {code}: its names or codes differ from line {first_line[code]}")
        count = parse_count(rec[col["poblacion"]], path, line, f"poblacion ({code}, {sex}, {age})")
        rows.append((code, *place, SEXES[sex], age, count, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    for code in places:
        for sex in SEXES:
            for age in AGE_GROUPS:
                if (code, sex, age) not in seen:
                    raise LoaderError(path, None, f"no row for comuna {code}, {sex}, age {age}: the table is incomplete")
    return pd.DataFrame(rows, columns=["district_id", "district_name", "province_id", "province_name", "region_id",
                                       "region_name", "sex", "age_group", "count", LINE_COLUMN])


def load(folder: Path) -> list[CountryData]:
    """One data set, ``CL``: 346 comunas, 21 age groups (100 and over open); Antártica without a polygon."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    df = read_census(path)
    order = {a: i for i, a in enumerate(AGE_GROUPS)}
    age_from = np.array([5.0 * order[a] for a in df["age_group"]])
    df["age_from"] = age_from
    df["age_to"] = np.where(age_from >= 100, np.nan, age_from + 5)
    df["filled"] = False
    population = validate_population(df, path)

    geo_path = folder / BOUNDARY_FILE
    shapes = geo.read_boundary_file(geo_path, "codigo_comuna")
    shapes = shapes[shapes.geometry.notna()]
    comunas = dict(zip(df["district_id"], df["district_name"]))
    people = df.groupby("district_id")["count"].sum()
    no_shape = sorted(set(comunas) - set(shapes["district_id"]))
    unused = sorted(set(shapes["district_id"]) - set(comunas))
    notes = [
        Note(N_("Censo 2017 (census day 19 April 2017): {people} people in {n} comunas, {provinces} provinces and "
                "{regions} regions (incl. Ñuble, created in 2018)."), people=Num(people.sum()), n=Num(len(comunas)),
             provinces=Num(df["province_id"].nunique()), regions=Num(df["region_id"].nunique())),
        Note(N_("Five-year age groups; {top} and over form one open-ended group. Names are written without accents or "
                "ñ, as in the source (e.g. Maipu, Nuble)."), top="100"),
        Note(N_("The comuna map is simplified, a reference map without legal validity (DFL-83 of 1979).")),
    ]
    if no_shape:
        notes.append(geo.missing_polygons_note(geo.NO_POLYGON_COMUNAS, no_shape, comunas, people))
    if unused:
        raise LoaderError(geo_path, None, f"polygon(s) {unused[:5]} have no comuna in {CENSUS_FILE}")
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="Censo 2017, población por comuna, sexo y edad",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER,
                            table_id="chilemapas mapa_comunas (2017 comunas)", reference_date="2017",
                            licence=BOUNDARY_LICENCE, citation="chilemapas 0.3.0, data/mapa_comunas.rda")
    return [CountryData(
        code=CODE,
        name="Chile — census 2017",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="comuna",
        region_label="region",
        boundaries=shapes[["district_id", "geometry"]].reset_index(drop=True),
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=BOUNDARY_DECIMALS,
        notes=notes,
    )]
