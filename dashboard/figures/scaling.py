"""Figures of the scaling-law page (pure builders: numbers in, plain figure dicts out).

Every chart has gallery size n on a log axis from 1 to the world population (8 × 10⁹) with
the same ticks, and shares on a linear 0–100 % axis.  The explore chart keeps its cursor in
two traces of its own (:data:`CURSOR_LINE`, :data:`CURSOR_MARKERS`) so that a page can move it
with a ``dash.Patch`` without rebuilding the curves.

The builders return plain dicts with numpy columns (see :mod:`.style`): the page draws a
figure on every change of h, γ, k, scenario or points, and building a ``go.Figure`` cost
more than computing the curves.
"""
from __future__ import annotations

import math

import numpy as np

from dashboard.core.text import N_, below_percent_floor, local_number, percent_floor_text, percent_text
from dashboard.core.text import gettext as _

from .style import (
    HIGHLIGHT,
    MUTED,
    QUALITATIVE,
    axis,
    base_layout,
    column,
    figure,
    labels,
    on_narrow,
    separators,
    short_number,
    thinned_ticks,
    wrap_title,
)

WORLD = 8e9
#: Ticks of every n axis: the powers of ten and the world population.
N_TICKS = [10.0 ** e for e in range(10)] + [WORLD]
N_TICKS = [v for v in N_TICKS if v <= WORLD]
#: Characters per line of an n axis's title on a phone (a 390 px chart holds about 40 at 14 px).
PHONE_AXIS_CHARS = 36
#: Indices of the cursor traces in :func:`law_figure`.
CURSOR_LINE = 3
CURSOR_MARKERS = 4
LAW_COLOURS = {"kappa": QUALITATIVE[0], "xi": QUALITATIVE[1], "viol": QUALITATIVE[2]}
MODEL_COLOURS = {"PYC-MB": QUALITATIVE[0], "ENT": QUALITATIVE[1], "EXP": QUALITATIVE[2], "POL": QUALITATIVE[3]}
AXIS_LINE = "#8a96a3"
MODEL_DASH = {"PYC-MB": "solid", "ENT": "dash", "EXP": "dot", "POL": "dashdot"}


#: One plain-language sentence per chart of the page (what it shows, how to read it), shown above it.
READING = {
    "law": N_("How the risk grows with the size of the gallery: left to right the number of records n (log "
             "scale), up the share of records; the blue line is the chance exact matching picks the right "
             "person, the dashed one the share that are unique, the dotted one the share in sets smaller than "
             "k."),
    "census": N_("The thick line is the correctness computed exactly from the country's own anonymity sets (up to "
             "its population), the dashed one the scaling law fitted to them, carried on to the world's "
             "population: where the two lines agree, the law describes this census."),
    "forecast": N_("Dots are the correctness you measured at small n; each line is a model fitted to them and "
             "extended to larger n (right of the dotted line is extrapolation). The shaded band is PYC-MB's "
             "uncertainty; hollow diamonds are held-out points the models did not see."),
}


def n_label(n: float) -> str:
    """Gallery sizes as people read them: 950, 12,000, 1.5M, 8B."""
    if not math.isfinite(n):
        return "–"
    if n < 1e5:
        return local_number(f"{n:,.0f}")
    return short_number(float(f"{n:.3g}"))


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage that never rounds a small non-zero share to 0."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return percent_text("0")
    v = 100 * x
    if below_percent_floor(v):
        return percent_floor_text()
    if v < 1:
        return percent_text(f"{v:.2g}")
    return percent_text(f"{v:.{digits}f}")


def sci(x: float, digits: int = 4) -> str:
    """1,234.5 or 3.858 × 10¹⁰: numbers that can span 30 orders of magnitude, readable."""
    if not math.isfinite(x):
        return "–"
    if 1e3 <= abs(x) < 1e6:
        return local_number(f"{x:,.0f}")
    if x == 0 or 1e-3 <= abs(x) < 1e3:
        return local_number(f"{x:.{digits}g}")
    mant, exp = f"{x:.{digits - 1}e}".split("e")
    sup = str(int(exp)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{local_number(mant.rstrip('0').rstrip('.'))} × 10{sup}"


def _n_axis(title: str = "", hi: float = WORLD) -> dict:
    title = title or _("gallery size n (records, log scale)")
    ticks = [v for v in N_TICKS if v <= hi * 1.0001]
    return axis(title, type="log", range=[-0.05, math.log10(hi) + 0.05],
                tickvals=ticks, ticktext=[short_number(v) for v in ticks],
                zeroline=False, showline=True, linecolor=AXIS_LINE)


def _share_axis(title: str) -> dict:
    return axis(title, range=[-0.02, 1.02], tickformat=".0%", tickvals=[0, 0.25, 0.5, 0.75, 1],
                zeroline=False, showline=True, linecolor=AXIS_LINE)


def _legend() -> dict:
    return dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0, font=dict(size=13))


