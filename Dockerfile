# The Truco Uruguayo rules service: `truco serve`, gRPC on 50051, Prometheus metrics on 9090 (/metrics).
#
#   docker build -t truco:0.1.0 .
#   docker run --rm -p 50051:50051 -p 9090:9090 -v truco-data:/data --stop-timeout 30 truco:0.1.0
#
# How to run, scale out and deploy it: deploy/README.md.

# --- build: install the project and its dependencies into a virtual environment -----------------------------
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# Only the four distributions (the .dockerignore keeps the rest, and caches, out of the context).
COPY engine/ engine/
COPY server/ server/
COPY clients/ clients/

# Every dependency ships manylinux wheels (grpcio, psycopg[binary]): no compiler needed. pip byte-compiles
# the installed modules here, so the read-only root filesystem of the final image never needs to.
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir ./engine ./clients/bots ./clients/python ./server \
    && /opt/venv/bin/truco --version

# --- runtime: the virtual environment only, as a non-root user ----------------------------------------------
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

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TRUCO_HEALTHCHECK_ADDR=127.0.0.1:50051

# The SQLite store of a single replica (the default below); scaled out, --store points at PostgreSQL instead.
# The working directory too, so the server's own relative default (sqlite:///truco.db) also lands there.
VOLUME ["/data"]
WORKDIR /data

USER 10001:10001

EXPOSE 50051 9090

# grpc.health.v1 Check of the overall service (""): NOT_SERVING while the store is unreachable or while
# shutting down. Set TRUCO_HEALTHCHECK_ADDR when the server is started on another --port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, grpc; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; channel = grpc.insecure_channel(os.environ.get('TRUCO_HEALTHCHECK_ADDR', '127.0.0.1:50051')); reply = g.HealthStub(channel).Check(h.HealthCheckRequest(service=''), timeout=4); sys.exit(0 if reply.status == h.HealthCheckResponse.SERVING else 1)"]

# SIGTERM starts the graceful shutdown (in-flight calls get up to 20 s): stop with a timeout above that,
# `docker stop -t 30` / `docker run --stop-timeout 30` (Docker's default is 10 s).
STOPSIGNAL SIGTERM

ENTRYPOINT ["truco", "serve"]
CMD ["--store", "sqlite:////data/truco.db", "--port", "50051", "--metrics-port", "9090"]
