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

from . import checksums, ncdrisc, notes, places
from . import country_names as country_table
from . import geometry as geo
from .registry import (
    AUXILIARY_MODULE,
    BODY_PRIORS_MODULE,
    MICRODATA_LOADERS,
    NATIONAL_MODEL,
    POPULATION_LOADERS,
    WORLD_MAP,
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
        "note_parts": [notes.note_json(n) for n in data.notes],  # each note's template and fields (translatable)
        **_country_fields(data),
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
        note = data.boundary_note or notes.Note(notes.N_("No boundary file is available for this data set."))
        entry["boundary_note"] = note
        entry["boundary_note_parts"] = notes.note_json(note)
    return entry


def country_of(code: str) -> str:
    """The ISO alpha-2 country of a data set code: ``US-ZCTA`` → ``US``."""
    return code.split("-")[0].upper()


def _country_fields(data: CountryData) -> dict:
    """Who the data set is about, for the pickers, the search and the summary (names: CLDR; continent: UN M49)."""
    iso2 = country_of(data.code)
    english, local = country_table.country_names(iso2)
    return {
        "country": iso2,
        "iso3": country_table.iso3_of(iso2),
        "country_name": english,
        "local_names": local,
        "search_names": sorted(set(data.search_names) - {english, *local}),
        "continent": country_table.continent(iso2),
        "grain": "national" if data.national_model else data.district_label,
        "national_model": bool(data.national_model),
        "part_of_country": data.part_of_country,
        "licence": "; ".join(dict.fromkeys(s.licence for s in data.sources)),
    }


def decimal_year(reference_date: str) -> float | None:
    """A reference date as a year with fraction: "2023-12-31" → 2023.99, "2019" → 2019.5, "2016/2020" → 2018.5."""
    import datetime
    import re

    parts = [p.strip() for p in str(reference_date).split("/")]
    years = []
    for p in parts:
        m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", p)
        if m:
            d = datetime.date(*map(int, m.groups()))
            years.append(d.year + (d.timetuple().tm_yday - 1) / 365.25)
            continue
        m = re.match(r"(\d{4})", p)
        if not m:
            return None
        years.append(int(m.group(1)) + 0.5)
    return sum(years) / len(years)


#: A census data set's total may differ from WPP's national figure for its date by this much (share):
#: WPP is a model (mid-year, de facto residents), censuses count on one night with their own coverage.
WPP_TOLERANCE = 0.05


def _wpp_checks(raw_root: Path, datasets: dict[str, dict], log) -> None:
    """Add ``wpp_check`` to every census data set: WPP's national total at its reference date and the gap."""
    wanted = {code: decimal_year(d["reference_date"]) for code, d in datasets.items()
              if not d["national_model"] and not d["part_of_country"]}
    years = sorted({y for y in wanted.values() if y is not None})
    for code, d in datasets.items():
        d.setdefault("wpp_check", None)
    if NATIONAL_MODEL is None:  # a build of a few sources only (tests)
        return
    module = importlib.import_module(NATIONAL_MODEL.module)
    totals = module.population_at(raw_root / NATIONAL_MODEL.folder, years)
    for code, year in wanted.items():
        d = datasets[code]
        wpp = totals.get(year, {}).get(d["country"]) if year is not None else None
        if wpp is None:
            d["wpp_check"] = None
            continue
        gap = d["population"] / wpp - 1
        d["wpp_check"] = {"year": round(year, 2), "wpp_population": round(wpp), "gap": round(gap, 4),
                          "within_tolerance": abs(gap) <= WPP_TOLERANCE}
        if abs(gap) > WPP_TOLERANCE:
            log(f"  {code}: {d['population']:,.0f} people, {gap:+.1%} from WPP's {wpp:,.0f} for {year:.1f}")


def _write_world(raw_root: Path, out: Path) -> dict | None:
    """The world map (``world/countries.geojson``): every country's outline, feature id = ISO alpha-2."""
    if WORLD_MAP is None:  # a build of a few sources only (tests)
        return None
    module = importlib.import_module(WORLD_MAP.module)
    shapes, names, source = module.load(raw_root / WORLD_MAP.folder)
    collection, _, _ = geo.to_feature_collection(shapes, names, module.WORLD_TOLERANCE, module.WORLD_DECIMALS)
    collection = geo.unwrap_antimeridian(collection)
    path = out / "world" / "countries.geojson"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(geo.dumps(collection) + "\n", encoding="utf-8")
    return {"file": "world/countries.geojson", "features": len(collection["features"]), "bytes": path.stat().st_size,
            "tolerance_degrees": module.WORLD_TOLERANCE, "decimals": module.WORLD_DECIMALS,
            "sources": [_source_entry(source, raw_root)]}


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
                "note_parts": notes.note_json(data.note),
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
            "source": NCDRISC_SOURCE,
            "year": year}


