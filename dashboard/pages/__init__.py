"""The pages: one module each, imported by Dash (as ``pages.<name>``) when the app is created — never import them directly."""
