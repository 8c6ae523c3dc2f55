"""Figures of the scaling-law page (pure builders: numbers in, plotly figures out).

Every chart has gallery size n on a log axis from 1 to the world population (8 × 10⁹) with
the same ticks, and shares on a linear 0–100 % axis.  The explore chart keeps its cursor in
two traces of its own (:data:`CURSOR_LINE`, :data:`CURSOR_MARKERS`) so that a page can move it
with a ``dash.Patch`` without rebuilding the curves.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .style import HIGHLIGHT, MUTED, QUALITATIVE, base_layout, short_number

WORLD = 8e9
#: Ticks of every n axis: the powers of ten and the world population.
N_TICKS = [10.0 ** e for e in range(10)] + [WORLD]
N_TICKS = [v for v in N_TICKS if v <= WORLD]
#: Indices of the cursor traces in :func:`law_figure`.
CURSOR_LINE = 3
CURSOR_MARKERS = 4
LAW_COLOURS = {"kappa": QUALITATIVE[0], "xi": QUALITATIVE[1], "viol": QUALITATIVE[2]}
MODEL_COLOURS = {"PYC-MB": QUALITATIVE[0], "ENT": QUALITATIVE[1], "EXP": QUALITATIVE[2], "POL": QUALITATIVE[3]}
MODEL_DASH = {"PYC-MB": "solid", "ENT": "dash", "EXP": "dot", "POL": "dashdot"}


def n_label(n: float) -> str:
    """Gallery sizes as people read them: 950, 12,000, 1.5M, 8B."""
    if not math.isfinite(n):
        return "–"
    if n < 1e5:
        return f"{n:,.0f}"
    return short_number(float(f"{n:.3g}"))


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage that never rounds a small non-zero share to 0."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0 %"
    v = 100 * x
    if v < 1e-4:
        return "< 0.0001 %"
    if v < 1:
        return f"{v:.2g} %"
    return f"{v:.{digits}f} %"


def sci(x: float, digits: int = 4) -> str:
    """1,234.5 or 3.858 × 10¹⁰: numbers that can span 30 orders of magnitude, readable."""
    if not math.isfinite(x):
        return "–"
    if 1e3 <= abs(x) < 1e6:
        return f"{x:,.0f}"
    if x == 0 or 1e-3 <= abs(x) < 1e3:
        return f"{x:.{digits}g}"
    mant, exp = f"{x:.{digits - 1}e}".split("e")
    sup = str(int(exp)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{mant.rstrip('0').rstrip('.')} × 10{sup}"


def _n_axis(title: str = "gallery size n (records, log scale)", hi: float = WORLD) -> dict:
    ticks = [v for v in N_TICKS if v <= hi * 1.0001]
    return dict(type="log", title=dict(text=title), range=[-0.05, math.log10(hi) + 0.05],
                tickvals=ticks, ticktext=[short_number(v) for v in ticks],
                gridcolor="#e5e9ee", zeroline=False, showline=True, linecolor="#8a96a3")


def _share_axis(title: str) -> dict:
    return dict(title=dict(text=title), range=[-0.02, 1.02], tickformat=".0%", tickvals=[0, 0.25, 0.5, 0.75, 1],
                gridcolor="#e5e9ee", zeroline=False, showline=True, linecolor="#8a96a3")


def _legend() -> dict:
    return dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0, font=dict(size=13))


def _hover(name: str) -> str:
    return f"{name}<br>n = %{{customdata}}<br>%{{y:.2%}}<extra></extra>"


def law_figure(n: np.ndarray, kappa: np.ndarray, xi: np.ndarray, viol: np.ndarray, k: int,
               cursor: float, at_cursor: tuple[float, float, float]) -> go.Figure:
    """κ(n), Ξ(n) and the share violating k-anonymity, with a movable cursor at n = ``cursor``.

    Traces 0–2 are the curves; :data:`CURSOR_LINE` is the vertical cursor and
    :data:`CURSOR_MARKERS` its three readout markers (moved by :func:`cursor_patch_values`).
    """
    labels = [n_label(v) for v in n]
    fig = go.Figure()
    names = {"kappa": "correctness κ(n)", "xi": "uniqueness Ξ(n)",
             "viol": f"violating {k}-anonymity"}
    for key, values in (("kappa", kappa), ("xi", xi), ("viol", viol)):
        fig.add_trace(go.Scatter(
            x=n, y=values, name=names[key], mode="lines", customdata=labels,
            line=dict(color=LAW_COLOURS[key], width=3 if key == "kappa" else 2,
                      dash="solid" if key == "kappa" else ("dash" if key == "xi" else "dot")),
            hovertemplate=_hover(names[key]),
        ))
    line, markers = cursor_traces(cursor, at_cursor)
    fig.add_trace(go.Scatter(**line))
    fig.add_trace(go.Scatter(**markers))
    fig.update_layout(
        **base_layout(margin=dict(l=10, r=20, t=50, b=10)),
        height=420, legend=_legend(), hovermode="closest",
        xaxis=_n_axis(), yaxis=_share_axis("share of records"),
    )
    return fig


def _label_side(x: float) -> str:
    """A vertical line's label inside the plot, on the side with room (the axis ends at 8 × 10⁹)."""
    return "bottom left" if x > 3e7 else "bottom right"


