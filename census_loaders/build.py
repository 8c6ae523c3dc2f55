"""``anonset data build``: official raw files → normalised ``data_cache/``.

The build writes everything into a fresh folder beside the target and swaps it in
only when every loader has succeeded, so a malformed census file stops the build
with one message (file, line, problem) and leaves the previous cache byte-for-byte
intact.  The output is deterministic: no timestamps, sorted keys, fixed Parquet
settings, so building twice gives the same bytes.
"""
from __future__ import annotations

import importlib
import os
import shutil
import time
from pathlib import Path
from typing import Callable

import pandas as pd

from . import checksums, ncdrisc
from . import geometry as geo
from .registry import (
    AUXILIARY_MODULE,
    BODY_PRIORS_MODULE,
    MICRODATA_LOADERS,
    POPULATION_LOADERS,
)
from .schema import CountryData, LoaderError, SourceFile, validate_fraction_table, validate_population

SCHEMA_VERSION = 1
#: Folders of the cache that other commands write (``anonset anonland --out data_cache/anonland``);
#: the build carries them over unchanged instead of deleting them.
CARRIED_OVER = checksums.NOT_BUILT


_sha256 = checksums.sha256


def _source_entry(src: SourceFile, raw_root: Path, **extra) -> dict:
    # Both sides resolved: loaders resolve their paths, and ``../shared`` may be a symlink,
    # so an unresolved root would give "../../../work/shared/…" and a different manifest.
    try:
        rel = Path(os.path.relpath(Path(src.path).resolve(), Path(raw_root).resolve())).as_posix()
    except ValueError:
        rel = Path(src.path).name
    return {
        "file": rel,
        "sha256": _sha256(Path(src.path)),
        "publisher": src.publisher,
        "table_id": src.table_id,
        "reference_date": src.reference_date,
        "licence": src.licence,
        "citation": src.citation,
        **extra,
    }


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path, index=False, engine="pyarrow", compression="zstd")


def _age_groups(df: pd.DataFrame) -> list[list[float | None]]:
    groups = df[["age_from", "age_to"]].drop_duplicates().sort_values("age_from")
    return [[float(a), None if pd.isna(b) else float(b)] for a, b in groups.itertuples(index=False)]


def _dataset_entry(data: CountryData, pop: pd.DataFrame, raw_root: Path, out: Path, loader: str, log) -> dict:
    """Write one data set's files and return its manifest entry."""
    _write_parquet(pop, out / "population" / f"{data.code}.parquet")
    total = float(pop["count"].sum())
    districts = pop.drop_duplicates("district_id")
    names = dict(zip(districts["district_id"].astype(str), districts["district_name"].astype(str)))
    entry = {
        "name": data.name,
        "loader": loader,
        "district_label": data.district_label,
        "region_label": data.region_label,
        "reference_date": data.reference_date,
        "districts": int(len(districts)),
        "regions": int(pop["region_id"].nunique()),
        "population": round(total, 3),
        "rows": int(len(pop)),
        "filled_districts": int(pop.loc[pop["filled"], "district_id"].nunique()),
        "age_groups": _age_groups(pop),
        "sources": [
            _source_entry(s, raw_root, rows=int(len(pop)), population=round(total, 3)) for s in data.sources
        ],
        "notes": list(data.notes),
    }
    if data.boundaries is not None:
        collection, missing, extra = geo.to_feature_collection(
            data.boundaries, names, data.boundary_tolerance, data.boundary_decimals)
        path = out / "boundaries" / f"{data.code}.geojson"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(geo.dumps(collection) + "\n", encoding="utf-8")
        entry["boundaries"] = {
            "file": f"boundaries/{data.code}.geojson",
            "features": len(collection["features"]),
            "bytes": path.stat().st_size,
            "frame": geo.frame(collection),
            "missing_geometry": missing,
            "geometry_without_data": extra,
            "note": data.boundary_note,
            "sources": [_source_entry(s, raw_root) for s in data.boundary_sources],
        }
        if missing or extra:
            log(f"  {data.code}: {len(missing)} districts without geometry, {len(extra)} geometries without data")
    else:
        entry["boundaries"] = None
        entry["boundary_note"] = data.boundary_note or "No boundary file is available for this data set."
    return entry


def _write_microdata(raw_root: Path, out: Path, log) -> dict:
    """Write every record-level data set (:data:`MICRODATA_LOADERS`); return their manifest entries."""
    entries = {}
    for loader in MICRODATA_LOADERS:
        for data in loader.load(raw_root):
            if data.id in entries:
                raise LoaderError(data.sources[0].path if data.sources else data.id, None,
                                  f"record-level data set {data.id!r} is produced twice")
            _write_parquet(data.table, out / "microdata" / f"{data.id}.parquet")
            entries[data.id] = {
                "name": data.name,
                "loader": loader.module,
                "note": data.note,
                "rows": int(len(data.table)),
                "columns": list(data.table.columns),
                "sources": [_source_entry(s, raw_root, rows=int(len(data.table))) for s in data.sources],
            }
            log(f"  {loader.module}: {data.id}, {len(data.table):,} records")
    return entries


