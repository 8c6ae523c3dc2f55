"""The Dash shell, built by a factory: :func:`create_app` makes the app — pages, navigation bar, presenter mode.

Nothing happens at import.  Run for development with ``anonset serve``; gunicorn serves
``dashboard.wsgi:server`` (``gunicorn -c dashboard/gunicorn_conf.py dashboard.wsgi:server``, see README),
the one app of its process, built from the environment's settings.  Server concerns — security
headers, error handling, routes, health, warm-up, the server-side cache — are in
:mod:`dashboard.server`, attached by the factory.

What one process shares between the apps it builds (Dash keeps these per process, not per app):

* the page modules and ``dash.page_registry``: Dash imports ``dashboard/pages/`` once, for the
  first app; every app routes through the same registry;
* the callbacks those modules register with ``dash.callback``: taken from Dash's global
  registry once, when the pages are imported, and given to every app built afterwards (each app
  owns its own callback map);
* the in-process memo budget (:func:`dashboard.core.memo.set_budget`) and the server-side cache's
  settings outside a request: the last app built sets them.

Everything else — the Flask server, its settings, hooks, routes, error handler and cache
backend — belongs to one app.
"""
from __future__ import annotations

import copy
import threading
from pathlib import Path

import dash
from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html

from . import ids, reports, server, views
from .core import memo
from .core.text import LANGUAGE_NAMES, LANGUAGES, N_, current_language, gettext, translate_marked, with_language

ROOT = Path(__file__).resolve().parent.parent
PAGES_FOLDER = Path(__file__).parent / "pages"

# Dash's default page, with a language, one <footer> (Dash wraps its scripts in a second one,
# which screen readers announce as another "contentinfo"), and the shell's accessibility fixes.
INDEX_STRING = """<!DOCTYPE html>
<html lang="en">
    <head>
        {%metas%}
        <title>{%title%}</title>
        {%favicon%}
        {%css%}
        <link rel="stylesheet" href="/_shell/a11y.css">
        <script src="/_shell/lang.js"></script>
    </head>
    <body>
        {%app_entry%}
        {%config%}
        {%scripts%}
        {%renderer%}
        <script src="/_shell/a11y.js"></script>
        <script src="/_shell/nav.js"></script>
        <script src="/_shell/fields.js"></script>
    </body>
</html>"""


class PageCallbacks:
    """The callbacks the page modules registered with ``dash.callback`` (and their inline scripts).

    Dash keeps them in process-wide lists and hands them to the first app that serves a request.
    The factory takes them once, right after Dash imported the pages, and gives every app its own
    copy, so two apps built in one process each answer every page's callbacks.
    """

    def __init__(self) -> None:
        self.callback_list: list[dict] | None = None
        self.callback_map: dict[str, dict] = {}
        self.inline_scripts: list[str] = []
        self.lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self.callback_list is not None

    def take(self) -> None:
        """Move what the page modules registered out of Dash's process-wide registry (Dash's own
        ``_setup_server`` would move it into whichever app answers a request first)."""
        registry = dash._callback  # noqa: SLF001 - Dash's registry of ``dash.callback``; see the class docstring
        self.callback_list = list(registry.GLOBAL_CALLBACK_LIST)
        self.callback_map = dict(registry.GLOBAL_CALLBACK_MAP)
        self.inline_scripts = list(registry.GLOBAL_INLINE_SCRIPTS)
        registry.GLOBAL_CALLBACK_LIST.clear()
        registry.GLOBAL_CALLBACK_MAP.clear()
        registry.GLOBAL_INLINE_SCRIPTS.clear()

    def give(self, app: Dash) -> None:
        """``app``'s own copy of the page callbacks (specs copied; the callback functions are shared)."""
        app._callback_list.extend(copy.deepcopy(self.callback_list))  # noqa: SLF001 - see the class docstring
        app.callback_map.update({k: dict(v) for k, v in self.callback_map.items()})
        app._inline_scripts.extend(self.inline_scripts)  # noqa: SLF001 - hashed into the CSP


PAGE_CALLBACKS = PageCallbacks()

__all__ = ["PAGE_CALLBACKS", "PageCallbacks", "create_app", "warm"]


def create_app(settings) -> Dash:
    """A new AnonSet Dash app for ``settings`` (:func:`dashboard.settings.load`), its Flask server set up.

    The first call in a process imports the pages (``dashboard/pages/``); later calls reuse them.
    A damaged data cache or an unsafe cache folder stops it with
    :class:`~dashboard.server.preflight.StartRefused` (plain lines, no traceback in gunicorn's log).
    """
    server.preflight.check(settings)
    memo.set_budget(settings.cache_budget_bytes)  # every in-process memo of this worker, together
    with PAGE_CALLBACKS.lock:
        first = not PAGE_CALLBACKS.loaded
        app = Dash(
            __name__,
            use_pages=True,
            pages_folder=str(PAGES_FOLDER) if first else "",  # "": the pages are registered already
            assets_folder=str(ROOT / "assets"),
            # assets/shell/ is linked by INDEX_STRING and assets/plotly/ is the plotly.js Dash loads, both served by
            # dashboard.server
            assets_path_ignore=["^shell$", "^plotly$"],
            serve_locally=True,
            title="AnonSet — how many people are like you?",
            update_title=None,
            suppress_callback_exceptions=True,
            on_error=server.callback_error,
            meta_tags=[
                {"name": "viewport", "content": "width=device-width, initial-scale=1"},
                {"name": "referrer", "content": "no-referrer"},
            ],
        )
        if first:
            PAGE_CALLBACKS.take()
    app.index_string = INDEX_STRING
    server.install(app, settings, reports.KINDS)  # reports.KINDS: GET /_reports/<kind> (issue 29)
    app.layout = _layout  # per request: the shell speaks the page's language (dashboard.server.language)
    _presenter_mode(app)
    PAGE_CALLBACKS.give(app)  # after the shell's own callbacks, where Dash would put them
    return app