def cursor_traces(cursor: float, values: tuple[float, float, float]) -> tuple[dict, dict]:
    """The cursor line and its markers as trace dicts (the same keys a Patch sets)."""
    line = dict(x=[cursor, cursor], y=[0, 1], mode="lines+text", name="cursor", showlegend=False,
                line=dict(color=MUTED, width=1.5, dash="dot"), hoverinfo="skip",
                text=["", f"n = {n_label(cursor)}"], textposition=_label_side(cursor),
                textfont=dict(size=12, color="#3d4a57"))
    markers = dict(x=[cursor] * 3, y=list(values), mode="markers", name="at cursor", showlegend=False,
                   marker=dict(size=10, color=[LAW_COLOURS["kappa"], LAW_COLOURS["xi"], LAW_COLOURS["viol"]],
                               line=dict(color="white", width=1.5)),
                   customdata=[n_label(cursor)] * 3, hovertemplate="n = %{customdata}<br>%{y:.2%}<extra></extra>")
    return line, markers


def cursor_patch_values(cursor: float, values: tuple[float, float, float]) -> dict:
    """What a Patch must change to move the cursor: {trace index: {prop: value}}."""
    line, markers = cursor_traces(cursor, values)
    return {
        CURSOR_LINE: {"x": line["x"], "text": line["text"], "textposition": line["textposition"]},
        CURSOR_MARKERS: {"x": markers["x"], "y": markers["y"], "customdata": markers["customdata"]},
    }


def census_figure(n: np.ndarray, exact: np.ndarray, law: np.ndarray, population: float, name: str,
                  app_n: float | None = None) -> go.Figure:
    """Exact finite-population κ(n) (up to the population) beside the fitted PYC κ(n) (to 8 × 10⁹)."""
    labels = [n_label(v) for v in n]
    fig = go.Figure()
    ok = np.isfinite(exact)
    fig.add_trace(go.Scatter(
        x=n[ok], y=exact[ok], name=f"exact, {name}'s own sets", mode="lines", customdata=np.array(labels)[ok],
        line=dict(color=QUALITATIVE[5], width=4), hovertemplate=_hover("exact κ"),
    ))
    fig.add_trace(go.Scatter(
        x=n, y=law, name="Pitman–Yor fit (PYC)", mode="lines", customdata=labels,
        line=dict(color=QUALITATIVE[0], width=2, dash="dash"), hovertemplate=_hover("PYC κ"),
    ))
    fig.add_trace(go.Scatter(
        x=[population, population], y=[0, 1], mode="lines+text", showlegend=False, hoverinfo="skip",
        line=dict(color=MUTED, width=1.5, dash="dot"), text=["", f"population {n_label(population)}"],
        textposition=_label_side(population), textfont=dict(size=12, color="#3d4a57"),
    ))
    if app_n is not None and math.isfinite(app_n):
        y = float(np.interp(math.log(app_n), np.log(n), law))
        fig.add_trace(go.Scatter(
            x=[app_n], y=[y], mode="markers+text", showlegend=False, text=[f"app of {n_label(app_n)}"],
            textposition="middle right", marker=dict(size=11, color=HIGHLIGHT, line=dict(color="white", width=1.5)),
            hovertemplate=f"app of {n_label(app_n)} users<br>PYC κ %{{y:.2%}}<extra></extra>",
        ))
    fig.update_layout(
        **base_layout(margin=dict(l=10, r=20, t=50, b=10)),
        height=420, legend=_legend(), hovermode="closest",
        xaxis=_n_axis(), yaxis=_share_axis("correctness κ(n)"),
    )
    return fig


