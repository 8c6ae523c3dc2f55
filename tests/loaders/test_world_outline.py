"""The world outline file: rings that cross the antimeridian are continuous (no band across the map)."""
from __future__ import annotations

import json

from census_loaders.geometry import unwrap_antimeridian


def _collection(ring):
    return {"features": [{"id": "XX", "geometry": {"type": "Polygon", "coordinates": [ring]}}]}


def test_a_ring_stepping_over_the_antimeridian_is_shifted_by_360():
    ring = [[178.0, 1.0], [-179.0, 1.0], [-179.0, 2.0], [178.0, 2.0], [178.0, 1.0]]
    fixed = unwrap_antimeridian(_collection(ring))["features"][0]["geometry"]["coordinates"][0]
    assert fixed == [[178.0, 1.0], [181.0, 1.0], [181.0, 2.0], [178.0, 2.0], [178.0, 1.0]]


def test_a_ring_crossing_once_is_left_alone():
    ring = [[170.0, -80.0], [-170.0, -80.0], [-170.0, -85.0]]  # wraps the pole (Antarctica)
    assert unwrap_antimeridian(_collection(ring))["features"][0]["geometry"]["coordinates"][0] == ring


def test_the_shipped_world_outline_has_no_step_across_the_map(cache_root):
    collection = json.loads((cache_root / "world" / "countries.geojson").read_text(encoding="utf-8"))
    for feature in collection["features"]:
        if feature["id"] in ("RU", "FJ"):
            geom = feature["geometry"]
            polys = geom["coordinates"] if geom["type"] == "MultiPolygon" else [geom["coordinates"]]
            steps = [abs(a[0] - b[0]) for poly in polys for ring in poly for a, b in zip(ring, ring[1:])]
            assert max(steps) < 180, feature["id"]
