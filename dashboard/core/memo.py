"""One caching policy for the process: bounded, thread-safe memos that register themselves.

* :class:`Memo` — an LRU dict behind a lock, keyed on explicit hashable tuples (a model,
  a Scenario, widths).  Bounded by entries (``maxsize``) and, when ``max_bytes`` is given,
  by the estimated size of what it holds (:func:`nbytes`): the least recently used entries
  go first, the newest always stays.
* :func:`lru` — ``functools.lru_cache`` for functions of hashable arguments, registered.
* :func:`register` — any other cache with a ``clear()`` or ``cache_clear()``.
* :func:`clear_all` forgets every registered memo (tests, benchmarks, a rebuilt data cache);
  :func:`stats` says what each holds.

Memos are shared by requests: treat what they return as read-only.  Never memoise a
function of a person's attributes.
"""
from __future__ import annotations

import functools
import importlib
import itertools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

_REGISTRY: dict[str, object] = {}
_REGISTRY_LOCK = threading.Lock()
_COUNTER = itertools.count(1)
#: functools caches of modules that do not import this one (the cache reads and the country
#: models), cleared by :func:`clear_all` when those modules are loaded.
EXTERNAL = (
    "census_loaders.cache:_manifest",
    "census_loaders.cache:_population",
    "census_loaders.cache:_body_priors",
    "census_loaders.cache:_boundaries",
    "census_loaders.cache:_aux",
    "census_loaders.cache:_height_cohorts",
    "dashboard.core.body_model:_load_base",
    "dashboard.core.body_model:_band_matrix_cached",
)


def nbytes(value, _depth: int = 0) -> int:
    """An estimate of the memory ``value`` holds: arrays and tables by their buffers, containers by their items."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if hasattr(value, "memory_usage") and hasattr(value, "columns"):  # pandas DataFrame
        return int(value.memory_usage(index=True, deep=False).sum())
    if hasattr(value, "memory_usage") and hasattr(value, "dtype"):  # pandas Series / Index
        return int(value.memory_usage(index=True, deep=False))
    if isinstance(value, (bytes, bytearray, str)):
        return len(value)
    if _depth >= 6:
        return sys.getsizeof(value, 64)
    if isinstance(value, dict):
        return 64 + sum(nbytes(k, _depth + 1) + nbytes(v, _depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return 56 + sum(nbytes(v, _depth + 1) for v in value)
    if hasattr(value, "to_plotly_json"):  # a Dash component
        return nbytes(value.to_plotly_json(), _depth + 1)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return 56 + nbytes(vars(value), _depth + 1)
    if hasattr(value, "__slots__"):
        return 56 + sum(nbytes(getattr(value, s, None), _depth + 1) for s in value.__slots__)
    return sys.getsizeof(value, 64)


class Memo:
    """An LRU dict behind a lock: concurrent callers may compute twice, never corrupt it.

    ``maxsize`` bounds the entries; ``max_bytes`` (optional) bounds the estimated bytes held
    (``sizeof``, default :func:`nbytes`).  The memo registers itself under ``name``.
    """

    def __init__(self, maxsize: int, *, name: str | None = None, max_bytes: int | None = None,
                 sizeof: Callable[[object], int] = nbytes):
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._data: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self._bytes = 0
        self._lock = threading.Lock()
        if name is None:
            caller = sys._getframe(1).f_globals.get("__name__", "?")
            name = f"{caller}.memo{next(_COUNTER)}"
        self.name = register(name, self)

    def get(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        size = self._sizeof(value) if self.max_bytes is not None else 0
        with self._lock:
            if key in self._data:
                self._bytes -= self._sizes.pop(key, 0)
            self._data[key] = value
            self._data.move_to_end(key)
            self._sizes[key] = size
            self._bytes += size
            while len(self._data) > self.maxsize or (
                    self.max_bytes is not None and self._bytes > self.max_bytes and len(self._data) > 1):
                old, _ = self._data.popitem(last=False)
                self._bytes -= self._sizes.pop(old, 0)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._sizes.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._data)

    @property
    def nbytes(self) -> int:
        """Estimated bytes held (counted when ``max_bytes`` is set, estimated now otherwise)."""
        with self._lock:
            if self.max_bytes is not None:
                return self._bytes
            values = list(self._data.values())
        return sum(self._sizeof(v) for v in values)


def register(name: str, cache) -> str:
    """Register ``cache`` (with ``clear()`` or ``cache_clear()``) under ``name`` (made unique); returns the name."""
    with _REGISTRY_LOCK:
        unique, i = name, 1
        while unique in _REGISTRY and _REGISTRY[unique] is not cache:
            i += 1
            unique = f"{name}#{i}"
        _REGISTRY[unique] = cache
    return unique


def lru(maxsize: int, name: str | None = None):
    """``functools.lru_cache(maxsize)`` that registers the cache (for :func:`clear_all` and :func:`stats`)."""
    def decorate(fn):
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        register(name or f"{fn.__module__}.{fn.__qualname__}", cached)
        return cached

    return decorate


def _external():
    for spec in EXTERNAL:
        module, attr = spec.split(":")
        if module in sys.modules:
            fn = getattr(importlib.import_module(module), attr, None)
            if fn is not None and hasattr(fn, "cache_clear"):
                yield spec, fn


def registered() -> dict[str, object]:
    """Every registered cache by name (the external functools caches of loaded modules included)."""
    with _REGISTRY_LOCK:
        out = dict(_REGISTRY)
    out.update(dict(_external()))
    return out


def clear_all() -> list[str]:
    """Forget every registered memo; returns their names."""
    names = []
    for name, cache in registered().items():
        clear = getattr(cache, "cache_clear", None) or getattr(cache, "clear")
        clear()
        names.append(name)
    return names


def stats() -> dict[str, dict]:
    """``{name: {"entries", "maxsize", "bytes"}}`` (bytes only for :class:`Memo`)."""
    out = {}
    for name, cache in registered().items():
        if isinstance(cache, Memo):
            out[name] = {"entries": len(cache), "maxsize": cache.maxsize, "bytes": cache.nbytes}
        elif hasattr(cache, "cache_info"):
            info = cache.cache_info()
            out[name] = {"entries": info.currsize, "maxsize": info.maxsize, "bytes": None}
    return out
