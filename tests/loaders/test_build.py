"""The build: deterministic bytes, atomic swap, and a corrupt file leaves the old cache intact."""
from __future__ import annotations

import os
import shutil

import pytest
from support.loaders import CARRIED_OVER_FILE, digest_tree, mirror_raw

from census_loaders import build as cache_build
from census_loaders.schema import LoaderError
from dashboard.cli import main


@pytest.mark.slow  # two full builds: seconds
def test_build_twice_gives_the_same_bytes_even_through_a_symlinked_raw_root(raw_root, tmp_path, small_registry,
                                                                          small_cache):
    """The build is deterministic, and ``../shared`` may be a symlink (a checkout beside a shared folder): a
    second build through a link to the raw folder writes the same bytes.  The first build is the shared
    ``small_cache`` (once per process, with the derived files); the second goes into a folder holding the same
    file another command wrote."""
    from dashboard.cli.data import derived_files

    a, b = small_cache, tmp_path / "b"
    folder, name, text = CARRIED_OVER_FILE
    (b / folder).mkdir(parents=True)
    (b / folder / name).write_text(text)
    link = tmp_path / "shared-link"
    os.symlink(raw_root.resolve(), link)
    cache_build.build(link, b, log=lambda m: None, derived=derived_files)
    assert digest_tree(a) == digest_tree(b)
    manifest = (a / "manifest.json").read_text()
    assert '"DE"' in manifest and '"GB"' in manifest


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_corrupt_file_stops_build_and_keeps_previous_cache(raw_root, tmp_path, small_registry, small_cache):
    out = tmp_path / "cache"
    # the shared build (small_cache), made over a folder holding anonland/summary.json (another command's): kept
    shutil.copytree(small_cache, out, symlinks=True)
    assert (out / "anonland" / "summary.json").read_text() == "{}" and (out / "manifest.json").exists()
    before = digest_tree(out)
    raw = mirror_raw(raw_root, tmp_path / "raw")
    bad = raw / "de" / "12411-02-03-4_kreise_2023_2024_clean.csv"
    lines = bad.read_text(encoding="utf-8").splitlines(keepends=True)
    bad.unlink()
    lines[9454] = lines[9454].rsplit(";", 1)[0] + ";abc\n"  # a non-numeric count on line 9455 (2024)
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(LoaderError) as err:
        cache_build.build(raw, out, log=lambda m: None)
    assert "12411-02-03-4_kreise_2023_2024_clean.csv" in str(err.value)
    assert "line 9455" in str(err.value)
    assert digest_tree(out) == before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".cache.")]
    assert leftovers == []


def test_cli_build_error_is_one_clear_line(raw_root, tmp_path, small_registry, capsys):
    raw = mirror_raw(raw_root, tmp_path / "raw")
    empty = raw / "uk" / "mye22final.xlsx.gz"
    empty.unlink()
    empty.write_bytes(b"")
    code = main(["data", "build", "--raw", str(raw), "--out", str(tmp_path / "out"), "--quiet", "--scheduler", "serial"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1
    assert "mye22final.xlsx.gz" in err and "empty" in err
    assert not (tmp_path / "out").exists()


def test_missing_raw_folder_is_a_clear_error(tmp_path, capsys):
    code = main(["data", "build", "--raw", str(tmp_path / "nope"), "--out", str(tmp_path / "out")])
    assert code == 2
    assert "raw data folder not found" in capsys.readouterr().err


def test_body_prior_entry_ends_borrowing():
    """Issue 27: a country's own table where one ships, else its NCD-RisC prior, whatever a loader names."""
    import pandas as pd

    from census_loaders.build import body_prior_entry
    from census_loaders.schema import CountryData, SourceFile

    own = {"DE": (pd.DataFrame(), [SourceFile("x", "Destatis", "12211-9018", "2017", "dl-de")])}
    def entry(code, prior=None, date="2022-01-01"):
        return body_prior_entry(CountryData(code, code, pd.DataFrame(), [], date, body_prior_country=prior), own, True)
    assert entry("DE")["kind"] == "own" and entry("DE")["year"] == "2017"
    jp = entry("JP", prior="DE", date="2020-10-01")  # a loader still naming Germany: ignored
    assert (jp["kind"], jp["country"], jp["year"], jp["borrowed_from"]) == ("ncdrisc", "JP", 2020, None)
    assert entry("MO")["stand_ins"] == {"height": "HK", "bmi": "CN"}
    with pytest.raises(LoaderError, match="no body statistics for JP"):
        body_prior_entry(CountryData("JP", "JP", pd.DataFrame(), [], "2020"), own, False)


@pytest.mark.slow  # a build that fails at its derived step (the shared build made the aggregates): seconds
def test_build_writes_the_world_aggregates_checksummed_and_a_failure_keeps_the_old_cache(raw_root, tmp_path,
                                                                                       small_registry, small_build):
    """The build derives the world map's numbers and the explorer's default country table from the new cache
    before the swap (issues 25, 26).  The build with the derived files is the shared ``small_build``; the failing
    one goes over a copy of it."""
    from census_loaders import checksums
    from dashboard.core.regions import COUNTRY_TABLE_KEY, STORED_TABLE_FILE, stored_country_rows
    from dashboard.core.world import dataset_aggregate, world_aggregates

    built, manifest = small_build
    out = tmp_path / "cache"
    shutil.copytree(built, out, symlinks=True)
    path = out / "world" / "aggregates.parquet"
    assert manifest["files"]["world/aggregates.parquet"] == checksums.sha256(path)
    assert manifest["world_aggregates"]["rows"] == len(manifest["datasets"]) and checksums.verify(out) == []
    df = world_aggregates(out).set_index("code")
    assert sorted(df.index) == sorted(manifest["datasets"])
    code = sorted(manifest["datasets"])[0]
    assert df.loc[code, "person_mean"] == dataset_aggregate(code, root=out)["person_mean"]
    # the explorer's default country table, stored beside them (issue 25) and read back for the default range
    table = out / STORED_TABLE_FILE
    assert manifest["files"][STORED_TABLE_FILE] == checksums.sha256(table)
    assert manifest[COUNTRY_TABLE_KEY]["rows"] == 2 * len(manifest["datasets"])
    assert sorted(stored_country_rows(out)) == sorted(manifest["datasets"])
    before = digest_tree(out)

    def broken(folder, log):
        raise LoaderError(folder, None, "derived step failed")

    with pytest.raises(LoaderError, match="derived step failed"):
        cache_build.build(raw_root, out, log=lambda m: None, derived=broken)
    assert digest_tree(out) == before
