"""The folder backend's cache folder is private: this user's own, mode 0700, or the server does not start.

Whoever can write into the cache folder decides what the server reads back from it (values are
never unpickled — :mod:`dashboard.server.serialize` — but job states and public tables are still
served from it).  So :func:`prepare` creates the folder 0700 (and, for the default
``<tmp>/anonset-<uid>/flask-cache``, its per-user parent too) and refuses, with one line
(:class:`UnsafeCacheFolder`), a folder that another user owns or that others may write to.  A folder that
cannot be created at all (a read-only disk) is not refused here: the server starts, and the backend's
start-up check says in one line that the cache cannot be written (as before).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from dashboard import settings as settings_module

from .preflight import StartRefused


class UnsafeCacheFolder(StartRefused):
    """The cache folder is not this user's private folder; the message is one line."""


def problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` (an existing folder) is not private enough, in one line; None when it is this user's own
    and nobody else may write to it (or when it cannot be looked at: the backend reports that)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    if st.st_uid != os.geteuid():
        return (f"the server's cache folder {path} belongs to another user (uid {st.st_uid}): refusing to start "
                "(remove it, or set ANONSET_FLASK_CACHE_DIR to a folder of your own)")
    if st.st_mode & 0o022:
        return (f"the server's cache folder {path} may be written by other users (mode {stat.S_IMODE(st.st_mode):04o}): "
                "refusing to start (chmod 700 it, or set ANONSET_FLASK_CACHE_DIR to a private folder)")
    return None


def _create(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=False, exist_ok=True)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)


def prepare(path: str | os.PathLike) -> None:
    """Create the cache folder 0700 if it is missing; UnsafeCacheFolder when it (or the default's per-user
    parent) is not private."""
    path = Path(path)
    folders = [path]
    if str(path) == settings_module.default_cache_dir():
        folders.insert(0, path.parent)  # <tmp>/anonset-<uid> or $XDG_RUNTIME_DIR/anonset: this user's too
    for folder in folders:
        try:
            _create(folder)
        except OSError:
            return  # cannot be created (read-only, not a folder): the backend's start-up check says so
        reason = problem(folder)
        if reason:
            raise UnsafeCacheFolder(reason)
