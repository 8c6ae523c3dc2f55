"""Page logic without Dash: ids, defaults, parsing, render_* returning plain values (see COMMON rules)."""
