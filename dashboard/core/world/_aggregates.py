"""What the world map and country table show, computed once at ``anonset data build``: one row per data set and
body model, and one per district and body model.

Every value comes from the explorer's own functions (:mod:`dashboard.core.regions`) for the explorer's
default scenario (:class:`~dashboard.core.regions.Scenario` ``()`` with the data set as its country):
the person-mean anonymity set is ``Σ CAS² / Σ CAS`` over every cell of every district (the explorer's
``person_mean`` of a district, pooled over the country), the share below k is
:func:`~dashboard.core.regions.share_below` (the explorer's headline "x % of people have a set below k").
Beside them, for both body models: the minimum anonymity set (the smallest non-zero CAS of any cell) and
the share below k for every k of :data:`AGGREGATE_KS`, per data set and per district.

The work is a map over data sets (:func:`dataset_aggregates`, one data set per call, nothing shared), so the
build can hand it to any mapper — serial here, ``dask.distributed`` in ``anonset data build`` — and gets the
same files either way.  The files are written into the cache folder being built and their sha256 recorded in
the manifest like every other built file; pages and the CLI only read them (:func:`world_aggregates`,
:func:`district_aggregates`).
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.paths import cache_dir

from ..body import DEFAULT_MODEL
from ..country import dataset_rows, map_datasets
from ..errors import InputError
from ..groups import format_age_band
from ..regions import Scenario, district_statistics, share_below

#: Where the aggregates live inside the cache: per data set and body model, per district and body model.
AGGREGATES_FILE = "world/aggregates.parquet"
DISTRICT_AGGREGATES_FILE = "world/district_aggregates.parquet"
#: The body models and the k of "share below k" every aggregate is computed for.
AGGREGATE_MODELS = ("v2", "paper")
AGGREGATE_KS = (2, 5, 10, 20, 100)
#: The statistics the world map can colour by, with their labels (one source for page, figure and CLI).
WORLD_STATS: dict[str, str] = {
    "person_mean": "Person-mean anonymity set",
    "share_below": "Share of people in an anonymity set below k",
}
DEFAULT_WORLD_STAT = "person_mean"
#: The columns of the aggregates file, in order.
def share_column(k: float) -> str:
    """The column of the share below ``k`` (``share_below_5``)."""
    return f"share_below_{k:g}"


SHARE_COLUMNS = tuple(share_column(k) for k in AGGREGATE_KS)
COLUMNS = (
    "code", "country", "name", "continent", "grain", "districts", "national_model", "map_dataset",
    "population", "reference_year", "body_prior_source", "study_people", "covered_people",
    "person_mean", "share_below", "k", "ages", "model", "min_set", *SHARE_COLUMNS,
)
#: The columns of the per-district file, in order.
DISTRICT_COLUMNS = ("code", "model", "district_id", "covered_people", "person_mean", "min_set", *SHARE_COLUMNS)


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


def dataset_aggregates(code: str, root: Path | None = None) -> tuple[list[dict], pd.DataFrame]:
    """Both body models' numbers for one data set: a row per model (:func:`dataset_aggregate` plus the minimum
    set and the share below every k of :data:`AGGREGATE_KS`) and a frame with a row per model and district.

    Self-contained (it reads the cache at ``root`` and nothing else), so a worker process can run it."""
    rows, frames = [], []
    for model in AGGREGATE_MODELS:
        scenario = default_scenario(code).replace(model=model)
        numbers = dataset_aggregate(code, scenario, root=root)
        stats = district_statistics(scenario, code, root=root)
        mins = stats["min_cas"].to_numpy(dtype=float)
        numbers["min_set"] = float(np.nanmin(mins)) if np.isfinite(mins).any() else float("nan")
        # one k per call, as the explorer asks for its k: the same number to the last bit (a call with several
        # ks sums in another order)
        numbers.update({share_column(k): float(share_below(scenario, [k], root=root)[code][float(k)])
                        for k in AGGREGATE_KS})
        rows.append(numbers)
        per = {"code": code, "model": model, "district_id": stats["district_id"].astype(str).to_numpy(),
               "covered_people": stats["plausible_people"].to_numpy(dtype=float),
               "person_mean": stats["person_mean"].to_numpy(dtype=float), "min_set": mins}
        for k in AGGREGATE_KS:
            per[share_column(k)] = district_statistics(scenario.replace(k=float(k)), code, root=root)[
                "share_below"].to_numpy(dtype=float)
        frames.append(pd.DataFrame(per, columns=list(DISTRICT_COLUMNS)))
    return rows, pd.concat(frames, ignore_index=True)


def _serial_map(fn: Callable, items: list) -> list:
    return [fn(item) for item in items]


def compute_aggregates(root: Path | None = None, log: Callable[[str], None] = lambda msg: None, *,
                       mapper: Callable[[Callable, list], list] = _serial_map,
                       codes: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The aggregates of every data set (or of ``codes``) in the cache at ``root``: ``(per data set and model,
    per district and model)``.  ``mapper(fn, items)`` runs :func:`dataset_aggregates` over the data sets (in
    order); any mapper gives the same frames."""
    manifest = cache.manifest(root)
    shown = set(map_datasets(manifest).values())
    meta = [row for row in dataset_rows(manifest) if codes is None or row["code"] in codes]
    started = time.perf_counter()
    results = mapper(functools.partial(dataset_aggregates, root=root), [row["code"] for row in meta])
    rows, frames = [], []
    for row, (numbers, districts) in zip(meta, results, strict=True):
        code = row["code"]
        base = {
            "code": code, "country": manifest["datasets"][code].get("country") or code.split("-")[0],
            "name": row["country"] if row["national_model"] else row["name"], "continent": row["continent"],
            "grain": row["grain"], "districts": int(row["districts"]), "national_model": row["national_model"],
            "map_dataset": code in shown, "population": float(row["population"]),
            "reference_year": row["reference_year"], "body_prior_source": row["body_prior_source"],
        }
        rows += [{**base, **n} for n in numbers]
        frames.append(districts)
    log(f"  world aggregates: {len(meta)} data sets × {len(AGGREGATE_MODELS)} body models in "
        f"{time.perf_counter() - started:.1f} s")
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["reference_year"] = df["reference_year"].astype("Int64")
    per_district = (pd.concat(frames, ignore_index=True) if frames
                    else pd.DataFrame(columns=list(DISTRICT_COLUMNS)))
    return df, per_district


