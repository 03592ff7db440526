# Vouch: `docker build -t vouch .` then `docker run --env-file .env -p 3000:3000 vouch`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/vouch

# Dependencies in their own layer: rebuilt only when pyproject.toml changes. Claude on
# Bedrock or Vertex needs its platform's client: `--build-arg EXTRAS=bedrock` (or vertex).
ARG EXTRAS=""
COPY pyproject.toml README.md ./
RUN mkdir app && touch app/__init__.py \
    && pip install ".${EXTRAS:+[$EXTRAS]}" \
    && pip uninstall --yes vouch \
    && rm -rf app

# The application itself.
COPY app ./app
RUN pip install --no-deps . \
    && useradd --system --uid 10001 --home-dir /srv/vouch --shell /usr/sbin/nologin vouch \
    && mkdir -p data \
    && chown vouch:vouch data

USER vouch
EXPOSE 3000

# HTTP mode: GET /healthz must answer 200 (503 while shutting down). Socket Mode has no
# HTTP server: the check passes while the process runs.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "app", "health"]

# SIGTERM (docker stop) shuts down gracefully within SHUTDOWN_GRACE; keep docker stop's
# timeout above it (docker stop --time, or stop_grace_period in compose).
STOPSIGNAL SIGTERM
CMD ["python", "-m", "app"]
