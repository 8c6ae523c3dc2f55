"""The sha256 of every file the build writes, recorded in ``manifest.json`` and verified before use.

``manifest["files"]`` maps each file's path inside the cache (``population/DE.parquet``) to its
sha256.  :func:`record` computes it (the build calls it on the folder it is about to swap in, and
it can seal an existing cache in place); :func:`verify` answers one line per damaged file —
``<path>: missing``, ``<path>: unreadable (…)`` or ``<path>: checksum mismatch`` — or, when
``manifest.json`` itself cannot be read, one line saying so.  ``anonset data summary`` and
``anonset serve`` refuse a cache with any such line.

Not covered: ``manifest.json`` itself, and the folders other commands write into the cache
(:data:`census_loaders.build.CARRIED_OVER`, e.g. ``anonland/``).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

#: The manifest's key for the checksums.
FILES_KEY = "files"
MANIFEST = "manifest.json"
#: Folders of the cache written by other commands than the build (kept in sync with build.CARRIED_OVER).
NOT_BUILT = ("anonland",)


class DamagedManifest(ValueError):
    """``manifest.json`` exists but is not a readable manifest; the message is one line."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def built_files(root: Path) -> list[str]:
    """The files of the cache at ``root`` the build wrote (sorted paths inside it, ``/``-separated)."""
    root = Path(root)
    out = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if (not path.is_file() or rel.as_posix() == MANIFEST or rel.parts[0] in NOT_BUILT
                or any(part.startswith(".") for part in rel.parts)):
            continue
        out.append(rel.as_posix())
    return sorted(out)


def compute(root: Path) -> dict[str, str]:
    """``{path: sha256}`` of every built file under ``root``."""
    root = Path(root)
    return {rel: sha256(root / rel) for rel in built_files(root)}


def dumps(manifest: dict) -> str:
    """The manifest's text, as the build writes it (sorted keys, deterministic)."""
    return json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def read(root: Path) -> dict:
    """The parsed manifest of the cache at ``root``: FileNotFoundError when absent, DamagedManifest when unreadable."""
    path = Path(root) / MANIFEST
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise DamagedManifest(f"{path}: unreadable ({type(exc).__name__})") from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError: a cut through a character
        raise DamagedManifest(f"{path}: unreadable (not valid JSON: truncated or damaged; "
                              "rebuild it with `anonset data build`)") from None
    if not isinstance(manifest, dict):
        raise DamagedManifest(f"{path}: unreadable (not a data cache manifest)")
    return manifest


def record(root: Path, manifest: dict | None = None) -> dict:
    """Write the checksums of the cache at ``root`` into its ``manifest.json`` (``manifest``: the one to write,
    default the one there); return the manifest written."""
    root = Path(root)
    manifest = dict(read(root) if manifest is None else manifest)
    manifest[FILES_KEY] = compute(root)
    (root / MANIFEST).write_text(dumps(manifest), encoding="utf-8")
    return manifest


def recorded(manifest: dict) -> bool:
    return isinstance(manifest.get(FILES_KEY), dict)


def verify(root: Path) -> list[str]:
    """One line per damaged file of the cache at ``root`` (empty: every recorded file is intact).

    A manifest that records no checksums (built before they were added) verifies nothing and
    answers no line; :func:`recorded` tells.  FileNotFoundError when there is no cache at all.
    """
    root = Path(root)
    try:
        manifest = read(root)
    except DamagedManifest as exc:
        return [str(exc)]
    files = manifest.get(FILES_KEY)
    if files is None:
        return []
    if not isinstance(files, dict):
        return [f"{root / MANIFEST}: unreadable (its checksums are not a table)"]
    problems = []
    for rel, expected in sorted(files.items()):
        path = root / rel
        if not isinstance(rel, str) or ".." in Path(rel).parts or Path(rel).is_absolute():
            problems.append(f"{root / MANIFEST}: unreadable (names a file outside the cache)")
            continue
        try:
            actual = sha256(path)
        except FileNotFoundError:
            problems.append(f"{path}: missing")
            continue
        except OSError as exc:
            problems.append(f"{path}: unreadable ({type(exc).__name__})")
            continue
        if actual != expected:
            problems.append(f"{path}: checksum mismatch")
    return problems
