"""``anonset export-static DIR``: the personal page as a static site any static host or CDN can serve (issue 30).

The page already computes in the browser (``assets/anonset_engine.js`` on public tables), so a folder of
files serves it: a speaker's USB stick with ``python3 -m http.server``.  Every file is the running app's own
answer, asked through Flask's test client — no second copy of the page or the engine:

* ``index.html`` is ``GET /`` with one script added before the renderer (``assets/shell/static_site.js``);
  the scripts and styles it links (Dash's renderer and component bundles, ``/assets/…``, ``/_shell/…``) and
  the component bundles Dash loads later (the dropdown, the graph, plotly.js) are the app's responses;
* ``_layout/<code>.json`` is the app's shell layout (``GET /_dash-layout``) holding the page the router
  answers for ``/?country=<code>`` (``POST /_dash-update-component``), so the page router, a server
  callback, is not needed.  Each country is its own page: a country chosen in the form opens that page
  (``assets/personal_page.js`` syncAddress), so the country callback, the page's other server callback,
  is not needed either.  The export refuses when the page depends on any other server callback;
* ``_dash-dependencies.json`` is the app's ``GET /_dash-dependencies`` with the clientside callbacks of the
  page and the shell only;
* ``_tables/<code>.<model>.<hw>.<ww>.<sr>.json`` are ``GET /_tables/<code>.json?…`` (a static host ignores
  a query, so the settings are in the name; the page config's ``static.tables`` maps each setting to its
  file, and the page says so when a table is not in the copy); ``/_places/<code>.json`` and
  ``/geo/<code>.geojson`` are the routes' answers.

A static host cannot run Python, so what the other pages compute on the server is not in the copy: the
navigation keeps the personal page only.
"""
from __future__ import annotations

import copy
import gzip
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from dash.fingerprint import check_fingerprint

import census_loaders as cl
from dashboard.core.personal import default_model

from .hooks import ROUTER_OUTPUT

ROOT = Path(__file__).resolve().parent.parent.parent
#: The one script a static copy adds to the app's index page (see its header).
SHIM = ROOT / "assets" / "shell" / "static_site.js"
SHIM_URL = "/_shell/static_site.js"
#: What an export writes beside the site: its files, sizes and settings (``--force`` removes those files only).
MANIFEST = "anonset-static.json"
#: The band widths (cm and kg, the same for both) exported by default: what every visitor's page opens with.
DEFAULT_WIDTHS = (5,)
DEFAULT_COUNTRY = "DE"
#: The page's server callbacks a static copy replaces (see the module docstring); any other one stops the export.
REPLACED_CALLBACKS = {ROUTER_OUTPUT: "the page router: each country's layout is exported with the page in it",
                      "..me-district-all.data": "the country callback: each country is its own static page"}
#: The bundles Dash loads when the page shows a dropdown and a chart (by their plain names).
LAZY_BUNDLES = ("_dash-component-suites/dash/dcc/async-dropdown.js", "_dash-component-suites/dash/dcc/async-graph.js",
                "_dash-component-suites/plotly/package_data/plotly.min.js")
#: Size budgets, checked by the tests and stated in the README: the whole site with every data set at the
#: default widths, and the gzipped bytes the largest data set's page fetches before its first answer.
BUDGET_TOTAL_MB = 260
BUDGET_FIRST_ANSWER_GZ_MB = 3.5


class ExportError(Exception):
    """A target or a page the export cannot use: one line for the command line."""


