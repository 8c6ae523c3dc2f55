"""MovieLens ratings: the PROVENANCE spot values, the cache entry, damaged copies, and an atomic build."""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import pandas as pd
import pytest
from support.loaders import digest_tree

from census_loaders import build as cache_build
from census_loaders import cache, movielens
from census_loaders.registry import LoaderEntry
from census_loaders.schema import LoaderError


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    path = raw_root / "sparse"
    if not (path / movielens.RATINGS_FILE).exists():
        pytest.skip("MovieLens files not present")
    return path


@pytest.fixture(scope="module")
def table(folder) -> pd.DataFrame:
    return movielens.load(folder)[0].table


def test_provenance_spot_values(table):
    assert len(table) == 100_004
    assert table["user_id"].nunique() == 671
    assert table["movie_id"].nunique() == 9_066
    per_user = table.groupby("user_id").size()
    assert per_user.min() == 20 and per_user.median() == 71 and per_user.max() == 2_391
    first, last = pd.to_datetime(table["timestamp"].agg(["min", "max"]), unit="s")
    assert str(first.date()) == "1995-01-09" and str(last.date()) == "2016-10-16"
    assert set(table["rating"].unique()) <= {x / 2 for x in range(1, 11)}
    assert list(table.dtypes.astype(str)) == ["int32", "int32", "float64", "int64"]
    assert not table.duplicated(["user_id", "movie_id"]).any()
    # sorted by user, then time
    assert (table.groupby("user_id")["timestamp"].diff().dropna() >= 0).all()


def test_shipped_cache_holds_the_ratings(table, cache_root):
    info = cache.microdata_info("movielens")
    assert info["rows"] == 100_004 and info["loader"] == "census_loaders.movielens"
    assert "GroupLens" in info["note"] and "Harper" in info["sources"][0]["citation"]
    assert {s["file"] for s in info["sources"]} == {f"sparse/{movielens.RATINGS_FILE}", f"sparse/{movielens.MOVIES_FILE}"}
    pd.testing.assert_frame_equal(cache.microdata("movielens"), table)


def _damaged(folder: Path, tmp_path: Path, which: str, line: int, new: str | None) -> Path:
    """A copy of the folder with one line of ``which`` replaced (None: duplicated)."""
    out = tmp_path / "sparse"
    out.mkdir()
    for name in (movielens.RATINGS_FILE, movielens.MOVIES_FILE):
        lines = gzip.decompress((folder / name).read_bytes()).decode("utf-8").splitlines(keepends=True)
        if name == which:
            if new is None:
                lines.insert(line, lines[line - 1])
            else:
                lines[line - 1] = new + "\n"
        (out / name).write_bytes(gzip.compress("".join(lines).encode("utf-8"), mtime=0))
    return out


@pytest.mark.parametrize("line, new, problem", [
    (5, "1,1339,3.7,1260759125", "rating '3.7' is not a half-star value"),
    (5, "1,1339,6.0,1260759125", "rating '6.0' is not a half-star value"),
    (7, "1,1339,3.5", "expected 4 fields, found 3"),
    (9, "x,1339,3.5,1260759125", "userId 'x' is not a number"),
    (9, "1,-4,3.5,1260759125", "movieId '-4' is not at least 1"),
    (9, "1,1339,3.5,99", "timestamp '99' is not in"),
    (9, "1,1339,3.5,1260759125.5", "timestamp '1260759125.5' is not a whole number"),
    (9, "1,99999999,3.5,1260759125", "movie 99999999 is not in the movie list"),
    (3, None, "user 1 rates movie 2455 twice (first on line 3)"),
])
def test_damaged_ratings_name_file_line_and_problem(folder, tmp_path, line, new, problem):
    bad = _damaged(folder, tmp_path, movielens.RATINGS_FILE, line, new)
    with pytest.raises(LoaderError) as err:
        movielens.load(bad)
    text = str(err.value)
    assert movielens.RATINGS_FILE in text and problem in text
    assert f"line {line + 1 if new is None else line}" in text


def test_damaged_movie_list_and_missing_columns(folder, tmp_path):
    bad = _damaged(folder, tmp_path, movielens.MOVIES_FILE, 4, "2,Jumanji,1995.0,Adventure")
    with pytest.raises(LoaderError, match=r"movies.*line 4: movie 2 appears twice \(first on line 3\)"):
        movielens.load(bad)
    header = tmp_path / "h" / movielens.RATINGS_FILE
    header.parent.mkdir()
    header.write_bytes(gzip.compress(b"userId;movieId;rating;timestamp\n1;2;3;4\n"))
    with pytest.raises(LoaderError, match="line 1: missing column.*delimiter"):
        movielens.parse_ratings(header)
    header.write_bytes(b"")
    with pytest.raises(LoaderError, match="damaged or truncated|empty"):
        movielens.parse_ratings(header)


@pytest.mark.slow  # three cache builds: the full suite runs it
def test_build_is_repeatable_and_a_damaged_file_keeps_the_previous_cache(raw_root, folder, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_build, "POPULATION_LOADERS", [LoaderEntry("census_loaders.destatis", "de")])
    out, again = tmp_path / "cache", tmp_path / "again"
    cache_build.build(raw_root, out, log=lambda m: None)
    cache_build.build(raw_root, again, log=lambda m: None)
    before = digest_tree(out)
    assert before == digest_tree(again)
    assert "microdata/movielens.parquet" in before
    raw = tmp_path / "raw"
    raw.mkdir()
    for src in raw_root.iterdir():  # symlinks to the real folders, but a damaged sparse/ folder
        if src.name != "sparse":
            os.symlink(src, raw / src.name)
    _damaged(folder, raw, movielens.RATINGS_FILE, 50, "1,1339,3.5,-5")
    with pytest.raises(LoaderError, match=r"movielens_ratings.*line 50: timestamp '-5'"):
        cache_build.build(raw, out, log=lambda m: None)
    assert digest_tree(out) == before


def test_about_page_lists_the_movielens_files(cache_root):
    from dashboard.core.country import source_rows

    rows = [r for r in source_rows(cache.manifest()) if r["kind"] == "record-level data" and "MovieLens" in r["data set"]]
    assert {r["file"] for r in rows} == {f"sparse/{movielens.RATINGS_FILE}", f"sparse/{movielens.MOVIES_FILE}"}
    assert all("GroupLens" in r["publisher"] and "no commercial use" in r["licence"] for r in rows)
