"""Destatis loader: published spot values, internal consistency, and damaged copies.

The corruption tests write a slightly damaged copy of a real file into tmp_path and
check that the loader refuses it with a LoaderError naming the file and line.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pandas as pd
import pytest
from support.loaders import raises_loader_error

from census_loaders import destatis
from census_loaders.schema import POPULATION_COLUMNS, LoaderError

RS = destatis.REGIONALSTATISTIK_FILE
GEN = destatis.GENESIS_FILE


@pytest.fixture(scope="module")
def de_dir(raw_root):
    folder = raw_root / "de"
    if not (folder / RS).exists():
        pytest.skip("German raw files are not present")
    return folder


@pytest.fixture(scope="module")
def pop2023(de_dir):
    return destatis.read_regionalstatistik(de_dir / RS, "2023-12-31")


@pytest.fixture(scope="module")
def de_default(de_dir):
    (cd,) = destatis.load(de_dir)
    return cd


@pytest.fixture(scope="module")
def genesis2020(de_dir):
    return destatis.read_genesis_12411_0018(de_dir / GEN, "2020-12-31")


def by_district(df):
    return df.groupby("district_id")["count"].sum()


# --------------------------------------------------------------------------- real files


def test_2023_spot_values(pop2023):
    totals = by_district(pop2023)
    assert len(totals) == 400
    assert totals.sum() == 83_456_045
    assert totals["11000"] == 3_662_381
    assert totals["02000"] == 1_851_596
    assert totals["03354"] == 46_815  # Lüchow-Dannenberg
    assert totals["09162"] == 1_488_719  # München
    assert totals["16063"] == 156_334  # Wartburgkreis including Eisenach
    assert "16056" not in totals.index  # Eisenach: historic, merged
    berlin = pop2023[pop2023["district_id"] == "11000"].groupby("sex")["count"].sum()
    assert berlin["male"] == 1_796_409 and berlin["female"] == 1_865_972


def test_2023_schema_and_age_classes(pop2023):
    assert list(pop2023.columns) == list(POPULATION_COLUMNS)
    assert not pop2023["filled"].any()
    assert set(pop2023["sex"]) == {"female", "male"}
    cells = pop2023.groupby(["district_id", "sex"]).size()
    assert (cells == 17).all()
    one = pop2023[(pop2023["district_id"] == "03354") & (pop2023["sex"] == "male")]
    bands = list(zip(one["age_from"], one["age_to"].fillna(np.inf)))
    assert bands[:7] == [(0, 3), (3, 6), (6, 10), (10, 15), (15, 18), (18, 20), (20, 25)]
    assert bands[-3:] == [(60, 65), (65, 75), (75, np.inf)]
    assert one["age_to"].isna().sum() == 1
    assert (pop2023["region_id"] == pop2023["district_id"].str[:2]).all()
    names = pop2023.drop_duplicates("region_id").set_index("region_id")["region_name"]
    assert len(names) == 16 and names["09"] == "Bayern" and names["16"] == "Thüringen"


def test_2023_matches_published_totals_independently(de_dir, pop2023):
    """Re-read the published Insgesamt rows with pandas and compare per district and sex."""
    raw = pd.read_csv(de_dir / RS, sep=";", dtype=str, keep_default_na=False)
    raw = raw[(raw["jahr"] == "2023") & (raw["altersgruppe"] == "Insgesamt") & (raw["insgesamt"] != "")]
    kr = raw[raw["ebene"] == "KR"].set_index("region_code")
    ours = pop2023.pivot_table(index="district_id", columns="sex", values="count", aggfunc="sum")
    common = ours.index.intersection(kr.index)
    assert len(common) == 398
    assert (ours.loc[common, "male"] == kr.loc[common, "maennlich"].astype(float)).all()
    assert (ours.loc[common, "female"] == kr.loc[common, "weiblich"].astype(float)).all()
    # male + female = total for every district
    assert ((ours["male"] + ours["female"]).loc[common] == kr.loc[common, "insgesamt"].astype(float)).all()


def test_2024_is_default_and_spot_values(de_default):
    cd = de_default
    assert (cd.code, cd.name, cd.reference_date) == ("DE", "Germany", "2024-12-31")
    assert (cd.district_label, cd.region_label, cd.body_prior_country) == ("Kreis", "Land", "DE")
    totals = by_district(cd.population)
    assert len(totals) == 400
    assert totals.sum() == 83_577_140
    assert totals["11000"] == 3_685_265
    assert totals["03354"] == 46_502


def test_boundaries_match_districts(de_default):
    gdf = de_default.boundaries
    assert gdf is not None
    assert gdf.crs.to_epsg() == 4326
    assert list(gdf.columns) == ["district_id", "geometry"]
    assert set(gdf["district_id"]) == set(de_default.population["district_id"])
    assert gdf["district_id"].is_unique and len(gdf) == 400
    (src,) = de_default.boundary_sources
    assert src.publisher.endswith("(BKG)")
    assert "dl-de/by-2-0" in src.licence
    assert "GeoBasis-DE / BKG" in src.citation


def test_population_sources(de_default):
    (src,) = de_default.sources
    assert src.table_id == "12411-02-03-4"
    assert src.reference_date == "2024-12-31"
    assert "dl-de/by-2-0" in src.licence
    assert "Regionaldatenbank Deutschland" in src.publisher and "12411-02-03-4" in src.citation
    assert src.path.exists()


def test_genesis_2020(genesis2020):
    totals = by_district(genesis2020)
    assert len(totals) == 401  # Eisenach still separate
    assert totals.sum() == 83_155_031
    assert totals["11000"] == 3_664_088
    assert totals["03354"] == 48_503
    assert "16056" in totals.index
    assert (genesis2020.groupby(["district_id", "sex"]).size() == 17).all()
    assert genesis2020.loc[genesis2020["district_id"] == "16056", "region_name"].iloc[0] == "Thüringen"


def test_genesis_2015_and_2019(de_dir):
    p2015 = destatis.read_genesis_12411_0018(de_dir / GEN, "2015-12-31")
    ids = set(p2015["district_id"])
    assert len(ids) == 402 and {"03152", "03156"} <= ids and "03159" not in ids
    p2019 = by_district(destatis.read_genesis_12411_0018(de_dir / GEN, "2019-12-31"))
    assert p2019["11000"] == 3_669_491 and p2019["03354"] == 48_412


def test_load_genesis_dates_boundaries(de_dir):
    (cd,) = destatis.load(de_dir, "2020-12-31")
    assert cd.sources[0].table_id == "12411-0018"
    assert set(cd.boundaries["district_id"]) == set(cd.population["district_id"])
    (old,) = destatis.load(de_dir, "2015-12-31")
    assert old.boundaries is None and "03152" in old.boundary_note


def test_unknown_date(de_dir):
    with pytest.raises(ValueError, match="available"):
        destatis.load(de_dir, "2022-12-31")
    with pytest.raises(LoaderError, match="no data for reference date"):
        destatis.read_regionalstatistik(de_dir / RS, "2020-12-31")


# --------------------------------------------------------------------------- corruption helpers


def _line_no(lines, pattern, start=0):
    """1-based number of the first line (from index ``start``) matching ``pattern``."""
    rx = re.compile(pattern)
    return next(i for i, ln in enumerate(lines[start:], start) if rx.search(ln)) + 1


def _copy_lines(src, tmp_path, edit, encoding="utf-8"):
    lines = src.read_text(encoding=encoding).split("\n")
    out = tmp_path / src.name
    out.write_bytes("\n".join(edit(lines)).encode(encoding))
    return out


def _set_cells(line, **cells):
    """Replace named value columns in one Regionalstatistik line."""
    fields = line.split(";")
    pos = {c: i for i, c in enumerate(destatis.REGIONALSTATISTIK_COLUMNS)}
    for col, value in cells.items():
        fields[pos[col]] = value
    return ";".join(fields)


def _get(line, col):
    return line.split(";")[destatis.REGIONALSTATISTIK_COLUMNS.index(col)]


# --------------------------------------------------------------------------- Regionalstatistik corruptions


def test_rs_empty(de_dir, tmp_path):
    p = tmp_path / RS
    p.write_bytes(b"")
    raises_loader_error(destatis.read_regionalstatistik, p, match="empty")


def test_rs_truncated_mid_line(de_dir, tmp_path):
    raw = (de_dir / RS).read_bytes()
    cut = raw.index(b"2023;03354;") + 40  # inside the first Lüchow-Dannenberg line
    p = tmp_path / RS
    p.write_bytes(raw[:cut])
    line = raw[:cut].count(b"\n") + 1
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=line)


def test_rs_truncated_at_line_boundary(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, lambda ls: ls[:-10])  # loses 9 Altenburger Land rows
    err = raises_loader_error(destatis.read_regionalstatistik, p, "2024-12-31", match=r"16077 .* has 9 of 18 rows")
    assert err.line is not None


def test_rs_wrong_delimiter(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, lambda ls: [ln.replace(";", ",") for ln in ls])
    raises_loader_error(destatis.read_regionalstatistik, p, line=1, match="delimiter")


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_rs_reencoded(de_dir, tmp_path, encoding):
    text = (de_dir / RS).read_text(encoding="utf-8")
    p = tmp_path / RS
    p.write_bytes(text.encode(encoding))
    first_umlaut = _line_no(text.split("\n"), r"[^\x00-\x7f]")
    raises_loader_error(destatis.read_regionalstatistik, p, line=1 if encoding == "utf-16" else first_umlaut,
                        match="re-encoded")


def test_rs_missing_column(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, lambda ls: [ln.rsplit(";", 1)[0] for ln in ls])
    raises_loader_error(destatis.read_regionalstatistik, p, line=1, match="'weiblich'")


def _edit_line(pattern, fn):
    def edit(lines):
        i = _line_no(lines, pattern) - 1
        lines[i] = fn(lines[i])
        return lines
    return edit


LUECHOW_U3 = r"^2023;03354;.*;unter 3 Jahre;"


def _lu_line(de_dir):
    return _line_no((de_dir / RS).read_text(encoding="utf-8").split("\n"), LUECHOW_U3)


def test_rs_non_numeric_count(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, lambda ln: _set_cells(ln, maennlich="52S")))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir),
                        match="'52S' is not a number")


def test_rs_negative_count(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, lambda ln: _set_cells(ln, weiblich="-498")))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir), match="negative")


def test_rs_missing_marker_inside_district(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, lambda ln: _set_cells(ln, weiblich="")))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir), match="value missing")


def test_rs_duplicate_row(de_dir, tmp_path):
    def dup(lines):
        i = _line_no(lines, LUECHOW_U3) - 1
        return lines[: i + 1] + [lines[i]] + lines[i + 1:]
    p = _copy_lines(de_dir / RS, tmp_path, dup)
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir) + 1,
                        match="duplicate row for 03354")


def test_rs_garbled_district_code(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, lambda ln: ln.replace(";03354;", ";0335A;")))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir),
                        match="'0335A' is not a valid KR code")


def test_rs_district_code_in_wrong_land(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, lambda ln: ln.replace(";03354;", ";05354;")))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir),
                        match="does not belong to Land code '03'")


def test_rs_unknown_district_code_has_no_boundary(de_dir, tmp_path):
    """A well-formed but non-existent AGS passes the sums; the boundary match catches it."""
    _copy_lines(de_dir / RS, tmp_path, lambda ls: [ln.replace(";03354;", ";03399;") for ln in ls])
    for name in (destatis.BOUNDARY_FILE,):
        shutil.copy(de_dir / name, tmp_path / name)
    with pytest.raises(LoaderError) as info:
        destatis.load(tmp_path)
    assert RS in str(info.value) and "03399" in str(info.value) and "no boundary" in str(info.value)


def test_rs_ages_do_not_sum_to_total(de_dir, tmp_path):
    """Age row stays male + female = total, but no longer adds up to Insgesamt."""
    def bump(ln):
        return _set_cells(ln, insgesamt=str(int(_get(ln, "insgesamt")) + 7),
                          maennlich=str(int(_get(ln, "maennlich")) + 7))
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(LUECHOW_U3, bump))
    total_line = _line_no((de_dir / RS).read_text(encoding="utf-8").split("\n"), r"^2023;03354;.*;Insgesamt;")
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=total_line,
                        match=r"03354 .*insgesamt: the 17 age groups")


def test_rs_male_plus_female_not_total(de_dir, tmp_path):
    p = _copy_lines(de_dir / RS, tmp_path, _edit_line(
        LUECHOW_U3, lambda ln: _set_cells(ln, weiblich=str(int(_get(ln, "weiblich")) + 1))))
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=_lu_line(de_dir),
                        match="male \\+ female: parts sum to 1,024 but the total is 1,023")


def test_rs_kreise_do_not_sum_to_land(de_dir, tmp_path):
    """A Kreis consistent in itself (age row and Insgesamt both changed) breaks its Land's sum."""
    def bump(lines):
        for pattern in (LUECHOW_U3, r"^2023;03354;.*;Insgesamt;"):
            i = _line_no(lines, pattern) - 1
            ln = lines[i]
            lines[i] = _set_cells(ln, insgesamt=str(int(_get(ln, "insgesamt")) + 5),
                                  maennlich=str(int(_get(ln, "maennlich")) + 5))
        return lines
    p = _copy_lines(de_dir / RS, tmp_path, bump)
    land_line = _line_no((de_dir / RS).read_text(encoding="utf-8").split("\n"), r"^2023;03;.*;BL;03;unter 3 Jahre;")
    raises_loader_error(destatis.read_regionalstatistik, p, "2023-12-31", line=land_line, match="Land 03 .*its Kreise")