def write_aggregates(root: Path, log: Callable[[str], None] = lambda msg: None, *,
                     mapper: Callable[[Callable, list], list] = _serial_map) -> dict:
    """Compute the aggregates of the cache at ``root`` (through ``mapper``) and write both files there; return
    the manifest entry."""
    df, per_district = compute_aggregates(root, log, mapper=mapper)
    for name, frame in ((AGGREGATES_FILE, df), (DISTRICT_AGGREGATES_FILE, per_district)):
        path = Path(root) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(path, index=False)
    first = df[df["model"] == DEFAULT_MODEL]
    return {"file": AGGREGATES_FILE, "district_file": DISTRICT_AGGREGATES_FILE,
            "rows": int(len(first)), "district_rows": int(len(per_district)),
            "models": list(AGGREGATE_MODELS), "ks": list(AGGREGATE_KS),
            "k": float(first["k"].iloc[0]) if len(first) else None,
            "ages": str(first["ages"].iloc[0]) if len(first) else None,
            "note": "computed by `anonset data build` for the explorer's default scenario of each data set, "
                    "under both body models"}


def _read(name: str, root: Path | None) -> pd.DataFrame:
    entry = cache.manifest(root).get("world_aggregates")
    path = (Path(root) if root is not None else cache_dir()) / name
    if not entry or not path.is_file():
        raise InputError("the data cache holds no world aggregates; rebuild it with `anonset data build`")
    return cache.stamped_table(path)


def world_aggregates(root: Path | None = None, model: str = DEFAULT_MODEL) -> pd.DataFrame:
    """The aggregates written by the build for body model ``model`` (a fresh copy), one row per data set.

    An InputError with the command to run when the cache was built without them, or naming the models
    when ``model`` is not one of them.
    """
    df = _read(AGGREGATES_FILE, root)
    if model not in AGGREGATE_MODELS:
        raise InputError(f"unknown body model {model!r}; choose one of {', '.join(AGGREGATE_MODELS)}")
    return df[df["model"] == model].reset_index(drop=True)


def district_aggregates(root: Path | None = None, model: str = DEFAULT_MODEL, code: str | None = None) -> pd.DataFrame:
    """The per-district aggregates written by the build for ``model`` (and one data set's, given ``code``)."""
    df = _read(DISTRICT_AGGREGATES_FILE, root)
    if model not in AGGREGATE_MODELS:
        raise InputError(f"unknown body model {model!r}; choose one of {', '.join(AGGREGATE_MODELS)}")
    keep = df["model"] == model
    if code is not None:
        keep &= df["code"] == code
    return df[keep].reset_index(drop=True)


def check_world_stat(stat: str | None) -> str:
    """A world statistic's key (default person_mean); an InputError naming the choices otherwise."""
    stat = (stat or DEFAULT_WORLD_STAT).strip()
    if stat not in WORLD_STATS:
        raise InputError(f"unknown statistic {stat!r}; choose one of {', '.join(WORLD_STATS)}")
    return stat


def map_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The one data set per country the world map colours (see :func:`dashboard.core.country.map_datasets`)."""
    return df[df["map_dataset"]].sort_values("country").reset_index(drop=True)
