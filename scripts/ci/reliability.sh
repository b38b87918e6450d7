#!/usr/bin/env bash
# Reliability checks as CI runs them (from the repository root): soak (DURATION=20), the PostgreSQL and
# Redis outages, and shutdown under load, each against the production build on loopback. The fuzz suite
# (test/reliability) already ran in `make test`. Each driver starts its own PostgreSQL cluster and
# redis-server under RELIABILITY_RUN_ROOT and stops them on exit; the trap below is the backstop for a
# driver that was killed outright: it ends the processes whose pid files are under that directory, by id.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Debian's PostgreSQL server and redis-server, if this machine does not have them yet.
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || ! command -v redis-server >/dev/null; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null
fi

RELIABILITY_RUN_ROOT=$(mktemp -d /tmp/reliability-ci-XXXXXX)
export RELIABILITY_RUN_ROOT
chmod 755 "$RELIABILITY_RUN_ROOT" # the postgres user must reach its data directory below

cleanup() {
  local pidfile pid
  while IFS= read -r pidfile; do
    pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  done < <(find "$RELIABILITY_RUN_ROOT" -name '*.pid' -type f 2>/dev/null)
  rm -rf "$RELIABILITY_RUN_ROOT"
}
trap cleanup EXIT

[[ -d node_modules ]] || make install # CI ran `make test` before: installed already
npm run build
echo "== soak (20 s after a 30 s warm-up)"
DURATION=20 npx tsx scripts/reliability/soak.ts
echo "== database and Redis outages"
npx tsx scripts/reliability/faults.ts
echo "== shutdown under load"
npx tsx scripts/reliability/shutdown.ts
