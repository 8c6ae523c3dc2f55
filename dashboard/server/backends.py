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
    """Files of ``<4-byte expiry><value in serialize's format>`` in the private cache folder (mode 0600).

    A folder that cannot be created (a read-only disk, a file in the way) does not stop the server with a
    traceback: every read is then a miss and every write fails, each said in one line
    (:class:`dashboard.server.cache.OneLineCacheFaults`), and the start-up check says the cache cannot be written.
    """

    serializer = FileSerializer()

    def __init__(self, cache_dir: str, *args, **kwargs) -> None:
        try:
            super().__init__(cache_dir, *args, **kwargs)
        except OSError:  # cachelib's os.makedirs; its attributes are set before it
            pass


class RedisCache(_RedisCache):
    """Redis values in serialize's format (integers as plain ASCII)."""

    serializer = RedisSerializer()