#: How the manifest names the NCD-RisC body statistics (``body_prior.source``): our words, so marked for the
#: catalogues; a page says it in its language (``dashboard.core.text.body_source_name``).
NCDRISC_SOURCE = notes.N_("NCD-RisC: mean height by birth cohort (eLife 2016) and BMI gamma 2022 (Lancet 2024); "
                          "spread and height–BMI dependence from the measured NHANES 2017–2018 adults")


def _load_all(raw_root: Path, log) -> tuple[list[tuple[str, CountryData]], list[dict]]:
    chosen: dict[str, tuple[str, CountryData]] = {}
    superseded = []
    model_names: dict[str, list[str]] = {}  # the national model's other names ("Turkey"), for every data set
    for entry in POPULATION_LOADERS:
        started = time.perf_counter()
        datasets = entry.load(raw_root)
        log(f"  {entry.module}: {len(datasets)} data set(s) in {time.perf_counter() - started:.1f} s")
        for data in datasets:
            if data.national_model:
                model_names.setdefault(country_of(data.code), []).extend(data.search_names)
            if data.code in chosen:
                superseded.append({"code": data.code, "loader": entry.module, "kept": chosen[data.code][0]})
                continue
            chosen[data.code] = (entry.module, data)
    # a national model estimate only where no other data set covers the country (generic: by code prefix)
    covered = {country_of(c) for c, (_, d) in chosen.items() if not d.national_model}
    for code in sorted(chosen):
        loader, data = chosen[code]
        if data.national_model and country_of(code) in covered:
            finer = sorted(c for c, (_, d) in chosen.items() if not d.national_model and country_of(c) == country_of(code))
            superseded.append({"code": code, "loader": loader, "kept": ", ".join(sorted({chosen[c][0] for c in finer})),
                               "finer": finer})
            del chosen[code]
    for _, data in chosen.values():
        data.search_names = list(dict.fromkeys([*data.search_names, *model_names.get(country_of(data.code), [])]))
    return [chosen[c] for c in sorted(chosen)], superseded


def build(raw_root: Path, out_dir: Path, log: Callable[[str], None] = print,
          derived: Callable[[Path, Callable[[str], None]], dict[str, dict]] | None = None) -> dict:
    """Build the cache from ``raw_root`` into ``out_dir`` atomically; return the manifest.

    ``derived(folder, log)`` computes what is derived from the built data (the world aggregates of
    ``dashboard.core.world``, which this layer may not import): it reads the new cache at ``folder``, writes
    its files there and returns manifest entries; they are checksummed with the rest, before the swap.
    """
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
        _wpp_checks(raw_root, datasets, log)
        places_entry = places.write(tmp, datasets, log)  # GeoNames places → our districts (the district search)
        world_entry = _write_world(raw_root, tmp)
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
            "world": world_entry,
            "places": places_entry,
        }
        manifest = checksums.record(tmp, manifest)  # the sha256 of every file written above (before carrying over)
        if derived is not None:
            manifest = checksums.record(tmp, {**manifest, **derived(tmp, log)})
        for name in CARRIED_OVER:
            if (out_dir / name).is_dir():
                shutil.copytree(out_dir / name, tmp / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap(tmp, out_dir)
    log(f"built {len(datasets)} data sets into {out_dir} in {time.perf_counter() - started:.1f} s")
    return manifest


def rewrite_notes(raw_root: Path, cache_dir: Path, log: Callable[[str], None] = print) -> list[str]:
    """Re-write every data set's notes in the manifest of ``cache_dir`` from the loaders (their English text and
    their structure, ``note_parts``), without rebuilding a data file: only ``manifest.json`` changes, whose
    checksums cover the data files, not itself.  Returns the data sets whose English notes changed (a loader's
    text differs from the one the cache was built with), each with the first difference."""
    raw_root, cache_dir = Path(raw_root), Path(cache_dir)
    manifest = checksums.read(cache_dir)
    loaded, _superseded = _load_all(raw_root, log)
    changed = []
    for _loader, data in loaded:
        entry = manifest["datasets"].get(data.code)
        if entry is None:
            continue
        new = {"notes": list(data.notes), "note_parts": [notes.note_json(n) for n in data.notes]}
        if entry.get("boundaries") is None:
            note = data.boundary_note or notes.Note(notes.N_("No boundary file is available for this data set."))
            new.update(boundary_note=note, boundary_note_parts=notes.note_json(note))
        for key in ("notes", "boundary_note"):
            if key in new and entry.get(key) != new[key]:
                changed.append(f"{data.code}: {key} {entry.get(key)!r} -> {new[key]!r}")
        entry.update(new)
    for loader in MICRODATA_LOADERS:  # the record-level data sets' one note each
        for data in loader.load(raw_root):
            entry = manifest.get("microdata", {}).get(data.id)
            if entry is None:
                continue
            if entry.get("note") != data.note:
                changed.append(f"{data.id}: note {entry.get('note')!r} -> {str(data.note)!r}")
            entry.update(note=str(data.note), note_parts=notes.note_json(data.note))
    (cache_dir / checksums.MANIFEST).write_text(checksums.dumps(manifest), encoding="utf-8")
    return changed


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

