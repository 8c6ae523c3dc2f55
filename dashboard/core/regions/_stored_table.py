"""The default country table, computed once at ``anonset data build`` and read from the cache afterwards.

Every explorer visit opens with the country tables of every data set on whole 5-year groups for the
default study range (:data:`STORED_TABLE_AGES`, grain ``"5"``): 192 data sets, about 10 s of work on a quiet
machine and most of the server's cold start.  The build writes those rows once
(:func:`.write_country_table`: ``tables/country_table.parquet``, its sha256 in the manifest like every other
built file); :func:`stored_country_rows` hands them to :func:`.comparable_country_table` for the default range.
Other ranges and grains are computed as before.

A cache built before this file existed, or one whose file is missing or does not match its recorded
sha256, gives ``None`` here and the rows are computed: the server refuses to start on such a cache
anyway (:mod:`census_loaders.checksums`), and the CLI then answers the same numbers, only slower.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from census_loaders import cache, checksums
from census_loaders.paths import cache_dir

from ..groups import DEFAULT_STUDY, format_age_band
from ..memo import Memo
from ._tables import TABLE_COLUMNS

#: Where the build stores the default country table inside the cache.
STORED_TABLE_FILE = "tables/country_table.parquet"
#: The study range and grain it is stored for (the explorer's default).
STORED_TABLE_AGES: tuple[float, float] = tuple(float(a) for a in DEFAULT_STUDY)
STORED_TABLE_GRAIN = "5"
#: The manifest's key for its entry.
COUNTRY_TABLE_KEY = "country_table"
STRING_COLUMNS = ("country", "name", "sex", "ages", "min_district_id", "min_district_name", "min_age")


def country_table_frame(rows: list[dict]) -> pd.DataFrame:
    """Country-table rows as the frame :func:`.comparable_country_table` returns (one dtype rule for both)."""
    df = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in STRING_COLUMNS:
        df[col] = df[col].astype("string")
    return df


def stored_country_rows(root: Path | None = None) -> dict[str, tuple[dict, ...]] | None:
    """Per data set, its stored rows of the default country table; None when the cache holds no intact copy."""
    folder = Path(root) if root is not None else cache_dir()
    path = folder / STORED_TABLE_FILE
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _STORED.get((str(folder), stamp), lambda: _read_rows(folder, path))


def _read_rows(folder: Path, path: Path) -> dict[str, tuple[dict, ...]] | None:
    try:
        manifest = cache.manifest(folder)
    except (OSError, ValueError):
        return None
    entry = manifest.get(COUNTRY_TABLE_KEY)
    recorded = (manifest.get(checksums.FILES_KEY) or {}).get(STORED_TABLE_FILE)
    if (not isinstance(entry, dict) or entry.get("ages") != format_age_band(*STORED_TABLE_AGES)
            or entry.get("grain") != STORED_TABLE_GRAIN or not recorded):
        return None
    try:
        if checksums.sha256(path) != recorded:
            return None
        df = cache.read_parquet(path)
    except (OSError, ValueError):
        return None
    if list(df.columns) != list(TABLE_COLUMNS):
        return None
    out: dict[str, list[dict]] = {}
    for row in country_table_frame(df.to_dict("records")).to_dict("records"):
        out.setdefault(str(row["country"]), []).append(row)
    return {code: tuple(rows) for code, rows in out.items()}


_STORED = Memo(4, name="core.regions.stored_table")
