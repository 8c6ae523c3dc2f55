"""One guard for the pages' callbacks and layouts: bad input says why, anything else says sorry.

    @callback(Output(...), Output(...), Input(...))
    @guarded(lambda message: (no_update, error_box(message)), log=LOG, where="scaling page on_law",
             sorry="Sorry — this could not be computed. Please check the values.")
    def on_law(...): ...

* an :class:`~dashboard.core.errors.InputError` (a bad setting, a cost limit) → ``answer(its message)``;
* any other exception → ``answer(sorry)``, logged on ``log`` as ``"<where>: <exception class>"`` — never
  its message or a traceback, which may hold what a person typed;
* :class:`~dash.exceptions.PreventUpdate` passes through (Dash's "no update").

``answer`` maps the message to the callback's outputs (usually an :func:`~dashboard.components.error_box`
in the message slot and ``no_update`` elsewhere).  ``input_errors=False`` treats an InputError like any
other failure (for callbacks whose input problems are answered without raising).  Whatever escapes a
guard anyway reaches the app's global handler (:mod:`dashboard.server.errors`): "no update", class logged.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from dash.exceptions import PreventUpdate

from dashboard.core.errors import InputError
from dashboard.core.text import translate_marked


def guarded(answer: Callable[[str], Any], *, log: logging.Logger, where: str, sorry: str,
            input_errors: bool = True) -> Callable[[Callable], Callable]:
    """Decorate a callback or layout so that it answers ``answer(message)`` instead of raising (see the module)."""

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except PreventUpdate:
                raise
            except InputError as exc:
                if input_errors:
                    return answer(str(exc))
                log.error("%s: %s", where, type(exc).__name__)
                return answer(translate_marked(sorry))  # marked with N_ where it is written
            except Exception as exc:  # noqa: BLE001 - the one place a page's failure becomes a message
                log.error("%s: %s", where, type(exc).__name__)
                return answer(translate_marked(sorry))  # marked with N_ where it is written

        return wrapper

    return decorate
