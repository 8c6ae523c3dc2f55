"""``anonset``: every number the pages compute, from a shell or a notebook.

Each topic lives in its own module under ``dashboard/cli/`` exposing
``add_parser(subparsers)``; the parser it adds sets ``func(args) -> int``.
Bad input ends with one clear line on stderr and exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from typing import Any, Callable

from census_loaders.checksums import DamagedManifest
from census_loaders.schema import LoaderError
from dashboard.core.body import MODELS
from dashboard.core.errors import InputError

#: Topic modules, in the order they appear in ``anonset --help``.
COMMAND_MODULES = [
    "dashboard.cli.data",
    "dashboard.cli.serve",
    "dashboard.cli.static",
    "dashboard.cli.cas",
    "dashboard.cli.body",
    "dashboard.cli.anonland",
    "dashboard.cli.pyc",
    "dashboard.cli.pyc_census",
    "dashboard.cli.regions",
    "dashboard.cli.world",
    "dashboard.cli.validate",
    "dashboard.cli.attack",
    "dashboard.cli.buckets",
    "dashboard.cli.dataset",
    "dashboard.cli.report",
]


class CliError(Exception):
    """A bad argument; printed as one line."""


def _json_default(value: Any):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _clean(value: Any):
    """Replace non-finite floats by None so the JSON is standard."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def emit(result: Any, as_json: bool, text: Callable[[Any], str]) -> int:
    """Print ``result`` as JSON or through ``text``; return exit code 0."""
    if as_json:
        print(json.dumps(_clean(result), indent=2, ensure_ascii=False, default=_json_default))
    else:
        print(text(result))
    return 0


def add_model_arguments(parser: argparse.ArgumentParser, self_report: bool = True) -> None:
    """``--model v2|paper`` (SPEC §1.6) and, optionally, ``--self-report-correction``."""
    parser.add_argument("--model", default="v2",
                        help="body model: v2 (default: correlated height and weight, log-normal weight, nobody left "
                             "out) or paper (independent normals, BMI 17–30 filter: the published numbers)")
    if self_report:
        parser.add_argument("--self-report-correction", action="store_true",
                            help="v2: correct self-reported body statistics (Germany's, and those borrowing them) to "
                                 "measured ones with the NHANES offsets")


def _check_model(args) -> None:

    if getattr(args, "model", None) is not None:
        key = str(args.model).strip().lower()
        if key not in MODELS:
            raise CliError(f"--model {args.model!r} is not a body model: use {' or '.join(MODELS)}")
        args.model = key


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anonset",
        description="Conditional anonymity sets from public census statistics.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _check_model(args)
        return int(args.func(args) or 0)
    except (CliError, InputError, LoaderError, KeyError, DamagedManifest) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"anonset: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
