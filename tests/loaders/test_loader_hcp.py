"""HCP RGPH 2024 communes (``MA``): spot values of data/raw/ma/PROVENANCE.md, percentages turned into
counts, the repeated rows, communes without an age structure, and small damaged copies of the file."""
from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from census_loaders import hcp
from census_loaders.schema import POPULATION_COLUMNS, LoaderError

TANGER = "01.511.01.0"
NO_BREAKDOWN = {"12.066.01.03": "Lagouira", "12.066.03.03": "Aghouinite", "12.066.03.09": "Zoug", "12.391.05.05": "Mijik"}


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "ma"
    if not (f / hcp.PEOPLE_FILE).exists():
        pytest.skip("HCP files not present")
    return f


@pytest.fixture(scope="module")
def data(folder):
    (d,) = hcp.load(folder)
    return d


@pytest.fixture(scope="module")
def pop(data) -> pd.DataFrame:
    return data.population


@pytest.fixture(scope="module")
def raw(folder) -> pd.DataFrame:
    return pd.read_csv(folder / hcp.PEOPLE_FILE, dtype=str)


# --------------------------------------------------------------------------- real data


def test_communes_and_totals(data, pop, raw):
    assert data.code == "MA" and list(pop.columns) == list(POPULATION_COLUMNS)
    communes = raw[(raw["level"] == "commune") & (raw["area"] == "total") & (raw["sex"] == "all")]
    assert communes["code"].nunique() == 1_503  # PROVENANCE: 1,503 communes
    assert communes["population_municipal"].astype(float).sum() == 36_490_591  # = the country row
    country = raw[(raw["level"] == "country") & (raw["area"] == "total") & (raw["sex"] == "all")].iloc[0]
    assert float(country["population_municipal"]) == 36_490_591 and float(country["population_legal"]) == 36_828_330
    # the data set: 1,499 communes, 36,485,220 people (5,371 in 4 communes have no sex × age breakdown)
    assert pop["district_id"].nunique() == 1_499
    assert pop["count"].sum() == pytest.approx(36_485_220, abs=1e-6)
    assert 36_490_591 - 36_485_220 == 5_371
    assert len(pop) == 1_499 * 2 * 16


def test_tanger(pop, raw):
    t = pop[pop["district_id"] == TANGER]
    assert set(t["district_name"]) == {"Tanger"} and set(t["region_name"]) == {"Tanger-Assilah"}
    by_sex = t.groupby("sex")["count"].sum()
    assert by_sex["male"] == pytest.approx(644_380) and by_sex["female"] == pytest.approx(628_338)
    assert by_sex.sum() == pytest.approx(1_272_718)
    row = raw[(raw["code"] == TANGER) & (raw["area"] == "total") & (raw["sex"] == "male")].iloc[0]
    pct = np.array([float(row[c]) for c in hcp.AGE_COLUMNS])
    assert pct[0] == 8.5  # PROVENANCE: male age_0_4 8.5 %
    young = t[(t["sex"] == "male") & (t["age_from"] == 0)]["count"].iloc[0]
    assert young == pytest.approx(644_380 * 8.5 / pct.sum())  # rescaled so the groups add up to the sex total
    assert abs(pct.sum() - 100) <= 0.4 and pct.sum() != 100  # the one-decimal percentages do not add to 100


def test_every_sex_total_is_kept_exactly(pop, raw):
    rows = raw[(raw["level"] == "commune") & (raw["area"] == "total") & raw["sex"].isin(["male", "female"])]
    rows = rows.drop_duplicates(["code", "sex"]).set_index(["code", "sex"])["population_municipal"].astype(float)
    ours = pop.groupby(["district_id", "sex"])["count"].sum()
    published = rows.reindex(ours.index)
    assert np.allclose(ours.to_numpy(), published.to_numpy(), rtol=0, atol=1e-6)


def test_age_groups(pop):
    ages = pop.drop_duplicates("age_from").sort_values("age_from")
    assert list(ages["age_from"]) == list(range(0, 80, 5))
    assert list(ages["age_to"].iloc[:-1]) == list(range(5, 80, 5)) and np.isnan(ages["age_to"].iloc[-1])  # 75+


def test_communes_without_breakdown_are_named_and_left_out(data, pop):
    assert not set(NO_BREAKDOWN) & set(pop["district_id"])
    note = next(n for n in data.notes if "no sex × age breakdown" in n)
    for code, name in NO_BREAKDOWN.items():
        assert f"{name} ({code}" in note
    assert "5,371 people" in note and "36,485,220" in note


def test_a_commune_with_men_only_is_kept(pop):
    oum = pop[pop["district_id"] == "12.391.05.07"]  # Oum Dreyga: 13 men, no women
    assert oum.groupby("sex")["count"].sum().to_dict() == pytest.approx({"female": 0.0, "male": 13.0})


def test_repeated_rows_agree(folder):
    parsed = hcp.read_people(folder / hcp.PEOPLE_FILE)
    communes = parsed["communes"]
    assert len(communes) == 1_503
    single = [c for c, rows in communes.items() if sum((a, "all") in rows for a in ("urban", "rural")) == 1]
    assert len(single) == 1_343  # each repeats its total row; the loader checks the copies agree
    assert parsed["provinces"]["01.511"] == "Tanger-Assilah"


def test_the_manifest_states_the_conversion(cache_root):
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["MA"]
    assert round(info["population"]) == 36_485_220 and info["districts"] == 1_499
    assert info["boundaries"] is None and "no boundary" in info["boundary_note"].lower()
    assert any("percentage" in n and "rescaled" in n for n in info["notes"])
    assert info["body_prior"]["kind"] == "ncdrisc" and info["body_prior"]["country"] == "MA"


# --------------------------------------------------------------------------- small damaged copies

