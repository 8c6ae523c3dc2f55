"""Body-measurement priors: published spot values, the estimated US SDs, damaged copies."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.loaders import raises_loader_error

from census_loaders import body
from census_loaders.schema import BODY_PRIOR_COLUMNS


@pytest.fixture(scope="module")
def priors(raw_root):
    if not (raw_root / body.DE_FILE).exists():
        pytest.skip("body-measurement raw files are not present")
    return body.load(raw_root)


def _row(df, sex, age_from):
    r = df[(df["sex"] == sex) & (df["age_from"] == age_from)]
    assert len(r) == 1
    return r.iloc[0]


def test_keys_and_columns(priors):
    assert set(priors) == {"DE", "US"}
    for df, sources in priors.values():
        assert list(df.columns) == [*BODY_PRIOR_COLUMNS, "sd_estimated", "note"]
        assert df["sd_estimated"].dtype == bool
        assert set(df["sex"]) == {"female", "male"}
        assert len(sources) == 1 and sources[0].path.exists()


def test_de_spot_values(priors):
    df, (src,) = priors["DE"]
    assert len(df) == 24
    f = _row(df, "female", 65)
    assert (f["age_to"], f["height_mean"], f["height_sd"], f["weight_mean"], f["weight_sd"]) == (70, 163.9, 6.2, 71.3, 13.7)
    m = _row(df, "male", 25)
    assert (m["age_to"], m["height_mean"], m["height_sd"], m["weight_mean"], m["weight_sd"]) == (30, 180.8, 7.5, 82.8, 14.6)
    assert not df["sd_estimated"].any()
    for sex in ("female", "male"):
        g = df[df["sex"] == sex]
        assert list(g["age_from"]) == [18, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70]
        assert list(g["age_to"]) == [20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75]
    assert src.table_id == "12211-9018" and "dl-de/by-2-0" in src.licence and "Destatis" in src.publisher
    assert "Berrang" in src.citation


def test_us_bands_and_estimated_sd_flag(priors):
    df, (src,) = priors["US"]
    assert len(df) == 16
    for sex in ("female", "male"):
        g = df[df["sex"] == sex]
        assert list(g["age_from"]) == [18, 20, 30, 40, 50, 60, 70, 80]
        assert list(g["age_to"].fillna(np.inf)) == [20, 30, 40, 50, 60, 70, 80, np.inf]
    assert df["sd_estimated"].all()
    assert all("(P85 − P15) / (2 × 1.0364)" in n for n in df["note"])
    assert "estimated" in df.attrs["note"]
    m = _row(df, "male", 20)
    assert (m["height_mean"], m["height_sd"], m["weight_mean"], m["weight_sd"]) == (176.3, 7.4, 86.8, 21.2)
    assert "NCHS" in src.publisher and "public domain" in src.licence.lower() and "Fryar" in src.citation


def test_us_estimated_sd_follows_published_percentiles(raw_root, priors):
    """Recompute (P85 − P15) / (2 × 1.0364) from the NCHS table transcription."""
    df, _ = priors["US"]
    tables = pd.read_csv(raw_root / "us/nchs_sr03-050_height_weight_2021-2023_tables.csv")
    tables = tables[tables["is_all_adults_row"] == "no"]
    for measure, mean_col, sd_col in (("height_cm", "height_mean", "height_sd"), ("weight_kg", "weight_mean", "weight_sd")):
        t = tables[tables["measure"] == measure]
        for _, r in t.iterrows():
            ours = _row(df, r["sex"], r["age_from"])
            assert ours[mean_col] == r["mean"]
            assert math.isclose(ours[sd_col], (r["p85"] - r["p15"]) / (2 * body.Z85), abs_tol=0.051)


# --------------------------------------------------------------------------- damaged copies


def _copy(raw_root, rel, tmp_path, edit=None, encoding="utf-8"):
    lines = (raw_root / rel).read_text(encoding="utf-8").split("\n")
    if edit:
        lines = edit(lines)
    out = tmp_path / rel.split("/")[-1]
    out.write_bytes("\n".join(lines).encode(encoding))
    return out


def _set(col, value, line=12):
    """Set one column of the 1-based ``line`` (12 = female 65–70)."""
    def edit(lines):
        header = lines[0].split(",")
        fields = lines[line - 1].split(",")
        fields[header.index(col)] = value
        lines[line - 1] = ",".join(fields)
        return lines
    return edit


def test_empty(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text("")
    raises_loader_error(body.read_destatis_12211_9018, p, match="empty")


def test_truncated(raw_root, tmp_path):
    raw = (raw_root / body.DE_FILE).read_bytes()
    p = tmp_path / "cut.csv"
    p.write_bytes(raw[: raw.index(b"male,25,30") + 20])
    raises_loader_error(body.read_destatis_12211_9018, p, line=raw[: raw.index(b"male,25,30")].count(b"\n") + 1,
                        match="fields")


def test_wrong_delimiter(raw_root, tmp_path):
    p = _copy(raw_root, body.DE_FILE, tmp_path, lambda ls: [ln.replace(",", ";") for ln in ls])
    raises_loader_error(body.read_destatis_12211_9018, p, line=1, match="delimiter")


def test_reencoded_utf16(raw_root, tmp_path):
    p = _copy(raw_root, body.DE_FILE, tmp_path, encoding="utf-16")
    raises_loader_error(body.read_destatis_12211_9018, p, line=1, match="re-encoded")


def test_missing_column(raw_root, tmp_path):
    p = _copy(raw_root, body.DE_FILE, tmp_path, lambda ls: [ln.replace("weight_sd_kg,", "weight_sdev,") for ln in ls])
    raises_loader_error(body.read_destatis_12211_9018, p, line=1, match="'weight_sd_kg'")


def test_non_numeric(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("height_mean_cm", "163.9cm")), line=12, match="not a number")


def test_negative(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("weight_sd_kg", "-13.7")), line=12, match="negative")


def test_zero_sd(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("height_sd_cm", "0")), line=12, match="must be positive")


def test_wrong_unit(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("height_mean_cm", "64.5")), line=12, match="wrong unit")


def test_bad_sex(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("sex", "Female")),
                        line=12, match="unknown sex 'Female'")


def test_duplicate_age_group(raw_root, tmp_path):
    p = _copy(raw_root, body.DE_FILE, tmp_path, lambda ls: ls[:12] + [ls[11]] + ls[12:])
    raises_loader_error(body.read_destatis_12211_9018, p, line=13, match="duplicate age group for female")


def test_overlapping_age_groups(raw_root, tmp_path):
    raises_loader_error(body.read_destatis_12211_9018, _copy(raw_root, body.DE_FILE, tmp_path, _set("age_to", "72")),
                        line=12, match="overlapping")


def test_us_missing_estimate(raw_root, tmp_path):
    p = _copy(raw_root, body.US_FILE, tmp_path, _set("weight_sd_kg_est", "", line=3))
    raises_loader_error(body.read_nhanes_2021_2023, p, line=3, match="weight_sd_kg_est '' is not a number")


def test_us_published_sd_is_preferred(raw_root, tmp_path):
    """Should NCHS ever publish an SD, it is used and not flagged as estimated."""
    p = _copy(raw_root, body.US_FILE, tmp_path,
              lambda ls: _set("weight_sd_kg", "19.9", line=3)(_set("height_sd_cm", "6.9", line=3)(ls)))
    df = body.read_nhanes_2021_2023(p)
    r = _row(df, "female", 20)
    assert (r["height_sd"], r["weight_sd"], bool(r["sd_estimated"]), r["note"]) == (6.9, 19.9, False, "")
    assert df["sd_estimated"].sum() == 15
