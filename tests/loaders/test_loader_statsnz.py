"""Stats NZ table 7502 (``NZ``): spot values of data/raw/nz/PROVENANCE.md (2015), ids from names, and
damaged copies of the file."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from census_loaders import statsnz
from census_loaders.schema import POPULATION_COLUMNS, LoaderError


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "nz"
    if not (f / statsnz.TABLE_FILE).exists():
        pytest.skip("Stats NZ files not present")
    return f


@pytest.fixture(scope="module")
def data(folder):
    (d,) = statsnz.load(folder)
    return d


@pytest.fixture(scope="module")
def pop(data) -> pd.DataFrame:
    return data.population


def test_new_zealand_2015(data, pop):
    assert data.code == "NZ" and data.reference_date == "2015-06-30" and list(pop.columns) == list(POPULATION_COLUMNS)
    assert pop["count"].sum() == 4_595_755
    by_sex = pop.groupby("sex")["count"].sum()
    assert (by_sex["male"], by_sex["female"]) == (2_257_250, 2_338_505)
    assert pop["district_id"].nunique() == 68 and len(pop) == 68 * 2 * 18
    assert pop.loc[pop["district_id"] == "auckland", "count"].sum() == 1_569_950


def test_areas_are_67_territorial_authorities_and_the_area_outside(pop):
    names = set(pop["district_name"])
    assert statsnz.OUTSIDE in names and len(names - {statsnz.OUTSIDE}) == 67
    ids = pop.drop_duplicates("district_id").set_index("district_name")["district_id"]
    assert ids["Central Hawke's Bay district"] == "central-hawkes-bay-district"
    assert ids["Area outside territorial authority"] == "area-outside-territorial-authority"
    assert set(pop["region_name"]) == {"New Zealand"}


def test_only_2015_is_used(folder, pop):
    table = statsnz.read_table(folder / statsnz.TABLE_FILE)
    assert len(table) == 24_480 and sorted(table["year"].unique()) == [str(y) for y in range(2006, 2016)]
    y2006 = table.loc[table["year"] == "2006", "value"].sum()
    assert y2006 != pop["count"].sum()
    ages = pop.drop_duplicates("age_from").sort_values("age_from")
    assert list(ages["age_from"]) == list(range(0, 90, 5)) and np.isnan(ages["age_to"].iloc[-1])


def test_notes_and_manifest(data, cache_root):
    assert any("rounded" in n.lower() or "round" in n for n in data.notes)
    assert any("estimates, not census counts" in n for n in data.notes)
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["NZ"]
    assert info["population"] == 4_595_755 and info["boundaries"] is None
    assert "2015" in info["name"] and info["body_prior"]["kind"] == "ncdrisc" and info["body_prior"]["country"] == "NZ"


# --------------------------------------------------------------------------- damaged copies


def _damaged(folder: Path, tmp_path: Path, edit) -> Path:
    out = tmp_path / "nz"
    out.mkdir()
    lines = (folder / statsnz.TABLE_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    (out / statsnz.TABLE_FILE).write_text("".join(edit(lines)), encoding="utf-8")
    return out


def _set_line(n, old, new):
    def edit(lines):
        assert old in lines[n - 1]
        lines[n - 1] = lines[n - 1].replace(old, new, 1)
        return lines
    return edit


@pytest.mark.parametrize("edit, message", [
    # line 2: "Far North district","0-4 Years","Male","2006",2040,
    (_set_line(2, ",2040,", ",-2040,"), "line 2: value (Far North district, 0-4 Years, Male, 2006) '-2040' is negative"),
    (_set_line(2, ",2040,", ",2O40,"), "line 2: value (Far North district, 0-4 Years, Male, 2006) '2O40' is not a number"),
    (_set_line(2, '"Male"', '"M"'), "line 2: sex 'M' is not Male or Female"),
    (_set_line(2, '"0-4 Years"', '"0-4"'), "line 2: unknown age label '0-4'"),
    (_set_line(2, ",2040,", ",2040,x"), "line 2: unknown flag 'x'"),
    (lambda lines: lines + [lines[5]], "line 24482: Far North district, 0-4 Years, Male, 2010: listed twice (first on line 6)"),
    (lambda lines: lines[:6] + lines[7:], "no row for Far North district, 0-4 Years, Male, 2011: the table is incomplete"),
    (lambda lines: [l.replace(",", ";") for l in lines], "the header has a single column"),
    (lambda lines: lines[:1000] + [lines[1000][:20] + "\n"], "line 1001: has 2 fields but the header has 6 (truncated?)"),
    (lambda lines: [l for l in lines if '"2015"' not in l], "no rows for 2015"),
])
def test_damaged_copies_fail_with_file_line_and_problem(folder, tmp_path, edit, message):
    with pytest.raises(LoaderError) as err:
        statsnz.load(_damaged(folder, tmp_path, edit))
    assert statsnz.TABLE_FILE in str(err.value) and message in str(err.value), str(err.value)


def test_empty_file(folder, tmp_path):
    with pytest.raises(LoaderError, match="file is empty"):
        statsnz.load(_damaged(folder, tmp_path, lambda lines: []))
