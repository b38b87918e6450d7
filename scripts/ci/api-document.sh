#!/usr/bin/env bash
# The API document as client developers' tools read it (docs/api-clients.md), with tools nobody here wrote,
# pinned in tools/api, on a scratch copy of the repository holding a generated module (notes), so that a
# module's operations are judged too:
#  - Spectral (OpenAPI + OWASP API Security rulesets) and Redocly (recommended-strict) report nothing beyond
#    the rules their rulesets turn off with a reason;
#  - a client generated with openapi-typescript type-checks under `tsc --strict` with openapi-fetch;
#  - the client flow (tools/api/client-flow.ts) drives the real service through Prism's validating proxy:
#    register, login, me, the module's CRUD, 401/403/404/409/413/415/422/429/503, admin, refresh, logout;
#    every answer is checked against the document by the flow and by Prism.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
npm ci --prefix tools/api --no-audit --no-fund >/dev/null

scratch=$(mktemp -d /tmp/api-document.XXXXXX)
service=
proxy=
cleanup() {
  [ -z "$proxy" ] || kill "$proxy" 2>/dev/null || true
  [ -z "$service" ] || kill "$service" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
git ls-files -z | xargs -0 cp --parents -t "$scratch"
ln -s "$repo/node_modules" "$scratch/node_modules"
ln -s "$repo/tools/api/node_modules" "$scratch/tools/api/node_modules"
cd "$scratch"
npm run --silent new:module -- notes title:string pinned:boolean? --unique title --filter pinned --sort title >/dev/null

(
  cd tools/api
  npx --no-install spectral lint ../../openapi.json --ruleset .spectral.yaml --fail-severity=hint
  npx --no-install redocly lint ../../openapi.json --config redocly.yaml
)
npm run --silent client
tools/api/node_modules/.bin/tsc -p tools/api/tsconfig.json
echo "api-document: the generated client type-checks strictly"

npm run --silent build
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'; }
port=$(free_port)
proxy_port=$(free_port)
database="$scratch/flow.sqlite"
export NODE_ENV=development HOST=127.0.0.1 DATABASE_URL="sqlite:$database" USER_STORE=database AUTH_REGISTRATION=true \
  AUTH_RATE_LIMIT_MAX=30 DATABASE_TIMEOUT=2s LOG_LEVEL=warn MFA_ENCRYPTION_KEY=api-document-flow-key-0123456789abcdef0123
export ADMIN_EMAIL=flow-admin@example.com ADMIN_PASSWORD='flow admin harbour lantern 42'
node dist/cli/db-migrate.js >/dev/null 2>&1 || true
printf '%s' "$ADMIN_PASSWORD" | node dist/cli/user-create.js --email "$ADMIN_EMAIL" --role admin >/dev/null
PORT="$port" node dist/server.js >"$scratch/service.log" 2>&1 &
service=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break; sleep 0.2; done
tools/api/node_modules/.bin/prism proxy openapi.json "http://127.0.0.1:$port" --host 127.0.0.1 --port "$proxy_port" >"$scratch/prism.log" 2>&1 &
proxy=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$proxy_port/" && break; sleep 0.2; done
API_DOCUMENT="$scratch/openapi.json" FLOW_SQLITE_FILE="$database" node tools/api/client-flow.ts "http://127.0.0.1:$proxy_port"
