"""Pure figure builders: computed results → plotly Figures (no callbacks, no I/O)."""