def _layout(height: int, share_title: str) -> dict:
    """The layout every chart of the page shares; hover text left-aligned as plotly's template had it.  On a phone
    the n axis labels every other power of ten (eleven labels stood on end at 390 px)."""
    n_axis = _n_axis()
    layout = base_layout(margin=dict(l=10, r=20, t=50, b=10), height=height, legend=_legend(), hovermode="closest",
                         hoverlabel=dict(font=dict(size=14), align="left"),
                         xaxis=n_axis, yaxis=_share_axis(share_title), separators=separators())
    narrow = thinned_ticks(n_axis["tickvals"], n_axis["ticktext"])
    title, lines = wrap_title(n_axis["title"]["text"], PHONE_AXIS_CHARS)
    if lines > 1:  # a long title (French, Italian) ran past a phone's chart: two lines there
        narrow["title"] = {**n_axis["title"], "text": title}
    return on_narrow(layout, xaxis=narrow)


def _hover(name: str) -> str:
    return f"{name}<br>n = %{{customdata}}<br>%{{y:.2%}}<extra></extra>"


def n_labels(n) -> np.ndarray:
    """:func:`n_label` of every gallery size, as a string column (the hovers' "n = 1.5M")."""
    return labels([n_label(v) for v in column(n).tolist()])


def _line(x, y, name: str, colour: str, *, width: float = 2, dash: str = "solid", n_text=None,
          hover: str | None = None) -> dict:
    """One curve over n, hovered as "``hover`` (default: the name), n = 1.5M, 44.30 %"."""
    return dict(type="scatter", x=column(x), y=column(y), name=name, mode="lines",
                customdata=n_labels(x) if n_text is None else n_text,
                line=dict(color=colour, width=width, dash=dash), hovertemplate=_hover(hover or name))


def _marker_line(x: float, text: str, textposition: str, **props) -> dict:
    """A dotted vertical line from 0 to 100 % at ``x`` with a label at its top, as a trace (a Patch can move it)."""
    return dict(type="scatter", x=column([x, x]), y=column([0, 1]), mode="lines+text", showlegend=False,
                hoverinfo="skip", line=dict(color=MUTED, width=1.5, dash="dot"), text=["", text],
                textposition=textposition, textfont=dict(size=12, color="#3d4a57"), **props)


def law_figure(n: np.ndarray, kappa: np.ndarray, xi: np.ndarray, viol: np.ndarray, k: int,
               cursor: float, at_cursor: tuple[float, float, float]) -> dict:
    """κ(n), Ξ(n) and the share violating k-anonymity, with a movable cursor at n = ``cursor``.

    Traces 0–2 are the curves; :data:`CURSOR_LINE` is the vertical cursor and
    :data:`CURSOR_MARKERS` its three readout markers (moved by :func:`cursor_patch_values`).
    """
    n_text = n_labels(n)
    names = {"kappa": _("correctness κ(n)"), "xi": _("uniqueness Ξ(n)"),
             "viol": _("violating {k}-anonymity").format(k=k)}
    data = [
        _line(n, values, names[key], LAW_COLOURS[key], width=3 if key == "kappa" else 2,
              dash="solid" if key == "kappa" else ("dash" if key == "xi" else "dot"), n_text=n_text)
        for key, values in (("kappa", kappa), ("xi", xi), ("viol", viol))
    ]
    data += cursor_traces(cursor, at_cursor)
    return figure(data, _layout(420, _("share of records")))


def _label_side(x: float) -> str:
    """A vertical line's label inside the plot, on the side with room (the axis ends at 8 × 10⁹)."""
    return "bottom left" if x > 3e7 else "bottom right"


def cursor_traces(cursor: float, values: tuple[float, float, float]) -> list[dict]:
    """The cursor line and its markers (traces :data:`CURSOR_LINE`, :data:`CURSOR_MARKERS`)."""
    line = _marker_line(cursor, f"n = {n_label(cursor)}", _label_side(cursor), name="cursor")
    markers = dict(type="scatter", x=column([cursor] * 3), y=column(values), mode="markers", name="at cursor",
                   showlegend=False,
                   marker=dict(size=10, color=[LAW_COLOURS["kappa"], LAW_COLOURS["xi"], LAW_COLOURS["viol"]],
                               line=dict(color="white", width=1.5)),
                   customdata=[n_label(cursor)] * 3, hovertemplate="n = %{customdata}<br>%{y:.2%}<extra></extra>")
    return [line, markers]


