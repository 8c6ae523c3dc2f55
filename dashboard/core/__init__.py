"""Pure computation: no Dash import anywhere below this package."""
