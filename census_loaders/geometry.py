"""Simplify district polygons to a size a browser draws smoothly, and align their ids.

Coverage simplification (GEOS, via geopandas) simplifies shared edges once, so
neighbouring districts keep touching instead of opening slivers between them.
Coordinates are rounded so the GeoJSON is small and byte-for-byte reproducible.
"""
from __future__ import annotations

import json

import numpy as np
import shapely
from shapely.geometry import mapping

from .notes import N_, Join, Nn_, Note, Num
from .schema import LoaderError, require_columns

#: Simplification tolerance in degrees (≈ 1 km); fine for a choropleth of a whole country.
DEFAULT_TOLERANCE = 0.01
#: Decimal places kept in the coordinates (1e-4 degrees ≈ 11 m).
COORD_DECIMALS = 4


def _round_coords(obj, decimals: int = COORD_DECIMALS):
    if isinstance(obj, (list, tuple)):
        if obj and isinstance(obj[0], (int, float)):
            return [round(float(v), decimals) for v in obj]
        return [_round_coords(v, decimals) for v in obj]
    return obj


def _simplify(geoms, tolerance: float):
    """Coverage-simplify valid polygons; fall back per geometry where GEOS refuses."""
    geoms = shapely.make_valid(np.asarray(geoms, dtype=object))
    geoms = np.array([g if g.geom_type in ("Polygon", "MultiPolygon") else _polygonal_part(g) for g in geoms], dtype=object)
    try:
        out = shapely.coverage_simplify(geoms, tolerance, simplify_boundary=True)
    except shapely.errors.GEOSException:
        out = shapely.simplify(geoms, tolerance, preserve_topology=True)
    # a tiny district must not vanish: keep its unsimplified shape instead
    empty = shapely.is_empty(out) | (shapely.area(out) <= 0)
    out[empty] = geoms[empty]
    return out


def _snap(geoms, decimals: int):
    """Geometries snapped to a grid of ``10**-decimals`` degrees, kept valid (GEOS precision reduction).

    Plain rounding of coordinates collapses tiny rings and makes edges cross; snapping
    with topology repair does not.  A district smaller than the grid cell would vanish:
    it keeps two more decimals instead.  Returns the geometries and each one's decimals.
    """
    geoms = np.asarray(geoms, dtype=object)
    out = shapely.set_precision(geoms, 10.0 ** -decimals)
    places = np.full(len(geoms), decimals)
    gone = shapely.is_empty(out) | (shapely.area(out) <= 0)
    if gone.any():
        out[gone] = shapely.set_precision(geoms[gone], 10.0 ** -(decimals + 2))
        places[gone] = decimals + 2
    return out, places


def _polygonal_part(geom):
    """make_valid can return a GeometryCollection; keep its polygons."""
    parts = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(parts) if parts else geom


def to_feature_collection(gdf, district_names: dict[str, str], tolerance: float | None = None,
                          decimals: int | None = None):
    """A GeoJSON FeatureCollection for the districts that have population.

    ``gdf`` has ``district_id`` and ``geometry`` (EPSG:4326); ``tolerance`` (degrees) and
    ``decimals`` default to :data:`DEFAULT_TOLERANCE` and :data:`COORD_DECIMALS` (a data set
    of many small districts, such as Italy's 7,901 municipalities, passes its own). Returns
    ``(collection, missing_geometry, geometry_without_data)`` — the two lists of ids
    are reported in the manifest and should be empty or explained.
    """
    gdf = gdf[gdf.geometry.notna() & ~gdf.geometry.is_empty]
    gdf = gdf.sort_values("district_id", kind="mergesort")
    ids = [str(i) for i in gdf["district_id"]]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"boundary file has duplicate district ids: {dup[:5]}")
    wanted = set(district_names)
    geometry_without_data = sorted(set(ids) - wanted)
    missing_geometry = sorted(wanted - set(ids))
    keep = np.array([i in wanted for i in ids])
    gdf = gdf[keep]
    ids = [i for i in ids if i in wanted]
    tolerance = DEFAULT_TOLERANCE if tolerance is None else tolerance
    simplified = _simplify(gdf.geometry.values, tolerance)
    if decimals is None:  # the default: coordinates rounded as they are (the files of the first data sets)
        places = np.full(len(simplified), COORD_DECIMALS)
    else:
        simplified, places = _snap(simplified, decimals)
    features = []
    for district_id, geom, decimals in zip(ids, simplified, places):
        geo = mapping(geom)
        features.append(
            {
                "type": "Feature",
                "id": district_id,
                "properties": {"name": district_names[district_id]},
                "geometry": {"type": geo["type"], "coordinates": _round_coords(geo["coordinates"], int(decimals))},
            }
        )
    return {"type": "FeatureCollection", "features": features}, missing_geometry, geometry_without_data


