#!/usr/bin/env bash
# CI (from scripts/ci/docker.sh): the Compose `oidc` profile for real. Its development provider's image is
# built (dev/oidc-provider) unless OIDC_DEV_IMAGE names one, the postgres and oidc profiles are up with OIDC_PROVIDERS=dev,
# and scripts/ci/oidc-profile-signin.ts signs in through the provider as a browser would and checks the
# session it gets. Everything is removed afterwards. APP_IMAGE must exist already; build flags (e.g.
# `--network host` on a machine that reaches the registry only through the host) come in DOCKER_BUILD_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/../.."
project=koa-oidc-$$
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'; }
# The provider's image: the caller's (kept), or one built here for this run (removed after it).
built_image=
if [ -z "${OIDC_DEV_IMAGE:-}" ]; then
  built_image=koa-api-service-oidc-dev:ci-$$
  OIDC_DEV_IMAGE=$built_image
fi
export APP_PORT OIDC_DEV_PORT OIDC_DEV_IMAGE
APP_PORT=$(free_port)
OIDC_DEV_PORT=$(free_port)
export OIDC_PROVIDERS=dev PUBLIC_URL="http://localhost:$APP_PORT" USER_STORE=database
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi
read -r -a compose_cli <<<"$COMPOSE"
compose=("${compose_cli[@]}" -p "$project" --profile postgres --profile oidc)
# shellcheck disable=SC2317 # called by the EXIT trap
down() {
  local status=$?
  [ "$status" = 0 ] || "${compose[@]}" logs --no-color --tail 30 >&2 || true
  "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  [ -z "$built_image" ] || docker image rm "$built_image" >/dev/null 2>&1 || true
  exit "$status"
}
trap down EXIT

read -r -a build_flags <<<"${DOCKER_BUILD_FLAGS:-}"
[ -z "$built_image" ] || docker build -q "${build_flags[@]}" -t "$built_image" dev/oidc-provider >/dev/null
"${compose[@]}" up -d --no-build
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$APP_PORT/health/ready" >/dev/null && break; sleep 1; done
APP_URL="http://127.0.0.1:$APP_PORT" npx tsx scripts/ci/oidc-profile-signin.ts