def body_prior_entry(data: CountryData, own_tables: dict, have_ncdrisc: bool) -> dict:
    """Whose body statistics describe a data set (issue 27): its country's own table where one ships
    (``census_loaders.body``: DE, US), else the NCD-RisC prior of its country (ISO2 = the code before any
    ``-`` suffix), built by the core from the cached NCD-RisC tables.  ``data.body_prior_country`` is read only
    when the code's prefix is no country NCD-RisC knows, so no loader can make a country borrow another's table."""
    base = data.code.split("-")[0]
    known = base in own_tables or base in ncdrisc.ISO3 or base in ncdrisc.STAND_INS
    country = base if known else (data.body_prior_country or base)
    if country in own_tables:
        return {"country": country, "kind": "own", "borrowed_from": None,
                "source": "; ".join(f"{s.publisher}, {s.table_id}" for s in own_tables[country][1]),
                "year": own_tables[country][1][0].reference_date}
    if not have_ncdrisc:
        raise LoaderError(data.code, None, f"no body statistics for {country}: it has no table of its own and the "
                          f"NCD-RisC BMI file ({ncdrisc.BMI_FOLDER}/{ncdrisc.BMI_FILE}) is not shipped")
    year = int(str(data.reference_date)[:4])
    stand_in = ncdrisc.STAND_INS.get(country, {})
    return {"country": country, "kind": "ncdrisc", "borrowed_from": None, "stand_ins": stand_in or None,
            "source": ("NCD-RisC: mean height by birth cohort (eLife 2016) and BMI gamma 2022 (Lancet 2024); "
                       "spread and height–BMI dependence from the measured NHANES 2017–2018 adults"),
            "year": year}


def _load_all(raw_root: Path, log) -> tuple[list[tuple[str, CountryData]], list[dict]]:
    chosen: dict[str, tuple[str, CountryData]] = {}
    superseded = []
    for entry in POPULATION_LOADERS:
        started = time.perf_counter()
        datasets = entry.load(raw_root)
        log(f"  {entry.module}: {len(datasets)} data set(s) in {time.perf_counter() - started:.1f} s")
        for data in datasets:
            if data.code in chosen:
                superseded.append({"code": data.code, "loader": entry.module, "kept": chosen[data.code][0]})
                continue
            chosen[data.code] = (entry.module, data)
    return [chosen[c] for c in sorted(chosen)], superseded


def build(raw_root: Path, out_dir: Path, log: Callable[[str], None] = print) -> dict:
    """Build the cache from ``raw_root`` into ``out_dir`` atomically; return the manifest."""
    raw_root, out_dir = Path(raw_root), Path(out_dir)
    if not raw_root.is_dir():
        raise LoaderError(raw_root, None, "raw data folder not found")
    started = time.perf_counter()
    tmp = out_dir.parent / f".{out_dir.name}.building-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        loaded, superseded = _load_all(raw_root, log)
        body = importlib.import_module(BODY_PRIORS_MODULE).load(raw_root)
        bmi = ncdrisc.load_bmi(raw_root)
        datasets = {}
        for loader, data in loaded:
            pop = validate_population(data.population, data.sources[0].path if data.sources else data.code)
            entry = _dataset_entry(data, pop, raw_root, tmp, loader, log)
            entry["body_prior"] = body_prior_entry(data, body, bmi is not None)
            datasets[data.code] = entry
        priors = []
        prior_entries = {}
        for country in sorted(body):
            df, sources = body[country]
            priors.append(df.assign(prior_country=country))
            prior_entries[country] = {"rows": int(len(df)), "sources": [_source_entry(s, raw_root) for s in sources]}
        _write_parquet(pd.concat(priors, ignore_index=True), tmp / "body_priors.parquet")
        aux_entries = {}
        for table in importlib.import_module(AUXILIARY_MODULE).load(raw_root):
            label = table.sources[0].path if table.sources else table.id
            table = validate_fraction_table(table, label)
            _write_parquet(table.table, tmp / "auxiliary" / f"{table.id}.parquet")
            aux_entries[table.id] = {
                "name": table.name,
                "country": table.country,
                "note": table.note,
                "keys": [c for c in table.table.columns if c != "fraction"],
                "sources": [_source_entry(s, raw_root) for s in table.sources],
            }
        micro_entries = _write_microdata(raw_root, tmp, log)
        cohort_entry = None
        cohorts = ncdrisc.load(raw_root)
        if cohorts is not None:
            table, sources = cohorts
            _write_parquet(table, tmp / "height_cohorts.parquet")
            cohort_entry = {"rows": int(len(table)), "note": ncdrisc.NOTE,
                            "sources": [_source_entry(s_, raw_root, rows=int(len(table))) for s_ in sources]}
            log(f"  census_loaders.ncdrisc: height at 18 of {table['iso3'].nunique()} countries' birth cohorts")
        bmi_entry = None
        if bmi is not None:
            table, sources = bmi
            _write_parquet(table, tmp / "bmi_gamma.parquet")
            bmi_entry = {"rows": int(len(table)), "note": ncdrisc.BMI_NOTE,
                         "sources": [_source_entry(s_, raw_root, rows=int(len(table))) for s_ in sources]}
            log(f"  census_loaders.ncdrisc: BMI gamma of {table['iso3'].nunique()} countries, 2022")
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "datasets": datasets,
            "body_priors": prior_entries,
            "auxiliary": aux_entries,
            "microdata": micro_entries,
            "height_cohorts": cohort_entry,
            "bmi_gamma": bmi_entry,
            "superseded": superseded,
        }
        manifest = checksums.record(tmp, manifest)  # the sha256 of every file written above (before carrying over)
        for name in CARRIED_OVER:
            if (out_dir / name).is_dir():
                shutil.copytree(out_dir / name, tmp / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap(tmp, out_dir)
    log(f"built {len(datasets)} data sets into {out_dir} in {time.perf_counter() - started:.1f} s")
    return manifest


def _swap(new: Path, target: Path) -> None:
    """Replace ``target`` by ``new`` with two renames (old copy removed afterwards)."""
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    if target.exists():
        os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        if old.exists():
            os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)

