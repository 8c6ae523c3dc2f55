"""ONS mid-2022 (MYE22UK) loader: published spot values, cross-checks, and damaged copies.

The workbook is parsed once per module.  Damaged workbooks are made by editing one
cell of the worksheet XML inside a copy of the real file (openpyxl needs ~15 s to
load and re-save the full workbook, which would make this module too slow).
"""
from __future__ import annotations

import gzip
import io
import json
import os
import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import openpyxl
import pandas as pd
import pytest
from openpyxl.utils import get_column_letter
from support.loaders import raises_loader_error

from census_loaders import ons
from census_loaders.schema import LINE_COLUMN, POPULATION_COLUMNS, LoaderError, validate_population

MALES, FEMALES, PERSONS = "MYE2 - Males", "MYE2 - Females", "MYE2 - Persons"
XLSX = "mye22final.xlsx"  # damaged copies: the reader takes the workbook gzipped or not


@pytest.fixture(scope="module")
def uk(raw_root) -> Path:
    folder = raw_root / "uk"
    if not (folder / ons.WORKBOOK).exists():
        pytest.skip("ONS workbook not present")
    return folder


@pytest.fixture(scope="module")
def loaded(uk):
    """load() once, keeping the raw workbook table it parsed (with source_line)."""
    tables = []
    real = ons.read_workbook
    ons.read_workbook = lambda path: tables.append(real(path)) or tables[-1]
    try:
        (data,) = ons.load(uk)
    finally:
        ons.read_workbook = real
    return data, tables[0]


@pytest.fixture(scope="module")
def gb(loaded):
    return loaded[0]


@pytest.fixture(scope="module")
def pop(gb) -> pd.DataFrame:
    return gb.population


@pytest.fixture(scope="module")
def wb_table(loaded) -> pd.DataFrame:
    return loaded[1]


def _count(pop, code, sex=None, age_from=None, age_to=None):
    sel = pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    if age_from is not None:
        sel &= pop["age_from"] >= age_from
    if age_to is not None:
        sel &= pop["age_from"] < age_to
    return pop.loc[sel, "count"].sum()


# --------------------------------------------------------------------------- real data


def test_shape_and_schema(pop):
    assert list(pop.columns) == list(POPULATION_COLUMNS)
    assert pop["district_id"].nunique() == 361
    assert len(pop) == 361 * 2 * 91
    assert not pop["filled"].any()
    ages = pop.drop_duplicates(["age_from", "age_to"]).sort_values("age_from")
    assert list(ages["age_from"]) == list(range(91))
    assert ages["age_to"].iloc[-1] != ages["age_to"].iloc[-1]  # 90+ is open (NaN)
    assert list(ages["age_to"].iloc[:-1]) == list(range(1, 91))
    prefixes = pop.drop_duplicates("district_id")["district_id"].str[0].value_counts().to_dict()
    assert prefixes == {"E": 296, "S": 32, "W": 22, "N": 11}


def test_uk_totals(pop):
    assert pop["count"].sum() == 67_596_281
    by_sex = pop.groupby("sex")["count"].sum()
    assert by_sex["male"] == 33_104_780
    assert by_sex["female"] == 34_491_501


@pytest.mark.parametrize(
    "code, name, total, males, females, m25, f25, m90",
    [
        ("E06000023", "Bristol, City of", 479_024, 238_161, 240_863, 23_145, 22_638, 1_062),
        ("E06000053", "Isles of Scilly", 2_281, 1_123, 1_158, 74, 56, 12),
        ("E09000001", "City of London", 10_847, 6_061, 4_786, 962, 806, 22),
        ("E08000003", "Manchester", 568_996, 282_913, 286_083, 28_081, 27_611, 661),
        ("W06000015", "Cardiff", 372_089, 182_357, 189_732, 16_163, 15_375, 877),
        ("S12000049", "Glasgow City", 622_820, 305_039, 317_781, 29_226, 30_262, 1_092),
        ("N09000003", "Belfast", 348_005, 169_491, 178_514, 13_563, 13_591, 716),
    ],
)
def test_spot_values(pop, code, name, total, males, females, m25, f25, m90):
    rows = pop[pop["district_id"] == code]
    assert set(rows["district_name"]) == {name}
    assert _count(pop, code) == total
    assert _count(pop, code, "male") == males
    assert _count(pop, code, "female") == females
    assert males + females == total
    assert _count(pop, code, "male", 25, 30) == m25
    assert _count(pop, code, "female", 25, 30) == f25
    assert _count(pop, code, "male", 90) == m90


