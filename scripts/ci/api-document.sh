#!/usr/bin/env bash
# The API document as client developers' tools read it (docs/api-clients.md), with tools nobody here wrote,
# pinned in tools/api: Spectral (OpenAPI + OWASP API Security rulesets) and Redocly (recommended-strict)
# report nothing beyond the rules their rulesets turn off with a reason; a client generated with
# openapi-typescript type-checks under `tsc --strict` with openapi-fetch, and drives the real service
# (register, login, me, a 403, a 422, refresh, logout, a refused refresh), every answer checked against the document.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm ci --prefix tools/api --no-audit --no-fund >/dev/null
(
  cd tools/api
  npx --no-install spectral lint ../../openapi.json --ruleset .spectral.yaml --fail-severity=hint
  npx --no-install redocly lint ../../openapi.json --config redocly.yaml
)
npm run --silent client
tools/api/node_modules/.bin/tsc -p tools/api/tsconfig.json
echo "api-document: the generated client type-checks strictly"

npm run --silent build
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
log=$(mktemp)
NODE_ENV=development HOST=127.0.0.1 PORT="$port" DATABASE_URL='sqlite::memory:' USER_STORE=database AUTH_REGISTRATION=true LOG_LEVEL=warn \
  node dist/server.js >"$log" 2>&1 &
service=$!
trap 'kill "$service" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break; sleep 0.2; done
node tools/api/client-flow.ts "http://127.0.0.1:$port"
