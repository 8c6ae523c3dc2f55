"""A small thread-safe LRU memo shared by the core modules.

``functools.lru_cache`` keys on arguments; these caches key on explicit hashable
tuples (a model, a Scenario, widths) and can be cleared by the benchmarks.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class Memo:
    """An LRU dict behind a lock: concurrent callers may compute twice, never corrupt it."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
