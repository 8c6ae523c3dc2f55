"""One caching policy for the process: bounded, thread-safe memos that register themselves.

* :class:`Memo` — an LRU dict behind a lock, keyed on explicit hashable tuples (a model,
  a Scenario, widths).  Bounded by entries (``maxsize``) and, when ``max_bytes`` is given,
  by the estimated size of what it holds (:func:`nbytes`): the least recently used entries
  go first, the newest always stays.
* **One byte budget for the whole process** (:func:`set_budget`; the app sets it from
  ``ANONSET_CACHE_BUDGET_MB``, default :data:`DEFAULT_BUDGET`): every Memo counts the bytes it
  holds, and when their sum passes the budget the least recently used entry *of any memo*
  goes first (a global recency clock), so one page's huge scenario evicts another page's
  old views rather than growing the worker.  :func:`budget` reports the figures.
* :func:`lru` — a memoising decorator (``functools.lru_cache``'s interface: ``cache_clear``,
  ``cache_info``) built on a Memo, so it counts towards the budget too.
* :func:`register` — any other cache with a ``clear()`` or ``cache_clear()``.
* :func:`clear_all` forgets every registered memo (tests, benchmarks, a rebuilt data cache);
  :func:`stats` says what each holds.

Memos are shared by requests: treat what they return as read-only.  Never memoise a
function of a person's attributes.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import NamedTuple

import numpy as np

_REGISTRY: dict[str, object] = {}
_REGISTRY_LOCK = threading.Lock()
_COUNTER = itertools.count(1)
#: functools caches of modules that do not import this one (the cache reads and the country
#: models), cleared by :func:`clear_all` when those modules are loaded.
EXTERNAL = (
    "census_loaders.cache:_manifest",
    "census_loaders.cache:_table_at",  # every stamped table (population, body priors, aux, height cohorts)
    "census_loaders.cache:_boundaries",
    "dashboard.core.country._model:_load_base",
    "dashboard.core.body._bands:_band_matrix_cached",
)


def nbytes(value, _depth: int = 0) -> int:
    """An estimate of the memory ``value`` holds: arrays and tables by their buffers, containers by their items."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if getattr(value, "__memo_shared__", False):  # owned elsewhere (a data set's model): counted there
        return 64
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


#: The default byte budget of all memos of a process (the app overrides it from the settings).
DEFAULT_BUDGET = 300 * 1024 * 1024
#: glibc keeps freed heap pages; after this many bytes were evicted, hand them back (malloc_trim).
TRIM_AFTER = 32 * 1024 * 1024

_TICK = itertools.count(1)  # global recency: next() is atomic under the GIL


class _Budget:
    def __init__(self, limit: int | None):
        self.limit = limit
        self.total = 0
        self.evicted = 0  # bytes evicted since the last trim
        self.evictions = 0
        self.lock = threading.Lock()  # guards total / evicted
        self.evicting = threading.Lock()  # one evicting thread at a time

    def add(self, delta: int) -> None:
        with self.lock:
            self.total += delta


_BUDGET = _Budget(DEFAULT_BUDGET)
_PINNING = [False]


@contextlib.contextmanager
def pinned():
    """Entries made inside are *pinned*: outside the budget and never evicted by it.

    For the warm-up before gunicorn forks (:func:`dashboard.server.warm`): what every visit opens
    with stays, in memory the workers share, however much an unusual request asks for.
    """
    _PINNING[0] = True
    try:
        yield
    finally:
        _PINNING[0] = False


def set_budget(limit_bytes: int | None) -> None:
    """Bound the bytes every :class:`Memo` of the process holds together (None: no global bound)."""
    _BUDGET.limit = None if limit_bytes is None else max(0, int(limit_bytes))
    _enforce_budget()


def budget() -> dict:
    """``{"limit", "bytes", "evictions"}``: the process's memo budget, what the memos hold, evictions so far."""
    return {"limit": _BUDGET.limit, "bytes": _BUDGET.total, "evictions": _BUDGET.evictions}


