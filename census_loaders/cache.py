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

Reads are memoised per cache folder and file modification time, so a rebuilt
cache is picked up without restarting, and repeated calls cost nothing.
"""
from __future__ import annotations

import json
import time
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


def dataset_info(code: str, root: Path | None = None) -> dict:
    """The manifest entry of one data set: name, labels, date, sources, notes, counts."""
    datasets = manifest(root)["datasets"]
    if code not in datasets:
        known = ", ".join(sorted(datasets))
        raise UnknownDataset(f"unknown country or data set {code!r}; the cache has: {known}")
    return datasets[code]


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
    dataset_info(code, root)
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
    dataset_info(code, root)
    path = _root(root) / "boundaries" / f"{code}.geojson"
    return _boundaries(path, _stamp(path))


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


def height_cohorts(root: Path | None = None) -> pd.DataFrame | None:
    """NCD-RisC mean height at 18 by country, sex and birth cohort (a fresh copy), or None if not built."""
    if not manifest(root).get("height_cohorts"):
        return None
    path = _root(root) / "height_cohorts.parquet"
    if not path.exists():
        return None
    return stamped_table(path).copy()
