"""Before the server starts: a damaged data cache or an unsafe cache folder stops it, in a few plain lines.

:func:`dashboard.app.create_app` calls :func:`check` first (every entry point: gunicorn, ``--dev``,
tests), and ``anonset serve`` runs the same checks before gunicorn binds its port.
:class:`StartRefused` is a RuntimeError, which gunicorn prints as ``Error: <lines>`` without a
traceback when it is raised while the app loads.
"""
from __future__ import annotations

from census_loaders import checksums
from census_loaders.paths import cache_dir


class StartRefused(RuntimeError):
    """The server must not start; ``lines`` say why (one per problem, no traceback)."""

    def __init__(self, lines: list[str] | str):
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))


def data_damage() -> list[str]:
    """One line per damaged file of the data cache (``<path>: missing|unreadable|checksum mismatch``), or the
    manifest's own line; none when intact or when there is no cache at all (``/healthz`` says that)."""
    try:
        return checksums.verify(cache_dir())
    except FileNotFoundError:
        return []


def check(settings) -> None:
    """StartRefused when the data cache is damaged (the cache folder is checked when the cache is attached)."""
    lines = data_damage()
    if lines:
        raise StartRefused(lines)
