"""The one exception the core raises for bad user input.

Pages show its message inline and the CLI prints it as one line; anything else
escaping the core is a bug.
"""


class InputError(ValueError):
    """Input that cannot give a meaningful number, with a message for the user."""
