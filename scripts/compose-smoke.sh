#!/usr/bin/env bash
# Brings up one docker-compose profile for real, smoke-tests the app in it, and tears it down (volumes too).
#
#   scripts/compose-smoke.sh DB [EXTRA_PROFILE...]      e.g. postgres, or: mysql redis
#
# Runs as its own Compose project (koa-api-smoke-DB) on a random loopback port, so it never touches a stack
# started with `make up`. The app image must exist already (make image); image names come from the
# environment as usual (APP_IMAGE, POSTGRES_IMAGE, MYSQL_IMAGE, ...). With the redis profile, REDIS_URL
# points the app at it. COMPOSE picks the client (default: `docker compose` if present, else docker-compose).
set -euo pipefail
cd "$(dirname "$0")/.."

db=${1:?usage: compose-smoke.sh DB [EXTRA_PROFILE...]}
shift
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi
read -r -a compose <<<"$COMPOSE"
project=koa-api-smoke-$db
args=(-p "$project" --profile "$db")
for extra in "$@"; do
  args+=(--profile "$extra")
  if [ "$extra" = redis ]; then export REDIS_URL=redis://redis:6379; fi
done
export APP_PORT=0 # a free port, read back with `port` below

down() {
  local status=$?
  if [ "$status" != 0 ]; then
    echo "compose-smoke: $db failed; last logs:" >&2
    "${compose[@]}" "${args[@]}" logs --no-color --tail 40 >&2 || true
  fi
  "${compose[@]}" "${args[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  exit "$status"
}
trap down EXIT

echo "compose-smoke: ${COMPOSE} --profile $db${*:+ (+ $*)} up -d"
"${compose[@]}" "${args[@]}" up -d --no-build

address=""
for _ in $(seq 1 30); do
  address=$("${compose[@]}" "${args[@]}" port "app-$db" 3000 2>/dev/null | tail -n 1 || true)
  case $address in *:[1-9]*) break ;; esac
  sleep 2
done
port=${address##*:}
if [ -z "$port" ] || [ "$port" = 0 ]; then
  echo "compose-smoke: app-$db has no published port" >&2
  exit 1
fi

# The database's first start (initdb, MySQL's init) plus the app's connect retries: allow a few minutes.
SMOKE_WAIT=${SMOKE_WAIT:-240} scripts/smoke-test.sh "http://127.0.0.1:$port"

# The app really used this profile's database, and Redis when asked: not SQLite or memory by mistake.
case $db in mongo) engine=mongodb ;; *) engine=$db ;; esac
# (Logs captured first: `logs | grep -q` would fail under pipefail when grep stops reading early.)
app_logs=$("${compose[@]}" "${args[@]}" logs --no-color "app-$db")
if ! grep -q "\"engine\":\"$engine\"" <<<"$app_logs"; then
  echo "compose-smoke: app-$db did not log a connection to $engine" >&2
  exit 1
fi
echo "compose-smoke: app-$db is connected to $engine"
for extra in "$@"; do
  if [ "$extra" = redis ]; then
    keys=$("${compose[@]}" "${args[@]}" exec -T redis redis-cli dbsize | tr -dc '0-9')
    if [ "${keys:-0}" -lt 1 ]; then
      echo "compose-smoke: Redis holds no rate-limit counter after the auth requests" >&2
      exit 1
    fi
    echo "compose-smoke: rate-limit counters are in Redis ($keys keys)"
  fi
done
echo "compose-smoke: profile $db${*:+ + $*} passed"
