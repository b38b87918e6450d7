#!/usr/bin/env bash
# CI: passkeys in a real browser (test/auth/passkeys-browser.test.ts) — headless Chromium from Debian with a
# virtual authenticator — on SQLite and on native PostgreSQL and MariaDB (as scripts/ci/databases.sh starts
# them). Chromium is installed when missing; with REQUIRE_CHROMIUM=1 the suite fails rather than skip without it.
set -euo pipefail
cd "$(dirname "$0")/../.."
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
"$chromium" --version

# shellcheck source=scripts/ci/lib/native-databases.sh
source scripts/ci/lib/native-databases.sh
trap native_db_stop EXIT
native_db_start
REQUIRE_CHROMIUM=1 CHROMIUM_PATH="$chromium" npx jest --runInBand test/auth/passkeys-browser.test.ts
