"""The regional aggregates' memos, in one place so :func:`clear_caches` forgets them all."""
from __future__ import annotations

from ..memo import Memo

CELLS_MEMO = Memo(64)


BOUND_MEMO = Memo(64)


STATS_MEMO = Memo(64)


CDF_MEMO = Memo(128)


TABLE_MEMO = Memo(256)


def clear_caches() -> None:
    """Forget every memoised aggregate (tests; a rebuilt cache is picked up anyway)."""
    for memo in (CELLS_MEMO, BOUND_MEMO, STATS_MEMO, CDF_MEMO, TABLE_MEMO):
        memo.clear()
