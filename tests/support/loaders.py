"""Loader-test helpers: the one check of a damaged published file, and raw/cache folders by content."""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Callable

import pytest

from census_loaders.registry import LoaderEntry
from census_loaders.schema import LoaderError

#: Two quick population loaders (Germany's and the UK's) for builds that need not read every source.
SMALL_REGISTRY = [LoaderEntry("census_loaders.destatis", "de"), LoaderEntry("census_loaders.ons", "uk")]
#: A file another command wrote into the cache folder before a build (``anonset anonland --out``): the build keeps it.
CARRIED_OVER_FILE = ("anonland", "summary.json", "{}")

_UNSET = object()


def raises_loader_error(read: Callable, *args, file: str | Path | None = None, line=_UNSET, sheet: str | None = None,
                        match: str | None = None, fragments: tuple[str, ...] = ()) -> LoaderError:
    """``read(*args)`` fails with a :class:`LoaderError` whose message names the file and the problem.

    ``file``: a name the message must contain (default: the name of the first argument, a path);
    ``line``: the error's line (``None``: none applies) — also written ``line N:`` in the message;
    ``sheet``: the workbook sheet named in the message; ``match``: a regular expression the message
    must match; ``fragments``: texts the message must contain.  Returns the error.
    """
    with pytest.raises(LoaderError) as info:
        read(*args)
    err = info.value
    msg = str(err)
    name = file if file is not None else Path(args[0]).name
    assert str(name) in msg, msg
    if sheet:
        assert f"sheet '{sheet}'" in msg, msg
    if line is not _UNSET:
        assert err.line == line, msg
        if line is not None:
            assert f"line {line}:" in msg, msg
    if match:
        assert re.search(match, msg), msg
    for fragment in fragments:
        assert fragment in msg, msg
    return err


def digest_tree(root: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file below ``root``."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def mirror_raw(raw_root: Path, dest: Path) -> Path:
    """A raw folder of symlinks to the real files, so single files can be swapped for corrupt copies."""
    for src in raw_root.rglob("*"):
        target = dest / src.relative_to(raw_root)
        if src.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(src, target)
    return dest
