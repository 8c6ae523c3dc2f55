"""What the server writes into the shared cache, and reads back: JSON or raw bytes, never a pickle.

Flask-Caching's folder and Redis backends pickle every value (cachelib's default serializers), so a
pickle planted in the cache folder or in Redis would run as the server the next time it is read.
cachelib lets a backend name its own serializer (the ``serializer`` class attribute); the backends of
:mod:`dashboard.server.backends` use the two below, which write one of two formats:

=============  ===============================================================================
prefix         value
=============  ===============================================================================
``AS1B``       ``bytes`` as they are (the public tables' gzipped JSON)
``AS1J``       JSON of ``None``, ``bool``, ``int``, ``float``, ``str``, lists, dicts with string
               keys, and three tagged objects: ``{"$tuple": [...]}``, ``{"$bytes": base64}`` and
               ``{"$frame": {...}}`` (a DataFrame: column names, an allow-listed dtype per column,
               the values, and for a categorical column its string categories)
=============  ===============================================================================

Reading builds nothing but those types: no class is looked up by a name found in the data.  A value
that does not decode (a pickle, another program's entry, a truncated file, a wrong schema) is a
**cache miss**, logged once per process without its content.  The Redis serializer keeps cachelib's
plain ASCII integers, so Redis' ``INCR``/``DECR`` still work on them.
"""
from __future__ import annotations

import base64
import json
import logging
import threading
import typing as _t

import numpy as np
import pandas as pd
from cachelib.serializers import BaseSerializer

LOG = logging.getLogger("anonset.cache")

BYTES = b"AS1B"
JSON = b"AS1J"
#: Column dtypes a cached DataFrame may have (anything else is refused when written and when read).
FRAME_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                          "float32", "float64", "object", "str", "category"})
#: Deepest nesting a cached value may have (job summaries are < 6 deep).
MAX_DEPTH = 32

_warned = threading.Event()


class BadValue(ValueError):
    """A cached value that is not in one of the formats above; its message names the problem, never the content."""


def note_miss(reason: str) -> None:
    """Log, once per process, that a value was ignored (the reason only: never the value)."""
    if _warned.is_set():
        LOG.debug("ignored a value in the server cache (%s)", reason)
        return
    _warned.set()
    LOG.warning("ignored a value in the server cache that AnonSet did not write (%s): treated as a miss; "
                "further ones are not logged", reason)


# --------------------------------------------------------------------------- encoding


def _frame(df: pd.DataFrame) -> dict:
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    columns, dtypes, data, categories = [], [], [], {}
    for name in df.columns:
        col = df[name]
        dtype = str(col.dtype)
        if not isinstance(name, str) or dtype not in FRAME_DTYPES:
            raise TypeError(f"a cached DataFrame column must be named by a string and be one of {sorted(FRAME_DTYPES)}")
        columns.append(name)
        dtypes.append(dtype)
        if dtype == "category":
            cats = [str(c) for c in col.cat.categories]
            categories[name] = cats
            data.append([int(c) for c in col.cat.codes])
        elif dtype in ("object", "str"):
            data.append([None if v is None or (isinstance(v, float) and v != v) else str(v) for v in col])
        else:
            data.append(col.to_numpy().tolist())
    return {"columns": columns, "dtypes": dtypes, "categories": categories, "data": data}


def _plain(value, depth: int = 0):
    """``value`` as JSON-ready Python (tagged where JSON has no type of its own)."""
    if depth > MAX_DEPTH:
        raise TypeError("a cached value nests too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("a cached dict must have string keys")
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [_plain(v, depth + 1) for v in value]}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, pd.DataFrame):
        return {"$frame": _frame(value)}
    raise TypeError(f"the server cache does not store {type(value).__name__} values")


def encode(value) -> bytes:
    """``value`` in one of the two formats (TypeError for a type the cache does not store)."""
    if isinstance(value, (bytes, bytearray)):
        return BYTES + bytes(value)
    return JSON + json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------- decoding


def _list(value, what: str) -> list:
    if not isinstance(value, list):
        raise BadValue(f"{what} is not a list")
    return value


