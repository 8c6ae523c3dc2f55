"""Pure figure builders: computed results → plain figure dicts in plotly.js's schema (no callbacks, no I/O).

Columns are numpy arrays; no ``go.Figure`` is built per response (tests validate the dicts with it).
"""
