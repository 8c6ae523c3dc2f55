"""Figures of the data-set page (plain Plotly dicts): Ξ(N), counts of counts, ξ and κ, one more attribute, ROC."""
from __future__ import annotations

import math

import numpy as np

from dashboard.core.text import gettext as _
from dashboard.core.text import local_number

from .style import (
    GRID,
    MUTED,
    NARROW_TITLE_CHARS,
    QUALITATIVE,
    base_layout,
    log_ticks,
    narrow_titles,
    on_narrow,
    separators,
    thinned_ticks,
)

COPULA, PY, EMPIRICAL, TFRR_EXACT, TFRR_BINOMIAL = QUALITATIVE[0], QUALITATIVE[1], QUALITATIVE[5], QUALITATIVE[0], QUALITATIVE[1]
LATENT = QUALITATIVE[2]


def _log_axis(lo: float, hi: float, title: str) -> dict:
    vals, text = log_ticks(lo, hi)
    return dict(title=title, type="log", tickvals=[10 ** v for v in vals], ticktext=text, gridcolor=GRID)


def _layout(**extra) -> dict:
    """:func:`base_layout` with the page's decimal and thousands marks; a title longer than a phone's chart is
    broken into lines there (:func:`~.style.narrow_titles`: German and French run ~30 % longer)."""
    layout = base_layout(separators=separators(), **extra)
    long_axes = {key: _text(extra[key].get("title")) for key in ("xaxis", "yaxis")
                 if isinstance(extra.get(key), dict) and len(_text(extra[key].get("title"))) > NARROW_TITLE_CHARS}
    title = _text(extra.get("title"))
    return narrow_titles(layout, title if len(title) > NARROW_TITLE_CHARS else None, **long_axes)


def _text(title) -> str:
    """A plotly title's text (a string or ``{"text": …}``)."""
    return (title.get("text") or "") if isinstance(title, dict) else (title or "")


def uniqueness_curve(grid, copula_curve, py_curve, n_records: int, empirical: float, population: float,
                     latent_curve=None) -> dict:
    """Ξ(N) from the copula and the latent class model (and the Pitman–Yor law when fitted), the data set's
    size and the chosen N."""
    grid = [float(g) for g in grid]
    hover = "N = %{x:.3s}<br>Ξ = %{y:.2%}<extra>{name}</extra>"
    data = [dict(type="scatter", mode="lines", x=grid, y=[float(v) for v in copula_curve], name=_("Gaussian copula"),
                 line=dict(color=COPULA, width=3), hovertemplate=hover.replace("{name}", _("copula")))]
    if latent_curve is not None:
        data.append(dict(type="scatter", mode="lines", x=grid, y=[float(v) for v in latent_curve],
                         name=_("latent class model"), line=dict(color=LATENT, width=3, dash="dashdot"),
                         hovertemplate=hover.replace("{name}", _("latent class"))))
    if py_curve:
        data.append(dict(type="scatter", mode="lines", x=[p["n"] for p in py_curve], y=[p["value"] for p in py_curve],
                         name=_("Pitman–Yor law"), line=dict(color=PY, width=2, dash="dash"),
                         hovertemplate=hover.replace("{name}", "Pitman–Yor")))
    data.append(dict(type="scatter", mode="markers", x=[float(n_records)], y=[float(empirical)],
                     name=_("this data set (empirical)"), marker=dict(color=EMPIRICAL, size=12, symbol="diamond"),
                     hovertemplate=_("the data set: {records} records<br>{unique} unique").format(
                         records="%{x:,}", unique="%{y:.2%}") + "<extra></extra>"))
    shapes = [dict(type="line", xref="x", yref="paper", x0=population, x1=population, y0=0, y1=1,
                   line=dict(color=MUTED, dash="dot"))]
    annotations = [dict(x=math.log10(population), xref="x", y=1, yref="paper", text=_("chosen N"), showarrow=False,
                        yanchor="bottom", font=dict(color="#4a5562", size=12))]
    xaxis = _log_axis(grid[0], grid[-1], _("population size N"))
    return dict(data=data, layout=on_narrow(_layout(  # a phone: every other power of ten (nine tilted into each other)
        title=dict(text=_("Population uniqueness Ξ(N)"), x=0.01),
        xaxis=xaxis,
        yaxis=dict(title=_("share of people unique"), tickformat=".0%", range=[0, 1.02], gridcolor=GRID),
        legend=dict(orientation="h", y=-0.25), shapes=shapes, annotations=annotations, height=380,
        margin=dict(l=60, r=10, t=50, b=40)), xaxis=thinned_ticks(xaxis["tickvals"], xaxis["ticktext"])))