KEEP = (TANGER, "01.511.01.01", "01.511.03.13", "12.391.05.05", "12.391.05.07")


def _small_folder(folder: Path, tmp_path: Path, damage=None) -> Path:
    """Header, the country and province rows, and five communes (Tanger, two more of its province, one
    without breakdown, Oum Dreyga): the country total set to what those communes add up to."""
    text = gzip.decompress((folder / hcp.PEOPLE_FILE).read_bytes()).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(header)}
    keep = [r for r in body if (r[col["level"]] == "country")
            or (r[col["level"]] == "province" and r[col["code"]] in {c[:6] for c in KEEP})
            or (r[col["level"]] == "commune" and r[col["code"]] in KEEP)]
    total = sum(float(r[col["population_municipal"]]) for r in keep
                if r[col["level"]] == "commune" and r[col["area"]] == "total" and r[col["sex"]] == "all")
    for r in keep:
        if r[col["level"]] == "country" and r[col["area"]] == "total" and r[col["sex"]] == "all":
            r[col["population_municipal"]] = str(int(total))
    if damage:
        damage(keep, col)
    out = tmp_path / "ma"
    out.mkdir()
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header, *keep])
    (out / hcp.PEOPLE_FILE).write_bytes(gzip.compress(buf.getvalue().encode("utf-8")))
    attrs = pd.read_csv(folder / hcp.ATTRIBUTES_FILE, dtype=str)
    attrs[attrs["code"].isin(KEEP)].to_csv(out / hcp.ATTRIBUTES_FILE, index=False, compression="gzip")
    (out / hcp.SOURCES_FILE).write_bytes((folder / hcp.SOURCES_FILE).read_bytes())
    return out


def _row(rows, col, code, area="total", sex="all", nth=0):
    return [r for r in rows if r[col["code"]] == code and r[col["area"]] == area and r[col["sex"]] == sex
            and r[col["level"]] == "commune"][nth]


def test_small_copy_loads(folder, tmp_path):
    (d,) = hcp.load(_small_folder(folder, tmp_path))
    assert sorted(d.population["district_id"].unique()) == sorted(set(KEEP) - {"12.391.05.05"})


def _pct(code, sex, value):
    def damage(rows, col):
        _row(rows, col, code, sex=sex)[col["age_0_4"]] = value
    return damage


def _field(code, field, value, area="total", sex="all"):
    def damage(rows, col):
        _row(rows, col, code, area, sex)[col[field]] = value
    return damage


def _duplicate_with_change(rows, col):
    copy = list(_row(rows, col, TANGER, sex="male"))
    copy[col["age_5_9"]] = "19.4"
    rows.append(copy)


@pytest.mark.parametrize("damage, message", [
    (_pct(TANGER, "male", "18.5"), "commune 01.511.01.0 (male): age percentages sum to 110."),
    (_pct(TANGER, "female", "-8.1"), "age_0_4 (01.511.01.0, female) '-8.1' is negative"),
    (_pct(TANGER, "female", "n/a"), "age_0_4 (01.511.01.0, female) 'n/a' is not a number"),
    (_field(TANGER, "population_municipal", "644390", sex="male"),
     "commune 01.511.01.0: male + female vs all: parts sum to 1,272,728 but the total is 1,272,718"),
    (_field(TANGER, "population_municipal", "644390", area="urban", sex="male"),
     "commune 01.511.01.0 (male): its only area row differs from its total row"),
    (_field("01.511.03.13", "population_municipal", "1", area="rural"),
     "commune 01.511.03.13 (all) urban + rural vs total"),
    (_duplicate_with_change, "commune 01.511.01.0 (total, male) is listed twice with different values"),
    (_field(TANGER, "code", "01.511.1.0"), "commune code '01.511.1.0' is not of the form"),
    (_field(TANGER, "sex", "both"), "sex 'both' is not all, male or female"),
    (_field(TANGER, "population_municipal", "1272700"),
     "commune populations (sex all) vs the country row"),
])
def test_damaged_copies_fail_with_file_line_and_problem(folder, tmp_path, damage, message):
    small = _small_folder(folder, tmp_path, damage=damage)
    with pytest.raises(LoaderError) as err:
        hcp.load(small)
    text = str(err.value)
    assert hcp.PEOPLE_FILE in text and message in text, text
    if "country row" not in text:
        assert ", line " in text


def test_a_row_with_a_missing_field_names_its_line(folder, tmp_path):
    small = _small_folder(folder, tmp_path, damage=lambda rows, col: rows[3].pop())
    with pytest.raises(LoaderError, match=r"line 5: has 83 fields but the header has 84"):
        hcp.load(small)


def test_truncated_gzip_and_wrong_delimiter(folder, tmp_path):
    small = _small_folder(folder, tmp_path)
    data = (small / hcp.PEOPLE_FILE).read_bytes()
    (small / hcp.PEOPLE_FILE).write_bytes(data[: len(data) - 40])
    with pytest.raises(LoaderError, match="gzip stream is damaged or truncated"):
        hcp.load(small)
    text = gzip.decompress(data).decode("utf-8").replace(",", ";")
    (small / hcp.PEOPLE_FILE).write_bytes(gzip.compress(text.encode("utf-8")))
    with pytest.raises(LoaderError, match="the header has a single column"):
        hcp.load(small)


def test_communes_must_match_the_attribute_table(folder, tmp_path):
    small = _small_folder(folder, tmp_path)
    attrs = pd.read_csv(small / hcp.ATTRIBUTES_FILE, dtype=str)
    attrs.iloc[1:].to_csv(small / hcp.ATTRIBUTES_FILE, index=False, compression="gzip")
    with pytest.raises(LoaderError, match="communes differ from"):
        hcp.load(small)
