"""``anonset serve``: the development server on 127.0.0.1:8050 (gunicorn for deployment)."""
from __future__ import annotations

import os


def _serve(args) -> int:
    os.environ.setdefault("ANONSET_HOST", args.host)
    os.environ.setdefault("ANONSET_PORT", str(args.port))
    from dashboard.app import app

    print(f"AnonSet on http://{args.host}:{args.port}/ (Ctrl+C to stop)", flush=True)
    app.run(host=args.host, port=args.port, debug=False)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="start the dashboard (development server)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8050, help="port (default 8050)")
    p.set_defaults(func=_serve)
