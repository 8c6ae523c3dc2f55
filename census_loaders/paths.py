"""Where the raw files and the built cache live (overridable from the environment)."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def raw_dir() -> Path:
    """The official files: ``$ANONSET_RAW_DIR`` or ``../shared/data/raw`` beside the project."""
    env = os.environ.get("ANONSET_RAW_DIR")
    return Path(env) if env else PROJECT_ROOT.parent / "shared" / "data" / "raw"


def cache_dir() -> Path:
    """The normalised cache the app reads: ``$ANONSET_DATA_CACHE`` or ``data_cache/``."""
    env = os.environ.get("ANONSET_DATA_CACHE")
    return Path(env) if env else PROJECT_ROOT / "data_cache"
