"""Eurostat demo_r_pjangrp3 loader: real-file spot values, invariants, and corrupted copies."""
from __future__ import annotations

import gzip
import math

import pandas as pd
import pytest
from support.loaders import raises_loader_error

from census_loaders import eurostat
from census_loaders.schema import POPULATION_COLUMNS, LoaderError

EU_FOLDER = "eu"


@pytest.fixture(scope="module")
def eu(raw_root):
    return {c.code: c for c in eurostat.load(raw_root / EU_FOLDER)}


@pytest.fixture(scope="module")
def reference(raw_root):
    """The independently derived 2022 extract (see PROVENANCE): geo, sex, age, value, flag."""
    return pd.read_csv(raw_root / EU_FOLDER / "demo_r_pjangrp3_nuts3_2022.csv", dtype={"flag": str})


def _row(country, district, sex, age_from):
    pop = country.population
    hit = pop[(pop["district_id"] == district) & (pop["sex"] == sex) & (pop["age_from"] == age_from)]
    assert len(hit) == 1
    return hit.iloc[0]


def _district_total(country, district, sex=None):
    pop = country.population
    mask = pop["district_id"] == district
    if sex:
        mask &= pop["sex"] == sex
    return pop.loc[mask, "count"].sum()


# --------------------------------------------------------------------------- the real file


def test_36_countries_with_iso_codes_and_english_names(eu):
    assert len(eu) == 36
    assert "GR" in eu and "EL" not in eu and "GB" not in eu
    assert eu["GR"].name == "Greece"
    assert eu["TR"].name == "Türkiye"
    assert eu["MK"].name == "North Macedonia"
    assert sum(c.population["district_id"].nunique() for c in eu.values()) == 1335


def test_country_metadata(eu):
    for code, c in eu.items():
        assert c.reference_date == "2022-01-01"
        assert c.district_label == "NUTS-3 region"
        assert c.region_label == "NUTS-2 region"
        assert c.body_prior_country is None  # its NCD-RisC prior (issue 27)
        assert list(c.population.columns[: len(POPULATION_COLUMNS)]) == list(POPULATION_COLUMNS)
        assert not c.population["filled"].any()
        assert (c.population["region_id"] == c.population["district_id"].str[:4]).all()
        assert c.population["district_name"].notna().all()
        assert c.notes and c.notes[0].startswith("Population on 1 January 2022")
        src = c.sources[0]
        assert src.table_id == "demo_r_pjangrp3"
        assert src.publisher == "Eurostat"
        assert src.licence == "Eurostat reuse policy, CC BY 4.0"
        assert src.reference_date == "2022-01-01"
        assert src.path.exists()
        assert "EuroGeographics" in c.boundary_sources[0].licence


def test_berlin_and_luechow_dannenberg(eu):
    de = eu["DE"]
    assert _district_total(de, "DE300") == 3_677_472
    assert _district_total(de, "DE300", "female") == 1_869_646
    assert _district_total(de, "DE300", "male") == 1_807_826
    assert _row(de, "DE300", "male", 20)["count"] == 99_021
    assert _row(de, "DE300", "male", 20)["age_to"] == 25
    assert _district_total(de, "DE934") == 48_472
    assert _row(de, "DE934", "female", 0)["district_name"] == "Lüchow-Dannenberg"
    assert _row(de, "DE300", "female", 0)["district_name"] == "Berlin"


def test_germany_total_and_district_count(eu):
    de = eu["DE"]
    assert de.population["district_id"].nunique() == 401
    assert de.population["count"].sum() == 83_237_124


def test_eighteen_classes_with_open_top(eu):
    for c in eu.values():
        pop = c.population
        per = pop.groupby(["district_id", "sex"]).size()
        assert (per == 18).all(), c.code
        top = pop[pop["age_from"] == 85]
        assert top["age_to"].isna().all()
        assert pop.loc[pop["age_from"] < 85, "age_to"].notna().all()


