"""Shared widgets: a labelled field, a card, a command block, an error box, a plain table and a data table.

Plain functions that return Dash components (no callbacks, no state), used by the
views (:mod:`dashboard.views`) so every page draws these the same way.
"""
from __future__ import annotations

from dash import dash_table, dcc, html
from dash.dash_table.Format import Format, Group
from dash.development.base_component import Component

from dashboard.core.body import DEFAULT_MODEL, MODEL_LABELS, MODELS
from dashboard.core.text import BODY_MODEL_DETAILS, BODY_MODEL_PLAIN, N_, gettext, local_number, number_marks


def field(label: str, control, help_text: str | None = None, control_id: str | None = None) -> html.Div:
    """A form field: its label (``for`` the control's id), the control and an optional help line."""
    children = [html.Label(label, htmlFor=control_id, className="field-label"), control]
    if help_text:
        children.append(html.Div(help_text, className="field-help"))
    return html.Div(children, className="field")


def card(title: str, value, explain: str = "", *, value_id: str | None = None, tooltip: bool = False,
         formula: str = "", **attrs) -> html.Div:
    """A number card: title, value (with ``value_id`` when a test or a patch reads it) and an explanation.

    ``tooltip`` repeats the explanation as the card's ``title`` attribute; ``formula`` (the measure's symbol
    or formula) goes into a details layer under the words (issue 28: words first); ``attrs`` go onto the card
    (e.g. ``tabIndex``).
    """
    kw = {"id": value_id} if value_id else {}
    if tooltip and explain:
        attrs["title"] = explain
    kids = [html.Div(title, className="card-title"), html.Div(value, className="card-value", **kw),
            html.Div(explain, className="card-explain")]
    if formula:
        kids.append(html.Details([html.Summary(gettext("How it is computed")), html.P(formula)], className="card-formula"))
    return html.Div(kids, className="card", **attrs)


def command_block(cmd: str | None, note: str = "", *, none_note: str = "Too many points for a one-line command.") -> list:
    """The equivalent shell command with a copy button ("reproduce this"); ``note`` below it."""
    if cmd is None:
        return [html.P(note or none_note, className="field-help")]
    return [html.Div([html.Pre(html.Code(cmd), className="snippet"),
                      dcc.Clipboard(content=cmd, title=gettext("copy the command"), className="snippet-copy")],
                     className="snippet-row")] + ([html.P(note, className="field-help")] if note else [])


def command_snippet(code_id: str, command: str, help_text: str = "") -> html.Div:
    """A "Reproduce this" block whose command a callback may replace (its ``<code>`` has ``code_id``)."""
    return html.Div(
        [html.Div([gettext("Reproduce this:") + " ",
                   dcc.Clipboard(target_id=code_id, title=gettext("copy the command"), className="copy")],
                  className="field-label"),
         html.Pre(html.Code(command, id=code_id)), *([html.Div(help_text, className="field-help")] if help_text else [])],
        className="snippet",
    )


def model_switch(component_id: str, value: str = DEFAULT_MODEL, models=MODELS, *, inline: bool = False,
                 class_name: str = "checklist") -> dcc.RadioItems:
    """The visible body-model switch (SPEC §1.6), the same words on every page; ``models`` narrows the choice."""
    return dcc.RadioItems(id=component_id, value=value, className=class_name, inline=inline, options=[
        {"label": f" {gettext(MODEL_LABELS.get(m, m))}" + (" " + gettext("(default)") if m == DEFAULT_MODEL else ""),
         "value": m}
        for m in models])


def in_words_then_details(plain: str, details, summary: str | None = None) -> list:
    """A help text for lay pages: what it means in words first, symbols and the method's sections in a
    ``<details>`` layer under it (closed until opened)."""
    return [plain, html.Details([html.Summary(summary or gettext("Details")), html.Div(details)],
                                className="details details-layer")]


def model_help() -> list:
    """The body-model switch's help, the same on every page (core.text: one source of the sentence)."""
    return in_words_then_details(gettext(BODY_MODEL_PLAIN), gettext(BODY_MODEL_DETAILS))


#: Where the pages' reports are fetched (:mod:`dashboard.server.report_routes`).
REPORTS_URL = "/_reports/"


def report_request(kind: str, params: str, message_id: str, local: str = "") -> dict:
    """The data- attributes of a page's "Download report" button: what ``assets/report_download.js`` fetches
    (``GET /_reports/<kind>``, its query from the callback's values named by ``params``) and what it says
    while it waits or when the server does not answer; ``local`` ("source=upload"): a query holding it is
    not fetched (the page's own callback makes that report)."""
    return {"data-report": REPORTS_URL + kind, "data-params": params, "data-message": message_id,
            "data-local": local, "data-preparing": gettext("Preparing the report…"),
            "data-failed": gettext("No report: the server did not answer. Please try again in a moment.")}


