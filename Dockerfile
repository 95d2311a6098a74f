# The Truco Uruguayo rules service: `truco serve`, gRPC on 50051, Connect/gRPC-Web/HTTP and the web table on 8080,
# Prometheus metrics on 9090 (/metrics), gRPC health checks alone on 50052.
#
#   docker build -t truco:0.3.0 .
#   docker run --rm -p 50051:50051 -p 8080:8080 -p 9090:9090 -v truco-data:/data --stop-timeout 30 truco:0.3.0
#
# How to run, scale out and deploy it: deploy/README.md.

# --- web: the web table (web/, TypeScript + Vite, on the TypeScript SDK of clients/ts) built into static files ---
FROM node:22-slim AS web

WORKDIR /src

# web/'s `npm ci` is all the build installs: vite.config.ts compiles the SDK from clients/ts/src itself, and
# reads the page's words from the tables' catalogues (the terminal client's package ships them).
COPY clients/ts/ clients/ts/
COPY clients/terminal/src/truco/terminal/catalogue/ clients/terminal/src/truco/terminal/catalogue/
COPY web/ web/

RUN npm --prefix web ci --no-audit --no-fund \
    && npm --prefix web run build \
    && test -f web/dist/index.html

# --- build: the project in a virtual environment, the engine and the bots compiled by mypyc ---------------------
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

# A C compiler, for this stage only: mypyc turns the engine and the bots into C extensions (the Python headers
# come with the base image). The runtime stage gets the compiled modules, which need only the C library.
# Unpinned on purpose: the versions are whatever the base image's Debian release ships.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Only the seven Python distributions (the .dockerignore keeps the rest, and build output and caches, out of the context).
COPY engine/ engine/
COPY wire/ wire/
COPY commandline/ commandline/
COPY server/ server/
COPY clients/ clients/

# TRUCO_COMPILED=1: the engine's and the bots' build backend (engine/_build/truco_build.py) compiles them with
# mypyc, and fails instead of quietly shipping pure Python if it cannot. Every other dependency ships manylinux
# wheels (grpcio, psycopg[binary]); nats-py (the server's nats extra, for --bus) is pure Python. pip
# byte-compiles the installed modules here, so the read-only root filesystem of the final image never needs to.
# The last two lines fail the build unless `truco` runs and every module of the engine and the bots is a
# compiled extension.
RUN python -m venv /opt/venv \
    && TRUCO_COMPILED=1 /opt/venv/bin/pip install --no-cache-dir ./engine ./clients/bots ./clients/python ./wire \
       ./commandline ./clients/terminal "./server[nats]" \
    && /opt/venv/bin/truco --version \
    && /opt/venv/bin/python -m truco.cli.builds --require compiled

# --- runtime: the virtual environment and the web table only, as a non-root user; no compiler --------------------
FROM python:3.11-slim

LABEL org.opencontainers.image.title="truco" \
      org.opencontainers.image.description="The authoritative Truco Uruguayo (truco con muestra) rules service" \
      org.opencontainers.image.licenses="MIT"

# A fixed numeric uid/gid so Kubernetes' runAsNonRoot can verify it and volumes can be owned by it.
RUN groupadd --system --gid 10001 truco \
    && useradd --system --uid 10001 --gid truco --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin truco \
    && mkdir /data \
    && chown truco:truco /data

COPY --from=build /opt/venv /opt/venv
COPY --from=web /src/web/dist /opt/truco/web

# TRUCO_WEB_ASSETS: the web table `truco serve --web-port` serves at / (the default of --web-assets).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TRUCO_WEB_ASSETS=/opt/truco/web \
    TRUCO_HEALTHCHECK_ADDR=127.0.0.1:50052

# The SQLite store of a single replica (the default below); scaled out, --store points at PostgreSQL instead.
# The working directory too, so the server's own relative default (sqlite:///truco.db) also lands there.
VOLUME ["/data"]
WORKDIR /data

USER 10001:10001

# 50051 gRPC; 8080 Connect, gRPC-Web and gRPC over HTTP/1.1 and HTTP/2 (browsers, curl) and the web table at /;
# 9090 Prometheus metrics. Not 50052, the health port: the HEALTHCHECK below calls it from inside the container,
# and an orchestrator's probe needs no EXPOSE, while `docker run -P` would publish it to every client. Publish it
# with `-p 50052:50052` if a checker outside the container needs it.
EXPOSE 50051 8080 9090

# grpc.health.v1 Check of the overall service (""), on the health port (--health-port), which no client traffic
# can fill: NOT_SERVING while the store is unreachable or while shutting down. Set TRUCO_HEALTHCHECK_ADDR when the
# server is started on another --health-port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, grpc; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; channel = grpc.insecure_channel(os.environ.get('TRUCO_HEALTHCHECK_ADDR', '127.0.0.1:50052')); reply = g.HealthStub(channel).Check(h.HealthCheckRequest(service=''), timeout=4); sys.exit(0 if reply.status == h.HealthCheckResponse.SERVING else 1)"]

# SIGTERM starts the graceful shutdown (in-flight calls get up to 20 s): stop with a timeout above that,
# `docker stop -t 30` / `docker run --stop-timeout 30` (Docker's default is 10 s).
STOPSIGNAL SIGTERM

# A page served from another origin that calls the web port needs that origin allowed: add
# `--cors-origin https://app.example.com` (repeatable) to the arguments. The web table at / needs nothing.
ENTRYPOINT ["truco", "serve"]
CMD ["--store", "sqlite:////data/truco.db", "--port", "50051", "--web-port", "8080", "--metrics-port", "9090", \
     "--health-port", "50052"]