def test_bristol_single_years(pop):
    persons = [_count(pop, "E06000023", None, a, a + 1) for a in range(6)]
    assert persons == [5_190, 5_047, 4_958, 5_063, 4_919, 5_137]


def test_male_plus_female_is_the_published_district_total(uk, pop):
    """Against MYE5's mid-2022 population column, a sheet the loader does not read."""
    wb = openpyxl.load_workbook(io.BytesIO(gzip.decompress((uk / ons.WORKBOOK).read_bytes())), read_only=True)
    rows = list(wb["MYE5"].iter_rows(min_row=8, values_only=True))
    wb.close()
    col = list(rows[0]).index("Estimated Population mid-2022")
    published = {r[0]: r[col] for r in rows[1:] if r[0] and r[2] in ons.LAD_TYPES}
    assert len(published) == 361
    ours = pop.pivot_table(index="district_id", columns="sex", values="count", aggfunc="sum")
    assert ((ours["male"] + ours["female"]) == pd.Series(published).reindex(ours.index)).all()


def test_regions(pop):
    region = pop.drop_duplicates("district_id").set_index("district_id")[["region_id", "region_name"]]
    assert tuple(region.loc["E06000023"]) == ("E12000009", "South West")
    assert tuple(region.loc["E08000003"]) == ("E12000002", "North West")
    assert tuple(region.loc["E09000001"]) == ("E12000007", "London")
    assert tuple(region.loc["E08000035"]) == ("E12000003", "Yorkshire and the Humber")
    assert tuple(region.loc["W06000015"]) == ("W92000004", "Wales")
    assert tuple(region.loc["S12000049"]) == ("S92000003", "Scotland")
    assert tuple(region.loc["N09000003"]) == ("N92000002", "Northern Ireland")
    sizes = region.groupby("region_id").size().to_dict()
    assert sizes["E12000007"] == 33  # the London boroughs
    assert len(sizes) == 12  # 9 English regions + 3 nations
    assert all(rid[0] == did[0] for did, rid in region["region_id"].items())


def test_source_line_is_the_spreadsheet_row(wb_table):
    hartlepool = wb_table[(wb_table["district_id"] == "E06000001")]
    assert set(hartlepool[LINE_COLUMN]) == {16}  # same row in the Males and Females sheets


def test_tidy_csv_equals_workbook(uk, wb_table, pop):
    csv_table = ons.read_tidy_csv(uk / ons.TIDY_CSV, ons.regions_of(wb_table))
    assert csv_table[LINE_COLUMN].min() == 2
    pd.testing.assert_frame_equal(validate_population(csv_table, ons.TIDY_CSV), pop)


def test_tidy_csv_without_regions_falls_back_to_nations(uk):
    table = ons.read_tidy_csv(uk / ons.TIDY_CSV)
    assert set(zip(table["region_id"], table["region_name"])) == set(ons.NATIONS.values())
    assert table["count"].sum() == 67_596_281