def error_box(message) -> html.Div:
    """A message about bad input (or an apology), shown where the result would be (see :mod:`dashboard.guard`)."""
    return html.Div(message, className="error")


def table(rows: list[dict], caption: str | None = None, *, class_name: str = "table",
          wrap_class: str | None = None, empty: str = "No data.", text_columns: tuple[str, ...] = ()):
    """A plain accessible table: the first column heads the rows, the others are numbers (right-aligned, kept on
    one line) except ``text_columns``, which are words (left-aligned, wrapped when the table is narrow).

    ``wrap_class`` wraps it in a ``div`` (e.g. one that scrolls sideways when narrow).
    """
    if not rows:
        return html.P(empty, className="muted")
    cols = list(rows[0])

    def kind(c):
        return None if c in text_columns else "num"

    def cell(v):  # a whole number the language's way; a component (e.g. a quoted name) as it is; else its text
        if isinstance(v, int):
            return local_number(f"{v:,}")
        return v if isinstance(v, Component) else str(v)

    head = html.Thead(html.Tr([html.Th(c, scope="col", className=kind(c) if i else None) for i, c in enumerate(cols)]))
    body = html.Tbody([
        html.Tr([html.Th(cell(r[cols[0]]) if isinstance(r[cols[0]], Component) else str(r[cols[0]]), scope="row")]
                + [html.Td(cell(r[c]), className=kind(c)) for c in cols[1:]])
        for r in rows
    ])
    out = html.Table(([html.Caption(caption)] if caption else []) + [head, body], className=class_name)
    return html.Div(out, className=wrap_class) if wrap_class else out


def kv_table(pairs: list[tuple[str, str]], caption: str, *, class_name: str = "table") -> html.Table:
    """Name → value rows (no column headings: the row headers say what each value is)."""
    return html.Table(
        [html.Caption(caption),
         html.Tbody([html.Tr([html.Th(k, scope="row"), html.Td(v)]) for k, v in pairs])],
        className=class_name,
    )


#: How every sortable data table looks (explorer country tables, About page): text left, numbers
#: right (DataTable's default for numeric columns), wrapping cells, a light header.
TABLE_STYLE = dict(
    style_table={"overflowX": "auto"},
    style_cell={"whiteSpace": "normal", "height": "auto", "padding": "4px 8px", "minWidth": "56px", "maxWidth": "220px"},
    style_header={"fontWeight": "600", "backgroundColor": "#f4f6f8", "textAlign": "center"},
)
#: The filter row's hint (DataTable's own, "filter data...", is cut off in narrow columns).
FILTER_HINT = N_("filter…")


def table_locale() -> dict:
    """A DataTable's decimal mark and thousands separator (``locale_format``) in the page's language."""
    return dict(zip(("decimal", "group"), number_marks()))


def data_table(rows: list[dict], table_id: str, *, page_size: int = 15, nowrap: tuple[str, ...] = (),
               class_names: dict[str, str] | None = None, headers: dict[str, str] | None = None
               ) -> dash_table.DataTable:
    """A sortable, filterable, exportable table of ``rows`` (numbers with thousands separators).

    ``nowrap`` columns never wrap (dates, codes); ``class_names`` gives columns a look:
    ``"sha256"`` (a small monospace hash that may break anywhere) or ``"path"`` (breaks anywhere);
    ``headers``: a column's heading, marked for translation (default: its key), shown in the current language
    with the language's digit grouping.
    """
    numeric = Format(group=Group.yes)
    first = rows[0] if rows else {}
    name = lambda c: gettext((headers or {}).get(c, c))
    columns = [
        {"name": name(c), "id": c, "type": "numeric", "format": numeric}
        if isinstance(v, (int, float)) and not isinstance(v, bool) else {"name": name(c), "id": c}
        for c, v in first.items()
    ]
    style_cell_conditional = [{"if": {"column_id": c}, "textAlign": "left"} for c, v in first.items()
                              if not isinstance(v, (int, float)) or isinstance(v, bool)]
    style_cell_conditional += [{"if": {"column_id": c}, "whiteSpace": "nowrap"} for c in nowrap]
    looks = {
        "sha256": {"fontFamily": "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", "fontSize": "12px",
                   "wordBreak": "break-all", "minWidth": "150px", "maxWidth": "150px"},
        "path": {"wordBreak": "break-all"},
    }
    style_cell_conditional += [{"if": {"column_id": c}, **looks[look]} for c, look in (class_names or {}).items()]
    return dash_table.DataTable(
        id=table_id,
        data=rows,
        columns=columns,
        sort_action="native",
        filter_action="native",
        filter_options={"placeholder_text": gettext(FILTER_HINT)},
        locale_format=table_locale(),
        page_size=page_size,
        export_format="csv",
        style_cell_conditional=style_cell_conditional,
        **TABLE_STYLE,
    )


def chart_reading(text: str, **props) -> html.P:
    """One plain-language sentence above a chart: what it shows and how to read it."""
    return html.P(text, className="chart-reading", **props)