@dataclass
class Export:
    """What an export wrote: every file (site path → bytes) and per data set the files its page needs first."""

    target: Path
    codes: list[str]
    widths: tuple[int, ...]
    files: dict[str, int] = field(default_factory=dict)
    tables: dict[str, dict[str, str]] = field(default_factory=dict)
    seconds: float = 0.0

    common: list[str] = field(default_factory=list)
    maps: dict[str, str] = field(default_factory=dict)
    gz: dict[str, int] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(self.files.values())

    def first_answer_files(self, code: str) -> list[str]:
        """The files a data set's page fetches before its first answer: the index and what it links, the
        bundles Dash loads for the page's dropdowns and charts, the dependencies, the country's layout, its
        default table and its map's geometry (the place index only comes when a person types a place)."""
        return [*self.common, "_dash-dependencies.json", f"_layout/{code}.json",
                self.tables[code]["v2|%d|%d|0" % (self.widths[0], self.widths[0])].lstrip("/"),
                *([self.maps[code]] if code in self.maps else [])]

    def first_answer_gz(self, code: str) -> int:
        """Their gzipped bytes (what a host that compresses sends)."""
        for rel in self.first_answer_files(code):
            if rel not in self.gz:
                self.gz[rel] = gzipped_size(self.target / rel)
        return sum(self.gz[rel] for rel in self.first_answer_files(code))

    def summary(self) -> dict:
        gz = {code: self.first_answer_gz(code) for code in self.codes}
        largest = max(gz, key=gz.get)
        return {"target": str(self.target), "datasets": self.codes, "widths": list(self.widths),
                "files": len(self.files), "total_bytes": self.total_bytes, "seconds": round(self.seconds, 1),
                "first_answer_gz_bytes": {"largest": largest, "bytes": gz[largest]},
                "budget_total_mb": BUDGET_TOTAL_MB, "budget_first_answer_gz_mb": BUDGET_FIRST_ANSWER_GZ_MB,
                "tables": self.tables}


# --------------------------------------------------------------------------- the target folder


def prepare_target(target: Path, force: bool) -> None:
    """An empty (or new) folder; a non-empty one only with ``force``, and then only a previous export's files go."""
    try:
        if target.exists() and not target.is_dir():
            raise ExportError(f"{target} is a file, not a folder")
        entries = list(target.iterdir()) if target.exists() else []
        if entries and not force:
            raise ExportError(f"{target} is not empty ({len(entries)} entries); choose an empty folder, or add --force "
                              f"to write over a previous export")
        if entries:
            _remove_previous(target)
        target.mkdir(parents=True, exist_ok=True)
        probe = target / ".anonset-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except PermissionError as exc:
        raise ExportError(f"cannot write to {target}: {exc.strerror or 'permission denied'}") from None
    except OSError as exc:
        raise ExportError(f"cannot write to {target}: {exc.strerror or exc}") from None


def _remove_previous(target: Path) -> None:
    """The files a previous export listed in its manifest (nothing else in the folder is touched)."""
    manifest = target / MANIFEST
    if not manifest.is_file():
        return
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8")).get("paths", [])
    except (OSError, ValueError):
        return
    root = target.resolve()
    for rel in listed:
        path = (target / rel).resolve()
        if root in path.parents and path.is_file():
            path.unlink()
    manifest.unlink()


# --------------------------------------------------------------------------- the app's answers


class _App:
    """The app's responses through Flask's test client (no browser, no socket)."""

    def __init__(self, app):
        self.app = app
        self.client = app.server.test_client()

    def get(self, url: str) -> bytes:
        resp = self.client.get(url)  # no Accept-Encoding: the plain bytes
        if resp.status_code != 200:
            raise ExportError(f"the app answered {resp.status_code} for {url}")
        return resp.get_data()

    def index(self) -> tuple[str, str]:
        """The index page and its Content-Security-Policy, less what a policy in a <meta> element cannot hold
        (``frame-ancestors``: browsers ignore it there, with a console error)."""
        resp = self.client.get("/")
        if resp.status_code != 200:
            raise ExportError(f"the app answered {resp.status_code} for /")
        policy = "; ".join(d.strip() for d in resp.headers.get("Content-Security-Policy", "").split(";")
                           if d.strip() and not d.strip().startswith("frame-ancestors"))
        return resp.get_data(as_text=True), policy

    def get_json(self, url: str):
        return json.loads(self.get(url))

    def page(self, router: dict, search: str) -> dict:
        """``{component id: {property: value}}``: the page (and its title) the page router answers for ``/`` with ``search``: what the server shows that address."""
        values = {"pathname": "/", "search": search}
        body = {"output": router["output"],
                "outputs": [{"id": o["id"], "property": o["property"]} for o in _outputs(router)],
                "inputs": [{"id": i["id"], "property": i["property"], "value": values.get(i["property"])}
                           for i in router["inputs"]],
                "changedPropIds": ["_pages_location.pathname"], "state": []}
        resp = self.client.post("/_dash-update-component", json=body)
        if resp.status_code != 200:
            raise ExportError(f"the page router answered {resp.status_code} for /{search}")
        return resp.get_json()["response"]


def _outputs(dep: dict) -> list[dict]:
    out = dep["output"]
    parts = out[2:-2].split("...") if out.startswith("..") else [out]
    return [dict(zip(("id", "property"), p.rsplit(".", 1))) for p in parts]