# --------------------------------------------------------------------------- GENESIS corruptions


def _gen_lines(de_dir):
    return (de_dir / GEN).read_text(encoding="latin-1").split("\n")


def _gen_copy(de_dir, tmp_path, edit):
    return _copy_lines(de_dir / GEN, tmp_path, edit, encoding="latin-1")


def _gen_raises(path, date="2020-12-31", **kw):
    return raises_loader_error(destatis.read_genesis_12411_0018, path, date, **kw)


BERLIN_2020 = r"^31\.12\.2020;11000;"


def test_genesis_empty(tmp_path):
    p = tmp_path / GEN
    p.write_bytes(b"  \n")
    _gen_raises(p, match="empty")


def test_genesis_truncated(de_dir, tmp_path):
    raw = (de_dir / GEN).read_bytes()
    p = tmp_path / GEN
    p.write_bytes(raw[: len(raw) // 2])  # cut mid-line: the last line is short
    _gen_raises(p, line=raw[: len(raw) // 2].count(b"\n") + 1, match="expected 37 fields")
    p.write_bytes(b"\n".join(raw.split(b"\n")[:-6]))  # cut at a line boundary: the footer is gone
    _gen_raises(p, match="footer .* missing")


def test_genesis_wrong_delimiter(de_dir, tmp_path):
    p = _gen_copy(de_dir, tmp_path, lambda ls: [ln.replace(";", "\t") for ln in ls])
    _gen_raises(p, line=5, match="delimiter")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_genesis_reencoded(de_dir, tmp_path, encoding):
    p = tmp_path / GEN
    p.write_bytes((de_dir / GEN).read_text(encoding="latin-1").encode(encoding))
    _gen_raises(p, line=2 if encoding == "utf-8" else 1, match="re-encoded|UTF-16")  # line 2: "Bevölkerung"


def test_genesis_missing_column(de_dir, tmp_path):
    p = _gen_copy(de_dir, tmp_path, lambda ls: [ln.rsplit(";", 1)[0] if ln.count(";") == 36 else ln for ln in ls])
    _gen_raises(p, line=5, match="36 fields, expected 37")


def test_genesis_swapped_header(de_dir, tmp_path):
    p = _gen_copy(de_dir, tmp_path, _edit_line(r"^;;;unter 3", lambda ln: ln.replace(
        "unter 3 Jahre;3 bis unter 6 Jahre", "3 bis unter 6 Jahre;unter 3 Jahre", 1)))
    _gen_raises(p, line=6, match="header column 4")


def _gen_set(ln, k, value):
    fields = ln.split(";")
    fields[k] = value
    return ";".join(fields)


def test_genesis_non_numeric_and_negative(de_dir, tmp_path):
    line = _line_no(_gen_lines(de_dir), BERLIN_2020)
    p = _gen_copy(de_dir, tmp_path, _edit_line(BERLIN_2020, lambda ln: _gen_set(ln, 5, "7OO57")))
    _gen_raises(p, line=line, match="male 6 bis unter 10 Jahre of 11000 '7OO57' is not a number")
    p = _gen_copy(de_dir, tmp_path, _edit_line(BERLIN_2020, lambda ln: _gen_set(ln, 22, "-5")))
    _gen_raises(p, line=line, match="negative")


def test_genesis_unknown_value_marker(de_dir, tmp_path):
    line = _line_no(_gen_lines(de_dir), BERLIN_2020)
    p = _gen_copy(de_dir, tmp_path, _edit_line(BERLIN_2020, lambda ln: _gen_set(ln, 10, "...")))
    _gen_raises(p, line=line, match="not available")


def test_genesis_dash_row_means_district_absent(de_dir, tmp_path):
    """A row of '-' (district no longer exists) is dropped; a single '-' is zero."""
    def edit(lines):
        i = _line_no(lines, r"^31\.12\.2020;16056;") - 1
        f = lines[i].split(";")
        lines[i] = ";".join(f[:3] + ["-"] * 34)
        j = _line_no(lines, BERLIN_2020) - 1
        lines[j] = _gen_set(lines[j], 3, "-")
        return lines
    p = _gen_copy(de_dir, tmp_path, edit)
    df = destatis.read_genesis_12411_0018(p, "2020-12-31")
    assert "16056" not in set(df["district_id"]) and df["district_id"].nunique() == 400
    berlin = df[(df["district_id"] == "11000") & (df["sex"] == "male") & (df["age_from"] == 0)]
    assert berlin["count"].iloc[0] == 0


def test_genesis_duplicate_row(de_dir, tmp_path):
    def dup(lines):
        i = _line_no(lines, BERLIN_2020) - 1
        return lines[: i + 1] + [lines[i]] + lines[i + 1:]
    p = _gen_copy(de_dir, tmp_path, dup)
    line = _line_no(_gen_lines(de_dir), BERLIN_2020)
    _gen_raises(p, line=line + 1, match=f"duplicate row for district 11000 on 31.12.2020 \\(first on line {line}\\)")


def test_genesis_garbled_district_code(de_dir, tmp_path):
    line = _line_no(_gen_lines(de_dir), BERLIN_2020)
    p = _gen_copy(de_dir, tmp_path, _edit_line(BERLIN_2020, lambda ln: ln.replace(";11000;", ";1100O;")))
    _gen_raises(p, line=line, match="'1100O' is not a valid 5-digit AGS")
    p = _gen_copy(de_dir, tmp_path, _edit_line(BERLIN_2020, lambda ln: ln.replace(";11000;", ";99000;")))
    _gen_raises(p, line=line, match="'99000'")
