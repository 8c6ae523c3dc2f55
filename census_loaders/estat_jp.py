"""Japan, 2020 census (令和2年国勢調査): 47 prefectures × sex × 5-year age (Statistics Bureau; data set ``JP``).

One CSV transcribed from the Statistics Bureau's table 男女・年齢・国籍別人口 (e-Stat
``sid=0003445217``, published raw values, not the imputed 不詳補完値 series), as served by
``japan-population/japan-population.github.io``: ``pref_code`` (JIS X 0401, two digits),
``pref_name_ja``, ``pref_name_en``, ``sex`` (M/F), ``age_group`` (``0-4`` … ``90-94``,
``95+``, ``unknown``), ``age_start``, ``population``, ``value_type``.  Boundaries: Global
Map Japan (GSI) prefectures, keyed by ``pref_code``.  See ``data/raw/jp/PROVENANCE.md``.

The 2,931,838 people of unknown age (2.3 %) are spread over the age groups of their
prefecture and sex in proportion (:mod:`census_loaders.unknown_age`), and the data set
says so.  Checked: every prefecture × sex has each of the 21 rows exactly once; codes are
01–47 and their names agree between rows and with the boundary file.
"""
from __future__ import annotations

import csv
import io
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
from .unknown_age import spread_unknown_age

CODE = "JP"
REFERENCE_DATE = "2020-10-01"
CENSUS_FILE = "stat-japan_census2020_prefecture_sex_age5_2020_via-japan-population.github.io-02a9b46.csv.gz"
BOUNDARY_FILE = "gsi-globalmap-japan_prefectures_boundaries_47_via-dataofjapan-land-9d753ba.geojson"

COLUMNS = ("pref_code", "pref_name_ja", "pref_name_en", "sex", "age_group", "age_start", "population")
AGE_GROUPS = tuple(f"{a}-{a + 4}" for a in range(0, 95, 5)) + ("95+",)
UNKNOWN = "unknown"
SEXES = {"M": "male", "F": "female"}
PREFECTURES = tuple(f"{i:02d}" for i in range(1, 48))

#: The eight regions (地方) of Japan by JIS prefecture code, the usual grouping of prefectures.
REGIONS = (
    ("1", "Hokkaido (北海道)", range(1, 2)),
    ("2", "Tohoku (東北)", range(2, 8)),
    ("3", "Kanto (関東)", range(8, 15)),
    ("4", "Chubu (中部)", range(15, 24)),
    ("5", "Kinki (近畿)", range(24, 31)),
    ("6", "Chugoku (中国)", range(31, 36)),
    ("7", "Shikoku (四国)", range(36, 40)),
    ("8", "Kyushu and Okinawa (九州・沖縄)", range(40, 48)),
)

PUBLISHER = "Statistics Bureau of Japan (総務省統計局)"
LICENCE = "Government of Japan Standard Terms of Use 2.0 (政府標準利用規約, compatible with CC BY 4.0); 出典：総務省統計局 国勢調査"
CITATION = ("Statistics Bureau of Japan, 2020 Population Census (令和2年国勢調査), 男女・年齢・国籍別人口, "
            "e-Stat sid=0003445217, published raw values (公表原数値); via GitHub japan-population/"
            "japan-population.github.io")
BOUNDARY_PUBLISHER = "Geospatial Information Authority of Japan (国土地理院), Global Map Japan (地球地図日本)"
BOUNDARY_LICENCE = "GSI terms of use: attribution 出典：地球地図日本 (a usage report for commercial use)"
#: Prefectures are hundreds of km across: ≈ 1 km tolerance, 4 decimals (≈ 11 m).
BOUNDARY_TOLERANCE = 0.01
BOUNDARY_DECIMALS = 4


def region_of(pref_code: str) -> tuple[str, str]:
    number = int(pref_code)
    for region_id, name, codes in REGIONS:
        if number in codes:
            return region_id, name
    raise ValueError(f"no region for prefecture {pref_code}")


