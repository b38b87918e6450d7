#!/usr/bin/env bash
# `make test-image`: runs the built image the way production would (NODE_ENV=production from the image,
# secrets from the environment, no .env), then checks:
#   - what is inside: non-root user, no dev dependencies, no sources, the OCI labels;
#   - the HEALTHCHECK turns the container healthy;
#   - the smoke test (GET /, login, refresh, logout) passes against the container;
#   - graceful shutdown: `docker stop` (SIGTERM to node as PID 1) ends it with exit code 0, well before the
#     SIGKILL deadline, with the service's "stopped" log line.
#
#   IMAGE=koa-api-service:local scripts/test-image.sh
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-koa-api-service:local}
name=koa-api-test-$$
work=$(mktemp -d)
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "test-image: FAIL: $*" >&2
  docker logs --tail 50 "$name" >&2 2>&1 || true
  exit 1
}

echo "test-image: $image, $(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1000000}')"

# --- contents --------------------------------------------------------------------------------------------
uid=$(docker run --rm "$image" id -u)
[ "$uid" != 0 ] || fail "runs as root"
docker run --rm "$image" node -e "require.resolve('typescript')" >/dev/null 2>&1 && fail "dev dependencies in the image"
docker run --rm "$image" sh -c 'for tool in g++ gcc make python3 tsc; do command -v "$tool" && exit 1; done; test ! -e /app/test && test ! -e /app/tsconfig.json' >/dev/null || fail "build tools, tests or sources in the final stage"
docker run --rm "$image" sh -c 'test ! -e /app/src && test ! -e /app/.env && test -f /app/dist/server.js' || fail "unexpected files in /app"
docker run --rm "$image" sh -c 'touch /app/data/probe && ! touch /app/dist/probe 2>/dev/null' || fail "/app/data must be the only writable app path"
[ "$(docker image inspect -f '{{index .Config.Labels "org.opencontainers.image.title"}}' "$image")" = koa-api-service ] || fail "OCI labels missing"
echo "test-image: runs as uid $uid, production dependencies only, dist/ without sources, OCI labels"

# --- run it ----------------------------------------------------------------------------------------------
# Secrets through an env file (mode 600), not the command line, where `ps` would show them.
secret() { head -c 48 /dev/urandom | base64 | tr -d '\n/+='; }
# Production refuses the documented demo password: the demo user gets a fresh one, handed to the smoke test.
demo_password=$(secret)
printf 'JWT_SECRET=%s\nREFRESH_TOKEN_SECRET=%s\nDEMO_USER_PASSWORD=%s\n' "$(secret)" "$(secret)" "$demo_password" >"$work/env"
chmod 600 "$work/env"
# --health-interval only speeds up the image's own HEALTHCHECK for the test.
docker run -d --name "$name" --env-file "$work/env" --health-interval 2s -p 127.0.0.1::3000 "$image" >/dev/null
port=$(docker port "$name" 3000/tcp | head -n 1 | sed 's/.*://')
[ -n "$port" ] || fail "no published port"

for _ in $(seq 1 60); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$name")
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || fail "container exited"
  sleep 1
done
[ "$health" = healthy ] || fail "HEALTHCHECK status is '$health' after 60s"
echo "test-image: HEALTHCHECK healthy"

SMOKE_PASSWORD=$demo_password scripts/smoke-test.sh "http://127.0.0.1:$port"

# --- graceful stop -----------------------------------------------------------------------------------------
started=$SECONDS
docker stop -t 30 "$name" >/dev/null
took=$((SECONDS - started))
code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "exit code $code after docker stop (137 means SIGTERM was not handled)"
docker logs "$name" >"$work/logs" 2>&1
grep -q '"msg":"stopped"' "$work/logs" || fail "no 'stopped' log line after SIGTERM"
echo "test-image: docker stop -> exit 0 in ${took}s (graceful shutdown)"
echo "test-image: passed"