def _unframe(spec) -> pd.DataFrame:
    if not isinstance(spec, dict) or set(spec) != {"columns", "dtypes", "categories", "data"}:
        raise BadValue("a DataFrame without its schema")
    columns, dtypes, data = (_list(spec[k], k) for k in ("columns", "dtypes", "data"))
    categories = spec["categories"]
    if not (len(columns) == len(dtypes) == len(data)) or not isinstance(categories, dict):
        raise BadValue("a DataFrame whose schema does not match its data")
    if len({len(_list(col, "a column")) for col in data}) > 1:
        raise BadValue("a DataFrame with columns of different lengths")
    out = {}
    for name, dtype, values in zip(columns, dtypes, data):
        if not isinstance(name, str) or dtype not in FRAME_DTYPES or name in out:
            raise BadValue("a DataFrame column of an unknown type")
        try:
            if dtype == "category":
                cats = _list(categories.get(name), "categories")
                if not all(isinstance(c, str) for c in cats) or not all(type(c) is int for c in values):
                    raise BadValue("a categorical column that is not strings")
                out[name] = pd.Categorical.from_codes(values, categories=cats)
            elif dtype in ("object", "str"):
                if not all(v is None or isinstance(v, str) for v in values):
                    raise BadValue("a text column with other values")
                out[name] = pd.Series(values, dtype=dtype)
            else:
                if not all(type(v) in (int, float, bool) for v in values):
                    raise BadValue("a numeric column with other values")
                out[name] = np.asarray(values, dtype=dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise BadValue(f"a DataFrame column that does not fit its type ({type(exc).__name__})") from None
    return pd.DataFrame(out, columns=columns)


def _rebuild(value, depth: int = 0):
    if depth > MAX_DEPTH:
        raise BadValue("nested too deeply")
    if isinstance(value, list):
        return [_rebuild(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (tag, inner), = value.items()
            if tag == "$tuple":
                return tuple(_rebuild(v, depth + 1) for v in _list(inner, "a tuple"))
            if tag == "$bytes":
                try:
                    return base64.b64decode(inner, validate=True)
                except (TypeError, ValueError):
                    raise BadValue("bytes that are not base64") from None
            if tag == "$frame":
                return _unframe(inner)
        return {k: _rebuild(v, depth + 1) for k, v in value.items()}
    return value


def decode(blob: bytes):
    """The value :func:`encode` wrote, or BadValue (the reason only, never the content)."""
    if not isinstance(blob, (bytes, bytearray)):
        raise BadValue("not bytes")
    head, body = bytes(blob[:4]), bytes(blob[4:])
    if head == BYTES:
        return body
    if head != JSON:
        raise BadValue("unknown format")
    try:
        parsed = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadValue("not valid JSON") from None
    return _rebuild(parsed)


# --------------------------------------------------------------------------- cachelib serializers


class FileSerializer(BaseSerializer):
    """For the folder backend: the file after cachelib's 4-byte expiry stamp holds one :func:`encode` value."""

    def dump(self, value: _t.Any, f: _t.IO[bytes], *args: _t.Any, **kwargs: _t.Any) -> None:
        f.write(encode(value))

    def load(self, f: _t.IO[bytes], *args: _t.Any, **kwargs: _t.Any) -> _t.Any:
        try:
            return decode(f.read())
        except BadValue as exc:
            note_miss(str(exc))
            return None

    def dumps(self, value: _t.Any, *args: _t.Any, **kwargs: _t.Any) -> bytes:
        return encode(value)

    def loads(self, bvalue: bytes, *args: _t.Any, **kwargs: _t.Any) -> _t.Any:
        try:
            return decode(bvalue)
        except BadValue as exc:
            note_miss(str(exc))
            return None


class RedisSerializer(FileSerializer):
    """For Redis: plain ASCII integers as cachelib writes them (``INCR`` works on them), else :func:`encode`."""

    def dumps(self, value: _t.Any, *args: _t.Any, **kwargs: _t.Any) -> bytes:
        if type(value) is int:
            return str(value).encode("ascii")
        return encode(value)

    def loads(self, bvalue: bytes | None, *args: _t.Any, **kwargs: _t.Any) -> _t.Any:
        if bvalue is None:
            return None
        if isinstance(bvalue, (bytes, bytearray)) and bvalue[:4] not in (BYTES, JSON):
            text = bytes(bvalue)
            if 0 < len(text) <= 20 and text.lstrip(b"-").isdigit():
                return int(text)
        return super().loads(bvalue)
