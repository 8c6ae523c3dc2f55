"""Reading a user's CSV, choosing quasi-identifiers, and the empirical classes against a brute-force count."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.core import microdata as M
from dashboard.core.errors import InputError


def test_comma_file_with_missing_tokens_and_types():
    t = M.read_csv(b"age,sex,zip\n34,F,10115\n51,M,NA\n,F,10117\n", "a.csv")
    assert t.n_rows == 3 and t.delimiter == "," and t.encoding == "UTF-8"
    assert t.numeric("age") and t.numeric("zip") and not t.numeric("sex")
    assert np.isnan(t.frame["age"][2]) and np.isnan(t.frame["zip"][1])
    assert t.frame["sex"].tolist() == ["F", "M", "F"]


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_other_delimiters_are_detected(sep):
    text = sep.join(["a", "b", "c"]) + "\n" + "\n".join(sep.join(["1", "x", "2"]) for _ in range(5)) + "\n"
    t = M.read_csv(text.encode(), "x.csv")
    assert t.delimiter == sep and list(t.frame.columns) == ["a", "b", "c"]


def test_semicolon_file_with_decimal_commas():
    t = M.read_csv("h;w\n1,5;70\n2,25;80\n".encode(), "de.csv")
    assert t.numeric("h") and t.frame["h"].tolist() == [1.5, 2.25]


def test_encodings_utf16_and_windows_1252():
    t = M.read_csv("name,city\nRené,Köln\n".encode("utf-16"), "u16.csv")
    assert t.encoding == "UTF-16" and t.frame["name"][0] == "René"
    t = M.read_csv("name,city\nRené,Köln\n".encode("cp1252"), "w.csv")
    assert t.encoding == "Windows-1252" and t.frame["city"][0] == "Köln"
    t = M.read_csv("\ufeffa,b\n1,2\n".encode("utf-8"), "bom.csv")
    assert list(t.frame.columns) == ["a", "b"]


@pytest.mark.parametrize("raw, message", [
    (b"", "is empty"),
    (b"   \n\n", "is empty"),
    (b"a,b\n", "no records"),
    (b"justone\n1\n2\n", "single column"),
    (b"PK\x03\x04\x00\x00binary", "not a text file"),
    (b"a,b\n1,2\n3,4,5\n", "line 3"),
])
def test_bad_files_give_one_clear_message(raw, message):
    with pytest.raises(InputError, match=message):
        M.read_csv(raw, "bad.csv")


def test_size_limit():
    with pytest.raises(InputError, match="at most"):
        M.read_csv(b"a,b\n" + b"1,2\n" * 100, "big.csv", max_bytes=50)


def test_a_file_too_wide_is_refused_before_it_is_parsed(monkeypatch):
    """10,000 columns: refused from the first lines, without handing the whole file to the CSV parser."""
    from dashboard.core.microdata import _records  # where the parser is called (patched there)

    def no_parse(*args, **kwargs):
        raise AssertionError("the whole file was parsed before its shape was checked")

    monkeypatch.setattr(_records.pd, "read_csv", no_parse)
    raw = (",".join(f"c{i}" for i in range(10_000)) + "\n" + ",".join("1" * 10_000) + "\n") * 1
    with pytest.raises(InputError, match="wide.csv has 10,000 columns; at most 200 are accepted"):
        M.read_csv(raw.encode(), "wide.csv")


def test_duplicate_and_blank_headers_get_names():
    t = M.read_csv(b"a,a,\n1,2,3\n", "d.csv")
    assert list(t.frame.columns) == ["a", "a (2)", "column 3"]


def _table(text: str) -> M.Table:
    return M.read_csv(text.encode(), "t.csv")


def test_prepare_bins_orders_and_drops_missing():
    t = _table("age,sex\n31,F\n39,M\n40,F\n,M\n44,NA\n")
    p = M.prepare(t, ["age", "sex"], {"age": 10})
    assert p.n == 3 and p.dropped == 2 and "left out" in p.warnings[0]
    assert list(p.labels[0]) == ["[30, 40)", "[40, 50)"]
    assert p.codes[:, 0].tolist() == [0, 0, 1]
    kept = M.prepare(t, ["age", "sex"], {"age": 10}, missing="value")
    assert kept.n == 5 and kept.labels[0][-1] == M.MISSING_LABEL and kept.labels[1][-1] == M.MISSING_LABEL
    assert kept.codes[3, 0] == len(kept.labels[0]) - 1


def test_identifier_and_one_valued_columns_are_refused_with_a_typed_error():
    rows = "\n".join(f"{i},{'FM'[i % 3 == 0]},NZ" for i in range(60))
    t = _table("id,sex,country\n" + rows + "\n")
    with pytest.raises(M.ColumnError, match="column 'id' is an identifier: 60 distinct values for 60 records"):
        M.prepare(t, ["id", "sex"])
    with pytest.raises(M.ColumnError, match="column 'country' has a single value"):
        M.prepare(t, ["sex", "country"])
    assert M.prepare(t, ["id", "sex"], {"id": 10}).n == 60  # binned, it is no longer an identifier


def test_prepare_warns_when_one_column_identifies_everyone():
    t = _table("id,sex\n1,F\n2,M\n3,F\n4,F\n")
    p = M.prepare(t, ["id", "sex"])
    assert any("this column alone identifies everyone" in w for w in p.warnings)


def test_prepare_warns_about_thousands_of_values():
    rng = np.random.default_rng(0)
    vals = rng.integers(0, 10_000, 5000)  # about 3,900 distinct values: many, but not an identifier
    t = _table("x,y\n" + "\n".join(f"{v},{'ab'[i % 2]}" for i, v in enumerate(vals)) + "\n")
    p = M.prepare(t, ["x", "y"])
    assert any("distinct values" in w for w in p.warnings)
    assert not any("distinct values" in w for w in M.prepare(t, ["x", "y"], {"x": 1_000}).warnings)


@pytest.mark.parametrize("cols, bins, missing, message", [
    (["nope"], None, "drop", "no column 'nope'"),
    (["sex"], {"sex": 5}, "drop", "not numeric"),
    (["age"], {"age": 0}, "drop", "positive"),
    (["age", "age"], None, "drop", "twice"),
    ([], None, "drop", "at least one"),
    (["age"], None, "maybe", "missing-value policy"),
    (["age"], {"sex": 2}, "drop", "not among the chosen"),
])
def test_prepare_refuses_bad_choices(cols, bins, missing, message):
    t = _table("age,sex\n31,F\n39,M\n40,F\n")
    with pytest.raises(InputError, match=message):
        M.prepare(t, cols, bins, missing)


def test_parse_columns_and_bins():
    assert M.parse_columns("a, b,c") == ["a", "b", "c"]
    assert M.parse_bins("age=5, height_cm=2.5") == {"age": 5.0, "height_cm": 2.5}
    with pytest.raises(InputError, match="column=width"):
        M.parse_bins("age5")
    with pytest.raises(InputError, match="not a number"):
        M.parse_bins("age=x")


def _brute(rows):
    counts = Counter(map(tuple, rows))
    size = np.array([counts[tuple(r)] for r in rows])
    return counts, size


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 4)), min_size=1, max_size=80))
def test_empirical_matches_a_brute_force_count(rows):
    codes = np.array(rows, dtype=np.int32)
    e = M.empirical(codes)
    counts, size = _brute(rows)
    assert e.class_size.tolist() == size.tolist()
    assert e.n_classes == len(counts)
    assert e.uniqueness == pytest.approx(np.mean(size == 1))
    cc = Counter(counts.values())
    assert dict(zip(e.sizes.tolist(), e.multiplicities.tolist())) == dict(cc)
    for k in (2, 5, 10):
        assert e.violations[k]["records"] == int(np.sum(size < k))
        assert e.violations[k]["classes"] == sum(1 for v in counts.values() if v < k)


def test_empirical_with_wide_codes_uses_the_row_path():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 50_000, size=(300, 5)).astype(np.int32)
    codes[:100] = codes[0]
    e = M.empirical(codes)
    _, size = _brute(codes.tolist())
    assert e.class_size.tolist() == size.tolist()


def test_roc_auc_against_pairwise_definition():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 5, 200).astype(float)
    y = rng.random(200) < 0.3
    pos, neg = s[y], s[~y]
    brute = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
    assert M.roc_auc(s, y) == pytest.approx(brute)
    assert M.roc_auc(s, np.zeros(200, bool)) is None
    curve = M.roc_curve(s, y)
    assert curve["fpr"][0] == 0 and curve["tpr"][-1] == 1.0


def test_nhanes_table(cache_root):
    t = M.nhanes_table()
    assert t.n_rows == 8366 and "seqn" not in t.frame.columns
    assert t.numeric("age") and not t.numeric("race")
    p = M.prepare(t, ["sex", "age", "race"])
    assert p.n == 8366 and p.dropped == 0