def test_classes_sum_to_total_and_f_plus_m_is_t(eu, reference):
    """Against the derived extract: per region and sex the 18 classes give TOTAL; F + M = T."""
    ref = reference[reference["age"] == "TOTAL"].set_index(["geo", "sex"])["value"]
    for c in eu.values():
        got = c.population.groupby(["district_id", "sex"])["count"].sum().unstack()
        for geo, row in got.iterrows():
            assert row["female"] == ref[(geo, "F")], geo
            assert row["male"] == ref[(geo, "M")], geo
            assert row["female"] + row["male"] == ref[(geo, "T")], geo


def test_five_year_classes_match_reference(eu, reference):
    ref = reference[reference["sex"] != "T"].set_index(["geo", "sex", "age"])["value"]
    codes = {a: code for code, (a, _) in eurostat.FIVE_YEAR.items()}
    for c in eu.values():
        pop = c.population[c.population["age_from"] < 85]
        keys = list(zip(pop["district_id"], pop["sex"].map({"female": "F", "male": "M"}), pop["age_from"].map(codes)))
        assert (ref.loc[keys].to_numpy() == pop["count"].to_numpy()).all(), c.code


def test_flags_are_kept(eu):
    assert set(eu["FR"].population["flag"].dropna()) == {"p"}
    assert set(eu["PT"].population["flag"].dropna()) == {"bp"}
    assert set(eu["GR"].population["flag"].dropna()) == {"b"}
    assert eu["DE"].population["flag"].isna().all()
    assert any("flags" in n and "provisional" in n for n in eu["FR"].notes)


def test_open_top_class_albania_and_turkiye(eu, reference):
    ref = reference.set_index(["geo", "sex", "age"])["value"]
    for code in ("AL", "TR"):
        c = eu[code]
        assert any("85+ is derived" in n for n in c.notes), code
        top = c.population[c.population["age_from"] == 85]
        for _, row in top.iterrows():
            s = "F" if row["sex"] == "female" else "M"
            y85_89 = ref[(row["district_id"], s, "Y85-89")]
            below = sum(ref[(row["district_id"], s, a)] for a in eurostat.FIVE_YEAR)
            assert row["count"] == ref[(row["district_id"], s, "TOTAL")] - below
            assert row["count"] >= y85_89
            if code == "AL":  # Albania's Y85-89 already holds everyone aged 85+
                assert row["count"] == y85_89
    tr_top = eu["TR"].population.query("age_from == 85")["count"].sum()
    tr_85_89 = reference.query("geo.str.startswith('TR') and age == 'Y85-89' and sex != 'T'")["value"].sum()
    assert tr_top - tr_85_89 == 202_977
    assert "202,977" in " ".join(eu["TR"].notes)


def test_no_double_counting_of_85_plus(eu, reference):
    ref = reference.set_index(["geo", "sex", "age"])["value"]
    row = _row(eu["DE"], "DE300", "female", 85)
    assert row["count"] == ref[("DE300", "F", "Y_GE85")]
    assert row["count"] == ref[("DE300", "F", "Y85-89")] + ref[("DE300", "F", "Y_GE90")]


def test_unknown_age_is_reported(eu):
    assert "UNK (unknown age): 0 people" in eu["DE"].notes[0]
    assert "UNK (unknown age) is not published" in eu["HR"].notes[0]


def test_dropped_codes_are_reported(eu):
    notes = " ".join(eu["BE"].notes)
    assert "BE221" in notes and "not NUTS 2021" in notes
    assert "ALXXX" in " ".join(eu["AL"].notes)
    assert not any("ZZZ" in n for c in eu.values() for n in c.notes)


def test_every_district_has_a_boundary_and_every_boundary_data(eu):
    for c in eu.values():
        b = c.boundaries
        assert list(b.columns) == ["district_id", "geometry"]
        assert b.crs.to_epsg() == 4326
        assert set(b["district_id"]) == set(c.population["district_id"]), c.code
        assert b["district_id"].is_unique
        assert not b.geometry.is_empty.any() and b.geometry.notna().all()


def test_latin_script_names(eu):
    names = pd.concat([c.population["district_name"] for c in eu.values()])
    assert not names.str.contains(r"[\u0370-\u03ff\u0400-\u04ff]").any()  # no Greek or Cyrillic


