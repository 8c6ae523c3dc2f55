"""The caching policy: bounded memos that register themselves, one clear_all()."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from dash import html
from support import ROOT

from dashboard.core import memo


def test_memo_is_an_lru_bounded_by_entries():
    m = memo.Memo(2, name="test.entries")
    calls = []
    for key in ("a", "b", "a", "c"):
        m.get(key, lambda key=key: calls.append(key) or key.upper())
    assert calls == ["a", "b", "c"] and len(m) == 2
    assert m.get("a", lambda: "again") == "A"  # "a" was used after "b": "b" went first
    assert m.get("b", lambda: "made") == "made"


def test_memo_bounded_by_bytes_keeps_the_newest():
    m = memo.Memo(100, name="test.bytes", max_bytes=3 * 8000)
    for i in range(5):
        m.get(i, lambda: np.zeros(1000))  # 8,000 bytes each
    assert len(m) == 3 and m.nbytes == 3 * 8000
    m.get("big", lambda: np.zeros(10_000))  # larger than the bound: it alone stays
    assert len(m) == 1 and m.nbytes == 80_000
    m.clear()
    assert len(m) == 0 and m.nbytes == 0


def test_nbytes_estimates_arrays_tables_and_components():
    a = np.zeros(1000)
    assert memo.nbytes(a) == 8000
    df = pd.DataFrame({"x": np.zeros(1000), "y": np.ones(1000)})
    assert memo.nbytes(df) >= 16_000
    assert memo.nbytes({"k": [a, a]}) >= 16_000
    assert memo.nbytes(html.Div("x" * 5000)) >= 5000


def test_registry_clear_all_and_stats():
    m = memo.Memo(4, name="test.registry")
    calls = []

    @memo.lru(4, name="test.lru")
    def f(x):
        calls.append(x)
        return x * 2

    m.get(1, lambda: 1)
    f(3)
    f(3)
    assert calls == [3]
    stats = memo.stats()
    assert stats["test.registry"]["entries"] == 1 and stats["test.lru"]["entries"] == 1
    names = memo.clear_all()
    assert "test.registry" in names and "test.lru" in names
    assert len(m) == 0
    f(3)
    assert calls == [3, 3]
    assert memo.register("test.registry", object()) == "test.registry#2"  # a second cache gets its own name


def test_the_views_and_core_memos_are_registered(cache_root):
    import dashboard.core.regions  # noqa: F401
    import dashboard.core.scaling  # noqa: F401
    from dashboard import views

    views.modules()
    names = set(memo.registered())
    for name in ("views.explorer.colours", "views.scaling.census_views", "dashboard.views.scaling._law",
                 "dashboard.views.personal._map_figure", "dashboard.core.country._model:_load_base",
                 "census_loaders.cache:_table_at"):
        assert name in names, name
    assert any(n.startswith("dashboard.core.regions._memos.memo") for n in names)


def test_every_cache_is_bounded():
    """No unbounded functools cache anywhere (a memo of many keys grows without end)."""
    unbounded = re.compile(r"lru_cache\(maxsize=None\)|@(functools\.)?cache\b|@lru_cache\s*$", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in [*ROOT.glob("dashboard/**/*.py"), *ROOT.glob("census_loaders/*.py")]
                 if unbounded.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_one_byte_budget_across_memos_evicts_the_least_recently_used_anywhere():
    a = memo.Memo(100, name="test.budget.a")
    b = memo.Memo(100, name="test.budget.b")
    before = memo.budget()["limit"]
    base = memo.budget()["bytes"]
    try:
        memo.set_budget(base + 5 * 8000)
        a.get(1, lambda: np.zeros(1000))
        b.get(1, lambda: np.zeros(1000))
        a.get(2, lambda: np.zeros(1000))
        b.get(2, lambda: np.zeros(1000))
        a.get(1, lambda: None)  # a[1] is used again: b[1] is now the oldest anywhere
        b.get(3, lambda: np.zeros(1000))  # 5 arrays fit
        assert len(a) + len(b) == 5
        a.get(3, lambda: np.zeros(1000))  # one over: the least recently used (b[1]) goes
        assert 1 not in b and 1 in a and 3 in a
        assert memo.budget()["bytes"] <= base + 5 * 8000
        a.get("huge", lambda: np.zeros(100_000))  # larger than the budget: it alone stays (the newest)
        assert "huge" in a and len(b) == 0 and len(a) == 1
    finally:
        memo.set_budget(before)
        a.clear()
        b.clear()
    assert memo.budget()["bytes"] <= base  # (entries of other memos may have been evicted too)


def test_pinned_entries_stay_outside_the_budget():
    m = memo.Memo(100, name="test.pinned")
    before = memo.budget()["limit"]
    base = memo.budget()["bytes"]
    try:
        with memo.pinned():
            m.get("warm", lambda: np.zeros(10_000))
        assert memo.budget()["bytes"] == base  # pinned bytes are not counted
        memo.set_budget(base + 8000)
        m.get("x", lambda: np.zeros(1000))
        m.get("y", lambda: np.zeros(1000))
        assert "warm" in m and "y" in m and "x" not in m
    finally:
        memo.set_budget(before)
        m.clear()
    assert memo.budget()["bytes"] <= base  # (entries of other memos may have been evicted too)


def test_lru_decorator_counts_towards_the_budget_and_keeps_lru_cache_interface():
    @memo.lru(2, name="test.lru.budget")
    def f(n, scale=1):
        return np.zeros(n) * scale

    f(10)
    f(10)
    f(20, scale=2)
    info = f.cache_info()
    assert (info.hits, info.misses, info.currsize, info.maxsize) == (1, 2, 2, 2)
    assert memo.stats()["test.lru.budget"]["bytes"] == 80 + 160
    f.cache_clear()
    assert f.cache_info().currsize == 0
    import pytest

    with pytest.raises(TypeError):
        f([1, 2])