def dumps(collection: dict) -> str:
    """Compact, deterministic GeoJSON text."""
    return json.dumps(collection, separators=(",", ":"), ensure_ascii=False, sort_keys=True, allow_nan=False)


def frame(collection: dict, gap: float = 2.5) -> dict:
    """The bounding box of a country's main territory, and the districts outside it.

    A country with overseas districts (France's DOM, Alaska and Hawaii, the Azores,
    Svalbard) would otherwise be framed as specks on an empty ocean.  Districts are
    linked when their bounding boxes lie within ``gap`` degrees of each other; the
    linked group with the most districts is framed (``bounds``: lon0, lat0, lon1,
    lat1) and the rest are listed under ``outside`` (one scroll or zoom away).  A
    district that crosses the antimeridian (the Aleutians) links nothing.  Maps
    turn the bounds into a centre and zoom for their own size
    (``dashboard.figures.maps.view_of``).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    boxes, ids = [], []
    for f in collection.get("features", []):
        geom = f.get("geometry")
        if not geom:
            continue
        boxes.append(shapely.geometry.shape(geom).bounds)
        ids.append(str(f.get("id")))
    if not boxes:
        return {"bounds": [-180.0, -60.0, 180.0, 75.0], "outside": []}
    b = np.array(boxes, dtype=float)
    wraps = (b[:, 2] - b[:, 0]) > 180
    near = ((b[:, None, 0] - gap <= b[None, :, 2]) & (b[None, :, 0] - gap <= b[:, None, 2])
            & (b[:, None, 1] - gap <= b[None, :, 3]) & (b[None, :, 1] - gap <= b[:, None, 3]))
    near &= ~wraps[:, None] & ~wraps[None, :]
    _, label = connected_components(csr_matrix(near), directed=False)
    sizes = np.bincount(label[~wraps]) if (~wraps).any() else np.bincount(label)
    keep = (label == int(np.argmax(sizes))) & ~wraps if (~wraps).any() else np.ones(len(b), bool)
    bounds = [b[keep, 0].min(), b[keep, 1].min(), b[keep, 2].max(), b[keep, 3].max()]
    return {"bounds": [round(float(v), 4) for v in bounds], "outside": [i for i, k in zip(ids, keep) if not k]}


def read_boundary_file(path, id_column: str, extra_columns: tuple[str, ...] = ()):
    """A published boundary GeoJSON as ``district_id`` (+ ``extra_columns``) and ``geometry`` in EPSG:4326.

    Every loader reads its boundaries through here, so an unreadable file, a missing
    id column or a repeated district fails the same way: a LoaderError naming the
    file.  A file without a CRS is taken as WGS84 (RFC 7946 GeoJSON has no other).
    Null geometries are kept; each loader decides whether they are an error.
    """
    from pathlib import Path

    import geopandas as gpd


    path = Path(path)
    if not path.exists():
        raise LoaderError(path, None, "file not found")
    try:
        gdf = gpd.read_file(path)
    except Exception as exc:  # pyogrio raises several unrelated types for a damaged file
        raise LoaderError(path, None, f"not a readable boundary file ({type(exc).__name__}: {exc})") from None
    require_columns(gdf.columns, [id_column, *extra_columns, "geometry"], path, None)
    if gdf.crs is None:
        gdf = gdf.set_crs(4326)
    elif gdf.crs.to_epsg() != 4326:
        gdf = gdf.to_crs(4326)
    gdf = gdf[[id_column, *extra_columns, "geometry"]].rename(columns={id_column: "district_id"})
    gdf["district_id"] = gdf["district_id"].astype("string").str.strip()
    dup = gdf["district_id"][gdf["district_id"].duplicated()]
    if not dup.empty:
        raise LoaderError(path, None, f"duplicate district code(s) {sorted(set(dup))[:5]}")
    return gdf.reset_index(drop=True)


def unwrap_antimeridian(collection: dict) -> dict:
    """Rings that cross the antimeridian made continuous, in place (returned for chaining).

    Simplifying a world map leaves rings that step from 179° to −180° (Russia's Chukotka, Fiji): MapLibre
    draws such a step as a band across the whole map.  Each longitude after a step of more than 180° is
    shifted by ±360° (Chukotka at 188° instead of −172°), which MapLibre draws in place.  A ring that
    crosses an odd number of times (Antarctica: it wraps the pole) is left as it is.
    """
    def ring_fixed(ring):
        steps, offset, out = 0, 0.0, [list(ring[0])]
        for (x0, _), (x1, y1) in zip(ring, ring[1:]):
            if x1 - x0 > 180:
                offset, steps = offset - 360.0, steps + 1
            elif x1 - x0 < -180:
                offset, steps = offset + 360.0, steps + 1
            out.append([x1 + offset, y1])
        return out if steps and steps % 2 == 0 else ring

    for feature in collection["features"]:
        geom = feature["geometry"]
        if geom["type"] == "Polygon":
            geom["coordinates"] = [ring_fixed(r) for r in geom["coordinates"]]
        elif geom["type"] == "MultiPolygon":
            geom["coordinates"] = [[ring_fixed(r) for r in poly] for poly in geom["coordinates"]]
    return collection


#: The note naming districts counted but not drawn, for each loader's word (counted: ``n``; the districts: ``listed``).
NO_POLYGON_COMUNAS = Nn_("{n} comuna(s) have no polygon and are in every count but not on the map: {listed}.",
                         "{n} comuna(s) have no polygon and are in every count but not on the map: {listed}.")
NO_POLYGON_MUNICIPALITIES = Nn_(
    "{n} municipality(ies) have no polygon and are in every count but not on the map: {listed}.",
    "{n} municipality(ies) have no polygon and are in every count but not on the map: {listed}.")
EMPTY_OUTLINE_PREFECTURES = Nn_(
    "{n} prefecture(s) have an empty outline in the boundary file and are in every count but not on the map: {listed}.",
    "{n} prefecture(s) have an empty outline in the boundary file and are in every count but not on the map: {listed}.")


def missing_polygons_note(template: tuple[str, str], ids, names, people, extra=None) -> Note:
    """The data-set note naming districts counted but not drawn: "2 comuna(s) have no polygon and are in every
    count but not on the map: Antártica (12202, 127 people)." — ``template``: one of the counted templates above;
    ``names``/``people`` map an id to its name and head count; ``extra`` maps an id to a remark (a :class:`Note`)."""
    extra = extra or {}

    def item(c) -> Note:
        if c in extra:
            return Note(N_("{name} ({code}, {people} people; {remark})"), name=names[c], code=c,
                        people=Num(people[c]), remark=extra[c])
        return Note(N_("{name} ({code}, {people} people)"), name=names[c], code=c, people=Num(people[c]))

    return Note(template, n=Num(len(ids)), listed=Join(tuple(item(c) for c in ids)))

