"""``anonset serve``: the development server on 127.0.0.1:8050 (gunicorn for deployment)."""
from __future__ import annotations


def _serve(args) -> int:
    from dashboard.settings import load

    from . import CliError

    try:
        settings = load()  # ANONSET_HOST / ANONSET_PORT, unless the command line says otherwise
    except ValueError as exc:  # a malformed ANONSET_* variable: one line, not a traceback
        raise CliError(str(exc)) from None
    host = args.host or settings.host
    port = args.port or settings.port
    from dashboard.app import app

    print(f"AnonSet on http://{host}:{port}/ (Ctrl+C to stop)", flush=True)
    app.run(host=host, port=port, debug=False)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="start the dashboard (development server)")
    p.add_argument("--host", default=None, help="address to listen on (default: ANONSET_HOST, else 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: ANONSET_PORT, else 8050)")
    p.set_defaults(func=_serve)