# --------------------------------------------------------------------------- layouts


def _walk(node):
    """Every component of a layout (JSON), depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
        elif isinstance(n, dict) and "props" in n:
            yield n
            stack.append(n["props"].get("children"))


def _by_id(layout, ident: str) -> dict:
    for c in _walk(layout):
        if c["props"].get("id") == ident:
            return c
    raise ExportError(f"the page has no component {ident!r}: the export and the page disagree")


def _ids(layout) -> set[str]:
    return {c["props"]["id"] for c in _walk(layout) if isinstance(c["props"].get("id"), str)}


def _static_shell(shell: dict) -> dict:
    """The shell's navigation without the pages a static host cannot serve (they compute on a server), and without
    the language switch (a static copy is exported in English: a file host cannot choose a language per request)."""
    shell = copy.deepcopy(shell)
    for c in _walk(shell):
        props = c["props"]
        if props.get("className") == "nav-links":
            props["children"] = [k for k in props["children"] if k["props"].get("href") == "/"]
        kids = props.get("children")
        if isinstance(kids, list):
            props["children"] = [
                k if not (isinstance(k, dict) and k.get("props", {}).get("href") == "/about") else
                "Sources: under the form, for each country; their licences: the About page of AnonSet itself "
                "(anonset serve)."
                for k in kids if not (isinstance(k, dict) and k.get("props", {}).get("className") == "lang-switch")]
    return shell


def _country_page(shell: dict, routed: dict, code: str, codes: list[str], tables: dict[str, str], offered: str) -> dict:
    """The shell holding what the page router answered (the page and its title), set up as a static page."""
    layout = copy.deepcopy(shell)
    for ident, props in routed.items():
        _by_id(layout, ident)["props"].update(props)
    config = _by_id(layout, "me-config")["props"]["data"]
    config["static"] = {"country": code, "tables": tables, "offered": offered}
    country = _by_id(layout, "me-country")["props"]
    country["options"] = _kept_options(country["options"], set(codes))
    return layout


def _kept_options(options: list[dict], codes: set[str]) -> list[dict]:
    """The country options of the exported data sets, each continent's heading only before one of them."""
    out, heading = [], None
    for o in options:
        if o.get("disabled"):
            heading = o
        elif o["value"] in codes:
            if heading is not None:
                out.append(heading)
                heading = None
            out.append(o)
    return out


def _dependencies(deps: list[dict], layout_ids: set[str]) -> list[dict]:
    """The page's and the shell's clientside callbacks; stops on a server callback the copy does not replace."""
    kept = []
    for dep in deps:
        if not any(isinstance(o["id"], str) and o["id"] in layout_ids for o in _outputs(dep)):
            continue  # another page's callback
        if dep.get("clientside_function"):
            kept.append(dep)
        elif not any(dep["output"].startswith(replaced) for replaced in REPLACED_CALLBACKS):
            raise ExportError(f"the personal page depends on the server callback {dep['output']}: a static copy "
                              f"cannot run it (make it clientside, or replace it in dashboard/server/static_site.py)")
    return kept


# --------------------------------------------------------------------------- the export


def _site_path(url: str) -> str:
    """A URL's file in the site (the query dropped: static hosts ignore it)."""
    path = PurePosixPath(urlsplit(url).path)
    if ".." in path.parts or not str(path).startswith("/"):
        raise ExportError(f"unexpected URL in the page: {url}")
    return str(path).lstrip("/")


def _variants(widths) -> list[tuple[str, int, int, int]]:
    out = []
    for w in widths:
        out += [("v2", w, w, 0), ("v2", w, w, 1), ("paper", w, w, 0)]
    return out


def _offered(widths) -> str:
    bands = " or ".join(f"{w} cm height and {w} kg weight bands" for w in widths)
    return f"{bands} (body model v2, with or without the self-report correction, or paper)"


