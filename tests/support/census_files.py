"""Helpers of the census-loader tests: a damaged copy of one published file in a temporary folder."""
from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Callable


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    """The lines of a (possibly gzipped) text file, with their line ends (only the first ``limit`` if given)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        if limit is None:
            return f.read().splitlines(keepends=True)
        return [line for _, line in zip(range(limit), f)]


def damaged_folder(folder: Path, tmp_path: Path, name: str, edit: Callable[[list[str]], list[str]] | None = None,
                   *, keep: int | None = None, raw_bytes: bytes | None = None) -> Path:
    """A copy of ``folder`` (other files symlinked) whose file ``name`` is rewritten.

    ``keep``: only the header and the first ``keep`` lines survive (small and quick to parse);
    ``edit``: changes the list of lines; ``raw_bytes``: the file's bytes as given (a truncated gzip).
    """
    out = tmp_path / folder.name
    out.mkdir()
    for src in folder.iterdir():
        if src.name != name:
            os.symlink(src, out / src.name)
    target = out / name
    if raw_bytes is not None:
        target.write_bytes(raw_bytes)
        return out
    lines = read_lines(folder / name, None if keep is None else keep + 1)
    if edit is not None:
        lines = edit(lines)
    text = "".join(lines).encode("utf-8")
    target.write_bytes(gzip.compress(text, mtime=0) if name.endswith(".gz") else text)
    return out


def replace_on(line_no: int, old: str, new: str) -> Callable[[list[str]], list[str]]:
    """Replace ``old`` by ``new`` on 1-based line ``line_no`` (which must contain it)."""
    def edit(lines: list[str]) -> list[str]:
        assert old in lines[line_no - 1], lines[line_no - 1]
        lines[line_no - 1] = lines[line_no - 1].replace(old, new, 1)
        return lines
    return edit


def truncated_gzip(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: len(data) // 2]
