"""``anonset serve``: the dashboard on 127.0.0.1:8050 through gunicorn, the production server.

One command for a laptop or a lecture hall: the same gunicorn set-up as a deployment
(``dashboard/gunicorn_conf.py``: preloaded, warm workers) without an access log (a
speaker's terminal stays quiet) and without Flask's development-server warning.
``--dev`` runs Flask's development server instead, for debugging.

Before anything binds the port it refuses, with one line per problem and exit code 1, a damaged
data cache (a file whose sha256 differs from the manifest's, a missing file, an unreadable
manifest: the lines of ``anonset data summary``) and a cache folder that is not private.
"""
from __future__ import annotations

from pathlib import Path

#: The deployment's gunicorn configuration, read by ``anonset serve`` too.
GUNICORN_CONF = Path(__file__).resolve().parent.parent / "gunicorn_conf.py"


def run_production(host: str, port: int, workers: int) -> None:
    """Serve ``dashboard.wsgi:server`` with gunicorn (blocks until stopped)."""
    from gunicorn.app.base import Application

    class _AnonsetServer(Application):
        def init(self, parser, opts, args):  # no command line of its own: anonset parsed it
            return None

        def load_config(self):
            self.load_config_from_file(str(GUNICORN_CONF))
            self.cfg.set("bind", [f"{host}:{port}"])
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", None)

        def load(self):  # the app is built here, in gunicorn's master (preload_app), not when the CLI starts
            from dashboard.wsgi import server

            return server

    _AnonsetServer().run()


def refusal(settings) -> list[str]:
    """Why the server must not start (one line each): a damaged data cache, or a cache folder that is not private."""
    from .data import damage

    lines = damage()
    if lines:
        return lines
    if settings.cache_type == "FileSystemCache":
        from dashboard.server import cache_folder

        try:
            cache_folder.prepare(settings.cache_dir)
        except cache_folder.StartRefused as exc:
            return exc.lines
    return []


def _serve(args) -> int:
    from dashboard.settings import load

    from . import CliError
    from .data import report_damage

    try:
        settings = load()  # ANONSET_HOST / ANONSET_PORT, unless the command line says otherwise
    except ValueError as exc:  # a malformed ANONSET_* variable: one line, not a traceback
        raise CliError(str(exc)) from None
    lines = refusal(settings)  # before gunicorn (or Flask) binds the port
    if lines:
        return report_damage(lines)
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"AnonSet on http://{host}:{port}/ (Ctrl+C to stop)", flush=True)
    if args.dev:
        from dashboard.app import create_app  # Dash and the pages load only for this command
        from dashboard.server.preflight import StartRefused

        try:
            app = create_app(settings)
        except StartRefused as exc:
            return report_damage(exc.lines)
        app.run(host=host, port=port, debug=False)
    else:
        run_production(host, port, settings.workers)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="start the dashboard (gunicorn, as deployed)")
    p.add_argument("--host", default=None, help="address to listen on (default: ANONSET_HOST, else 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: ANONSET_PORT, else 8050)")
    p.add_argument("--dev", action="store_true", help="Flask's development server instead (debugging only)")
    p.set_defaults(func=_serve)