# --------------------------------------------------------------------------- corrupted copies

CUT_PREFIXES = ("DE3", "DE93", "AL0", "LI", "TR1", "BE2")


@pytest.fixture(scope="module")
def cut_lines(raw_root):
    """Header plus the rows of a few regions, as decompressed lines (CRLF kept)."""
    text = gzip.decompress((raw_root / EU_FOLDER / eurostat.TSV_NAME).read_bytes()).decode()
    lines = text.split("\n")
    head, body = lines[0], [ln for ln in lines[1:] if ln]
    keep = [ln for ln in body if ln.split("\t", 1)[0].split(",")[-1].startswith(CUT_PREFIXES)]
    return [head, *keep]


def _folder(tmp_path, raw_root, lines=None, raw=None):
    """A folder with the (corrupted) TSV and links to the real NUTS name and boundary files."""
    folder = tmp_path / "eu"
    folder.mkdir()
    for name in (eurostat.NAMES_NAME, eurostat.BOUNDARY_NAME):
        (folder / name).symlink_to(raw_root / EU_FOLDER / name)
    if raw is None:
        raw = gzip.compress("\n".join(lines).encode() + b"\n")
    (folder / eurostat.TSV_NAME).write_bytes(raw)
    return folder


def _index(lines, key):
    """0-based index of the line whose key is ``key``; its file line is index + 1."""
    return next(i for i, ln in enumerate(lines) if ln.split("\t", 1)[0] == key)


def _set_2022(line, cell):
    fields = line.rstrip("\r").split("\t")
    fields[-1] = cell
    return "\t".join(fields) + "\r"


def _value_2022(line):
    return int(line.rstrip("\r").split("\t")[-1].split()[0])


def test_cut_loads(tmp_path, raw_root, cut_lines):
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, cut_lines))}
    assert set(data) == {"AL", "BE", "DE", "LI", "TR"}
    assert _district_total(data["DE"], "DE300") == 3_677_472
    assert _district_total(data["DE"], "DE934") == 48_472


def test_other_year(tmp_path, raw_root, cut_lines):
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, cut_lines), year=2021)}
    assert data["DE"].reference_date == "2021-01-01"
    assert _district_total(data["DE"], "DE300") == 3_664_088
    with pytest.raises(LoaderError, match=r"line 1: missing column\(s\) '2030'"):
        eurostat.load(tmp_path / "eu", year=2030)


def test_truncated_gzip(tmp_path, raw_root, cut_lines):
    raw = gzip.compress("\n".join(cut_lines).encode())
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, raw=raw[: len(raw) // 2]), file=eurostat.TSV_NAME,
                        match="truncated")


def test_empty_file(tmp_path, raw_root):
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, raw=b""), file=eurostat.TSV_NAME, match="empty")


def test_empty_gzip_stream(tmp_path, raw_root):
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, raw=gzip.compress(b"")), file=eurostat.TSV_NAME,
                        match="empty")


def test_wrong_delimiter(tmp_path, raw_root, cut_lines):
    lines = [ln.replace("\t", ",") for ln in cut_lines]
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=1,
                        match="delimiter")


def test_missing_year_column(tmp_path, raw_root, cut_lines):
    lines = [ln.rstrip("\r").rsplit("\t", 1)[0] + "\r" for ln in cut_lines]
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=1,
                        match="'2022'")


def test_missing_field_in_a_row(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,F,NR,Y20-24,DE300")
    lines[i] = lines[i].rstrip("\r").rsplit("\t", 1)[0] + "\r"
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="9 tab-separated fields, but the header has 10")


def test_non_numeric_cell(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,M,NR,Y20-24,DE300")
    lines[i] = _set_2022(lines[i], "99O21 ")
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="'99O21 ' is not a number")


def test_negative_count(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,F,NR,Y_LT5,DE934")
    lines[i] = _set_2022(lines[i], "-1043 ")
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="negative")


def test_duplicate_key_row(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,F,NR,TOTAL,DE300")
    lines.insert(i + 5, lines[i])
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 6,
                        match="duplicate key 'A,F,NR,TOTAL,DE300'")


