#!/usr/bin/env bash
# The store contract suite (and the auth suites with passkeys in Chromium, natively) on real engines, as CI runs it (from the repository root, ../shared beside it):
#   1. natively: PostgreSQL and MariaDB from Debian's packages, started on 127.0.0.1 in a temp dir as
#      unprivileged users, reached through TEST_POSTGRES_URL / TEST_MYSQL_URL; stopped and removed after;
#   2. through testcontainers: the local Docker engine with the stand-in images
#      (POSTGRES_IMAGE=local/postgres:15, MYSQL_IMAGE=local/mysql:mariadb) via `make test-all-dbs`.
# MongoDB and SQL Server cannot be had on this machine: their suites print why they skip.
# Usage: scripts/ci/databases.sh [all|native|containers]   (default all)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${SHARED_DIR:-../shared}
mode=${1:-all}

# shellcheck source=scripts/ci/lib/native-databases.sh
source scripts/ci/lib/native-databases.sh
trap native_db_stop EXIT

# The test files under the given folders whose run depends on TEST_POSTGRES_URL / TEST_MYSQL_URL: those importing
# test/support/engines.ts (directly or through other support files) and those reading the URLs themselves. The
# others never open these engines (SQLite in memory, driver calls checked): they ran as they would here in make test.
engine_tests() {
  local folders
  folders=$(IFS='|'; echo "$*")
  { npx jest --listTests --findRelatedTests test/support/engines.ts; grep -rlE 'TEST_(POSTGRES|MYSQL)_URL' test --include='*.test.ts'; } \
    | sed "s#^$PWD/##" | grep -E "^test/($folders)/" | sort -u
}

run_native() {
  echo "== store contract on native PostgreSQL and MariaDB"
  native_db_start
  local stores auth
  mapfile -t stores < <(engine_tests stores service)
  mapfile -t auth < <(engine_tests auth)
  # A listing that failed would leave jest nothing to narrow by: make sure the two anchors are in it.
  printf '%s\n' "${stores[@]}" | grep -qx test/stores/store-contract.test.ts || { echo "databases.sh: the store contract is not among ${stores[*]}" >&2; exit 1; }
  printf '%s\n' "${auth[@]}" | grep -qx test/auth/passkeys-browser.test.ts || { echo "databases.sh: the passkeys browser suite is not among ${auth[*]}" >&2; exit 1; }
  # The contract suite, the connection tests and the loaded-packages check, against the native servers.
  npx jest --runInBand "${stores[@]}"
  # The auth layer on them too: password reset and email verification by mail, two-factor login, sign-in by
  # OIDC, and passkeys in headless Chromium (test/auth/passkeys-browser.test.ts), which must not skip here: this
  # run is CI's browser check on all three engines (scripts/ci/passkeys-browser.sh runs that suite alone).
  local chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
  if [ ! -x "$chromium" ]; then apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
  REQUIRE_CHROMIUM=1 CHROMIUM_PATH="$chromium" npx jest --runInBand "${auth[@]}"
  # The PostgreSQL driver's spans beneath the store span (OpenTelemetry tracing, docs/operations.md).
  npx jest --runInBand test/observability/tracing.test.ts -t 'PostgreSQL'
  native_db_stop
}

run_containers() {
  echo "== store contract through testcontainers (stand-in images)"
  "$shared/offline-images/docker-up.sh"
  "$shared/offline-images/build.sh" postgres mysql
  # The env URLs must not win here: the point is the container path.
  env -u TEST_POSTGRES_URL -u TEST_MYSQL_URL -u TEST_MSSQL_URL -u TEST_MONGO_URL \
    POSTGRES_IMAGE="${POSTGRES_IMAGE:-local/postgres:15}" \
    MYSQL_IMAGE="${MYSQL_IMAGE:-local/mysql:mariadb}" \
    TESTCONTAINERS_RYUK_DISABLED=true \
    make test-all-dbs
}

case $mode in
  native) run_native ;;
  containers) run_containers ;;
  all) run_native; run_containers ;;
  *) echo "usage: $0 [all|native|containers]" >&2; exit 2 ;;
esac
