"""Natural Earth 1:50m country polygons: the outline of each national data set, and one world map.

Source: ``world/naturalearth-4.1.0_countries-50m_boundaries_via-world-atlas-2.0.2.geojson`` (public
domain; decoded from the npm package world-atlas 2.0.2, see ``data/raw/world/PROVENANCE.md``).
Features are keyed by ISO alpha-3 (``iso3``); Australia occurs twice (with Ashmore and Cartier
Islands) and is dissolved into one.  The five features without an ISO code (Somaliland, Kosovo,
N. Cyprus, Indian Ocean Ter., Siachen Glacier) belong to no data set and are left out.
"""
from __future__ import annotations

from pathlib import Path

import shapely

from .schema import LoaderError, SourceFile

FILE = "naturalearth-4.1.0_countries-50m_boundaries_via-world-atlas-2.0.2.geojson"
PUBLISHER = "Natural Earth (via the npm package world-atlas 2.0.2)"
LICENCE = "Public domain (Natural Earth); world-atlas ISC"
#: A national data set's outline (one "district"): ≈ 2 km, coordinates on a 0.001° grid.
NATIONAL_TOLERANCE = 0.02
NATIONAL_DECIMALS = 3
#: The world map (every country at once): ≈ 10 km, 0.01° grid — about 0.5 MB, drawn at once.
WORLD_TOLERANCE = 0.1
WORLD_DECIMALS = 2


def source(folder: Path, what: str) -> SourceFile:
    return SourceFile(path=(Path(folder) / FILE).absolute(), publisher=PUBLISHER,
                      table_id=f"Admin-0 countries 1:50m (Natural Earth 4.1.0), {what}", reference_date="2018",
                      licence=LICENCE, citation="Natural Earth, Admin 0 – Countries, 1:50m, version 4.1.0; "
                      "TopoJSON by M. Bostock (world-atlas 2.0.2)")


def countries(folder: Path, iso3_to_code: dict[str, str]):
    """Polygons as a GeoDataFrame ``district_id`` (= ``iso3_to_code[iso3]``), ``geometry``; one row per code.

    Features whose ISO3 code is not in ``iso3_to_code`` are left out; a polygon occurring
    more than once (Australia) is dissolved.
    """
    import geopandas as gpd

    path = Path(folder) / FILE
    if not path.exists():
        raise LoaderError(path, None, "file not found")
    try:
        gdf = gpd.read_file(path)
    except Exception as exc:  # pyogrio raises several unrelated types for a damaged file
        raise LoaderError(path, None, f"not a readable boundary file ({type(exc).__name__}: {exc})") from None
    if "iso3" not in gdf.columns:
        raise LoaderError(path, None, "missing property 'iso3'")
    gdf = gdf[gdf["iso3"].isin(list(iso3_to_code)) & gdf.geometry.notna()].copy()
    gdf["district_id"] = gdf["iso3"].map(iso3_to_code).astype("string")
    merged = gdf.dissolve(by="district_id", as_index=False)[["district_id", "geometry"]]
    merged["geometry"] = shapely.make_valid(merged.geometry.values)
    if merged.crs is None:
        merged = merged.set_crs(4326)
    return merged.sort_values("district_id").reset_index(drop=True)


def load(folder: Path):
    """The world map: every Natural Earth country with an ISO code, keyed by ISO alpha-2.

    Returns ``(GeoDataFrame district_id + geometry, {code: English name}, SourceFile)``.
    """
    from .country_names import country_names, iso2_by_iso3

    shapes = countries(folder, iso2_by_iso3())
    names = {c: country_names(c)[0] for c in shapes["district_id"]}
    return shapes, names, source(folder, f"all countries, simplified at {WORLD_TOLERANCE}° (≈ 10 km), "
                                         f"{WORLD_DECIMALS} decimals")
