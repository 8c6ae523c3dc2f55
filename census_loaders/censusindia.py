"""India, Census 2011, table C-14: 640 districts × sex × 5-year age (Registrar General; data set ``IN``).

One CSV of table C-14 (``C4114``, population by five-year age group and sex) with district
rows only: ``State Code``, ``District Code`` (1–640), ``State Name``, ``District Name``,
``Age Group`` (``All ages``, ``0-4`` … ``75-79``, ``80+``, ``Age not stated``) and the total,
rural and urban persons, males and females.  Boundaries: DataMeet's Census-2011 districts as
published by the Hindustan Times, with four post-2011 Uttar Pradesh districts cut out of their
parents.  See ``data/raw/in/PROVENANCE.md``.

Checked on every row: males + females = persons and rural + urban = total; per district and
sex, the 18 age groups and ``Age not stated`` add up to ``All ages``; each district has each
age row once.  People of unstated age (0.37 %) are spread over the age groups of their
district and sex in proportion (:mod:`census_loaders.unknown_age`).

Map: Hapur and Shamli, carved out of one 2011 district each, are dissolved back into it
(Ghaziabad 140, Muzaffarnagar 133).  Sambhal and Amethi were carved out of two districts
each; their areas cannot be given back to one 2011 district and are left blank, so their
four parents are drawn without them.  Diu and Yanam have no polygon in the file.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from . import geometry
from .notes import N_, Join, Nn_, Note, Num, and_join
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
from .unknown_age import spread_unknown_age

CODE = "IN"
REFERENCE_DATE = "2011-03-01"  # census reference date: 00:00 on 1 March 2011
CENSUS_FILE = "censusindia_C14_district_sex_age5_2011_via-Census-of-India-2011-Dataset-8fd737f.csv.gz"
BOUNDARY_FILE = "datameet-ht_india_districts_2011plus4UP_boundaries_via-HindustanTimesLabs-shapefiles-e41de80.geojson"

TABLE = "C4114"
ALL_AGES, NOT_STATED = "All ages", "Age not stated"
AGE_GROUPS = tuple(f"{a}-{a + 4}" for a in range(0, 80, 5)) + ("80+",)
COUNTS = tuple(f"{area} {who}" for area in ("Total", "Rural", "Urban") for who in ("Persons", "Males", "Females"))
COLUMNS = ("Table Name", "State Code", "District Code", "State Name", "District Name", "Age Group", *COUNTS)
N_DISTRICTS = 640

PUBLISHER = "Office of the Registrar General & Census Commissioner, India"
LICENCE = "Government Open Data Licence – India (GODL); attribution: Census of India 2011"
CITATION = ("Census of India 2011, table C-14 (C4114) Population in five-year age-group by residence and sex, "
            "districts; via GitHub mihirs16/Census-of-India-2011-Dataset")
BOUNDARY_PUBLISHER = "DataMeet (Census 2011 districts), as published by Hindustan Times Labs"
BOUNDARY_LICENCE = "CC BY 4.0 (DataMeet) with MIT (© 2017 Hindustan Times)"
#: Districts are tens of km across: ≈ 1 km tolerance, 4 decimals.
BOUNDARY_TOLERANCE = 0.01
BOUNDARY_DECIMALS = 4
#: Districts created after 2011 out of a single 2011 district: drawn as part of it.
DISSOLVE_INTO_PARENT = {"140", "133"}
#: India's districts counted but not drawn (``geometry.missing_polygons_note``).
NO_POLYGON = Nn_("{n} district(s) have no polygon and are in every count but not on the map: {listed}.",
                 "{n} district(s) have no polygon and are in every count but not on the map: {listed}.")
DISCLAIMER = Note(N_("The district boundaries are DataMeet's Census-2011 map; India's external boundary follows "
                     "that source and is shown for reference only."))


def read_census(path: Path) -> pd.DataFrame:
    """Every row, checked: ``district_id``, ``district_name``, ``state_id``, ``state_name``, ``age``, ``male``,
    ``female``, ``persons``, ``source_line``."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    known = {ALL_AGES, NOT_STATED, *AGE_GROUPS}
    rows, seen, places = [], {}, {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        if rec[col["Table Name"]].strip() != TABLE:
            raise LoaderError(path, line, f"Table Name {rec[col['Table Name']]!r} is not {TABLE}")
        district, state, age = (rec[col[c]].strip() for c in ("District Code", "State Code", "Age Group"))
        if not district.isdigit() or not 1 <= int(district) <= N_DISTRICTS:
            raise LoaderError(path, line, f"District Code {district!r} is not a 2011 district code 1–{N_DISTRICTS}")
        if not state.isdigit():
            raise LoaderError(path, line, f"State Code {state!r} is not a number")
        if age not in known:
            raise LoaderError(path, line, f"unknown age group {age!r}")
        if (district, age) in seen:
            raise LoaderError(path, line, f"district {district}, age {age}: listed twice (first on line {seen[district, age]})")
        seen[district, age] = line
        place = (rec[col["District Name"]].strip(), state, rec[col["State Name"]].strip())
        if places.setdefault(district, (place, line))[0] != place:
            raise LoaderError(path, line, f"district {district}: name or state differ from line {places[district][1]}")
        c = {k: parse_count(rec[col[k]], path, line, f"{k} ({district}, {age})") for k in COUNTS}
        for area in ("Total", "Rural", "Urban"):
            check_total(path, line, f"district {district}, {age}, {area}: males + females vs persons",
                        c[f"{area} Males"] + c[f"{area} Females"], c[f"{area} Persons"])
        for who in ("Persons", "Males", "Females"):
            check_total(path, line, f"district {district}, {age}, {who}: rural + urban vs total",
                        c[f"Rural {who}"] + c[f"Urban {who}"], c[f"Total {who}"])
        rows.append((district, *place, age, c["Total Males"], c["Total Females"], c["Total Persons"], line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    df = pd.DataFrame(rows, columns=["district_id", "district_name", "state_id", "state_name", "age", "male",
                                     "female", "persons", LINE_COLUMN])
    rows_per = df.groupby("district_id", sort=False)["age"].nunique()
    short = rows_per[rows_per < 2 + len(AGE_GROUPS)]
    if not short.empty:
        district = short.index[0]
        have = set(df.loc[df["district_id"] == district, "age"])
        missing = next(a for a in (ALL_AGES, *AGE_GROUPS, NOT_STATED) if a not in have)
        raise LoaderError(path, None, f"district {district} has no row for age {missing!r}: the table is incomplete")
    totals = df[df["age"] == ALL_AGES].set_index("district_id")
    parts = df[df["age"] != ALL_AGES].groupby("district_id")[["male", "female"]].sum().loc[totals.index]
    for sex in ("male", "female"):
        off = (parts[sex] - totals[sex]).abs() > 0.5
        if off.any():
            district = off[off].index[0]
            check_total(path, int(totals.loc[district, LINE_COLUMN]), f"district {district}, {sex}: age groups vs "
                        f"{ALL_AGES}", float(parts.loc[district, sex]), float(totals.loc[district, sex]))
    return df


def boundaries(path: Path):
    """The 2011 districts' polygons keyed by census code, with Hapur and Shamli dissolved into their parents.

    Returns ``(shapes, blank, no_data)``: ``shapes`` has ``district_id`` and ``geometry``; ``blank`` lists
    the post-2011 districts whose area is left undrawn, with their parents' codes; ``no_data`` names the
    features without any census code (a J&K area marked "Data Not Available").
    """
    import geopandas as gpd
    import shapely

    path = Path(path)
    if not path.exists():
        raise LoaderError(path, None, "file not found")
    try:
        gdf = gpd.read_file(path)
    except Exception as exc:  # pyogrio raises several unrelated types for a damaged file
        raise LoaderError(path, None, f"not a readable boundary file ({type(exc).__name__}: {exc})") from None
    require_columns(gdf.columns, ["district", "census2011_code", "created_after_2011_from", "geometry"], path, None)
    if gdf.crs is not None and gdf.crs.to_epsg() != 4326:
        gdf = gdf.to_crs(4326)
    codes = pd.to_numeric(gdf["census2011_code"], errors="coerce")
    gdf["district_id"] = codes.map(lambda v: None if pd.isna(v) else str(int(v)))
    dup = gdf["district_id"].dropna()[gdf["district_id"].dropna().duplicated()]
    if not dup.empty:
        raise LoaderError(path, None, f"duplicate census code(s) {sorted(set(dup))[:5]}")
    coded = gdf[gdf["district_id"].notna() & gdf.geometry.notna()].set_index("district_id")
    geoms = dict(coded.geometry)
    blank, no_data = [], []
    for _, f in gdf[gdf["district_id"].isna()].iterrows():
        origin = f["created_after_2011_from"]
        parents = [] if origin is None or pd.isna(origin) else [p.strip() for p in str(origin).split("|") if p.strip()]
        if not parents:
            no_data.append(str(f["district"]))
        elif len(parents) == 1 and parents[0] in DISSOLVE_INTO_PARENT:
            if parents[0] not in geoms:
                raise LoaderError(path, None, f"{f['district']}: its 2011 district {parents[0]} has no polygon")
            geoms[parents[0]] = shapely.union_all([geoms[parents[0]], f.geometry])
        else:
            blank.append((str(f["district"]).title(), parents))
    shapes = gpd.GeoDataFrame({"district_id": list(geoms)}, geometry=list(geoms.values()), crs=4326)
    return shapes, blank, no_data


def load(folder: Path) -> list[CountryData]:
    """One data set, ``IN``: 640 districts, 17 age groups (80 and over open), unstated ages spread."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    df = read_census(path)
    missing = sorted(set(map(str, range(1, N_DISTRICTS + 1))) - set(df["district_id"]), key=int)
    if missing:
        raise LoaderError(path, None, f"no rows for district(s) {', '.join(missing[:5])}: the table is incomplete")
    long = df[df["age"] != ALL_AGES].melt(
        id_vars=["district_id", "district_name", "state_id", "state_name", "age", LINE_COLUMN],
        value_vars=["male", "female"], var_name="sex", value_name="count")
    known, unknown = long[long["age"] != NOT_STATED].copy(), long[long["age"] == NOT_STATED]
    spread, stuck = spread_unknown_age(known, unknown)
    order = {a: i for i, a in enumerate(AGE_GROUPS)}
    age_from = np.array([5.0 * order[a] for a in spread["age"]])
    out = pd.DataFrame({
        "district_id": spread["district_id"].to_numpy(), "district_name": spread["district_name"].to_numpy(),
        "region_id": spread["state_id"].to_numpy(), "region_name": spread["state_name"].str.title().to_numpy(),
        "sex": spread["sex"].to_numpy(), "age_from": age_from, "age_to": np.where(age_from >= 80, np.nan, age_from + 5),
        "count": spread["count"].to_numpy(), "filled": False, LINE_COLUMN: spread[LINE_COLUMN].to_numpy(),
    })
    population = validate_population(out, path)

    geo_path = folder / BOUNDARY_FILE
    shapes, blank, no_data = boundaries(geo_path)
    names = dict(zip(df["district_id"], df["district_name"]))
    people = df[df["age"] == ALL_AGES].set_index("district_id")["persons"]
    no_shape = sorted(set(names) - set(shapes["district_id"]), key=int)
    unused = sorted(set(shapes["district_id"]) - set(names))
    if unused:
        raise LoaderError(geo_path, None, f"polygon(s) with census code {unused[:5]} have no district in {CENSUS_FILE}")
    n_unknown = float(unknown["count"].sum())
    notes = [
        Note(N_("Old data: Census of India 2011 (reference date 1 March 2011), {people} people in {n} districts of "
                "2011 (India has about {today} districts today)."),
             people=Num(people.sum()), n=Num(len(names)), today=Num(780)),
        Note(N_("Age not stated: {people} people ({share}) are spread over the age groups of their district and sex "
                "in proportion to the people of stated age; counts are estimates."),
             people=Num(n_unknown), share=Num(n_unknown / people.sum(), ".2%")),
        Note(N_("Five-year age groups; {top} and over form one open-ended group. Districts are joined to the map by "
                "their 2011 census code, not by name (the map spells some names differently)."), top="80"),
        Note(N_("Map: Hapur and Shamli (created after 2011) are drawn as part of Ghaziabad and Muzaffarnagar; {rest}"),
             rest=Join(tuple(p for p in (
                 Note(N_("{districts} are left blank: their area belongs to two 2011 districts each, which are drawn "
                         "without it."),
                      districts=and_join(Note(N_("{name} (carved from {parents})"), name=name,
                                              parents=and_join([names.get(p, p) for p in parents]))
                                         for name, parents in blank)) if blank else "",
                 Note(Nn_("{n} area(s) of the map without census data ({names}) are not drawn.",
                          "{n} area(s) of the map without census data ({names}) are not drawn."),
                      n=Num(len(no_data)), names=Join(tuple(no_data))) if no_data else "",
                 DISCLAIMER) if p), " ")),
    ]
    if no_shape:
        notes.append(geometry.missing_polygons_note(NO_POLYGON, no_shape, names, people))
    if not stuck.empty:
        notes.append(Note(N_("{people} people of unstated age in a district and sex with no stated ages are left "
                             "out."), people=Num(stuck["count"].sum())))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="Census 2011, C-14 (C4114), districts",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER,
                            table_id="india_district.json (Census 2011 districts + 4 UP districts)",
                            reference_date="2011", licence=BOUNDARY_LICENCE,
                            citation="DataMeet maps (datameet/maps), via HindustanTimesLabs/shapefiles")
    return [CountryData(
        code=CODE,
        name="India — census 2011",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="district",
        region_label="state",
        boundaries=shapes,
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=BOUNDARY_DECIMALS,
        notes=notes,
    )]
