"""A whole deployment on loopback: nginx in front of several gunicorn instances sharing one Redis.

    python deploy/stack.py [--instances 2] [--port 8080] [--no-redis]

runs it in the foreground until Ctrl-C (the address is printed); the tests and
``benchmarks/slow_clients.py`` / ``benchmarks/load_test.py --url`` use :func:`local_stack`.
Everything comes from Debian packages (``nginx``, ``redis-server``) and this checkout: the
nginx configuration is ``deploy/nginx.conf.template`` rendered for 127.0.0.1, the instances
run ``gunicorn -c dashboard/gunicorn_conf.py dashboard.wsgi:server`` as a real deployment does.
Nothing listens beyond 127.0.0.1; every file (logs, temp bodies, the rendered configuration)
lives in one temporary folder removed at the end.
"""
from __future__ import annotations

import argparse
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
#: nginx's own error answers (the app never sees these requests)
PROXY_ERROR_TEXT = ("The request was refused before it reached AnonSet: it was malformed, too large or too slow.\n")
#: nginx's answer when no instance answers (502/504 after every retry)
PROXY_DOWN_TEXT = ("No AnonSet server is answering right now: every instance behind this address is down or not "
                   "responding. Nothing you sent was kept. Please try again in a minute.\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render(prefix: Path, listen: str, upstreams: list[str], worker_processes: int = 1,
           worker_connections: int = 1024) -> str:
    """The nginx configuration for ``upstreams`` (``host:port``), its files under ``prefix``."""
    servers = "\n".join(f"        server {u} max_fails=1 fail_timeout=10s;" for u in upstreams)
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, value in {"PREFIX": str(prefix), "LISTEN": listen, "UPSTREAM_SERVERS": servers,
                       "WORKER_PROCESSES": str(worker_processes),
                       "WORKER_CONNECTIONS": str(worker_connections)}.items():
        text = text.replace("{{" + key + "}}", value)
    if "{{" in text:
        raise ValueError(f"{TEMPLATE}: a placeholder was left unrendered")
    return text


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Instance:
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self, graceful: bool = True) -> None:
        """SIGTERM (gunicorn finishes its requests in flight) or SIGKILL of the master and its workers."""
        if graceful:
            _stop(self.proc)
        elif self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the instance's own session: master and workers
            self.proc.wait()


@dataclass
class Stack:
    url: str
    prefix: Path
    instances: list[Instance]
    redis_url: str | None
    nginx: subprocess.Popen
    procs: list[subprocess.Popen] = field(default_factory=list)

    @property
    def access_log(self) -> Path:
        return self.prefix / "access.log"

    @property
    def error_log(self) -> Path:
        return self.prefix / "error.log"


def _prepare_prefix(prefix: Path) -> None:
    """The folders nginx writes to; readable by its workers, which run as ``nobody`` under root."""
    (prefix / "static").mkdir(parents=True)
    (prefix / "static" / "_proxy_error.txt").write_text(PROXY_ERROR_TEXT, encoding="utf-8")
    (prefix / "static" / "_proxy_down.txt").write_text(PROXY_DOWN_TEXT, encoding="utf-8")
    temp_dirs = [prefix / d for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")]
    for d in temp_dirs:
        d.mkdir()
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        prefix.chmod(0o755)
        (prefix / "static").chmod(0o755)
        for d in temp_dirs:
            os.chown(d, nobody.pw_uid, nobody.pw_gid)


@contextmanager
def local_stack(instances: int = 2, redis: bool = True, port: int | None = None,
                workers_per_instance: int = 1, env: dict | None = None, root: Path = ROOT):
    """nginx on 127.0.0.1:``port`` in front of ``instances`` gunicorn instances and one Redis.

    Yields a :class:`Stack` once every instance answers ``/healthz`` and the proxy does too.
    """
    if not Path(NGINX).exists():
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
    with ExitStack() as stack:
        prefix = Path(tempfile.mkdtemp(prefix="anonset-stack-"))
        stack.callback(shutil.rmtree, prefix, True)
        _prepare_prefix(prefix)
        procs: list[subprocess.Popen] = []
        redis_url = None
        if redis:
            rport = free_port()
            rlog = prefix / "redis.log"
            rproc = subprocess.Popen([REDIS, "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--logfile", str(rlog)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            stack.callback(_stop, rproc)
            procs.append(rproc)
            redis_url = f"redis://127.0.0.1:{rport}/0"
        cache_dir = prefix / "flask-cache"
        cache_dir.mkdir(mode=0o700)
        started: list[Instance] = []
        for _ in range(instances):
            iport = free_port()
            log = prefix / f"gunicorn-{iport}.log"
            ienv = {**os.environ, "ANONSET_BIND": f"127.0.0.1:{iport}", "ANONSET_WORKERS": str(workers_per_instance),
                    "ANONSET_FLASK_CACHE_DIR": str(cache_dir), **(env or {})}
            if redis_url:
                ienv["REDIS_URL"] = redis_url
            with open(log, "w") as out:
                proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(root / "dashboard" / "gunicorn_conf.py"),
                                         "dashboard.wsgi:server"], cwd=root, env=ienv, stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True)
            stack.callback(_stop, proc)
            procs.append(proc)
            started.append(Instance(iport, proc, log))
        for inst in started:
            _wait_http(f"http://{inst.address}/healthz", inst.proc, inst.log)
        listen_port = port or free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(render(prefix, f"127.0.0.1:{listen_port}", [i.address for i in started]), encoding="utf-8")
        nlog = prefix / "nginx.out"
        with open(nlog, "w") as out:
            nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                                     stdout=out, stderr=subprocess.STDOUT)
        stack.callback(_stop, nginx, signal.SIGQUIT)
        url = f"http://127.0.0.1:{listen_port}"
        _wait_http(f"{url}/healthz", nginx, nlog, timeout=30)
        yield Stack(url, prefix, started, redis_url, nginx, procs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--workers", type=int, default=1, help="gunicorn workers per instance")
    ap.add_argument("--no-redis", action="store_true", help="share the cache folder instead of a Redis")
    args = ap.parse_args(argv)
    try:
        with local_stack(args.instances, redis=not args.no_redis, port=args.port,
                         workers_per_instance=args.workers) as st:
            print(f"AnonSet at {st.url}  (nginx → {', '.join(i.address for i in st.instances)}"
                  f"{'; Redis ' + st.redis_url if st.redis_url else ''}); logs in {st.prefix}; Ctrl-C stops")
            while all(p.poll() is None for p in [st.nginx, *st.procs]):
                time.sleep(1)
            print("a process of the stack stopped; shutting down", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