def test_unknown_sex_code(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,M,NR,Y30-34,DE934")
    lines[i] = lines[i].replace("A,M,NR,", "A,X,NR,", 1)
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="unknown sex code 'X'")


def test_unknown_age_code(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,M,NR,Y30-34,DE934")
    lines[i] = lines[i].replace("Y30-34", "Y30-35", 1)
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="unknown age code 'Y30-35'")


def test_age_classes_do_not_add_up_to_total(tmp_path, raw_root, cut_lines):
    """F and T are both raised by one person, so F + M = T still holds and only TOTAL is off."""
    lines = list(cut_lines)
    for sex in ("F", "T"):
        i = _index(lines, f"A,{sex},NR,Y40-44,DE300")
        lines[i] = _set_2022(lines[i], f"{_value_2022(lines[i]) + 1} ")
    total_line = _index(lines, "A,F,NR,TOTAL,DE300") + 1
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=total_line,
                        match="DE300 F: age classes \\+ UNK vs TOTAL")


def test_female_plus_male_is_not_total(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,T,NR,Y60-64,DE934")
    lines[i] = _set_2022(lines[i], f"{_value_2022(lines[i]) + 7} ")
    j = _index(lines, "A,T,NR,TOTAL,DE934")
    lines[j] = _set_2022(lines[j], f"{_value_2022(lines[j]) + 7} ")
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=i + 1,
                        match="DE934 Y60-64: F \\+ M vs T")


def test_overlapping_85_classes_disagree(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,M,NR,Y_GE90,DE300")
    lines[i] = _set_2022(lines[i], f"{_value_2022(lines[i]) + 3} ")
    ge85 = _index(lines, "A,M,NR,Y_GE85,DE300") + 1
    raises_loader_error(eurostat.load, _folder(tmp_path, raw_root, lines), file=eurostat.TSV_NAME, line=ge85,
                        match="Y85-89 \\+ Y_GE90 vs Y_GE85")


def test_incomplete_region_is_dropped_with_a_note(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,F,NR,Y50-54,DE934")
    lines[i] = _set_2022(lines[i], ":")
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, lines))}
    de = data["DE"]
    assert "DE934" not in set(de.population["district_id"])
    assert "DE934" not in set(de.boundaries["district_id"])
    assert any("incomplete" in n and "DE934" in n for n in de.notes)


def test_non_nuts_2021_code_with_data_is_reported(tmp_path, raw_root, cut_lines):
    lines = [ln.replace(",DE934\t", ",DE9ZX\t") for ln in cut_lines]
    lines = [ln.replace(",DE300\t", ",DEZZZ\t") for ln in lines]
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, lines))}
    notes = " ".join(data["DE"].notes)
    assert "DE9ZX" in notes and "48,472 people" in notes
    assert "ZZZ" not in notes  # extra-regio codes are dropped silently
    assert not data["DE"].population["district_id"].isin(["DE9ZX", "DEZZZ", "DE300", "DE934"]).any()


def test_flag_letters_are_kept_per_cell(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    i = _index(lines, "A,M,NR,Y20-24,DE300")
    lines[i] = _set_2022(lines[i], "99021 ep")
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, lines))}
    row = _row(data["DE"], "DE300", "male", 20)
    assert row["count"] == 99_021 and row["flag"] == "ep"
    assert math.isnan(_row(data["DE"], "DE300", "male", 85)["age_to"])


def test_derived_top_class_carries_the_flags_it_was_computed_from(tmp_path, raw_root, cut_lines):
    lines = list(cut_lines)
    for key, flag in (("A,F,NR,TOTAL,AL011", "p"), ("A,F,NR,Y85-89,AL011", "b")):
        i = _index(lines, key)
        lines[i] = _set_2022(lines[i], f"{_value_2022(lines[i])} {flag}")
    data = {c.code: c for c in eurostat.load(_folder(tmp_path, raw_root, lines))}
    assert _row(data["AL"], "AL011", "female", 85)["flag"] == "bp"
    assert pd.isna(_row(data["AL"], "AL011", "male", 85)["flag"])
    assert _row(data["AL"], "AL011", "female", 80)["flag"] is pd.NA