def warm(app: Dash) -> dict:
    """Load every data set and each view's opening state, and set ``app`` up (gunicorn, before forking)."""
    return server.warm(app, [views.warm_all])


# --------------------------------------------------------------------------- layout


#: The pages' names in the navigation, marked for the catalogues (the pages register them in English).
PAGE_NAMES = (N_("Me"), N_("Explore regions"), N_("World"), N_("For app developers"), N_("Scaling law"),
              N_("Attack lab"), N_("Data set"), N_("AnonLand"), N_("Real people"), N_("About"))


def _scroll_control(edge: str, arrow: str) -> html.Button:
    """A ‹ or › beside the phone's sideways-scrolling links, shown only where more links are (assets/shell/nav.js):
    a link cut at the edge otherwise reads as a broken label (issue 28). Pointer only: each link is a tab stop."""
    return html.Button(arrow, className=f"nav-more nav-more-{edge}", type="button", tabIndex="-1",
                       **{"aria-hidden": "true", "data-edge": edge})


def _navbar() -> html.Nav:
    pages = sorted(dash.page_registry.values(), key=lambda p: p.get("order") or 0)
    links = [
        dcc.Link(translate_marked(p["name"]), href=with_language(p["relative_path"]), className="nav-link")
        for p in pages
        if p.get("nav", True)
    ]
    return html.Nav(
        [
            dcc.Link([html.Span("Anon", className="brand-a"), html.Span("Set", className="brand-b")],
                     href=with_language("/"), className="brand", title=gettext("AnonSet home")),
            html.Div(
                [_scroll_control("left", "\u2039"), html.Div(links, className="nav-links"), _scroll_control("right", "\u203a")],
                className="nav-row",
            ),
            html.Button(
                gettext("Presenter mode"), id=ids.PRESENTER_TOGGLE, n_clicks=0, className="presenter-toggle",
                title=gettext("Large type and high contrast for projectors (link: ?presenter=1)"),
                **{"aria-pressed": "false"},
            ),
        ],
        id=ids.NAVBAR,
        className="navbar",
        **{"aria-label": gettext("Main")},
    )


#: The switch's heading, in every language at once (it must be found by someone who reads none of the others).
SWITCH_LABEL = N_("Language")


def language_switch() -> html.Nav:
    """The visible language switch: one link per language, in its own name (``assets/shell/lang.js`` keeps the
    address and its fragment)."""
    here = current_language()
    links = [
        html.A(LANGUAGE_NAMES[lang], href=f"?lang={lang}", hrefLang=lang, lang=lang, className="lang-link"
               + (" active" if lang == here else ""), **{"data-lang": lang},
               **({"aria-current": "true"} if lang == here else {}))
        for lang in LANGUAGES
    ]
    return html.Nav([html.Span(gettext(SWITCH_LABEL) + ":", className="lang-label"), *links],
                    className="lang-switch", **{"aria-label": gettext(SWITCH_LABEL)})


def _layout() -> html.Div:
    return html.Div(
        [
            dcc.Location(id=ids.URL),
            dcc.Store(id=ids.PRESENTER_STORE, storage_type="local"),
            html.A(gettext("Skip to content"), href="#main", className="skip-link"),
            _navbar(),
            html.Main(dash.page_container, id="main", className="page"),
            html.Footer(
                [
                    language_switch(),
                    html.P([
                        gettext("AnonSet estimates anonymity sets from public statistics. Your answers on the personal "
                                "page stay in your browser; other pages send their settings to this server only, which "
                                "keeps none of them."), " ",
                        dcc.Link(gettext("Sources and licences"), href=with_language("/about")),
                    ]),
                ],
                className="footer",
            ),
        ],
        className="shell",
        lang=current_language(),
    )


def _presenter_mode(app: Dash) -> None:
    """?presenter=1|0 or the navbar toggle → localStorage → class "presenter" on <body>."""
    app.clientside_callback(
        ClientsideFunction(namespace="anonsetShell", function_name="choosePresenter"),
        Output(ids.PRESENTER_STORE, "data"),
        Input(ids.PRESENTER_TOGGLE, "n_clicks"),
        Input(ids.URL, "search"),
        State(ids.PRESENTER_STORE, "data"),
    )
    app.clientside_callback(
        ClientsideFunction(namespace="anonsetShell", function_name="applyPresenter"),
        Output(ids.PRESENTER_TOGGLE, "aria-pressed"),
        Input(ids.PRESENTER_STORE, "data"),
    )