def counts_of_counts(counts: list[dict]) -> dict:
    sizes = [c["size"] for c in counts]
    classes = [c["classes"] for c in counts]
    records = [s * c for s, c in zip(sizes, classes)]
    return dict(data=[dict(type="bar", x=sizes, y=records, marker=dict(color=COPULA), customdata=classes,
                           hovertemplate=_("classes of {size} records: {classes}<br>records in them: {records}").format(
                               size="%{x}", classes="%{customdata:,}", records="%{y:,}") + "<extra></extra>")],
                layout=_layout(title=dict(text=_("Records by the size of their class"), x=0.01),
                               xaxis=dict(title=_("class size (records sharing the values)"),
                                          type="log" if max(sizes, default=1) > 30 else "linear", gridcolor=GRID),
                               yaxis=dict(title=_("records"), gridcolor=GRID), height=320, bargap=0.1,
                                   margin=dict(l=60, r=10, t=50, b=50)))


def xi_kappa_histogram(xi, kappa, population: float) -> dict:
    """Distribution of the records' ξ and κ at the chosen N (binned here: no per-record values are sent)."""
    edges = np.linspace(0, 1, 21)
    centres = ((edges[:-1] + edges[1:]) / 2).round(3).tolist()
    hx = np.histogram(np.clip(xi, 0, 1), bins=edges)[0].tolist()
    hk = np.histogram(np.clip(kappa, 0, 1), bins=edges)[0].tolist()
    records = _("{symbol} ≈ {value}: {records} records")
    return dict(data=[dict(type="bar", x=centres, y=hx, name=_("uniqueness ξ"), marker=dict(color=COPULA),
                           hovertemplate=records.format(symbol="ξ", value="%{x:.2f}", records="%{y:,}")
                           + "<extra></extra>"),
                      dict(type="bar", x=centres, y=hk, name=_("correctness κ"), marker=dict(color=PY),
                           hovertemplate=records.format(symbol="κ", value="%{x:.2f}", records="%{y:,}")
                           + "<extra></extra>")],
                layout=_layout(title=dict(text=_("Each record at N = {population}").format(
                                   population=local_number(f"{population:,.0f}")), x=0.01), barmode="group",
                               xaxis=dict(title=_("probability"), tickformat=".0%", gridcolor=GRID),
                               yaxis=dict(title=_("records"), gridcolor=GRID), legend=dict(orientation="h", y=-0.25),
                                   height=340, margin=dict(l=60, r=10, t=50, b=40)))


def one_more_attribute(steps: list[dict], population: float) -> dict:
    x = ["+ " + s["name"] for s in steps]
    return dict(data=[
        dict(type="scatter", mode="lines+markers", x=x, y=[s["uniqueness_dataset_empirical"] for s in steps],
             name=_("unique in the data set (empirical)"), line=dict(color=EMPIRICAL, width=3)),
        dict(type="scatter", mode="lines+markers", x=x, y=[s["uniqueness_dataset_model"] for s in steps],
             name=_("same, copula"), line=dict(color=COPULA, width=2, dash="dash")),
        dict(type="scatter", mode="lines+markers", x=x, y=[s["uniqueness_population"] for s in steps],
             name=_("copula Ξ at N = {population}").format(population=local_number(f"{population:,.0f}")),
             line=dict(color=QUALITATIVE[2], width=2)),
    ], layout=_layout(title=dict(text=_("What if one more attribute?") + "<br><sup>" + _("most identifying first")
                                 + "</sup>", x=0.01),
                          yaxis=dict(title=_("share unique"), tickformat=".0%", range=[0, 1.02], gridcolor=GRID),
                          xaxis=dict(gridcolor=GRID, automargin=True), legend=dict(orientation="h", y=-0.3), height=380,
                          margin=dict(l=60, r=10, t=64, b=40)))


def roc(curves: dict, auc: float | None, auc_binomial: float | None) -> dict:
    data = [dict(type="scatter", mode="lines", x=[0, 1], y=[0, 1], name=_("chance"), line=dict(color=MUTED, dash="dot"),
                 hoverinfo="skip")]
    for key, label, colour, value, dash in (("exact", _("recursive hypergeometric"), TFRR_EXACT, auc, "solid"),
                                            ("binomial", _("binomial approximation"), TFRR_BINOMIAL, auc_binomial,
                                             "dash")):
        c = curves.get(key)
        if c:
            name = (_("{label} (AUC {auc})").format(label=label, auc=local_number(f"{value:.3f}"))
                    if value is not None else label)
            data.append(dict(type="scatter", mode="lines", x=c["fpr"], y=c["tpr"], name=name,
                             line=dict(color=colour, width=3 if dash == "solid" else 2, dash=dash)))
    return dict(data=data, layout=_layout(
        title=dict(text=_("TFRR risk vs. real uniqueness (ROC)"), x=0.01),
        xaxis=dict(title=_("false-positive rate"), range=[0, 1], gridcolor=GRID),
        yaxis=dict(title=_("true-positive rate"), range=[0, 1.02], gridcolor=GRID),
        legend=dict(orientation="h", y=-0.3), height=360, margin=dict(l=60, r=10, t=50, b=40)))
