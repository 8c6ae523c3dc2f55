"""MovieLens ratings by 671 users (GroupLens ml-latest-small, via dslabs 0.7.4): sparse behavioural data.

Two files in ``data/raw/sparse/`` (see the PROVENANCE there): the ratings
(``userId, movieId, rating, timestamp``) and the movies (``movieId, title, year, genres``).
The ratings are the input of the sparse de-anonymisation attack (SPEC §6); the movie list
is read only to check that every rated movie exists.  The cache holds one table,
``microdata/movielens.parquet``: ``user_id``, ``movie_id``, ``rating`` (0.5–5 stars in
half-star steps), ``timestamp`` (Unix seconds, UTC), sorted by user, time and movie.

Validation, each failure a :class:`LoaderError` naming file, line and problem: the
header, the field count, whole positive ids, ratings on the half-star grid in [0.5, 5],
whole timestamps inside the release's period (1995-01-01 – 2017-01-01 UTC), no user
rating one movie twice, unique movie ids in the movie list, and no rating of a movie
the list lacks.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd

from .schema import LoaderError, MicroData, SourceFile, read_text, require_columns

RATINGS_FILE = "movielens_ratings_671users_dslabs-0.7.4.csv.gz"
MOVIES_FILE = "movielens_movies_dslabs-0.7.4.csv.gz"
DATASET_ID = "movielens"
RATING_COLUMNS = ("userId", "movieId", "rating", "timestamp")
MOVIE_COLUMNS = ("movieId", "title", "year", "genres")
#: The release covers 1995-01-09 … 2016-10-16; anything outside this window is a damaged value.
TIME_RANGE = (788_918_400, 1_483_228_800)  # 1995-01-01, 2017-01-01 (UTC)
RATING_RANGE = (0.5, 5.0)

ATTRIBUTION = (
    "MovieLens ratings: GroupLens Research, University of Minnesota — the “ml-latest-small” release "
    "(2016; 100,004 ratings by 671 users) as shipped in the R package dslabs 0.7.4. "
    "F. Maxwell Harper and Joseph A. Konstan, “The MovieLens Datasets: History and Context”, "
    "ACM Transactions on Interactive Intelligent Systems 5(4), 2015. Used for research; "
    "no endorsement by GroupLens or the University of Minnesota is implied."
)
LICENCE = ("GroupLens terms for ml-latest-small: research use with acknowledgement, no endorsement implied, "
           "redistribution only under the same terms, no commercial use without permission")
NOTE = ("Real ratings of real (pseudonymous) users: the attack lab measures how well a few approximately known "
        "ratings single out one user. " + ATTRIBUTION)


def _rows(path: Path, required) -> tuple[list[str], csv.reader]:
    text = read_text(path, "utf-8")
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise LoaderError(path, None, "file is empty") from None
    require_columns(header, required, path, 1)
    return header, reader


def _whole(text: str, path: Path, line: int, column: str, lo: int = 1, hi: int | None = None) -> int:
    try:
        value = float(text)
    except ValueError:
        raise LoaderError(path, line, f"{column} {text!r} is not a number") from None
    if not math.isfinite(value) or value != int(value):
        raise LoaderError(path, line, f"{column} {text!r} is not a whole number")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        span = f"at least {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise LoaderError(path, line, f"{column} {text!r} is not {span}")
    return value


def parse_movies(path: Path) -> set[int]:
    """The movie ids of the movie list (unique, whole, positive).

    Titles are not checked: five rows of the shipped list have none (dslabs' own parsing of the
    GroupLens file), and the attack does not use them."""
    path = Path(path)
    header, reader = _rows(path, MOVIE_COLUMNS)
    col_id = header.index("movieId")
    seen: dict[int, int] = {}
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        line = reader.line_num
        if len(fields) != len(header):
            raise LoaderError(path, line, f"expected {len(header)} fields, found {len(fields)}")
        movie = _whole(fields[col_id].strip(), path, line, "movieId")
        if movie in seen:
            raise LoaderError(path, line, f"movie {movie} appears twice (first on line {seen[movie]})")
        seen[movie] = line
    if not seen:
        raise LoaderError(path, None, "no data rows")
    return set(seen)


def parse_ratings(path: Path, movies: set[int] | None = None) -> pd.DataFrame:
    """The ratings as a validated frame (user_id, movie_id, rating, timestamp), sorted by user, time, movie."""
    path = Path(path)
    header, reader = _rows(path, RATING_COLUMNS)
    pos = [header.index(c) for c in RATING_COLUMNS]
    users, items, ratings, times = [], [], [], []
    first: dict[tuple[int, int], int] = {}
    lo_t, hi_t = TIME_RANGE
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        line = reader.line_num
        if len(fields) != len(header):
            raise LoaderError(path, line, f"expected {len(header)} fields, found {len(fields)}")
        u_text, m_text, r_text, t_text = (fields[i].strip() for i in pos)
        user = _whole(u_text, path, line, "userId")
        movie = _whole(m_text, path, line, "movieId")
        try:
            rating = float(r_text)
        except ValueError:
            raise LoaderError(path, line, f"rating {r_text!r} is not a number") from None
        if not (RATING_RANGE[0] <= rating <= RATING_RANGE[1]) or rating * 2 != int(rating * 2):
            raise LoaderError(path, line, f"rating {r_text!r} is not a half-star value in [0.5, 5]")
        stamp = _whole(t_text, path, line, "timestamp", lo_t, hi_t)
        key = (user, movie)
        if key in first:
            raise LoaderError(path, line, f"user {user} rates movie {movie} twice (first on line {first[key]})")
        first[key] = line
        if movies is not None and movie not in movies:
            raise LoaderError(path, line, f"movie {movie} is not in the movie list {MOVIES_FILE}")
        users.append(user)
        items.append(movie)
        ratings.append(rating)
        times.append(stamp)
    if not users:
        raise LoaderError(path, None, "no data rows")
    df = pd.DataFrame({
        "user_id": pd.array(users, dtype="int32"),
        "movie_id": pd.array(items, dtype="int32"),
        "rating": pd.array(ratings, dtype="float64"),
        "timestamp": pd.array(times, dtype="int64"),
    })
    return df.sort_values(["user_id", "timestamp", "movie_id"], kind="mergesort").reset_index(drop=True)


def _source(path: Path, table_id: str) -> SourceFile:
    return SourceFile(
        path=path,
        publisher="GroupLens Research, University of Minnesota (via the R package dslabs 0.7.4)",
        table_id=table_id,
        reference_date="1995-01-09/2016-10-16",
        licence=LICENCE,
        citation=ATTRIBUTION,
    )


def load(folder: Path) -> list[MicroData]:
    """The ratings as one record-level data set of the cache (the movie list only validates them)."""
    folder = Path(folder)
    movies_path, ratings_path = folder / MOVIES_FILE, folder / RATINGS_FILE
    table = parse_ratings(ratings_path, parse_movies(movies_path))
    sources = [_source(ratings_path, "ml-latest-small ratings (dslabs object movielens)"),
               _source(movies_path, "ml-latest-small movies (dslabs object movielens)")]
    return [MicroData(id=DATASET_ID, name="MovieLens ratings (ml-latest-small, 671 users)", table=table,
                      sources=sources, note=NOTE)]