def test_metadata(gb, uk):
    assert gb.code == "GB" and gb.name == "United Kingdom"
    assert gb.district_label == "local authority district"
    assert gb.body_prior_country is None  # its NCD-RisC prior (issue 27)
    assert gb.reference_date == "2022-06-30"
    (src,) = gb.sources
    assert src.path == (uk / ons.WORKBOOK).absolute() and src.path.is_absolute() and src.path.exists()
    assert src.table_id == "MYE22UK" and "ONS" in src.publisher
    assert "Open Government Licence" in src.citation and "OGL" in src.licence
    (bsrc,) = gb.boundary_sources
    assert "Contains OS data" in bsrc.citation and bsrc.path.exists()


def test_boundaries_match_districts(gb):
    b = gb.boundaries
    assert b.crs.to_epsg() == 4326
    assert list(b.columns) == ["district_id", "geometry"]
    assert set(b["district_id"]) == set(gb.population["district_id"])
    assert len(b) == 361
    bristol = b.loc[b["district_id"] == "E06000023"].total_bounds
    assert list(bristol) == pytest.approx([-2.7182, 51.3975, -2.5104, 51.5444], abs=1e-4)  # PROVENANCE bbox


# --------------------------------------------------------------------------- damaged workbooks


@pytest.fixture(scope="module")
def xlsx(uk):
    """The unzipped parts of the real workbook, its sheet files, and each area's row per sheet."""
    raw = gzip.decompress((uk / ons.WORKBOOK).read_bytes())
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    rels = parts["xl/_rels/workbook.xml.rels"].decode()
    targets = {}
    for rel in re.findall(r"<Relationship [^>]*>", rels):
        rid, target = re.search(r'Id="([^"]+)"', rel).group(1), re.search(r'Target="([^"]+)"', rel).group(1)
        targets[rid] = "xl/" + target
    sheets = {n: targets[r] for n, r in re.findall(r'<sheet name="([^"]+)"[^>]*r:id="([^"]+)"', parts["xl/workbook.xml"].decode())}
    strings = [re.sub(r"<[^>]+>", "", si) for si in re.findall(r"<si>(.*?)</si>", parts["xl/sharedStrings.xml"].decode(), re.S)]
    rows = {}
    for sheet in (MALES, FEMALES, PERSONS):
        cells = re.findall(r'<c r="A(\d+)"[^>]*t="s"[^>]*><v>(\d+)</v>', parts[sheets[sheet]].decode())
        rows[sheet] = {strings[int(i)]: int(r) for r, i in cells}
    return {"parts": parts, "sheets": sheets, "rows": rows}


def _cell_pattern(ref: str):
    return re.compile(rf'<c r="{ref}"(?: [^>]*?)?(?:/>|>.*?</c>)', re.S)


def _get(xlsx, sheet, ref) -> int:
    m = re.search(rf'<c r="{ref}"[^>]*><v>(-?\d+)</v>', xlsx["parts"][xlsx["sheets"][sheet]].decode())
    return int(m.group(1))


def _write(xlsx, path: Path, cells: dict | None = None, rename: tuple[str, str] | None = None) -> Path:
    """A copy of the workbook (gzipped if path ends in .gz) with cells replaced ({(sheet, 'E16'): value})."""
    parts = dict(xlsx["parts"])
    for (sheet, ref), value in (cells or {}).items():
        name = xlsx["sheets"][sheet]
        if isinstance(value, str):
            new = f'<c r="{ref}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'
        else:
            new = f'<c r="{ref}"><v>{value}</v></c>'
        text, n = _cell_pattern(ref).subn(new, parts[name].decode(), count=1)
        assert n == 1, f"cell {ref} not found in {sheet}"
        parts[name] = text.encode()
    if rename:
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(f'name="{rename[0]}"'.encode(), f'name="{rename[1]}"'.encode())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:  # stored: fast, and still a valid xlsx
        for name, data in parts.items():
            z.writestr(name, data)
    path.write_bytes(gzip.compress(buf.getvalue(), 1) if path.suffix == ".gz" else buf.getvalue())
    return path


def _age_col(age: int) -> str:
    return get_column_letter(5 + age)  # A code, B name, C geography, D all ages, E age 0


