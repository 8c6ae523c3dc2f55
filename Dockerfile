# AnonSet: the dashboard under gunicorn (several workers, every country preloaded once).
#   docker build -t anonset .
#   docker run --rm -p 127.0.0.1:8050:8050 anonset
# Settings come from the environment: ANONSET_WORKERS, ANONSET_TIMEOUT, REDIS_URL, …
# (dashboard/settings.py).  Put several containers behind a reverse proxy (README, "Deploying").
# The server cache folder is the default, /tmp/anonset-<uid>/flask-cache, created 0700 by the anonset user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ANONSET_BIND=0.0.0.0:8050 \
    ANONSET_DATA_CACHE=/app/data_cache \
    FORWARDED_ALLOW_IPS=*

WORKDIR /app

# the package (editable, so dashboard/ finds assets/ and data_cache/ beside it) and the Redis client
COPY pyproject.toml README.md ./
COPY census_loaders/ census_loaders/
COPY dashboard/ dashboard/
COPY assets/ assets/
COPY data_cache/ data_cache/
RUN pip install -e . "redis>=5" \
 && useradd --system --uid 10001 --no-create-home anonset

USER anonset
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8050/healthz', timeout=4).status != 200)"]

CMD ["gunicorn", "-c", "dashboard/gunicorn_conf.py", "dashboard.wsgi:server"]