def _trim() -> None:
    """Return freed heap memory to the system (glibc only; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _memos() -> list[Memo]:
    with _REGISTRY_LOCK:
        return [m for m in _REGISTRY.values() if isinstance(m, Memo)]


def _enforce_budget(keep: tuple | None = None) -> None:
    """Evict least-recently-used entries across every memo until the total is within the budget.

    ``keep = (memo, key)`` is the entry just made: it stays (like a Memo's own newest entry).
    """
    limit = _BUDGET.limit
    if limit is None or _BUDGET.total <= limit:
        return
    with _BUDGET.evicting:
        memos = _memos()
        while _BUDGET.total > limit:
            best, best_tick = None, None
            for m in memos:
                tick = m._oldest_tick(keep)
                if tick is not None and (best_tick is None or tick < best_tick):
                    best, best_tick = m, tick
            if best is None:
                break
            best._evict_oldest(keep)
        trim = _BUDGET.evicted >= TRIM_AFTER
        if trim:
            _BUDGET.evicted = 0
    if trim:
        _trim()


class Memo:
    """An LRU dict behind a lock: concurrent callers may compute twice, never corrupt it.

    ``maxsize`` bounds the entries; ``max_bytes`` (optional) bounds the estimated bytes held
    (``sizeof``, default :func:`nbytes`).  Every entry's bytes count towards the process's
    budget (:func:`set_budget`).  The memo registers itself under ``name``.
    """

    def __init__(self, maxsize: int, *, name: str | None = None, max_bytes: int | None = None,
                 sizeof: Callable[[object], int] = nbytes):
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._data: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self._ticks: dict = {}
        self._pinned: set = set()
        self._bytes = 0
        self._pinned_bytes = 0
        self._lock = threading.Lock()
        if name is None:
            caller = sys._getframe(1).f_globals.get("__name__", "?")
            name = f"{caller}.memo{next(_COUNTER)}"
        self.name = register(name, self)

    def get(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self._ticks[key] = next(_TICK)
                return self._data[key]
        value = make()
        self.put(key, value)
        return value

    def peek(self, key: Hashable, default=None):
        """The value under ``key`` (now the most recently used) or ``default``; makes nothing."""
        with self._lock:
            if key not in self._data:
                return default
            self._data.move_to_end(key)
            self._ticks[key] = next(_TICK)
            return self._data[key]

    def put(self, key: Hashable, value) -> None:
        """Store ``value`` under ``key`` (the newest entry), then evict what the bounds ask."""
        try:
            size = int(self._sizeof(value))
        except Exception:  # noqa: BLE001 - an estimate must never fail a request
            size = 64
        delta = 0
        with self._lock:
            if key in self._data:
                delta -= self._drop(key)
            self._data[key] = value
            self._sizes[key] = size
            self._ticks[key] = next(_TICK)
            self._bytes += size
            if _PINNING[0]:
                self._pinned.add(key)
                self._pinned_bytes += size
            else:
                delta += size
            while len(self._data) > self.maxsize or (
                    self.max_bytes is not None and self._bytes > self.max_bytes and len(self._data) > 1):
                delta -= self._drop(next(iter(self._data)))
        _BUDGET.add(delta)
        _enforce_budget((self, key))

    def _drop(self, key) -> int:
        """Remove ``key`` (lock held); returns the bytes it counted towards the budget."""
        del self._data[key]
        self._ticks.pop(key, None)
        size = self._sizes.pop(key, 0)
        self._bytes -= size
        if key in self._pinned:
            self._pinned.discard(key)
            self._pinned_bytes -= size
            return 0
        return size

    def discard(self, predicate: Callable[[Hashable], bool]) -> int:
        """Drop every entry whose key satisfies ``predicate``; returns how many."""
        with self._lock:
            gone = [k for k in self._data if predicate(k)]
            freed = sum(self._drop(k) for k in gone)
        _BUDGET.add(-freed)
        return len(gone)

    def _victim(self, keep):
        for key in self._data:  # least recently used first
            if key in self._pinned or (keep is not None and keep[0] is self and keep[1] == key):
                continue
            return key
        return None

    def _oldest_tick(self, keep) -> int | None:
        with self._lock:
            victim = self._victim(keep)
            return None if victim is None else self._ticks.get(victim, 0)

    def _evict_oldest(self, keep) -> None:
        with self._lock:
            victim = self._victim(keep)
            if victim is None:
                return
            freed = self._drop(victim)
        with _BUDGET.lock:
            _BUDGET.total -= freed
            _BUDGET.evicted += freed
            _BUDGET.evictions += 1

    def clear(self) -> None:
        with self._lock:
            freed = self._bytes - self._pinned_bytes
            self._data.clear()
            self._sizes.clear()
            self._ticks.clear()
            self._pinned.clear()
            self._bytes = self._pinned_bytes = 0
        _BUDGET.add(-freed)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._data

    @property
    def nbytes(self) -> int:
        """Estimated bytes held (counted as entries arrive)."""
        return self._bytes


class OwnedMemo(Memo):
    """A :class:`Memo` of values belonging to objects (a data set's model): keyed ``(owner, key)``, with
    per-owner LRU buckets (:meth:`lru_for`) and :meth:`forget`.  One such memo for all owners keeps their
    values inside the process's byte budget, where a dict per owner would grow without bound."""

    def __init__(self, maxsize: int, *, name: str | None = None):
        super().__init__(maxsize, name=name)
        self._orders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # owner → {bucket: OrderedDict}
        self._orders_lock = threading.Lock()

    def lru_for(self, owner, bucket: str, key, make: Callable[[], object], maxsize: int):
        """The value of ``key`` in ``owner``'s ``bucket``, which keeps its ``maxsize`` most recently used."""
        with self._orders_lock:
            order = self._orders.setdefault(owner, {}).setdefault(bucket, OrderedDict())
            order[key] = None
            order.move_to_end(key)
            dropped = [order.popitem(last=False)[0] for _ in range(max(0, len(order) - maxsize))]
        if dropped:
            gone = {(owner, ("lru", bucket, k)) for k in dropped}
            self.discard(gone.__contains__)
        return self.get((owner, ("lru", bucket, key)), make)

    def forget(self, owner, bucket: str | None = None) -> None:
        """Drop ``owner``'s values: all, or one bucket (an LRU bucket's name, or a plain key)."""
        def mine(full) -> bool:
            if full[0] is not owner:
                return False
            k = full[1]
            return bucket is None or k == bucket or (isinstance(k, tuple) and k[:2] == ("lru", bucket))

        with self._orders_lock:
            buckets = self._orders.get(owner, {})
            if bucket is None:
                buckets.clear()
            else:
                buckets.pop(bucket, None)
        self.discard(mine)


def register(name: str, cache) -> str:
    """Register ``cache`` (with ``clear()`` or ``cache_clear()``) under ``name`` (made unique); returns the name."""
    with _REGISTRY_LOCK:
        unique, i = name, 1
        while unique in _REGISTRY and _REGISTRY[unique] is not cache:
            i += 1
            unique = f"{name}#{i}"
        _REGISTRY[unique] = cache
    return unique


class _CacheInfo(NamedTuple):
    hits: int
    misses: int
    maxsize: int
    currsize: int


def lru(maxsize: int, name: str | None = None):
    """A memoising decorator with ``functools.lru_cache``'s interface (``cache_clear``, ``cache_info``),
    built on a registered :class:`Memo`, so its entries count towards the process's byte budget."""
    def decorate(fn):
        store = Memo(maxsize, name=name or f"{fn.__module__}.{fn.__qualname__}")
        counts = [0, 0]

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            hash(key)  # unhashable arguments raise TypeError, as with functools.lru_cache
            if key in store:
                counts[0] += 1
            else:
                counts[1] += 1
            return store.get(key, lambda: fn(*args, **kwargs))

        cached.cache_clear = store.clear
        cached.cache_info = lambda: _CacheInfo(counts[0], counts[1], maxsize, len(store))
        cached.memo = store
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