def test_workbook_non_numeric_count(xlsx, tmp_path):
    row = xlsx["rows"][MALES]["E06000001"]
    p = _write(xlsx, tmp_path / XLSX, {(MALES, f"{_age_col(3)}{row}"): "n/a"})
    raises_loader_error(ons.read_workbook, p, sheet=MALES, line=row,
                        fragments=("E06000001", "age 3", "'n/a' is not a number"))


def test_workbook_negative_count(xlsx, tmp_path):
    row = xlsx["rows"][FEMALES]["E06000023"]
    p = _write(xlsx, tmp_path / XLSX, {(FEMALES, f"{_age_col(40)}{row}"): -3})
    raises_loader_error(ons.read_workbook, p, sheet=FEMALES, line=row, fragments=("E06000023", "negative"))


def test_workbook_duplicate_district(xlsx, tmp_path):
    row = xlsx["rows"][MALES]["E06000002"]
    p = _write(xlsx, tmp_path / XLSX, {(MALES, f"A{row}"): "E06000001"})
    raises_loader_error(ons.read_workbook, p, sheet=MALES, line=row, fragments=("duplicate row for E06000001",))


def test_workbook_unknown_district_code(xlsx, tmp_path):
    row = xlsx["rows"][MALES]["E06000023"]
    p = _write(xlsx, tmp_path / XLSX, {(MALES, f"A{row}"): "E6000023"})
    raises_loader_error(ons.read_workbook, p, sheet=MALES, line=row,
                        fragments=("'E6000023' is not a local authority district code",))


def test_workbook_unknown_geography(xlsx, tmp_path):
    row = xlsx["rows"][FEMALES]["E06000023"]
    p = _write(xlsx, tmp_path / XLSX, {(FEMALES, f"C{row}"): "Parish"})
    raises_loader_error(ons.read_workbook, p, sheet=FEMALES, line=row, fragments=("unknown geography type 'Parish'",))


def test_workbook_ages_do_not_sum_to_all_ages(xlsx, tmp_path):
    row = xlsx["rows"][MALES]["E06000023"]
    ref = f"{_age_col(30)}{row}"
    p = _write(xlsx, tmp_path / XLSX, {(MALES, ref): _get(xlsx, MALES, ref) + 7})
    raises_loader_error(ons.read_workbook, p, sheet=MALES, line=row,
                        fragments=("E06000023", "parts sum to 238,168 but the total is 238,161"))


def test_workbook_males_plus_females_differs_from_persons(xlsx, tmp_path):
    """A consistent edit of one Males row (age and all ages) is caught by the Persons sheet."""
    row = xlsx["rows"][MALES]["E06000023"]
    age, total = f"{_age_col(30)}{row}", f"D{row}"
    p = _write(xlsx, tmp_path / XLSX, {
        (MALES, age): _get(xlsx, MALES, age) + 7,
        (MALES, total): _get(xlsx, MALES, total) + 7,
    })
    raises_loader_error(ons.read_workbook, p, sheet=PERSONS, line=xlsx["rows"][PERSONS]["E06000023"],
                        fragments=("E06000023 all ages", "persons 479,024"))


def test_workbook_districts_do_not_sum_to_their_region(xlsx, tmp_path):
    """Consistent edits of a region row in all sheets are caught by its districts' sum."""
    cells = {}
    for sheet in (MALES, PERSONS):
        row = xlsx["rows"][sheet]["E12000009"]
        for ref in (f"D{row}", f"{_age_col(0)}{row}"):
            cells[(sheet, ref)] = _get(xlsx, sheet, ref) + 1
    p = _write(xlsx, tmp_path / XLSX, cells)
    raises_loader_error(ons.read_workbook, p, sheet=MALES, line=xlsx["rows"][MALES]["E12000009"],
                        fragments=("E12000009", "its 27 local authority districts sum to"))