def forecast_figure(points_n: np.ndarray, points_kappa: np.ndarray, at: np.ndarray,
                    predictions: dict[str, np.ndarray | None], band: tuple[np.ndarray, np.ndarray] | None,
                    held_out: int = 0) -> go.Figure:
    """Measured κ̂ (held-out ones hollow), each available model's curve, the PYC-MB band."""
    labels = [n_label(v) for v in at]
    fig = go.Figure()
    if band is not None:
        lo, hi = band
        fig.add_trace(go.Scatter(x=at, y=hi, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=at, y=lo, mode="lines", line=dict(width=0), fill="tonexty", fillcolor="rgba(0,114,178,0.18)",
            name="PYC-MB band (jackknife)", hoverinfo="skip",
        ))
    for name, pred in predictions.items():
        if pred is None:
            continue
        fig.add_trace(go.Scatter(
            x=at, y=pred, name=name + (" (ours)" if name in ("EXP", "POL") else ""), mode="lines",
            customdata=labels, line=dict(color=MODEL_COLOURS.get(name, MUTED), dash=MODEL_DASH.get(name, "solid"),
                                         width=3 if name == "PYC-MB" else 2),
            hovertemplate=_hover(name),
        ))
    fit_n, fit_k = points_n[: points_n.size - held_out], points_kappa[: points_kappa.size - held_out]
    fig.add_trace(go.Scatter(
        x=fit_n, y=fit_k, mode="markers", name="measured (fitted)",
        customdata=[n_label(v) for v in fit_n], hovertemplate=_hover("measured κ̂"),
        marker=dict(size=9, color="#1b1f24", line=dict(color="white", width=1)),
    ))
    if held_out:
        hn, hk = points_n[-held_out:], points_kappa[-held_out:]
        fig.add_trace(go.Scatter(
            x=hn, y=hk, mode="markers", name="measured (held out)", customdata=[n_label(v) for v in hn],
            hovertemplate=_hover("held-out κ̂"),
            marker=dict(size=11, color="white", symbol="diamond", line=dict(color="#1b1f24", width=2)),
        ))
    fig.add_trace(go.Scatter(
        x=[points_n.max()] * 2, y=[0, 1], mode="lines+text", showlegend=False, hoverinfo="skip",
        line=dict(color=MUTED, width=1.5, dash="dot"), text=["", " extrapolation →"], textposition="bottom right",
        textfont=dict(size=12, color="#3d4a57"),
    ))
    fig.update_layout(
        **base_layout(margin=dict(l=10, r=20, t=50, b=10)),
        height=440, legend=_legend(), hovermode="closest",
        xaxis=_n_axis(), yaxis=_share_axis("correctness κ(n)"),
    )
    return fig


def empty_figure(message: str) -> go.Figure:
    """A blank chart that says why it is blank (instead of an empty grid)."""
    fig = go.Figure()
    fig.update_layout(**base_layout(), height=300, xaxis=dict(visible=False), yaxis=dict(visible=False),
                      annotations=[dict(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                                        font=dict(size=15, color="#5b6672"))])
    return fig
