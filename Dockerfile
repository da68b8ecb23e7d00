# The mahjong server: one node. Build with `docker build -t zjmahjong .`; see docker-compose.yml
# for two nodes with PostgreSQL, Redis and a one-shot migration.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/zjmahjong

# the project as pyproject.toml declares it (dependencies first, then the code)
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install .
# the client kit's modules, which the web router serves at /static/kit/ from beside app/
# (the browser client imports them: one copy, clients/js/src, for the page and the npm package)
COPY clients/js/src ./clients/js/src
# the migrations run from the source tree (app/store/migrate.py finds them next to app/)
COPY alembic.ini ./
COPY migrations ./migrations

RUN useradd --system --uid 10001 --home-dir /srv/zjmahjong --shell /usr/sbin/nologin mahjong
USER mahjong

# listen on every interface inside the container; migrations are a separate step; a
# container's files do not last, so JWT_SECRET must be given (the server refuses to start);
# the public port shows no API docs and no metrics: /metrics is on port 9100 only, for the
# monitoring network (never publish it)
ENV HOST=0.0.0.0 \
    PORT=8000 \
    MIGRATE_ON_START=false \
    LOG_FORMAT=json \
    REQUIRE_JWT_SECRET=true \
    API_DOCS=false \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9100
EXPOSE 8000 9100

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '8000'), timeout=2)" || exit 1

CMD ["python", "-m", "app"]