def read_census(path: Path) -> pd.DataFrame:
    """Every row, checked: ``pref_code``, ``name_ja``, ``name_en``, ``sex``, ``age_group``, ``count``, ``source_line``."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    rows, seen, names = [], {}, {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        code, sex, age = (rec[col[c]].strip() for c in ("pref_code", "sex", "age_group"))
        if code not in PREFECTURES:
            raise LoaderError(path, line, f"pref_code {code!r} is not a prefecture code 01–47")
        if sex not in SEXES:
            raise LoaderError(path, line, f"sex {sex!r} is not M or F")
        if age not in AGE_GROUPS and age != UNKNOWN:
            raise LoaderError(path, line, f"unknown age group {age!r}")
        if (code, sex, age) in seen:
            raise LoaderError(path, line, f"prefecture {code}, {sex}, age {age}: listed twice "
                                          f"(first on line {seen[code, sex, age]})")
        seen[code, sex, age] = line
        name = (rec[col["pref_name_ja"]].strip(), rec[col["pref_name_en"]].strip())
        if names.setdefault(code, name) != name:
            raise LoaderError(path, line, f"prefecture {code} is named {name} here but {names[code]} above")
        count = parse_count(rec[col["population"]], path, line, f"population ({code}, {sex}, {age})")
        rows.append((code, *name, sex, age, count, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    for code in PREFECTURES:
        for sex in SEXES:
            for age in (*AGE_GROUPS, UNKNOWN):
                if (code, sex, age) not in seen:
                    raise LoaderError(path, None, f"no row for prefecture {code}, {sex}, age {age}: the table is incomplete")
    return pd.DataFrame(rows, columns=["pref_code", "name_ja", "name_en", "sex", "age_group", "count", LINE_COLUMN])


def boundaries(path: Path, names_ja: dict[str, str]):
    """The prefecture polygons, keyed by ``pref_code``; their Japanese names must match the census file's.

    Features whose geometry is missing or empty are dropped (the staged file has two: Niigata and
    Kagoshima come as ``POLYGON EMPTY``); those prefectures are then reported as having no polygon.
    """
    shapes = geo.read_boundary_file(path, "pref_code", ("pref_name_ja",))
    for code, name in zip(shapes["district_id"], shapes["pref_name_ja"]):
        if code in names_ja and names_ja[code] != name:
            raise LoaderError(path, None, f"prefecture {code} is {name!r} here but {names_ja[code]!r} in the census file")
    drawn = shapes.geometry.map(lambda g: g is not None and not g.is_empty).astype(bool)
    return shapes.loc[drawn, ["district_id", "geometry"]]


def load(folder: Path) -> list[CountryData]:
    """One data set, ``JP``: 47 prefectures, 20 age groups (95 and over open), unknown ages spread."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    df = read_census(path)
    df["district_id"] = df["pref_code"]
    df["sex"] = df["sex"].map(SEXES)
    known, unknown = df[df["age_group"] != UNKNOWN].copy(), df[df["age_group"] == UNKNOWN]
    spread, stuck = spread_unknown_age(known, unknown)
    if not stuck.empty:  # cannot happen with real data: every prefecture and sex has people of known age
        row = stuck.iloc[0]
        raise LoaderError(path, None, f"prefecture {row['district_id']} ({row['sex']}) has people of unknown age "
                                      "but none of known age")
    order = {a: i for i, a in enumerate(AGE_GROUPS)}
    age_from = np.array([5.0 * order[a] for a in spread["age_group"]])
    regions = [region_of(c) for c in spread["pref_code"]]
    long = pd.DataFrame({
        "district_id": spread["pref_code"].to_numpy(),
        "district_name": [f"{en} ({ja})" for en, ja in zip(spread["name_en"], spread["name_ja"])],
        "region_id": [r[0] for r in regions], "region_name": [r[1] for r in regions],
        "sex": spread["sex"].to_numpy(), "age_from": age_from,
        "age_to": np.where(age_from >= 95, np.nan, age_from + 5),
        "count": spread["count"].to_numpy(), "filled": False, LINE_COLUMN: spread[LINE_COLUMN].to_numpy(),
    })
    population = validate_population(long, path)

    geo_path = folder / BOUNDARY_FILE
    names_ja = dict(zip(df["pref_code"], df["name_ja"]))
    names_en = dict(zip(df["pref_code"], df["name_en"]))
    shapes = boundaries(geo_path, names_ja)
    total, n_unknown = float(df["count"].sum()), float(unknown["count"].sum())
    share = unknown.groupby("pref_code")["count"].sum() / df.groupby("pref_code")["count"].sum()
    lo, hi = share.idxmin(), share.idxmax()
    no_shape = sorted(set(names_en) - set(shapes["district_id"]))
    notes = [
        Note(N_("Census of 1 October 2020: {people} people in {n} prefectures (the finest grain in AnonSet's files; "
                "municipalities are not included)."), people=Num(total), n=Num(47)),
        Note(N_("Age unknown: {people} people ({share}; from {low} in {low_name} to {high} in {high_name}) did not "
                "state their age. They are spread over the age groups of their prefecture and sex in proportion to "
                "the people of known age, so totals equal the published ones and counts are estimates (the "
                "Statistics Bureau's imputed series, 不詳補完値, is not used)."),
             people=Num(n_unknown), share=Num(n_unknown / total, ".1%"), low=Num(share[lo], ".2%"),
             low_name=names_en[lo], high=Num(share[hi], ".2%"), high_name=names_en[hi]),
        Note(N_("Five-year age groups; {top} and over form one open-ended group. Prefectures are grouped into the "
                "eight traditional regions (地方)."), top="95"),
    ]
    if no_shape:
        people = df.groupby("pref_code")["count"].sum()
        notes.append(geo.missing_polygons_note(geo.EMPTY_OUTLINE_PREFECTURES, no_shape, names_en, people))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER,
                        table_id="2020 census, 男女・年齢・国籍別人口 (e-Stat 0003445217)", reference_date=REFERENCE_DATE,
                        licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER,
                            table_id="Global Map Japan, prefectures (dataofjapan/land japan.topojson)",
                            reference_date="2014", licence=BOUNDARY_LICENCE,
                            citation="出典：地球地図日本; via GitHub dataofjapan/land, converted from TopoJSON")
    return [CountryData(
        code=CODE,
        name="Japan — census 2020",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="prefecture",
        region_label="region",
        boundaries=shapes.reset_index(drop=True),
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=BOUNDARY_DECIMALS,
        notes=notes,
    )]
