# The mahjong server: one node. Build with
#   docker build --build-arg BUILD_COMMIT="$(git rev-parse HEAD)" -t zjmahjong .
# see docker-compose.yml for several nodes with PostgreSQL, Redis and a one-shot migration.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/zjmahjong

# the locked dependencies first, in layers of their own: a change to the code does not
# rebuild them. Every file is checked against the lock's sha256 and none is built from
# source (requirements/compile.sh regenerates the locks from pyproject.toml)
COPY requirements/build.txt requirements/runtime.txt ./requirements/
RUN pip install --no-cache-dir --require-hashes --only-binary :all: -r requirements/build.txt \
    && pip install --no-cache-dir --require-hashes --only-binary :all: -r requirements/runtime.txt

# the project itself, over those dependencies (--no-deps: nothing unlocked comes in)
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --no-cache-dir --no-deps --no-build-isolation .
# the client kit's modules, which the web router serves at /static/kit/ from beside app/
# (the browser client imports them: one copy, clients/js/src, for the page and the npm package)
COPY clients/js/src ./clients/js/src
# the migrations run from the source tree (app/store/migrate.py finds them next to app/)
COPY alembic.ini ./
COPY migrations ./migrations

# a numeric user and group, so that Kubernetes' runAsNonRoot can tell it is not root
RUN groupadd --system --gid 10001 mahjong \
    && useradd --system --uid 10001 --gid 10001 --home-dir /srv/zjmahjong \
        --shell /usr/sbin/nologin mahjong
USER 10001:10001

# listen on every interface inside the container; migrations are a separate step; a
# container's files do not last, so JWT_SECRET must be given (the server refuses to start);
# the public port shows no API docs and no metrics: /metrics is on port 9100 only, for the
# monitoring network (never publish it). REQUIRE_JWT_SECRET holds no secret: it makes the
# server refuse to start without one.
# hadolint ignore=DL3064
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
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '8000'), timeout=2)"]

# the commit the image was built from (the metrics' mahjong_build_info, the OCI revision);
# last, so that a new commit rebuilds no layer above
ARG BUILD_COMMIT=unknown
LABEL org.opencontainers.image.title="zjmahjong" \
      org.opencontainers.image.description="An open online mahjong server for the rules of Zhejiang and Fujian" \
      org.opencontainers.image.licenses="AGPL-3.0-or-later" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${BUILD_COMMIT}"
ENV BUILD_COMMIT=${BUILD_COMMIT}

CMD ["python", "-m", "app"]