def export(app, target: Path, codes: list[str] | None = None, force: bool = False,
           widths: tuple[int, ...] = DEFAULT_WIDTHS, progress=None) -> Export:
    """Write the static site of ``app``'s personal page into ``target``; ``codes``: the data sets (all by default)."""
    t0 = time.perf_counter()
    known = cl.countries()
    codes = list(known) if not codes else [cl.canonical_code(c) for c in codes]
    if default_model() != "v2":
        raise ExportError("the export's table variants assume the default body model v2")
    prepare_target(target, force)
    result = Export(target=target, codes=codes, widths=tuple(widths))
    src = _App(app)

    def write(rel: str, body: bytes) -> None:
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
        result.files[rel] = len(body)

    # the index page, everything it links, and the component bundles Dash loads on demand
    index, policy = src.index()
    links = list(dict.fromkeys(re.findall(r'(?:src|href)="(/[^"]+)"', index)))
    default = DEFAULT_COUNTRY if DEFAULT_COUNTRY in codes else codes[0]
    name = cl.dataset_info(default)["name"]
    shim = (f'<script src="{SHIM_URL}" data-default-country="{default}" '
            f'data-default-name="{_attr(name)}"></script>\n')
    if "<script" not in index:
        raise ExportError("the app's index page has no scripts")
    at = index.index("<script")
    index = index[:at] + shim + "        " + index[at:]
    if policy:  # the app's own policy (a static host sends no headers): nothing from, or to, another host
        head = index.index("<head>") + len("<head>")
        index = index[:head] + f'\n        <meta http-equiv="Content-Security-Policy" content="{_attr(policy)}">' + index[head:]
    write("index.html", index.encode("utf-8"))
    write(SHIM_URL.lstrip("/"), SHIM.read_bytes())
    linked = set()
    result.common = ["index.html", SHIM_URL.lstrip("/"), *LAZY_BUNDLES]
    for url in links:
        write(_site_path(url), src.get(url))
        linked.add(check_fingerprint(_site_path(url))[0])
        result.common.append(_site_path(url))
    for package, paths in sorted(app.registered_paths.items()):
        for rel in sorted(paths):  # the bundles Dash loads later ask for their plain names
            if not rel.endswith(".map") and f"_dash-component-suites/{package}/{rel}" not in linked:
                url = f"/_dash-component-suites/{package}/{rel}"
                write(_site_path(url), src.get(url))

    # the dependencies and each country's page
    shell = _static_shell(src.get_json("/_dash-layout"))
    deps = src.get_json("/_dash-dependencies")
    router = next((d for d in deps if d["output"] == ROUTER_OUTPUT), None)
    if router is None:
        raise ExportError("the app has no page router: nothing to export")
    for i, code in enumerate(codes):
        if progress:
            progress(i, len(codes), code)
        tables = _write_tables(src, write, code, widths)
        result.tables[code] = tables
        routed = src.page(router, f"?country={code}")
        layout = _country_page(shell, routed, code, codes, tables, _offered(widths))
        if i == 0:
            write("_dash-dependencies.json", _json(_dependencies(deps, _ids(layout))))
        write(f"_layout/{code}.json", _json(layout))
        for url in sorted(set(re.findall(r'"(/geo/[^"?]+\.geojson)"', json.dumps(routed)))):
            write(_site_path(url), src.get(url))
            result.maps[code] = _site_path(url)
        places = src.client.get(f"/_places/{code}.json")
        if places.status_code == 200:
            write(f"_places/{code}.json", places.get_data())
    result.seconds = time.perf_counter() - t0
    manifest = {**result.summary(), "paths": sorted(result.files)}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return result


def _write_tables(src: _App, write, code: str, widths) -> dict[str, str]:
    """The data set's public tables for the exported settings → ``{"model|hw|ww|sr": "/_tables/<file>"}``;
    a setting whose table is the same bytes as another's (the self-report correction of a data set whose
    statistics are measured) points at that one's file."""
    out, seen = {}, {}
    for model, hw, ww, sr in _variants(widths):
        body = src.get(f"/_tables/{code}.json?model={model}&hw={hw}&ww={ww}&sr={sr}")
        url = seen.get(body)
        if url is None:
            url = f"/_tables/{code}.{model}.{hw}.{ww}.{sr}.json"
            write(_site_path(url), body)
            seen[body] = url
        out[f"{model}|{hw}|{ww}|{sr}"] = url
    return out


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def gzipped_size(path: Path) -> int:
    """What a gzipping host sends for a file (level 6, as the app's own routes)."""
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))


__all__ = ["BUDGET_FIRST_ANSWER_GZ_MB", "BUDGET_TOTAL_MB", "DEFAULT_WIDTHS", "Export", "ExportError", "MANIFEST",
           "export", "gzipped_size", "prepare_target"]
