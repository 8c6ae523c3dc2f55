"""Flask-Caching's folder and Redis backends with the serializers of :mod:`dashboard.server.serialize`.

cachelib picks a backend's serializer from its ``serializer`` class attribute (pickle by default);
these subclasses name ours, so nothing the server reads back from its cache is unpickled.
:meth:`dashboard.settings.Settings.cache_config` names them as ``CACHE_TYPE``.
"""
from __future__ import annotations

from flask_caching.backends.filesystemcache import FileSystemCache as _FileSystemCache
from flask_caching.backends.rediscache import RedisCache as _RedisCache

from .serialize import FileSerializer, RedisSerializer


class FileSystemCache(_FileSystemCache):
    """Files of ``<4-byte expiry><value in serialize's format>`` in the private cache folder (mode 0600)."""

    serializer = FileSerializer()


class RedisCache(_RedisCache):
    """Redis values in serialize's format (integers as plain ASCII)."""

    serializer = RedisSerializer()