def test_workbook_missing_age_column(xlsx, tmp_path):
    p = _write(xlsx, tmp_path / XLSX, {(FEMALES, f"{_age_col(25)}8"): "Age 25"})
    raises_loader_error(ons.read_workbook, p, sheet=FEMALES, line=8, fragments=("missing column(s) '25'",))


def test_workbook_missing_sheet(xlsx, tmp_path):
    p = _write(xlsx, tmp_path / XLSX, rename=(FEMALES, "MYE2 - Women"))
    raises_loader_error(ons.read_workbook, p, line=None, fragments=("sheet 'MYE2 - Females' is missing",))


def test_workbook_truncated(uk, tmp_path):
    raw = (uk / ons.WORKBOOK).read_bytes()
    p = tmp_path / ons.WORKBOOK
    p.write_bytes(raw[: len(raw) // 2])
    raises_loader_error(ons.read_workbook, p, line=None, fragments=("damaged or truncated",))


def test_workbook_truncated_inside_the_gzip(uk, tmp_path):
    """A valid gzip of half the xlsx: the zip directory is missing."""
    raw = gzip.decompress((uk / ons.WORKBOOK).read_bytes())
    p = tmp_path / ons.WORKBOOK
    p.write_bytes(gzip.compress(raw[: len(raw) // 2], 1))
    raises_loader_error(ons.read_workbook, p, line=None, fragments=("not a readable xlsx workbook",))


def test_workbook_garbled(tmp_path):
    p = tmp_path / ons.WORKBOOK
    p.write_bytes(gzip.compress(b"Code,Name,Geography\n" * 50))
    raises_loader_error(ons.read_workbook, p, line=None, fragments=("not a readable xlsx workbook",))


def test_workbook_empty(tmp_path):
    p = tmp_path / ons.WORKBOOK
    p.write_bytes(b"")
    raises_loader_error(ons.read_workbook, p, line=None, fragments=("file is empty",))


def _folder(uk, tmp_path, workbook: Path) -> Path:
    """A raw folder in tmp_path: the damaged workbook and a link to the real boundaries."""
    folder = tmp_path / "uk"
    folder.mkdir()
    os.symlink(workbook, folder / ons.WORKBOOK)
    os.symlink(uk / ons.BOUNDARIES, folder / ons.BOUNDARIES)
    return folder


def test_load_reports_a_damaged_workbook(uk, xlsx, tmp_path):
    row = xlsx["rows"][MALES]["S12000049"]
    p = _write(xlsx, tmp_path / ons.WORKBOOK, {(MALES, f"{_age_col(90)}{row}"): -1})
    with pytest.raises(LoaderError, match=rf"{ons.WORKBOOK}, sheet 'MYE2 - Males', line {row}: .*negative"):
        ons.load(_folder(uk, tmp_path, workbook=p))


def test_every_district_needs_a_boundary(uk, pop, tmp_path):
    """load() runs this check; called directly here so the workbook is not parsed again."""
    fc = json.loads((uk / ons.BOUNDARIES).read_text(encoding="utf-8"))
    fc["features"] = [f for f in fc["features"] if f["properties"]["AREACD"] != "E06000023"]
    p = tmp_path / ons.BOUNDARIES
    p.write_text(json.dumps(fc), encoding="utf-8")
    with pytest.raises(LoaderError, match=rf"{ons.BOUNDARIES}: .*no boundary for \['E06000023'\]"):
        ons.check_boundaries(ons.read_boundaries(p), pop["district_id"], p)


def test_boundary_file_with_a_duplicate_code(uk, tmp_path):
    fc = json.loads((uk / ons.BOUNDARIES).read_text(encoding="utf-8"))
    fc["features"][1]["properties"]["AREACD"] = fc["features"][0]["properties"]["AREACD"]
    p = tmp_path / ons.BOUNDARIES
    p.write_text(json.dumps(fc), encoding="utf-8")
    with pytest.raises(LoaderError, match=rf"{ons.BOUNDARIES}: duplicate district code"):
        ons.read_boundaries(p)


def test_boundary_file_garbled(tmp_path):
    p = tmp_path / ons.BOUNDARIES
    p.write_text('{"type": "FeatureCollection", "features": [', encoding="utf-8")
    with pytest.raises(LoaderError, match=rf"{ons.BOUNDARIES}: not a readable boundary file"):
        ons.read_boundaries(p)


# --------------------------------------------------------------------------- damaged tidy CSV


@pytest.fixture(scope="module")
def csv_text(uk) -> str:
    return (uk / ons.TIDY_CSV).read_text(encoding="utf-8")


def _csv_raises(tmp_path, text: str | bytes, line: int | None, *fragments: str) -> None:
    p = tmp_path / ons.TIDY_CSV
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(LoaderError) as info:
        ons.read_tidy_csv(p)
    msg = str(info.value)
    assert ons.TIDY_CSV in msg and info.value.line == line, msg
    for f in fragments:
        assert f in msg, msg


def _edit_field(text: str, line: int, field: int, value: str) -> str:
    lines = text.split("\n")
    fields = lines[line - 1].split(",")  # line 2 (Hartlepool) has no quoted commas
    fields[field] = value
    lines[line - 1] = ",".join(fields)
    return "\n".join(lines)


def test_csv_wrong_delimiter(tmp_path, csv_text):
    _csv_raises(tmp_path, csv_text.replace(",", ";"), 1, "missing column", "delimiter")


def test_csv_truncated(tmp_path, csv_text):
    cut = csv_text[: len(csv_text) // 2]
    _csv_raises(tmp_path, cut, cut.count("\n") + 1, "fields but the header has 96")


def test_csv_re_encoded(tmp_path, csv_text):
    lines = csv_text.split("\n")
    fields = lines[9].split(",")
    fields[1] += " (Ä)"
    lines[9] = ",".join(fields)
    _csv_raises(tmp_path, "\n".join(lines).encode("latin-1"), 10, "not valid utf-8")


def test_csv_empty(tmp_path):
    _csv_raises(tmp_path, "", None, "file is empty")


def test_csv_missing_column(tmp_path, csv_text):
    _csv_raises(tmp_path, csv_text.replace("age_45,", "age_forty_five,", 1), 1, "missing column(s) 'age_45'")


@pytest.mark.parametrize(
    "field, value, fragment",
    [
        (10, "12a", "'12a' is not a number"),
        (10, "-4", "'-4' is negative"),
        (0, "E0600001", "'E0600001' is not a local authority district code"),
        (10, "0", "parts sum to"),
        (3, "X", "sex 'X' is not M or F"),
    ],
)
def test_csv_bad_field(tmp_path, csv_text, field, value, fragment):
    _csv_raises(tmp_path, _edit_field(csv_text, 2, field, value), 2, fragment)


def test_csv_duplicate_row(tmp_path, csv_text):
    lines = csv_text.split("\n")
    lines.insert(3, lines[1])
    _csv_raises(tmp_path, "\n".join(lines), 4, "duplicate row for E06000001, sex F (first on line 2)")


def test_csv_single_sex_district_fails_validation(tmp_path, csv_text):
    lines = csv_text.split("\n")
    del lines[2]  # Hartlepool M
    p = tmp_path / ons.TIDY_CSV
    p.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(LoaderError, match="E06000001 does not have both sexes"):
        validate_population(ons.read_tidy_csv(p), p)


def test_region_sums_hold_in_the_real_workbook(wb_table):
    """Sanity of the region derivation: each English region holds whole counties' worth of districts."""
    sums = wb_table.groupby("region_id")["count"].sum()
    assert np.isclose(sums.sum(), 67_596_281)
    assert sums["E12000007"] == 8_866_180  # London, mid-2022 (MYE2 - Persons row E12000007)