def cursor_patch_values(cursor: float, values: tuple[float, float, float]) -> dict:
    """What a Patch must change to move the cursor: {trace index: {prop: value}} (plain lists: three numbers)."""
    line, markers = cursor_traces(cursor, values)
    return {
        CURSOR_LINE: {"x": line["x"].tolist(), "text": line["text"], "textposition": line["textposition"]},
        CURSOR_MARKERS: {"x": markers["x"].tolist(), "y": markers["y"].tolist(), "customdata": markers["customdata"]},
    }


def census_figure(n: np.ndarray, exact: np.ndarray, law: np.ndarray, population: float, name: str,
                  app_n: float | None = None) -> dict:
    """Exact finite-population κ(n) (up to the population) beside the fitted PYC κ(n) (to 8 × 10⁹)."""
    n, exact = column(n), column(exact)
    n_text = n_labels(n)
    ok = np.isfinite(exact)
    data = [
        _line(n[ok], exact[ok], _("exact: the sets of {name}").format(name=name), QUALITATIVE[5], width=4,
              n_text=n_text[ok], hover=_("exact κ")),
        _line(n, law, _("Pitman–Yor fit (PYC)"), QUALITATIVE[0], dash="dash", n_text=n_text, hover=_("PYC κ")),
        _marker_line(population, _("population {count}").format(count=n_label(population)), _label_side(population)),
    ]
    if app_n is not None and math.isfinite(app_n):
        y = float(np.interp(math.log(app_n), np.log(n), law))
        data.append(dict(
            type="scatter", x=column([app_n]), y=column([y]), mode="markers+text", showlegend=False,
            text=[_("app of {count}").format(count=n_label(app_n))], textposition="middle right",
            marker=dict(size=11, color=HIGHLIGHT, line=dict(color="white", width=1.5)),
            hovertemplate=_("app of {count} users").format(count=n_label(app_n))
            + "<br>" + _("PYC κ") + " %{y:.2%}<extra></extra>",
        ))
    return figure(data, _layout(420, _("correctness κ(n)")))


def forecast_figure(points_n: np.ndarray, points_kappa: np.ndarray, at: np.ndarray,
                    predictions: dict[str, np.ndarray | None], band: tuple[np.ndarray, np.ndarray] | None,
                    held_out: int = 0) -> dict:
    """Measured κ̂ (held-out ones hollow), each available model's curve, the PYC-MB band."""
    at = column(at)
    n_text = n_labels(at)
    data = []
    if band is not None:
        lo, hi = band
        data.append(dict(type="scatter", x=at, y=column(hi), mode="lines", line=dict(width=0), showlegend=False,
                         hoverinfo="skip"))
        data.append(dict(type="scatter", x=at, y=column(lo), mode="lines", line=dict(width=0), fill="tonexty",
                         fillcolor="rgba(0,114,178,0.18)", name=_("PYC-MB band (jackknife)"), hoverinfo="skip"))
    for name, pred in predictions.items():
        if pred is None:
            continue
        data.append(_line(at, pred, _("{model} (ours)").format(model=name) if name in ("EXP", "POL") else name,
                          MODEL_COLOURS.get(name, MUTED), dash=MODEL_DASH.get(name, "solid"),
                          width=3 if name == "PYC-MB" else 2, n_text=n_text, hover=name))
    points_n, points_kappa = column(points_n), column(points_kappa)
    fit_n, fit_k = points_n[: points_n.size - held_out], points_kappa[: points_kappa.size - held_out]
    data.append(dict(
        type="scatter", x=fit_n, y=fit_k, mode="markers", name=_("measured (fitted)"),
        customdata=n_labels(fit_n), hovertemplate=_hover(_("measured κ̂")),
        marker=dict(size=9, color="#1b1f24", line=dict(color="white", width=1)),
    ))
    if held_out:
        hn, hk = points_n[-held_out:], points_kappa[-held_out:]
        data.append(dict(
            type="scatter", x=hn, y=hk, mode="markers", name=_("measured (held out)"), customdata=n_labels(hn),
            hovertemplate=_hover(_("held-out κ̂")),
            marker=dict(size=11, color="white", symbol="diamond", line=dict(color="#1b1f24", width=2)),
        ))
    data.append(_marker_line(float(points_n.max()), " " + _("extrapolation →"), "bottom right"))
    return figure(data, _layout(440, _("correctness κ(n)")))
