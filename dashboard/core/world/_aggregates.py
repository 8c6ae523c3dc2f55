"""One row per data set of what the world map and country table show, computed once at ``anonset data build``.

Every value comes from the explorer's own functions (:mod:`dashboard.core.regions`) for the explorer's
default scenario (:class:`~dashboard.core.regions.Scenario` ``()`` with the data set as its country):
the person-mean anonymity set is ``Σ CAS² / Σ CAS`` over every cell of every district (the explorer's
``person_mean`` of a district, pooled over the country), the share below k is
:func:`~dashboard.core.regions.share_below` (the explorer's headline "x % of people have a set below k").
The file is written into the cache folder being built and its sha256 is recorded in the manifest like
every other built file; pages and the CLI only read it (:func:`world_aggregates`).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.paths import cache_dir

from ..country import dataset_rows, map_datasets
from ..errors import InputError
from ..groups import format_age_band
from ..regions import Scenario, district_statistics, share_below

#: Where the aggregates live inside the cache.
AGGREGATES_FILE = "world/aggregates.parquet"
#: The statistics the world map can colour by, with their labels (one source for page, figure and CLI).
WORLD_STATS: dict[str, str] = {
    "person_mean": "Person-mean anonymity set",
    "share_below": "Share of people in an anonymity set below k",
}
DEFAULT_WORLD_STAT = "person_mean"
#: The columns of the aggregates file, in order.
COLUMNS = (
    "code", "country", "name", "continent", "grain", "districts", "national_model", "map_dataset",
    "population", "reference_year", "body_prior_source", "study_people", "covered_people",
    "person_mean", "share_below", "k", "ages", "model",
)


def default_scenario(code: str) -> Scenario:
    """The explorer's default view of one data set (its defaults: both sexes, 18–75, v2 body model, k = 5)."""
    return Scenario(countries=(code,))


def dataset_aggregate(code: str, scenario: Scenario | None = None, *, root: Path | None = None) -> dict:
    """The world map's numbers for one data set, by the explorer's functions (see the module docstring);
    ``scenario`` defaults to the explorer's default view (:func:`default_scenario`), which the build uses."""
    scenario = scenario or default_scenario(code)
    df = district_statistics(scenario, code, root=root)
    covered = df["plausible_people"].to_numpy(dtype=float)
    means = df["person_mean"].to_numpy(dtype=float)
    total = float(covered.sum())
    # person_mean_d = Σ_d CAS² / Σ_d CAS and plausible_people_d = Σ_d CAS, so the country's Σ CAS² / Σ CAS is:
    squares = float(np.where(covered > 0, means * covered, 0.0).sum())
    share = share_below(scenario.replace(countries=(code,)), [scenario.k], root=root)[code][float(scenario.k)]
    return {
        "study_people": float(df["people"].sum()),
        "covered_people": total,
        "person_mean": squares / total if total > 0 else float("nan"),
        "share_below": float(share),
        "k": float(scenario.k),
        "ages": format_age_band(*scenario.ages),
        "model": scenario.model,
    }


def compute_aggregates(root: Path | None = None, log: Callable[[str], None] = lambda msg: None) -> pd.DataFrame:
    """The aggregates of every data set in the cache at ``root`` (minutes: run once, by the build)."""
    manifest = cache.manifest(root)
    shown = set(map_datasets(manifest).values())
    rows = []
    started = time.perf_counter()
    for row in dataset_rows(manifest):
        code = row["code"]
        numbers = dataset_aggregate(code, root=root)
        rows.append({
            "code": code, "country": manifest["datasets"][code].get("country") or code.split("-")[0],
            "name": row["country"] if row["national_model"] else row["name"], "continent": row["continent"],
            "grain": row["grain"], "districts": int(row["districts"]), "national_model": row["national_model"],
            "map_dataset": code in shown, "population": float(row["population"]),
            "reference_year": row["reference_year"], "body_prior_source": row["body_prior_source"], **numbers,
        })
    log(f"  world aggregates: {len(rows)} data sets in {time.perf_counter() - started:.1f} s")
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["reference_year"] = df["reference_year"].astype("Int64")
    return df


def write_aggregates(root: Path, log: Callable[[str], None] = lambda msg: None) -> dict:
    """Compute the aggregates of the cache at ``root`` and write them there; return the manifest entry."""
    df = compute_aggregates(root, log)
    path = Path(root) / AGGREGATES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path, index=False)
    return {"file": AGGREGATES_FILE, "rows": int(len(df)), "k": float(df["k"].iloc[0]) if len(df) else None,
            "ages": str(df["ages"].iloc[0]) if len(df) else None,
            "note": "computed by `anonset data build` for the explorer's default scenario of each data set"}


def world_aggregates(root: Path | None = None) -> pd.DataFrame:
    """The aggregates written by the build (a fresh copy), one row per data set.

    An InputError with the command to run when the cache was built without them.
    """
    entry = cache.manifest(root).get("world_aggregates")
    path = (Path(root) if root is not None else cache_dir()) / AGGREGATES_FILE
    if not entry or not path.is_file():
        raise InputError("the data cache holds no world aggregates; rebuild it with `anonset data build`")
    return cache.stamped_table(path).copy()


def check_world_stat(stat: str | None) -> str:
    """A world statistic's key (default person_mean); an InputError naming the choices otherwise."""
    stat = (stat or DEFAULT_WORLD_STAT).strip()
    if stat not in WORLD_STATS:
        raise InputError(f"unknown statistic {stat!r}; choose one of {', '.join(WORLD_STATS)}")
    return stat


def map_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The one data set per country the world map colours (see :func:`dashboard.core.country.map_datasets`)."""
    return df[df["map_dataset"]].sort_values("country").reset_index(drop=True)
