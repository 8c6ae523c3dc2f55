"""Configuration from the environment, read in one place.

=========================  ==========================================  =====================
variable                   meaning                                     default
=========================  ==========================================  =====================
ANONSET_HOST / _PORT       development server (``anonset serve``)      127.0.0.1 / 8050
ANONSET_BIND               gunicorn bind address(es), comma-separated  ``HOST:PORT``
ANONSET_WORKERS            gunicorn worker processes                   2 × CPUs + 1, ≤ 8
ANONSET_THREADS            threads per worker (gthread workers)        4
ANONSET_TIMEOUT            gunicorn worker timeout (s)                 60
ANONSET_DEBUG              ``1``: Dash debug mode (never in production) off
ANONSET_FLASK_CACHE_DIR    Flask-Caching filesystem folder: private    $XDG_RUNTIME_DIR/anonset/
                           (0700; refused when another user owns it    flask-cache, else <tmp>/
                           or others may write to it)                  anonset-<uid>/flask-cache
REDIS_URL                  use Redis for Flask-Caching instead         unset
ANONSET_CACHE_TIMEOUT      Flask-Caching entry lifetime (s)            3600
ANONSET_MAX_BODY_MB        largest accepted request body (MB)          16
ANONSET_CACHE_BUDGET_MB    bytes all in-process memos of one worker    300
                           may hold together (LRU across memos)
ANONSET_RESPONSE_CACHE     ``0``: no cache of repeated callback        1
                           answers (non-personal outputs only)
ANONSET_MAX_RERUNS         AnonLand reruns running at once per server  half the cores
                           (they run beside the visits' requests)      (at least 1)
ANONSET_WARM               ``0``: do not load every country at start   1
ANONSET_PUBLIC_URL         the site's address for link previews        unset: no address
                           (never taken from a request's Host header)  in the page
=========================  ==========================================  =====================
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit


def default_max_reruns() -> int:
    """AnonLand reruns at once: half the cores (at least one).  A rerun is a background thread that
    keeps a core busy for up to a second or two; two of them on two cores left nothing for the
    visits' own requests (the 200-user load test's p95 rose with every rerun)."""
    return max(1, (os.cpu_count() or 1) // 2)


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    debug: bool
    cache_type: str  # "FileSystemCache" or "RedisCache" (dashboard.server.backends: values never pickled)
    cache_dir: str
    redis_url: str | None
    cache_timeout: int
    bind: str = "127.0.0.1:8050"
    workers: int = 2
    timeout: int = 60
    max_body_bytes: int = 16 * 1024 * 1024
    warm: bool = True
    threads: int = 4
    cache_budget_bytes: int = 300 * 1024 * 1024
    response_cache: bool = True
    max_reruns: int = field(default_factory=default_max_reruns)
    public_url: str | None = None

    def cache_config(self) -> dict:
        """The Flask-Caching configuration for these settings (filesystem, or Redis with REDIS_URL).

        The backends are Flask-Caching's with serializers that never pickle (:mod:`dashboard.server.backends`).
        """
        config = {
            "CACHE_TYPE": f"dashboard.server.backends.{self.cache_type}",
            "CACHE_DEFAULT_TIMEOUT": self.cache_timeout,
            "CACHE_KEY_PREFIX": "anonset:",
        }
        if self.cache_type == "RedisCache":
            config["CACHE_REDIS_URL"] = self.redis_url
        else:
            config["CACHE_DIR"] = self.cache_dir
            config["CACHE_THRESHOLD"] = 2000
        return config


def _int(name: str, default: int, low: int = 1) -> int:
    raw = os.environ.get(name, "")
    try:
        return max(low, int(raw)) if raw.strip() else default
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None


def _public_url() -> str | None:
    """ANONSET_PUBLIC_URL without a trailing slash, or ``None``; a ``ValueError`` that says why it is not usable."""
    value = os.environ.get("ANONSET_PUBLIC_URL", "").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment \
            or any(c.isspace() or c in '"<>' for c in value):
        raise ValueError(f"ANONSET_PUBLIC_URL must be an http(s) address such as https://anonset.example.org, "
                         f"not {value!r}")
    return value.rstrip("/")


def default_cache_dir() -> str:
    """The cache folder of this user: ``$XDG_RUNTIME_DIR/anonset/flask-cache`` (a per-user folder the system
    makes private), else ``<tmp>/anonset-<uid>/flask-cache`` (:mod:`dashboard.server.cache_folder` creates
    both levels 0700 and refuses them when they are not this user's own)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        try:
            st = os.stat(runtime)
        except OSError:
            st = None
        if st is not None and st.st_uid == os.geteuid() and not st.st_mode & 0o022:
            return str(Path(runtime) / "anonset" / "flask-cache")
    return str(Path(tempfile.gettempdir()) / f"anonset-{os.geteuid()}" / "flask-cache")


def default_workers() -> int:
    return max(2, min(2 * (os.cpu_count() or 1) + 1, 8))


def load() -> Settings:
    redis_url = os.environ.get("REDIS_URL") or None
    host = os.environ.get("ANONSET_HOST", "127.0.0.1")
    port = _int("ANONSET_PORT", 8050)
    return Settings(
        host=host,
        port=port,
        debug=os.environ.get("ANONSET_DEBUG", "") == "1",
        cache_type="RedisCache" if redis_url else "FileSystemCache",
        cache_dir=os.environ.get("ANONSET_FLASK_CACHE_DIR") or default_cache_dir(),
        redis_url=redis_url,
        cache_timeout=_int("ANONSET_CACHE_TIMEOUT", 3600, low=0),
        bind=os.environ.get("ANONSET_BIND") or f"{host}:{port}",
        workers=_int("ANONSET_WORKERS", default_workers()),
        timeout=_int("ANONSET_TIMEOUT", 60),
        max_body_bytes=_int("ANONSET_MAX_BODY_MB", 16) * 1024 * 1024,
        warm=os.environ.get("ANONSET_WARM", "1") != "0",
        threads=_int("ANONSET_THREADS", 4),
        cache_budget_bytes=_int("ANONSET_CACHE_BUDGET_MB", 300, low=16) * 1024 * 1024,
        response_cache=os.environ.get("ANONSET_RESPONSE_CACHE", "1") != "0",
        max_reruns=_int("ANONSET_MAX_RERUNS", default_max_reruns()),
        public_url=_public_url(),
    )
